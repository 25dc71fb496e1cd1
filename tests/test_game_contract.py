"""One contract for every game of the registry (games/__init__.py), at every seat count it allows: what the table
relies on of a game (tabletop/game.py), checked on the pure rules, without crypto or a relay.

A game is dealt here as the table deals it (each deal a shuffled deck, its showings made as ``deal`` and ``shows``
say), and played by its own computer players. Each seat's state knows only the cards shown to it; beside them a
state that knows every card, as the audit's replay does, is told every move too, so it judges every claim. At every
step:

- the seats agree on whom the game waits for, on a choice, on what a move shows and on the outcome;
- at most one seat is to move (``to_move`` is one seat or None), only that seat has legal moves or a forced one,
  and none is to move while every seat chooses at once;
- every legal move, and the move the game makes for a seat whose time ran out (``time_out``), passes ``check``
  from every seat's side, and ``push`` on a copy of the state that knows every card; in a choice, each seat may
  lose it by its time;
- each seat's view is the same from its own state as from the one that knows every card: it never shows a card
  the seat has not seen.

The computer players finish the game, and the state that knows every card reaches the same outcome: the game
verifies. Each game is played through the real crypto elsewhere (tests/test_games.py, test_rps.py, test_war.py,
test_cabo_table.py, test_holdem_wire.py); here the screen's view is built, through the crypto, at each game's
smallest table only, since dealing is most of that test's time.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from games import GAMES
from pilot import view_of
from room import Room
from tabletop.deck import Show
from tabletop.game import TIMED_OUT, GameState, Outcome, Setup
from tabletop.table import Needs
from tabletop.values import Phase
from tabletop.wire import Message

T = TypeVar("T")

QUICK: dict[str, dict[str, Any]] = {  # options for a short game; any game not named plays its defaults
    "discard": {"deck": "short"},
    "war": {"tricks": 40},
    "cabo": {"points": 20},
    "holdem": {"chips": 1000, "blinds": "50/100", "hands": 3},
}
STEPS = 3000  # more steps than any game here takes: a game still going after them never ends
CASES = [(name, seats) for name in GAMES for seats in GAMES.abouts[name].seats]


@dataclass
class Computer:
    """What a computer player reads of its table (``play.state``, ``me``, ``owed``): here a seat's own state."""

    me: int
    state: GameState[Any]

    @property
    def play(self) -> Computer:
        return self

    def owed(self) -> Needs | None:
        """The choice the game waits on this seat for, as the table says it."""
        choice = self.state.choice()
        return Needs(choice) if choice is not None and self.me in choice.seats else None


