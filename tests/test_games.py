"""Whole games between seats over a real relay on loopback, and the discard-bot CLI."""

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from discard_tui import verify
from games.discard.strategy import simple
from processes import finish, run_bot
from tabletop.values import Phase


@pytest.mark.parametrize("deck", ["full", "short"])
async def test_two_seats_finish_a_fair_game(players, deck, tmp_path):
    pair = await players(f"game-{deck}", [simple(1), simple(2)], options={"deck": deck}, transcript_dir=tmp_path)
    games = await pair.next_games()
    assert games == [1, 1], [s.table.problem for s in pair.seats]
    tables = [s.table for s in pair.seats]
    for table in tables:
        assert table.phase is Phase.OVER and table.play.verdict == []
        assert table.play.deck.size == (52 if deck == "full" else 24)
    assert tables[0].play.outcome == tables[1].play.outcome
    assert tables[0].play.moves == tables[1].play.moves  # both folded the same game
    board = tables[0].view().board
    assert board.draw_pile + sum(board.hand_sizes) + board.discard_count == board.deck_size
    view = tables[0].view()
    assert view.result in ("win", "loss") and view.verdict.fair
    assert len(list(tmp_path.glob("*.json"))) == 2  # a fair game leaves a transcript per seat too


async def test_rematch_new_keys_and_loser_starts(players):
    pair = await players("rematch", [simple(1), simple(2)], options={"deck": "short"})
    await pair.next_games()
    first = pair.seats[0].table.play
    loser = 1 - first.outcome.winners[0]
    assert await asyncio.gather(*(s.rematch() for s in pair.seats)) == [None, None]
    assert await pair.next_games() == [2, 2]
    for seat in pair.seats:
        second = seat.table.play
        assert second.number == 2 and second.verdict == [] and second.starter == loser
    second = pair.seats[0].table.play
    assert second.deck.final != first.deck.final  # a new shuffle under new keys
    assert first.hellos[0].verify_key != second.hellos[0].verify_key  # a fresh identity per game
    assert pair.seats[0].table.view().wins == pair.seats[1].table.view().wins


async def test_rematch_is_refused_mid_game(players):
    pair = await players("early-rematch", [simple(1), simple(2)], options={"deck": "short"})
    assert await pair.seats[0].rematch() == "a rematch can start once this game is over"
    await pair.next_games()
    assert await pair.seats[0].rematch() is None
    assert await pair.seats[0].rematch() == "a rematch is already requested"


async def test_bot_cli_prints_one_json_line_per_game(relay_url):
    bots = [run_bot(relay_url, "cli", "--name", name, "--games", "2", "--deck", "short", "--json")
            for name in ("a", "b")]
    for code, out, err in await asyncio.gather(*(finish(b) for b in bots)):
        assert code == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert [line["game"] for line in lines] == [1, 2]
        for line in lines:
            assert set(line) == {"game", "result", "audit", "deck", "shuffle_s", "shuffle_cpu_s", "game_s", "moves",
                                 "players", "scores", "match", "transcript"}
            assert line["audit"] == "fair" and line["deck"] == 24 and line["result"] in ("win", "loss")
            assert 0 < line["shuffle_s"] <= line["game_s"] and line["moves"] > 0
            assert line["players"] == 2 and len(line["scores"]) == 2
            assert set(line["match"]) == {"a", "b"} and sum(line["match"].values()) == line["game"]
            assert verify.verify(Path(line["transcript"]))[0] == verify.FINE  # discard-verify accepts it


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_bot_stopped_by_a_signal_exits_quietly(relay_server, eventually, sig):
    relay, url = relay_server
    room = f"signal-{sig}"
    waiting = run_bot(url, room, "--name", "a")
    try:
        await eventually(lambda: room in relay.ledger.rooms, "the bot to take its seat")
        waiting.send_signal(sig)
        code, out, err = await finish(waiting)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert (code, out, err) == (128 + sig, "", "")


