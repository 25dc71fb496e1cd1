"""Test-only games: three seats that exercise the N-player deck, and a game that deals three times.

Peek:

Each seat is dealt two cards face down, unseen even by itself. Seats move in
turn (0, 1, 2, 0, …): ``look`` shows one position privately to the mover
(its own card: a peek; another seat's: a spy), ``pass`` does nothing, and
``open`` shows every dealt card to everyone and ends the game; the highest
card wins. A scripted strategy plays: seat 0 peeks at its first card, seat 1
passes, seat 2 spies on that same card, then seat 0 opens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from games.cards import SHORT_DECK, Card
from tabletop.deck import Show
from tabletop.game import Game, GameState, Outcome, RuleViolation, Setup
from tabletop.table import Table
from tabletop.wire import Message, Position

HAND = 2


class Look(Message):
    type: Literal["look"] = "look"
    pos: Position


class Pass(Message):
    type: Literal["pass"] = "pass"


class Open(Message):
    type: Literal["open"] = "open"


@dataclass
class PeekState(GameState[Card]):
    turn: int = 0
    opened: bool = False

    @property
    def dealt(self) -> list[int]:
        return list(range(self.setup.seats * HAND))

    def owner(self, pos: int) -> int:
        return pos // HAND

    def to_move(self) -> int | None:
        return None if self.opened else self.turn

    def check(self, seat: int, move: Message) -> None:
        if seat != self.turn or self.opened:
            raise RuleViolation(f"sent {move.type!r} out of turn")
        if isinstance(move, Look) and move.pos not in self.dealt:
            raise RuleViolation(f"looked at card {move.pos}, which nobody holds")

    def shows(self, seat: int, move: Message) -> list[Show]:
        if isinstance(move, Look):
            return [Show(move.pos, seat)]
        if isinstance(move, Open):
            return [Show(pos) for pos in self.dealt]
        return []

    def push(self, seat: int, move: Message) -> None:
        self.opened = isinstance(move, Open)
        self.turn = (self.turn + 1) % self.setup.seats

    def legal_moves(self, seat: int) -> list[Message]:
        return [] if seat != self.turn or self.opened else [Pass(), Open(), *(Look(pos=p) for p in self.dealt)]

    def outcome(self) -> Outcome | None:
        if not self.opened:
            return None
        best = {seat: max(self.faces[p].value for p in self.dealt if self.owner(p) == seat)
                for seat in range(self.setup.seats)}
        top = max(best.values())
        winners = tuple(s for s, v in best.items() if v == top)
        return Outcome(winners, tuple(best[s] for s in range(self.setup.seats)), "the cards are open")

    def describe(self, seat: int, move: Message) -> str:
        if isinstance(move, Look):
            return f"looked at card {move.pos}"
        return "opened every card" if isinstance(move, Open) else "passed"

    def view(self, seat: int) -> Any:
        return dict(self.faces)


class PeekGame(Game[Card]):
    name: ClassVar[str] = "peek"
    title: ClassVar[str] = "peek"
    seats: ClassVar[range] = range(3, 4)
    messages: ClassVar[tuple[type[Message], ...]] = (Look, Pass, Open)

    def faces(self, options: Any, seats: int) -> tuple[Card, ...]:
        return SHORT_DECK

    def new(self, setup: Setup[Card]) -> PeekState:
        return PeekState(setup)

    def computer(self, seed: int | None) -> Any:
        return script


TARGET = 0  # seat 0's first card: peeked by seat 0, then spied on by seat 2


def script(table: Table) -> Message | None:
    """Seat 0 peeks at card 0, seat 1 passes, seat 2 spies on card 0, then seat 0 opens."""
    state = table.play.state
    assert isinstance(state, PeekState)
    if table.me == 0:
        return Open() if TARGET in state.faces else Look(pos=TARGET)
    if table.me == 2:
        return Look(pos=TARGET)
    return Pass()


class Turn(Message):
    type: Literal["turn"] = "turn"


@dataclass
class DealsState(GameState[Card]):
    """Three deals of the short deck; each seat in turn turns the top card of the current deal face up.

    After both have turned, the next deal is shuffled; after three, the higher total of turned cards wins.
    """

    turned: list[tuple[int, int]] = field(default_factory=list)  # (seat, position)
    DEALS: ClassVar[int] = 3

    def deals(self) -> int:
        return min(self.DEALS, len(self.turned) // self.setup.seats + 1)

    def to_move(self) -> int | None:
        return None if len(self.turned) == self.DEALS * self.setup.seats else len(self.turned) % self.setup.seats

    def next_position(self) -> int:
        deal, k = divmod(len(self.turned), self.setup.seats)
        return deal * len(self.setup.faces) + k

    def check(self, seat: int, move: Message) -> None:
        if seat != self.to_move():
            raise RuleViolation(f"sent {move.type!r} out of turn")

    def shows(self, seat: int, move: Message) -> list[Show]:
        return [Show(self.next_position())]

    def push(self, seat: int, move: Message) -> None:
        self.turned.append((seat, self.next_position()))

    def legal_moves(self, seat: int) -> list[Message]:
        return [Turn()] if seat == self.to_move() else []

    def outcome(self) -> Outcome | None:
        if self.to_move() is not None:
            return None
        totals = tuple(sum(self.faces[pos].value for s, pos in self.turned if s == seat)
                       for seat in range(self.setup.seats))
        best = max(totals)
        return Outcome(tuple(s for s, t in enumerate(totals) if t == best), totals, "every card is turned")

    def describe(self, seat: int, move: Message) -> str:
        return f"turned {self.faces[self.turned[-1][1]]}"

    def view(self, seat: int) -> Any:
        return list(self.turned)


class DealsGame(Game[Card]):
    name: ClassVar[str] = "deals"
    title: ClassVar[str] = "deals"
    seats: ClassVar[range] = range(2, 3)
    messages: ClassVar[tuple[type[Message], ...]] = (Turn,)

    def faces(self, options: Any, seats: int) -> tuple[Card, ...]:
        return SHORT_DECK

    def new(self, setup: Setup[Card]) -> DealsState:
        return DealsState(setup)

    def computer(self, seed: int | None) -> Any:
        return lambda table: Turn()
