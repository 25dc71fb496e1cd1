"""The action clock: each seat's time to move and its bank, from the relay's stamps in the ledger (tabletop/clock.py),
claims that a seat's time ran out, and each game's default move (docs/games.md, "The clock"). Pure, with hand-made
stamps (tests/room.py's clock); then an early claim through the real wire, and a seat that stops moving at a table
over a relay whose clock the test advances."""

from __future__ import annotations

import asyncio

import pytest
from room import Room

from arena import start_players
from games import GAMES
from games.cabo.moves import Discard as CaboDiscard
from games.cabo.moves import Draw as CaboDraw
from games.cabo.moves import Peek, Replace, Showdown, Spy, Swap
from games.cabo.rules import Stage
from games.discard.moves import Draw, OutOfTime
from games.holdem.about import Stage as HoldemStage
from games.holdem.game import HoldemState
from games.holdem.moves import Call, Check, Fold, Raise
from games.holdem.strategy import player
from games.war.game import Turn
from relay.memory_ledger import MemoryLedger
from relay.server import Limits, Relay
from tabletop import transcript, wire
from tabletop.shell import watch
from tabletop.clock import Clock, Early, Timers
from tabletop.game import TIMED_OUT, Setup
from tabletop.table import Post, Table
from tabletop.values import Awaiting, Owed
from test_holdem_wire import station
from test_leaving import claim_after, vanish_when


def claim(room: Room, by: int, seat: int) -> Post:
    """``by``'s claim that ``seat``'s running wait ran out (whether or not it has)."""
    timers = room.tables[by].play.timers
    assert timers is not None
    return Post(room.tables[by].play.number, wire.TimeOut(seat=seat, wait=timers.waits[seat].number))


def test_each_wait_draws_on_the_bank_past_the_move_s_time_and_a_claim_holds_once_both_ran_out():
    timers = Timers(Clock(move_ms=30_000, bank_ms=60_000), seats=2)
    timers.update({0}, 1_000)
    timers.update({1}, 46_000, acted=0)  # 45 s: 15 s past the move's time
    assert timers.banks == [45_000, 60_000] and timers.deadline(1) == 46_000 + 90_000
    timers.update({0}, 50_000, acted=1)  # within the move's time: the bank stays
    assert timers.banks == [45_000, 60_000] and timers.waits[0].number == 2
    with pytest.raises(Early, match=r"^0\.1 s early: 74\.9 s after the wait began, of 30 s for the move and 45 s"):
        timers.judge(0, 124_900)
    timers.judge(0, 125_000)
    assert timers.banks == [0, 60_000] and 0 not in timers.waits


def test_a_seat_whose_time_ran_out_sits_out_with_five_seconds_a_wait_until_it_acts_again():
    timers = Timers(Clock(move_ms=30_000, bank_ms=60_000), seats=2)
    timers.update({0}, 0)
    timers.judge(0, 90_000)
    timers.update({0}, 90_000)  # what the default move left it owing (its key, say): 5 s, no bank
    assert timers.deadline(0) == 95_000 and timers.view().left(0, 91_000) == (4_000, 0)
    with pytest.raises(Early, match=r"^0\.1 s early: 4\.9 s after the wait began, of 5 s while sitting out and 0 s"):
        timers.judge(0, 94_900)
    timers.update({1}, 94_000, acted=0)  # it acted in time: it is back, with the move's whole time
    timers.update({0}, 95_000, acted=1)
    assert timers.deadline(0) == 125_000 and timers.sitting_out == {}
    assert Timers(Clock(move_ms=3_000, bank_ms=0), seats=1).clock.allowance(sitting_out=True) == 3_000  # never more


def test_a_shuffle_step_has_thirty_seconds_at_the_least_even_sitting_out_or_when_a_wait_goes_on_into_it():
    timers = Timers(Clock(move_ms=5_000, bank_ms=0), seats=2)
    timers.update({0}, 0, shuffling={0})
    assert timers.deadline(0) == 30_000 and timers.view().left(0, 10_000) == (20_000, 0)
    timers.update({1}, 29_000, acted=0)  # 29 s of a 5 s clock: no bank to spend, none owed
    timers.update({1}, 40_000)  # its keys to a hand made void, then the next deal's first step: the same wait
    assert timers.deadline(1) == 34_000
    timers.update({1}, 41_000, shuffling={1})
    assert timers.deadline(1) == 29_000 + 30_000 and timers.waits[1].number == 1
    timers.judge(1, 59_000)
    timers.update({1}, 59_000, shuffling={1})  # sitting out: still 30 s for a step
    assert timers.deadline(1) == 89_000


