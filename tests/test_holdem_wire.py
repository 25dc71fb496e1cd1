"""Hold'em at the table: bots finish fair and agree on every chip; cheaters, through a real relay, are named at once;
and no reader of the ledger learns a hole card that was not shown."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

from pokerkit import HandHistory

from games.holdem.game import HoldemState
from games.holdem.moves import Call, Check, Fold, HoldemView, Muck, Raise, Show
from games.holdem.rules import Stage
from games.holdem.strategy import player
from processes import finish, run_bot
from room import Room
from tabletop import transcript, wire
from tabletop.deck import _open
from tabletop.ledger import Event
from tabletop.table import OBSERVER, Phase, Table
from test_cheating import Once, reseal
from test_holdem import played

HANDS = {"hands": 2}  # short games: every cheat below comes in the first hand


def view_of(table: Table) -> HoldemView:
    state = table.play.state
    assert isinstance(state, HoldemState)
    return state.view(table.me)


def station(table: Table) -> wire.Message | None:
    """Checks or calls every bet and shows at showdown: every hand reaches the showdown."""
    if table.play.state is None:
        return None
    view = view_of(table)
    if not view.my_turn or None in view.mine.hole:
        return None
    if view.stage is Stage.SHOWDOWN:
        return Show(positions=list(view.mine.positions))
    return Call() if view.to_call else Check()


def mucking(table: Table) -> wire.Message | None:
    """:func:`station`, but gives up a hand at showdown when its client offers it (the hand loses every pot: a
    winner is shown for it): the board and one hand are shown, one is not."""
    move = station(table)
    return Muck() if isinstance(move, Show) and view_of(table).beaten else move


def betting(table: Table, body: dict) -> bool:
    return body["msg"]["type"] in ("fold", "check", "call", "raise")


# -- bots ---------------------------------------------------------------------------------------------------


def test_three_bots_finish_fair_agree_on_every_chip_and_no_reader_learns_an_unshown_hole_card():
    room = Room(game="holdem", seats=3, options={"hands": 4, "blinds": "50/100"})
    room.strategies = {seat: player(seat + 1) for seat in range(3)}
    room.run(until=lambda: room.tables[0].phase is Phase.AUDITING)
    hidden = unshown_holes(room)
    assert hidden, "every hole card was shown: nothing to keep secret"
    for table in room.tables:  # what each seat knows before the audit: its own cards, the board, the shown hands
        state = table.play.state
        assert isinstance(state, HoldemState)
        mine = {pos for seat, positions in hidden.items() if seat == table.me for pos in positions}
        assert set(state.faces) & {pos for positions in hidden.values() for pos in positions} == mine
    stranger_reads_no_sealed_share(room)
    room.run()
    assert room.violations == {}
    folded_and_mucked = {pos for positions in unshown_holes(room).values() for pos in positions}
    public, revealed = room.read_as_a_stranger()  # the relay's view, or anyone's with a transcript, after the game
    assert folded_and_mucked and not folded_and_mucked & (public | set(revealed))
    tables = room.tables
    assert all(t.play.verdict == [] for t in tables)
    assert tables[0].play.outcome == tables[1].play.outcome == tables[2].play.outcome
    assert tables[0].play.moves == tables[1].play.moves == tables[2].play.moves
    state = tables[0].play.state
    assert isinstance(state, HoldemState)
    assert all(sum(chips) == 3000 for chips in state.history) and len(state.history) == 4
    assert tables[0].play.outcome is not None and tables[0].play.outcome.scores == tuple(state.chips)


def test_a_watcher_sees_what_the_ledger_shows_everyone_never_a_card_no_seat_showed_to_all():
    """A watcher (a table of no seat, as the relay's watcher join gives one: relay protocol 1.3) folds a Hold'em game
    with the players: at every step its board holds only the faces every seat was shown (the board, hands shown at
    showdown), it owes nothing, wins nothing, and counts the watchers the ledger's ``watch`` events say."""
    room = Room(game="holdem", seats=2, options={"hands": 1}, seeds=[bytes([2]) * 32, bytes([3]) * 32])  # bo loses
    watcher = transcript.observer(room.name, room.catalog)
    room.watchers.append(watcher)
    room.strategies = {seat: mucking for seat in range(2)}
    shown: set[int] = set()

    def only_what_everyone_saw() -> bool:
        assert watcher.owed() is None
        state, seen = watcher.play.state, room.tables[0].play.state
        if state is not None and seen is not None:
            everyone = {pos for pos, seats in seen.seen.items() if seats == {0, 1}}
            assert set(state.faces) <= everyone
            shown.update(state.faces)
            hole = {pos for p in view_of(watcher).players if p.dealt for pos, face in zip(p.positions, p.hole) if face}
            assert hole <= everyone
        return False

    room.run(until=only_what_everyone_saw)
    transcript.audit(watcher)
    assert room.violations == {} and watcher.phase is Phase.OVER and watcher.view().result is None
    assert shown and unshown_holes(room), "the game showed something and kept some hole card hidden"
    for count, expected in (({"watching": 2}, 2), ({"watching": -1}, 2), ({"watching": "3"}, 2), (None, 2),
                            ({"watching": 0}, 0)):
        watcher.apply(Event(0, OBSERVER, "zed", "watch", count, 0.0))  # the relay's count; a malformed one is ignored
        assert watcher.view().watching == expected


def unshown_holes(room: Room) -> dict[int, tuple[int, ...]]:
    """Every seat's hole positions, in every hand so far, that were never shown to everyone."""
    state = room.tables[0].play.state
    assert isinstance(state, HoldemState)
    everyone = set(range(room.seats))
    hidden: dict[int, tuple[int, ...]] = {}
    for number in range(state.hand.number + 1):
        for seat in range(room.seats):
            positions = tuple(pos for pos in range(52 * number, 52 * number + 52)
                              if state.seen.get(pos) == {seat})
            hidden[seat] = hidden.get(seat, ()) + positions
    assert all(state.seen.get(pos) != everyone for positions in hidden.values() for pos in positions)
    return {seat: positions for seat, positions in hidden.items() if positions}


def stranger_reads_no_sealed_share(room: Room) -> None:
    """cy's box secret opens no key sealed from ana to bo: the sealed shares addressed to someone else stay shut."""
    cy = room.tables[2]
    deck = cy.play.deck
    assert deck is not None
    bodies = [e.body for e in room.ledger if e.kind == "post" and e.seat == 0 and e.body is not None]
    boxes = [s for body in bodies if "shares" in body for s in body["shares"]["sealed"] if s["to"] == 1]
    assert boxes
    secret = cy.secrets(1, room.group).box
    for share in boxes:
        for other in (0, 1):
            assert _open(secret, deck.box_keys[other], room.name, 1, 0, 1, share["pos"], share["box"]) is None


async def test_two_bots_in_processes_report_the_same_chips_and_hands(relay_url):
    bots = [run_bot(relay_url, "holdem-bots", "--game", "holdem", "--seats", "2", "--hands", "3", "--json",
                    "--name", name, "--seed", str(k)) for k, name in enumerate(("ana", "bo"))]
    lines = []
    for code, out, err in await asyncio.gather(*(finish(bot, timeout=120) for bot in bots)):
        assert code == 0, err
        [line] = [json.loads(text) for text in out.splitlines()]
        lines.append(line)
    assert {line["audit"] for line in lines} == {"fair"} and {line["deck"] for line in lines} == {52}
    assert lines[0]["chips"] == lines[1]["chips"] and sum(lines[0]["chips"].values()) == 2000
    assert set(lines[0]["chips"]) == {"ana", "bo"} and lines[0]["hands"] == lines[1]["hands"] <= 3
    assert list(lines[0]["chips"].values()) == lines[0]["scores"]
    for line, name in zip(lines, ("ana", "bo"), strict=True):  # each names its hand history, which PokerKit reads
        text = Path(line["history"]).read_text(encoding="utf-8")
        hands = list(HandHistory.loads_all(text))
        assert len(hands) == line["hands"] and f"as {name} saw it" in text
        last = hands[-1]
        assert dict(zip(last.players, last.finishing_stacks, strict=True)) == line["chips"]
        assert list(played(last).stacks) == last.finishing_stacks


# -- cheats through a real relay ---------------------------------------------------------------------------


async def caught(players, room: str, tamper, strategies=(station, station)) -> str:
    """bo cheats as ``tamper`` says; ana's table stops, naming bo. The problem."""
    cheat = Once(tamper)
    pair = await players(room, list(strategies), game="holdem", options=HANDS, tamper={1: cheat})
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    problem = honest.table.problem
    assert problem is not None and problem.startswith("bo "), problem
    assert honest.table.log[-1] == f"stopped: {problem}"
    return problem


def raising(to: int):
    def act(table: Table, body: dict) -> dict | None:
        return reseal(table, body, Raise(to=to)) if betting(table, body) else None

    return act


async def test_a_raise_under_the_minimum(players):
    assert await caught(players, "holdem-min", raising(39)) == "bo raised to 39, under the minimum raise to 40"


async def test_a_bet_beyond_the_stack(players):
    problem = await caught(players, "holdem-stack", raising(1001))
    assert problem == "bo bet to 1001, beyond their stack: all in is a bet to 1000"


def folding(table: Table, body: dict) -> dict | None:
    """bo folds where it could check. PokerKit's state refuses such a fold with an error of its own, so every table
    used to stop there, on an exception, naming nobody."""
    return reseal(table, body, Fold()) if body["msg"]["type"] == "check" else None


async def test_a_fold_with_nothing_to_call(players):
    assert await caught(players, "holdem-fold", folding) == "bo folded with nothing to call"


def twice(table: Table, body: dict) -> list[dict] | None:
    """bo's move, and at once another, out of turn."""
    if not betting(table, body):
        return None
    return [body, wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"] + 1, Check())]


async def test_acting_out_of_turn(players):
    assert await caught(players, "holdem-turn", twice) == "bo tried to check out of turn"


def showing(table: Table, body: dict) -> dict | None:
    """At showdown, bo names ana's hole cards as its own."""
    if body["msg"]["type"] != "show":
        return None
    theirs = view_of(table).players[0].positions
    return reseal(table, body, Show(positions=list(theirs)), shares=None)


async def test_showing_other_hole_cards_than_those_dealt(players):
    problem = await caught(players, "holdem-show", showing)
    assert problem.startswith("bo showed cards [") and "which are not the hole cards dealt to them" in problem


def wrong_key(table: Table, body: dict) -> dict | None:
    """At showdown, bo shows its own positions with a wrong key to one of them: they would open to another card."""
    if body["msg"]["type"] != "show" or "shares" not in body:
        return None
    shares = wire.Shares.model_validate(body["shares"])
    assert table.play.group is not None
    q = table.play.group.q
    opened = [o if o.seat != table.me else o.model_copy(update={"key": format(int(o.key, 16) * 2 % q, "x")})
              for o in shares.open]
    return reseal(table, body, shares=wire.Shares(open=opened, sealed=shares.sealed))


async def test_showing_a_hole_card_with_a_wrong_key(players):
    problem = await caught(players, "holdem-key", wrong_key)
    assert "sent a wrong key for card" in problem and "not their committed key" in problem


class Award(wire.Message):
    """A pot claim: no message of the game (every seat computes the pots itself)."""

    type: Literal["award"] = "award"
    seat: int
    amount: int


def claiming(table: Table, body: dict) -> list[dict] | None:
    """After its showdown, bo claims the whole pot for itself."""
    if body["msg"]["type"] != "show":
        return None
    claim = Award(seat=table.me, amount=2000)
    return [body, wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"] + 1, claim)]


async def test_a_pot_claim_is_no_move_every_seat_computes_the_pots(players):
    problem = await caught(players, "holdem-award", claiming)
    assert problem == "bo sent a malformed message (msg.type: 'award' is not a message of this game)"


def test_my_own_bet_beyond_my_stack_is_refused_before_it_is_sent():
    room = Room(game="holdem", seats=2, options=HANDS)
    room.strategies = {0: station, 1: station}
    room.run(until=lambda: room.tables[0].view().my_turn)
    assert room.tables[0].refusal(Raise(to=1001)) == "the most you can bet is to 1000 (all in)"
    assert room.tables[1].refusal(Check()) == "it is ana's turn"
