"""War on the table: whole games in the pure core and over a relay, secrecy of the face-down cards, and cheats.

The cheats are written as tampers (tests/room.py), exactly as in test_cheating.py: an honest seat whose posts
are rewritten on their way to the ledger. The seeds are fixed, so every game here is the same every run.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from games.war.game import Turn, WarState
from games.war.strategy import turn
from processes import finish, run_bot
from room import Room, summary
from tabletop import wire
from tabletop.table import Table
from tabletop.values import Phase
from test_cheating import Once, caught, reseal

HONEST, CHEATER = 0, 1  # with the room's default seeds ana (seat 0) starts: bo shuffles last and turns second
WAR_SEEDS = [bytes([8]) * 32, bytes([81]) * 32]  # ana starts; the third turn is a war (ana's), and so is the 18th


def war_room(tricks: int, seeds: list[bytes] | None = None) -> Room:
    room = Room(game="war", options={"tricks": tricks}, seeds=seeds)
    room.strategies = {0: turn(), 1: turn()}
    return room


def state_of(table: Table) -> WarState:
    state = table.play.state
    assert isinstance(state, WarState)
    return state


def posts(room: Room, kind: str | None = None) -> list:
    return [e for e in room.ledger if e.kind == "post" and e.body is not None
            and (kind is None or e.body["msg"]["type"] == kind)]


def opened_before_the_audit(room: Room) -> set[int]:
    """Every position whose key anyone published in the open before the audit."""
    return {o["pos"] for e in posts(room) if e.body["msg"]["type"] != "audit" and "shares" in e.body
            for o in e.body["shares"]["open"]}


# -- whole games --------------------------------------------------------------------------------------------


def test_a_whole_game_with_wars_is_fair_and_the_face_down_cards_stay_unseen():
    room = war_room(tricks=20, seeds=WAR_SEEDS)
    room.run()
    assert room.violations == {}
    tables = room.tables
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in tables), [t.play.verdict for t in tables]
    assert tables[0].play.moves == tables[1].play.moves and tables[0].play.outcome == tables[1].play.outcome
    outcome = tables[0].play.outcome
    assert outcome.scores == state_of(tables[0]).view(0).piles and sum(outcome.scores) == 52
    assert state_of(tables[0]).board.tricks == 20
    assert {t.view().result for t in tables} == {"win", "loss"}
    assert summary(tables[0]).startswith("Checked: every shuffle")

    moves = [move for _, move in tables[0].play.moves]
    wars = [move for move in moves if move.down]
    assert moves[2].down and len(wars) == 2
    turned = {pos for move in moves for pos in move.up}
    face_down = {pos for move in wars for pos in move.down}
    # Nothing was shown at the deal, and nothing but the turned cards during the game: not to their owners,
    # not to anyone. The face-down cards of the wars were never turned afterwards in 20 tricks, so no key
    # to them was published before the audit and no seat knows their faces.
    assert face_down.isdisjoint(turned)
    assert opened_before_the_audit(room) == turned
    assert not any(e.body.get("shares", {}).get("sealed") for e in posts(room))
    for table in tables:
        assert set(table.play.deck.faces) == turned
    # Two posts a turn: the move with the mover's keys, and the other seat's share with its own.
    assert len(posts(room, "turn")) == len(posts(room, "share")) == len(moves)


async def test_two_seats_over_a_real_relay_play_a_fair_game_and_agree(players):
    pair = await players("war", [turn(), turn()], game="war", options={"tricks": 12})
    assert await pair.next_games() == [1, 1], [s.table.problem for s in pair.seats]
    tables = [seat.table for seat in pair.seats]
    assert all(t.play.verdict == [] for t in tables)
    assert tables[0].play.moves == tables[1].play.moves and tables[0].play.outcome == tables[1].play.outcome
    assert sum(tables[0].play.outcome.scores) == 52 and state_of(tables[0]).board.tricks == 12
    assert {t.view().result for t in tables} <= {"win", "loss", "draw"}
    assert tables[0].view().result != "draw" or tables[1].view().result == "draw"


async def test_two_bots_play_war_and_report_pile_sizes(relay_url):
    bots = [run_bot(relay_url, "war-bots", "--name", name, "--game", "war", "--tricks", "10", "--json")
            for name in ("a", "b")]
    lines = []
    for code, out, err in await asyncio.gather(*(finish(bot) for bot in bots)):
        assert code == 0, err
        [line] = [json.loads(text) for text in out.splitlines()]
        lines.append(line)
    assert lines[0]["scores"] == lines[1]["scores"] and sum(lines[0]["scores"]) == 52
    assert all(line["audit"] == "fair" and line["deck"] == 52 and line["players"] == 2 for line in lines)
    first, second = lines[0]["scores"]  # seat 0 is whichever bot joined first: its line says which result it is
    expected = {(True, False): ("win", "loss"), (False, True): ("loss", "win"), (False, False): ("draw", "draw")}
    results = expected[(first > second, second > first)]
    assert sorted(line["result"] for line in lines) == sorted(results)


@pytest.mark.parametrize("flags, says", [
    (["--game", "war", "--tricks", "0"], "argument --tricks: '0' is not a whole number from 1 to 1000000"),
    (["--game", "war", "--tricks", "many"], "is not a whole number"),
    (["--tricks", "20"], "--tricks is not an option of discard"),
    (["--game", "war", "--deck", "short"], "--deck is not an option of war"),
])
def test_a_bad_tricks_flag_is_one_line(flags, says, capsys):
    from discard_tui import bot, cli

    for main, prefix in ((bot.main, ["--relay", "ws://x", "--room", "r"]), (cli.main, [])):
        with pytest.raises(SystemExit) as stop:
            main([*prefix, *flags])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and err.count("\n") == 1, err


def test_tricks_is_the_war_option_of_both_programs():
    from discard_tui import bot, cli
    from discard_tui.args import game_options
    from discard_tui.profile import terminal_profile
    from games import GAMES

    config = cli.config_from(cli.parser().parse_args(["--game", "war", "--tricks", "40"]), cli.parser(),
                             terminal_profile())
    assert (config.game, config.options) == ("war", {"tricks": 40})
    args = bot.parser().parse_args(["--relay", "ws://x", "--room", "r", "--game", "war", "--tricks", "40"])
    assert game_options(args, GAMES["war"].about, (game.about for game in GAMES.values()), bot.parser()) == {"tricks": 40}


def test_going_back_to_a_saved_game_opens_that_games_screen():
    """A room's game is saved with the seat: `--room`, the `--games` command and a bare start go back to it
    as war, and `--game discard` goes back to the newest discard game instead of the newer war one."""
    import dataclasses

    from discard_tui import cli, saves
    from discard_tui.profile import terminal_profile

    profile = terminal_profile()

    def save(room: str, game: str, at: float) -> saves.SavedSeat:
        seat = saves.new_seat(saves.LOCAL_RELAY, room, "ana", "t" * 32, bytes([1]) * 32, game)
        seat = dataclasses.replace(seat, stage="playing", saved_at=at)
        saves.save(profile.games_dir, seat)
        return seat

    def config(*argv: str):
        return cli.config_from(cli.parser().parse_args(["--name", "ana", *argv]), cli.parser(), profile)

    save("computer-discard", "discard", 1.0)
    war = save("computer-war", "war", 2.0)
    assert (config("--room", "computer-war").game, config().room, config().game) == ("war", "computer-war", "war")
    assert (config("--game", "discard").room, config("--game", "discard").game) == ("computer-discard", "discard")
    resumed = config(*cli.resume_command(war).split()[3:])
    assert (resumed.room, resumed.game) == ("computer-war", "war")


# -- cheats, named on receipt ------------------------------------------------------------------------------------


def is_turn(table: Table, body: dict) -> bool:
    return table.phase is Phase.PLAYING and body["msg"]["type"] == "turn"


def test_a_turn_out_of_turn():
    """bo's last shuffle step is followed at once by a turn, although ana starts."""

    def early(table, body):
        if body["msg"]["type"] != "shuffle" or body["msg"]["phase"] != 2:
            return None
        down, up = state_of(table).board.next_turn()
        return [body, reseal(table, body, Turn(up=up, down=down), None, n=body["n"] + 1)]

    room = war_room(tricks=5)
    room.tamper = {CHEATER: Once(early)}
    room.run()
    assert room.tables[HONEST].play.starter == HONEST
    assert caught(room) == "bo turned a card out of turn"