def test_the_clock_of_a_seat_sitting_out_says_which_step_it_runs_and_why_it_starts_again():
    """bo's clock read "bo sitting out 0:05", then 0:02, then 0:05 again, with nothing to say why: each step the
    game owes a seat sitting out has its own 5 s (docs/protocol.md, "Sitting out"). The clock counts the steps since
    its time ran out, and the hint says the rule."""
    import dataclasses

    from discard_tui.table_screen import clock_text, sitting_out
    from pilot import seat_view

    timers = Timers(Clock(move_ms=30_000, bank_ms=60_000), seats=2)
    timers.update({1}, 0)
    timers.judge(1, 90_000)
    timers.update({1}, 90_000)  # its key, say, after the default move
    view = seat_view(clock=timers.view(), relay_offset=0.0)
    assert clock_text(view, now=93.0) == ("bo sitting out: step 1, 0:02", False)
    timers.judge(1, 95_000)  # that ran out too (a key a hand cannot do without voids it; a board move would not)
    timers.update({1}, 96_000)  # the next step owed
    view = dataclasses.replace(view, clock=timers.view())
    assert clock_text(view, now=96.0) == ("bo sitting out: step 2, 0:05", False)
    assert clock_text(view, now=96.0, named={1}) == ("sitting out: step 2, 0:05", False)  # beside "bo's turn"
    assert sitting_out(view) == "bo's time ran out: 5 s for each step owed until bo acts"
    timers.judge(1, 101_000)
    timers.update({1}, 101_000, shuffling={1})  # the next deal's shuffle step: 30 s, which the clock shows
    view = dataclasses.replace(view, clock=timers.view())
    assert clock_text(view, now=101.0) == ("bo sitting out: step 3, 0:30", False)
    assert sitting_out(view) == "bo's time ran out: 5 s for each step owed (30 s for a shuffle step) until bo acts"
    timers.update({0}, 102_000, acted=1)  # bo acts: back, with the move's whole time
    assert sitting_out(dataclasses.replace(view, clock=timers.view())) == ""


def test_a_claim_before_the_time_and_bank_ran_out_is_named_on_every_seat_and_a_later_one_loses_the_throw():
    early = Room(game="rps", options={"clock": 15, "bank": 30})
    early.run()
    early.now = 44.9
    early.post(1, claim(early, 1, 0))
    assert early.violations == {
        0: "bo claimed that your time ran out 0.1 s early: 44.9 s after the wait began, of 15 s for the move and "
           "30 s of bank",
        1: "you claimed that ana's time ran out 0.1 s early: 44.9 s after the wait began, of 15 s for the move and "
           "30 s of bank"}

    room = Room(game="rps", options={"clock": 15, "bank": 30})
    room.tables[1].choose("rock")
    room.run()  # bo has thrown; ana, who owes hers, has not
    room.now = 45.0
    room.post(1, claim(room, 1, 0))
    assert room.violations == {}
    assert room.tables[1].log[-1] == "ana's time ran out: ana loses throw 1"
    assert room.tables[0].log[-1] == "your time ran out: you lose throw 1"
    match = room.tables[0].play.state.match
    assert match.scores == (0, 1) and match.number == 2  # bo won throw 1; throw 2 is under way
    assert room.tables[0].play.choices == [{0: TIMED_OUT}]
    [game] = transcript.check(room.as_transcript(), GAMES)  # an observer reading the ledger agrees
    assert game.problem is None and game.play.state.match.scores == (0, 1)


@pytest.fixture(scope="module")
def dealt() -> Room:
    """A two-seat Hold'em hand, dealt at the relay's time 0: the button (who posts the small blind) is to act."""
    room = Room(game="holdem", options={"clock": 30, "bank": 60})
    room.run()
    return room