class Dealer:
    """A game played as the table plays it, the deck dealt in the clear: ``seats`` (each seat's state) and ``audit``
    (a state that knows every card, as the audit's replay)."""

    def __init__(self, name: str, seats: int, seed: int) -> None:
        game = self.game = GAMES[name]
        options = game.Options(**QUICK.get(name, {}))
        self.faces = tuple(game.faces(options, seats))
        setup = Setup(seats, seed % seats, options, self.faces, proven=True)
        self.seats = [game.new(setup) for _ in range(seats)]
        self.audit = game.new(setup)
        self.players = [game.computer(seed * 10 + seat) for seat in range(seats)]
        self.rng = random.Random(seed)
        self.decks = 0

    @property
    def states(self) -> list[GameState[Any]]:
        return [*self.seats, self.audit]

    def agreed(self, read: Callable[[GameState[Any]], T]) -> T:
        """What every state says of ``read``: every seat, and the state that knows every card, must say the same."""
        said = [read(state) for state in self.states]
        assert all(each == said[0] for each in said), said
        return said[0]

    def deal(self) -> None:
        """Each deal the game asks for: a shuffled deck whose positions follow the last deal's, and its showings."""
        while self.faces and self.agreed(lambda state: state.deals()) > self.decks:
            n = len(self.faces)
            order = self.rng.sample(self.faces, n)
            self.audit.faces.update({self.decks * n + k: face for k, face in enumerate(order)})
            self.decks += 1
            self.show(self.agreed(lambda state: state.deal()))

    def show(self, shows: list[Show]) -> None:
        """The showings complete, as the table's do: who has seen each position, and its card to those shown it."""
        everyone = set(range(len(self.seats)))
        for show in shows:
            to = everyone if show.to is None else {show.to}
            for seat, state in enumerate(self.states):
                state.seen.setdefault(show.pos, set()).update(to)
                if seat in to:
                    state.faces[show.pos] = self.audit.faces[show.pos]

    def check_contract(self) -> int | None:
        """The contract at this step; the seat to move, if any."""
        seats = range(len(self.seats))
        mover = self.agreed(lambda state: state.to_move())
        choice = self.agreed(lambda state: state.choice())
        for state in self.states:
            others = [seat for seat in seats if seat != mover]
            assert all(state.legal_moves(seat) == [] and state.owed(seat) is None for seat in others), \
                "a seat out of turn may move"
        if choice is not None:
            assert mover is None, f"seat {mover} is to move while every seat chooses at once"
            for seat in choice.seats:  # a seat out of time loses the choice
                trial = pickle.loads(pickle.dumps(self.audit))
                trial.choose({seat: TIMED_OUT})
        for seat, state in enumerate(self.seats):
            assert state.view(seat) == self.audit.view(seat), f"seat {seat}'s view shows a card it has not seen"
        if mover is None:
            return None
        legal = self.seats[mover].legal_moves(mover)
        assert legal or self.seats[mover].owed(mover) is not None, f"seat {mover} is to move but has no move"
        if self.faces and not self.game.voids_deals:  # a seat whose keys never come forfeits the game
            for seat in seats:
                ended = self.agreed(lambda state: state.forfeit(seat))
                assert ended.winners and seat not in ended.winners and len(ended.scores) == len(seats), ended
                assert ended.reason.format(*(f"seat {each}" for each in seats))
        default = self.agreed(lambda state: state.time_out(mover))  # the move made for a seat out of time
        assert default is not None, f"no move for seat {mover} once its time runs out"
        for move in [*legal, default]:
            for state in self.states:
                state.check(mover, move)  # from every seat's side, without the cards it has not seen
            trial = pickle.loads(pickle.dumps(self.audit))  # and, on a copy that knows every card, applied
            trial.check(mover, move)
            trial.push(mover, move)
        return mover

    def move(self, seat: int, move: Message) -> None:
        """``move`` checked by every seat, its showings made, then applied everywhere (as the table takes it)."""
        for state in self.states:
            state.check(seat, move)
        self.show(self.agreed(lambda state: state.shows(seat, move)))
        for state in self.states:
            state.push(seat, move)

    def play(self) -> Outcome:
        """The computer players' game to its end."""
        for _ in range(STEPS):
            self.deal()
            mover = self.check_contract()
            outcome = self.agreed(lambda state: state.outcome())
            if outcome is not None:
                assert mover is None, "the game is over but waits on a seat"
                return outcome
            choice = self.agreed(lambda state: state.choice())
            if choice is not None:
                values = {seat: self.players[seat](Computer(seat, self.seats[seat])) for seat in choice.seats}
                thrown = {seat: value for seat, value in values.items() if isinstance(value, str)}
                assert thrown == values and set(thrown.values()) <= set(choice.allowed), values
                for state in self.states:
                    state.choose(dict(thrown))
                continue
            assert mover is not None, "the game waits on nobody and is not over"
            move = self.seats[mover].owed(mover) or self.players[mover](Computer(mover, self.seats[mover]))
            assert isinstance(move, Message), f"seat {mover}'s computer player made no move: {move!r}"
            self.move(mover, move)
        raise AssertionError(f"the game did not end in {STEPS} steps")


@pytest.mark.parametrize("name, seats", CASES, ids=[f"{name}-{seats}" for name, seats in CASES])
def test_computer_players_finish_every_game_within_the_contract_and_it_verifies(name, seats):
    dealer = Dealer(name, seats, seed=seats)
    outcome = dealer.play()
    assert len(outcome.scores) == seats and set(outcome.winners) <= set(range(seats)), outcome
    assert outcome.reason.format(*(f"seat {seat}" for seat in range(seats)))  # every name it gives is a seat's
    for seat, state in enumerate(dealer.states):
        assert state.to_move() is None and state.choice() is None
        assert all(state.legal_moves(each) == [] for each in range(seats)), f"a move after the end, seat {seat}"


@pytest.mark.parametrize("name", list(GAMES))
def test_each_seat_s_screen_view_builds_from_the_table(name):
    """At the game's smallest table, through the crypto, once the cards are dealt: the game's screen builds its own
    view for every seat, with the board the game's view gave it."""
    seats = GAMES.abouts[name].seats[0]
    room = Room(game=name, seats=seats, options=QUICK.get(name, {}))
    room.run(until=lambda: all(table.phase is Phase.PLAYING for table in room.tables))
    assert room.violations == {}
    for seat, table in enumerate(room.tables):
        view = view_of(room, seat)
        assert view.board == table.view().board is not None and view.me == seat and len(view.names) == seats