def test_turning_a_card_that_is_not_the_top_of_your_pile():
    def deeper(table, body):
        if not is_turn(table, body):
            return None
        up = list(body["msg"]["up"])
        up[table.me] += 1
        return reseal(table, body, Turn(up=up), None)

    room = war_room(tricks=5)
    room.tamper = {CHEATER: Once(deeper)}
    room.run()
    assert caught(room) == "bo turned card 28 from their own pile, but its top card is card 27"


def wrong_open_key(table, body, kind: str):
    """The cheater's own key to the first card it opens, multiplied by 2: well formed, but not the committed one."""
    if table.phase is not Phase.PLAYING or body["msg"]["type"] != kind or "shares" not in body:
        return None
    shares = wire.Shares.model_validate(body["shares"])
    first = shares.open[0]
    wrong = first.model_copy(update={"key": format(int(first.key, 16) * 2 % table.play.group.q, "x")})
    return reseal(table, body, shares=wire.Shares(open=[wrong, *shares.open[1:]], sealed=[]))


def test_a_wrong_key_for_a_turned_card_in_the_answering_share_is_named_at_once():
    room = war_room(tricks=5)
    room.tamper = {CHEATER: Once(lambda t, b: wrong_open_key(t, b, "share"))}
    room.run()
    assert caught(room) == "bo sent a wrong key for card 0 (it is not their committed key)"
    assert room.tables[HONEST].play.moves == []  # ana's first turn never completed
    assert room.tables[HONEST].play.verdict is None