def test_hold_em_folds_for_a_seat_out_of_time_checks_where_it_may_and_every_seat_agrees(dealt):
    room = Room(game="holdem", options={"clock": 30, "bank": 60}, tables=[], ledger=[])
    for event in dealt.ledger:  # the dealt hand, replayed: the module's hand stays fresh for the next test
        room.now = event.time
        room.append(event.seat, event.kind, event.body)
    button = room.tables[0].clocked()[0]
    big = 1 - button
    room.now = 45.0  # 15 s of bank spent
    room.post(button, room.tables[button].prepare(Call()))
    assert room.tables[big].play.timers.banks[button] == 45_000
    assert room.tables[big].clocked() == [big]
    stale = claim(room, button, big)  # written now, it lands only after the time ran out
    room.now = 45.0 + 89.9
    late_check = room.write(big, room.tables[big].prepare(Check()))
    room.now = 45.0 + 90.0
    room.post(button, stale)
    for event in late_check:  # the big blind's check crossed the claim: it is not played, and nobody is blamed
        room.append(big, "post", event)
    assert room.violations == {}
    names = {0: "ana", 1: "bo"}
    assert f"{names[big]}'s time ran out: checked" in room.tables[button].log
    assert "your time ran out: checked" in room.tables[big].log
    assert room.tables[button].log[-1] == f"{names[big]}'s check came after {names[big]}'s time ran out: not played"
    assert room.tables[big].play.timers.banks == [0, 45_000][::1 if big == 0 else -1]
    room.run()  # the flop
    assert room.tables[0].clocked() == [big]  # after the flop, the big blind acts first heads-up
    room.now += 30.0  # no bank left: the move's time alone
    room.post(button, claim(room, button, big))
    room.run()
    assert room.violations == {}
    assert room.tables[big].log[-1].startswith("your time ran out: checked")


def test_the_hand_history_writes_a_fold_made_for_a_seat_out_of_time_as_a_fold_that_says_so(dealt):
    """The button's time runs out facing the big blind: the table folds for it. Every seat's hand history, and the
    one built from the transcript alone (``discard-tui --history``), write PHH's plain fold with the reason."""
    room = Room(game="holdem", options={"clock": 30, "bank": 60}, tables=[], ledger=[])
    for event in dealt.ledger:
        room.now = event.time
        room.append(event.seat, event.kind, event.body)
    button = room.tables[0].clocked()[0]
    room.now = 90.0
    room.post(1 - button, claim(room, 1 - button, button))
    assert room.violations == {}
    [check] = transcript.check(room.as_transcript(), GAMES)
    names = ["ana", "bo"]
    for state in (*(table.play.state for table in room.tables), check.play.state):
        _, text = state.history_file(names, 0, 1, room.name)
        assert f'  "p2 f",  # {names[button]}\'s time ran out: folded' in text, text


def test_a_claim_about_a_wait_that_ended_on_the_way_is_no_news(dealt):
    room = Room(game="holdem", options={"clock": 30, "bank": 60}, tables=[], ledger=[])
    for event in dealt.ledger:
        room.append(event.seat, event.kind, event.body)
    button = room.tables[0].clocked()[0]
    room.now = 100.0
    written = room.write(1 - button, claim(room, 1 - button, button))  # the claim is on its way …
    room.post(button, room.tables[button].prepare(Fold()))
    for body in written:  # … and lands after the fold: the wait it names is over
        room.append(1 - button, "post", body)
    assert room.violations == {}
    assert not any("time ran out" in line for line in room.tables[0].log)
    room.post(1 - button, Post(1, wire.TimeOut(seat=button, wait=9)))
    assert room.violations[button].endswith("claimed that your wait #9 ran out, a wait that never began")


@pytest.fixture(scope="module")
def flop() -> Room:
    """A two-seat Hold'em hand at the flop, shown at the relay's time 0: a player is to act, and the flop's keys are
    in the open."""
    room = Room(game="holdem", options={"clock": 30, "bank": 60})
    room.strategies = {seat: station for seat in range(2)}
    table = room.tables[0]
    room.run(until=lambda: isinstance(state := table.play.state, HoldemState) and len(state.hand.board_cards) == 3
             and table.play.pending is None and bool(table.clocked()))
    return room


