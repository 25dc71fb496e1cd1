"""Whole games between two engines over a real relay on loopback, and the discard-bot CLI."""

import asyncio
import json
import subprocess
import sys

import pytest
from processes import finish, run_bot

from discard_tui.bot import simple_strategy
from discard_tui.engine import Phase, Session
from discard_tui.rules import DeckKind


async def start_pair(url, room, deck=DeckKind.FULL, **options):
    sessions = []
    for seat, name in enumerate(("alice", "bob")):
        session = await Session.connect(url, room, name, deck=deck, autoplay=simple_strategy(seat),
                                        seed=bytes([seat]) * 32, **options)
        sessions.append(session)
    tasks = [asyncio.create_task(s.run()) for s in sessions]
    return sessions, tasks


async def stop(sessions, tasks):
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for session in sessions:
        await session.ledger.close()


async def next_games(sessions):
    return await asyncio.wait_for(asyncio.gather(*(s.completed.get() for s in sessions)), 30)


@pytest.mark.parametrize("deck", [DeckKind.FULL, DeckKind.SHORT])
async def test_two_engines_finish_a_fair_game(relay_url, deck, tmp_path):
    sessions, tasks = await start_pair(relay_url, f"game-{deck.value}", deck, transcript_dir=tmp_path)
    try:
        games = await next_games(sessions)
        for session, game in zip(sessions, games):
            assert game is not None, session.problem
            assert session.phase is Phase.OVER
            assert game.verdict == [], game.verdict
            assert game.size == len(deck.cards)
        alice, bob = sessions
        assert {games[0].table.winner, games[1].table.winner} == {games[0].table.winner}
        # Both saw the same moves, and every card is accounted for once.
        assert [vars(m) for m in games[0].moves] == [vars(m) for m in games[1].moves]
        table = games[0].table
        assert len(table.draw_pile) + sum(map(len, table.hands)) + len(table.discard_pile) == len(deck.cards)
        view = alice.view()
        assert view.result in ("win", "loss") and view.verdict.startswith("fair:")
        assert not list(tmp_path.iterdir())  # no violation, no transcript
    finally:
        await stop(sessions, tasks)


async def test_rematch_new_keys_and_loser_starts(relay_url):
    sessions, tasks = await start_pair(relay_url, "rematch", DeckKind.SHORT)
    try:
        first = await next_games(sessions)
        loser = 1 - first[0].table.winner
        assert await asyncio.gather(*(s.rematch() for s in sessions)) == [None, None]
        second = await next_games(sessions)
        for game in second:
            assert game is not None and game.number == 2 and game.verdict == []
            assert game.starter == loser
        assert second[0].shuffles[3] != first[0].shuffles[3]  # a new shuffle under new keys
        assert first[0].hellos[0].verify_key != second[0].hellos[0].verify_key  # a fresh identity per game
    finally:
        await stop(sessions, tasks)


async def test_rematch_is_refused_mid_game(relay_url):
    sessions, tasks = await start_pair(relay_url, "early-rematch", DeckKind.SHORT)
    try:
        assert await sessions[0].rematch() == "a rematch can start once this game is over"
        await next_games(sessions)
        assert await sessions[0].rematch() is None
        assert await sessions[0].rematch() == "a rematch is already requested"
    finally:
        await stop(sessions, tasks)


async def test_bot_cli_prints_one_json_line_per_game(relay_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DISCARD_DATA_DIR", str(tmp_path))
    bots = [run_bot(relay_url, "cli", "--name", name, "--games", "2", "--deck", "short", "--json")
            for name in ("a", "b")]
    for code, out, err in await asyncio.gather(*(finish(b) for b in bots)):
        assert code == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert [line["game"] for line in lines] == [1, 2]
        for line in lines:
            assert set(line) == {"game", "result", "audit", "deck", "shuffle_s", "game_s", "moves"}
            assert line["audit"] == "fair" and line["deck"] == 24 and line["result"] in ("win", "loss")
            assert 0 < line["shuffle_s"] <= line["game_s"] and line["moves"] > 0


def test_bot_unreachable_relay_is_one_line():
    result = subprocess.run([sys.executable, "-m", "discard_tui.bot", "--relay", "ws://127.0.0.1:9", "--room", "x"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cannot reach the relay at ws://127.0.0.1:9" in result.stderr


def test_bot_bad_flag_is_one_line():
    result = subprocess.run([sys.executable, "-m", "discard_tui.bot", "--relay", "ws://x", "--room", "r",
                             "--deck", "huge"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stderr.count("\n") == 1


async def test_bot_gives_up_on_a_silent_opponent(relay_url):
    code, _, err = await finish(run_bot(relay_url, "lonely", "--timeout", "0.5"))
    assert code == 1
    assert err.strip() == "discard-bot: nobody came to play in room lonely (waited 0.5 s); run the same command to resume"


async def test_two_bots_with_one_name_keep_their_own_seats(relay_url, private_data_dir):
    """Same --name, same room: each keeps its own seat file instead of resuming the other's seat."""
    bots = [run_bot(relay_url, "twins", "--name", "twin", "--deck", "short", "--json", "--seed", str(i))
            for i in (1, 2)]
    results = await asyncio.gather(*(finish(b) for b in bots))
    for code, out, err in results:
        assert code == 0, err
        [line] = [json.loads(text) for text in out.splitlines()]
        assert line["audit"] == "fair"
    assert sorted(json.loads(out)["result"] for _, out, _ in results) == ["loss", "win"]
    assert not list((private_data_dir / "games").glob("*.json"))  # both finished: both files gone