def test_a_wrong_key_for_a_turned_card_in_the_turn_itself_is_named_at_once():
    room = war_room(tricks=5)
    room.tamper = {CHEATER: Once(lambda t, b: wrong_open_key(t, b, "turn"))}
    room.run()
    assert caught(room) == "bo sent a wrong key for card 1 (it is not their committed key)"
    assert len(room.tables[HONEST].play.moves) == 1


def test_a_key_to_a_face_down_war_card_is_refused():
    """The face-down cards are shown to nobody: ana trying to publish a key to one is stopped at once."""

    def show_down(table, body):
        if not is_turn(table, body) or not body["msg"]["down"]:
            return None
        pos = body["msg"]["down"][1 - table.me]
        key = table.secrets(table.play.number, table.play.group).card_key(pos).d
        shares = wire.Shares.model_validate(body["shares"])
        extra = wire.OpenKey(pos=pos, seat=table.me, key=format(key, "x"))
        return reseal(table, body, shares=wire.Shares(open=[*shares.open, extra], sealed=[]))

    room = war_room(tricks=5, seeds=WAR_SEEDS)
    room.tamper = {0: Once(show_down)}
    room.run()
    assert caught(room, cheater=0) == "ana sent a key for card 28 that nobody asked to see"


# -- a cheat only the audit can see ----------------------------------------------------------------------------


def test_a_card_forged_in_the_shuffle_that_is_never_turned_is_named_on_receipt():
    """bo, shuffling last, puts a forged card at the bottom of its own pile: a square of a real one, a valid
    group element and no duplicate, so nothing in the game would show it. The step's proof no longer holds: the
    honest seat names bo as soon as the step arrives, before any card is dealt."""
    bottom = 51

    def forge(table, body):
        if body["msg"]["type"] != "shuffle" or body["msg"]["phase"] != 1:
            return None
        deck = list(body["msg"]["deck"])
        group = table.play.group
        deck[bottom] = group.to_hex(group.power(group.from_hex(deck[bottom], "card"), 2))
        return reseal(table, body, table.registry(table.play).models["shuffle"].model_validate(
            dict(body["msg"], deck=deck)))

    room = war_room(tricks=3)
    room.tamper = {CHEATER: Once(forge)}
    room.run()
    problem = room.violations[HONEST]
    assert problem.startswith("bo sent shuffle step ") and "with a proof that does not hold" in problem, problem
    assert room.tables[HONEST].play.outcome is None and not room.tables[HONEST].play.dealt