def copies(room: Room, seat: int, count: int) -> wire.Shares:
    """``count`` copies of ``seat``'s key to the first card of the flop, which everyone has."""
    deck, state = room.tables[0].play.deck, room.tables[0].play.state
    assert deck is not None and isinstance(state, HoldemState)
    pos = state.hand.board_positions()[0]
    return wire.Shares(open=[wire.OpenKey(pos=pos, seat=seat, key=format(deck.public[pos][seat], "x"))] * count)


def test_a_share_of_keys_everyone_has_does_not_restart_the_clock_of_a_seat_that_owes_a_move(flop):
    """A staller that owes a move sends, every 29 s, a ``share`` that copies a key already in the open: it owes
    no key, so its wait goes on, and a claim 90 s after the flop holds."""
    room = Room(game="holdem", options={"clock": 30, "bank": 60}, tables=[], ledger=[])
    for event in flop.ledger:
        room.append(event.seat, event.kind, event.body)
    [staller] = room.tables[0].clocked()
    for k in (1, 2, 3):
        room.now = 29.0 * k
        room.post(staller, Post(1, wire.Share(), copies(room, staller, 1)))
    room.now = 90.0
    room.post(1 - staller, claim(room, 1 - staller, staller))
    assert room.violations == {}
    assert room.tables[1 - staller].log[-1].endswith("time ran out: checked")


def test_a_share_of_a_thousand_copies_of_a_key_in_the_open_costs_no_exponentiation(flop, monkeypatch):
    """Each copy is compared with the key it copies, never checked against its commitment again: else a seat could
    post such shares as fast as the relay lets it and keep every other seat's processor busy past its own clock."""
    room = Room(game="holdem", options={"clock": 30, "bank": 60}, tables=[], ledger=[])
    for event in flop.ledger:
        room.append(event.seat, event.kind, event.body)
    group = type(room.group)
    powers: list[int] = []
    monkeypatch.setattr(group, "base_power", lambda self, k: powers.append(k) or group.power(self, self.generator, k))
    room.post(0, Post(1, wire.Share(), copies(room, 1, 1000)))
    assert room.violations == {} and powers == []


def test_discard_draws_for_a_seat_out_of_time_whose_own_software_opens_the_card_to_it():
    room = Room(options={"deck": "short", "clock": 20, "bank": 0})
    room.run()
    mover = room.tables[0].clocked()[0]
    other = 1 - mover
    top = room.tables[0].play.state.board.draw_pile[0]
    room.now = 20.0
    room.post(other, claim(room, other, mover))
    room.run()  # the others' keys to the card drawn are sent to the mover, as for any draw
    assert room.violations == {}
    assert "your time ran out: drew " in room.tables[mover].log[-1]
    assert room.tables[other].log[-1] == f"{room.names[mover]}'s time ran out: drew a card"
    assert top in room.tables[mover].play.state.faces and top not in room.tables[other].play.state.faces
    assert room.tables[other].clocked() == [other]


def agreed(table: Table) -> tuple:
    """What every table of a room computes alike, whichever seat it is of (a watcher's too): the clock's waits and
    banks, who is late or out, the game's turn and chips, the moves played and the verdict so far."""
    p, state = table.play, table.play.state
    assert state is None or isinstance(state, HoldemState)
    return (table.problem, table.phase if p.outcome is None else "over", len(p.decks), sorted(p.late), sorted(p.out),
            p.timers.view() if p.timers is not None else None, len(p.moves), p.outcome,
            None if state is None else (state.to_move(), tuple(state.chips), state.hand.number))