def test_bot_unreachable_relay_is_one_line():
    result = subprocess.run([sys.executable, "-m", "discard_tui.bot", "--relay", "ws://127.0.0.1:9", "--room", "x"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cannot reach the relay at ws://127.0.0.1:9" in result.stderr


def test_bot_bad_flag_is_one_line():
    result = subprocess.run([sys.executable, "-m", "discard_tui.bot", "--relay", "ws://x", "--room", "r", "--deck", "huge"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("flags", [["--seats", "9"], ["--name", "a\tb"]])
def test_bot_flags_checked_after_parsing_are_one_line_too(flags, capsys):
    """Refused by main before it starts anything (the command's own output is checked above)."""
    from discard_tui import bot

    with pytest.raises(SystemExit) as stop:
        bot.main(["--relay", "ws://x", "--room", "r", *flags])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("discard-bot: "), err


async def test_bot_gives_up_on_a_silent_opponent(relay_url):
    code, _, err = await finish(run_bot(relay_url, "lonely", "--timeout", "0.5"))
    assert code == 1
    assert err.strip() == "discard-bot: nobody came to play in room lonely (waited 0.5 s); run the same command to resume"


async def test_two_bots_with_one_name_keep_their_own_seats(relay_url, data_dir):
    """Same --name, same room: each keeps its own seat file instead of resuming the other's seat."""
    bots = [run_bot(relay_url, "twins", "--name", "twin", "--deck", "short", "--json", "--seed", str(i))
            for i in (1, 2)]
    results = await asyncio.gather(*(finish(b) for b in bots))
    for code, out, err in results:
        assert code == 0, err
        [line] = [json.loads(text) for text in out.splitlines()]
        assert line["audit"] == "fair"
    assert sorted(json.loads(out)["result"] for _, out, _ in results) == ["loss", "win"]
    assert not list((data_dir / "games").glob("*.json"))  # both finished: both files gone


def test_a_bot_plays_the_game_of_the_room_it_joins_not_its_own_default():
    """discard-bot without --game (discard) joined a Hold'em room and never moved: its strategy was discard's
    computer, which has nothing to say to a Hold'em table, so its clock ran out every hand."""
    from discard_tui.bot import room_computer
    from room import Room

    room = Room(game="holdem", options={"hands": 2})
    room.strategies = {seat: room_computer(seat) for seat in range(2)}
    room.run()
    assert room.violations == {}
    assert all(table.play.outcome is not None for table in room.tables)



async def test_a_bot_whose_relay_lost_the_room_mid_game_names_the_transcript_so_far(relay_server, data_dir,
                                                                                     eventually):
    """The relay forgot the room mid-game (restarted without --store): the bot's line said only that the relay
    refused to seat it, and nothing kept the game so far, which was then nowhere. Now the transcript is written and
    the line names it, as for a violation; discard-verify calls the game unfinished, everything up to there
    checked."""
    from arena import start_players
    from conftest import drop_connections
    from discard_tui import bot
    from discard_tui.config import PlayConfig
    from discard_tui.profile import terminal_profile

    relay, url = relay_server
    players = await start_players(url, "forgotten", [None], seats=2, options={"deck": "short"})  # bo never moves
    bo = players.seats[0].table
    args = bot.parser().parse_args(["--relay", url, "--room", "forgotten", "--deck", "short"])
    config = PlayConfig(relay=url, room="forgotten", name="bot", options={"deck": "short"})
    playing = asyncio.create_task(bot.play(args, config, bot.room_computer(1), terminal_profile()))
    try:
        await eventually(lambda: bo.phase is Phase.PLAYING and not bo.awaiting(), "bo's move to be awaited")
        relay.ledger.rooms.clear()  # what a restart without --store leaves: no room, no token...
        drop_connections(relay, "forgotten")  # ...and every connection cut
        failure = await asyncio.wait_for(playing, 30)
    finally:
        await players.stop()
    assert failure is not None and failure.startswith("the relay refused to seat us in room forgotten"), failure
    path = failure.rpartition(" (transcript: ")[2].removesuffix(")")
    status, [line] = verify.verify(Path(path))
    assert status == verify.UNFINISHED and "everything up to there checked out" in line, line


async def test_a_seat_giving_up_on_a_relay_out_of_reach_says_so_and_keeps_the_game_so_far(tmp_path, eventually):
    """A relay stopped for good mid-game: discard-bot gave up after --timeout blaming the other player's silence
    ("bo never made their move"), which the relay's own silence caused. It now says the relay has not answered,
    and the transcript of the game so far is written for its line to name."""
    from arena import start_players
    from relay.server import Limits, Relay
    from tabletop.ledger import Link

    relay = Relay(limits=Limits())
    server = await relay.serve("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    players = await start_players(url, "stopped", [simple(1), None], options={"deck": "short"},
                                  transcript_dir=tmp_path)
    ana = players.seats[0]
    try:
        await eventually(lambda: ana.table.phase is Phase.PLAYING and ana.table.awaiting(), "bo's move awaited")
        server.close()
        await relay.close()  # the relay stops for good: every connection cut, nothing listens
        await eventually(lambda: ana.ledger.link is Link.RECONNECTING, "ana to lose the relay")
        line = ana.give_up(120)
    finally:
        await players.stop()
    assert line.startswith("the relay has not answered for "), line
    assert ana.transcript_path is not None
    status, [checked] = verify.verify(ana.transcript_path)
    assert status == verify.UNFINISHED and "everything up to there checked out" in checked, checked