def test_a_watcher_from_the_first_event_agrees_with_every_seat_through_time_outs_crossed_moves_and_a_void():
    """Three seats of Hold'em (issue 35: a watcher that joined after a time-out once blamed an honest seat for a
    check "out of turn"): a fold with its keys opened, a time-out whose check crossed the claim, a time-out fold, and
    a void hand. After every event every seat agrees, and a watcher that folds the whole ledger afterwards from its
    first event agrees with them after every prefix."""
    room = Room(game="holdem", seats=3, options={"hands": 2, "clock": 30, "bank": 60})
    live: list[tuple] = []  # after each event from the seats' joins on
    land, joined = room.append, len(room.ledger)

    def append(seat: int, kind: str, body: dict | None) -> None:
        land(seat, kind, body)
        views = [agreed(t) for t in room.tables if t.me not in room.gone]
        assert all(view == views[-1] for view in views), (len(room.ledger), views)
        live.append(views[-1])

    room.append = append  # type: ignore[method-assign]
    tables = room.tables

    def mover() -> int:
        room.run(until=lambda: any(due.what is Owed.MOVE for due in tables[0].owing())
                 and tables[0].play.state.hand.stage is HoldemStage.BETTING)
        room.now += 5.0
        [seat] = tables[0].clocked()
        return seat

    first = mover()  # the button, first to act before the flop: it folds and opens its keys to the board
    room.post(first, tables[first].prepare(Fold()))
    assert room.ledger[-1].body["shares"]["open"]
    small = mover()
    room.post(small, tables[small].prepare(Call()))
    big = mover()  # its check is on its way when the claim that its time ran out lands
    crossed = room.write(big, tables[big].prepare(Check()))
    room.now = tables[small].play.timers.deadline(big) / 1000
    room.post(small, claim(room, small, big))
    for body in crossed:
        room.append(big, "post", body)
    seat = mover()  # the flop: the first to act bets, and the other's time runs out facing it (its bank is spent)
    bounds = tables[seat].play.state.hand.raise_bounds()
    room.post(seat, tables[seat].prepare(Raise(to=bounds[0])))
    [facing] = tables[0].clocked()
    room.now = tables[seat].play.timers.deadline(facing) / 1000 + 0.5
    room.post(seat, claim(room, seat, facing))
    gone = vanish_when(room, Owed.SHUFFLE_STEP)  # hand 2: a seat's first shuffle step never comes
    claim_after(room, 90.0, gone)
    room.run()
    assert room.violations == {}, room.violations
    late = transcript.observer(room.name, room.catalog)  # a watcher that joins now: the ledger from its first event
    folded: list[tuple] = []
    transcript.fold(room.as_transcript(), room.catalog, late, lambda table: folded.append(agreed(table)))
    assert folded[joined:] == live
    said = "\n".join(late.log)
    for what in ("time ran out: checked", "check came after", "time ran out: folded", "hand 2 is void"):
        assert what in said, said


def setup(game: str, seats: int = 2):
    chosen = GAMES[game]
    options = chosen.Options()
    return chosen.new(Setup(seats, 0, options, tuple(chosen.faces(options, seats)), proven=True))


def test_each_game_s_default_move_is_legal_where_the_seat_is_to_move():
    discard = setup("discard")
    assert discard.time_out(0) == Draw(pos=discard.board.draw_pile[0])
    discard.board.draw_pile.clear()  # nothing to draw: the seat out of time loses
    assert discard.time_out(0) == OutOfTime()
    discard.check(0, OutOfTime())
    discard.push(0, OutOfTime())
    assert discard.outcome().reason == "{0} ran out of time with nothing to draw: {1} won"

    war = setup("war")
    assert isinstance(war.time_out(0), Turn) and war.time_out(0) == war.legal_moves(0)[0]

    cabo = setup("cabo", 3)
    r = cabo.round
    expected = {Stage.TURN: CaboDraw(pos=r.draw_pile[0]), Stage.PEEK: Peek(pos=r.hands[0][0]),
                Stage.SPY: Spy(pos=r.hands[1][0]), Stage.SWAP: Swap(mine=r.hands[0][0], theirs=r.hands[1][0]),
                Stage.SHOWDOWN: Showdown()}
    for stage, move in expected.items():
        r.stage = stage
        assert cabo.time_out(0) == move
        cabo.check(0, move)
    r.stage, r.taken = Stage.TAKEN, r.draw_pile[0]
    for from_draw, move in ((True, CaboDiscard()), (False, Replace(positions=[r.hands[0][0]]))):
        r.from_draw = from_draw
        assert cabo.time_out(0) == move
        cabo.check(0, move)

    rps = setup("rps")
    rps.choose({1: TIMED_OUT})
    assert rps.match.scores == (1, 0) and rps.match.throws[0].values == ("—", "—")


# -- over a relay -------------------------------------------------------------------------------------------


class EarlyClaim:
    """Posts, in place of its first throw's commitment, a claim that the other seat's time already ran out."""

    def __init__(self) -> None:
        self.done = False

    def __call__(self, table, body):
        timers = table.play.timers
        if self.done or body["msg"]["type"] != "commit" or body["msg"]["label"] == "start" or timers is None:
            return None  # the draw for who starts is not a throw
        self.done = True
        return wire.seal(table.identity(1), table.room, table.me, body["game"], body["n"],
                         wire.TimeOut(seat=0, wait=timers.waits[0].number))


async def test_a_claim_made_before_the_relay_s_clock_says_so_stops_the_honest_seat_naming_the_claimant(players):
    from games.rps.strategy import random_throws

    pair = await players("early", [None, random_throws(2)], game="rps", tamper={1: EarlyClaim()})
    assert await pair.next_games(timeout=20) == [None, None]
    problem = pair.seats[0].table.problem
    assert problem.startswith("bo claimed that your time ran out ") and " early: " in problem, problem


class FakeTime:
    """The relay's clock and the seats' own, advanced by the test."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_seat_that_stops_moving_is_folded_by_the_other_s_claim_and_the_table_plays_on(eventually):
    clock = FakeTime()
    relay = Relay(MemoryLedger(clock=clock), Limits())
    server = await relay.serve("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    pair = await start_players(url, "clock", [None, player(2)], game="holdem", options={"clock": 30, "bank": 60},
                               clock=clock)
    idle, claimant = (seat.table for seat in pair.seats)
    try:
        def owes_a_move() -> bool:  # not a shuffle step or keys, which her program sends (Hold'em clocks them too)
            return idle.owing() == [Awaiting(0, Owed.MOVE)]

        await eventually(owes_a_move, "ana, who makes no move, to owe one")
        clock.now += 89.0
        await pair.seats[1].pump()  # as its timer would, 89 s on: too early, so no claim
        assert pair.seats[1].outbox is None
        for _ in range(5):  # each time ana owes a move, 90 s (then 30 s: her bank is spent) on, bo claims it
            timed_out = sum("time ran out" in line for line in idle.log)
            clock.now += 1.6 if clock.now < 1_800_000_090 else 30.6
            await pair.seats[1].pump()
            await eventually(lambda: sum("time ran out" in line for line in idle.log) > timed_out, "bo's claim, applied")
            await eventually(lambda: owes_a_move() or len(claimant.play.decks) == 2, "the hand goes on")
            if len(claimant.play.decks) == 2:
                break
        await eventually(lambda: claimant.clocked() and idle.clocked(), "the next hand, dealt")
        said = [line for line in idle.log if "time ran out" in line]
        assert said and said[-1].startswith("your time ran out: folded") and all(
            line.startswith(("your time ran out: checked", "your time ran out: folded")) for line in said)
        theirs = [line for line in claimant.log if "time ran out" in line]
        assert [line.split(".")[0] for line in theirs] == [line.split(".")[0].replace("your", "ana's") for line in said]
        assert idle.problem is None and claimant.problem is None
        assert idle.play.timers.banks[0] == claimant.play.timers.banks[0] == 0
        late = await watch(url, "clock", "zed", GAMES)  # joins after the time-outs: folds the ledger from its start
        late.clock = clock
        watching = asyncio.create_task(late.run())
        await eventually(lambda: late.caught_up and late.table.play.decks and late.table.clocked(), "the watcher")
        assert late.table.problem is None and late.table.play.moves == claimant.play.moves
        assert (late.table.play.timers.view(), late.table.play.late) == (claimant.play.timers.view(),
                                                                          claimant.play.late)
        watching.cancel()
        await late.ledger.close()
    finally:
        await pair.stop()
        server.close()
        await server.wait_closed()
        await relay.close()
