"""War on the table: its one move, its state, and what a screen or a computer player sees of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from games.cards import FULL_DECK, Card
from tabletop.deck import Show
from tabletop.game import Game, GameState, Outcome, RuleViolation, Setup, option_field
from tabletop.wire import STRICT, Message, Position

from .about import ABOUT, MOVE_TIME, TIME_BANK, TRICKS
from .rules import SEATS, Board
from .strategy import turn

class WarOptions(BaseModel):
    model_config = STRICT
    tricks: int = option_field(TRICKS)
    clock: int = option_field(MOVE_TIME)
    bank: int = option_field(TIME_BANK)


class Turn(Message):
    """I turn the top card of each pile (``up``, in seat order) face up, after laying ``down`` face down in a war.

    The move carries my keys to the ``up`` cards, in the open; the other player's follow in a ``share``.
    Nobody's key to a ``down`` card is shown before the audit.
    """

    type: Literal["turn"] = "turn"
    up: Annotated[list[Position], Field(max_length=SEATS)]
    down: Annotated[list[Position], Field(max_length=SEATS)] = []


@dataclass(frozen=True)
class WarView:
    """What a screen or a computer player needs of the game, for one seat (every seat sees the same)."""

    piles: tuple[int, ...]  # cards per seat
    trick: tuple[tuple[Card | None, ...], ...]  # per seat: this trick's cards in the order laid; None: face down
    taker: int | None  # who took the trick on the table; None while it is undecided
    war: bool  # the last turn tied: the next turn is a war
    tricks: int  # taken so far
    limit: int
    to_move: int | None  # who turns next; None once the game is over
    winner: int | None
    over: bool
    up: tuple[int, ...]  # the next turn's positions (seat order), for the one who makes it
    down: tuple[int, ...]


@dataclass
class WarState(GameState[Card]):
    board: Board = field(init=False)

    def __post_init__(self) -> None:
        self.board = Board(self.setup.starter, self.setup.options.tricks, self.faces)

    def deal(self) -> list[Show]:
        return []  # the piles are dealt face down, unseen even by their owners

    def to_move(self) -> int | None:
        return None if self.board.over else self.board.turner

    def check(self, seat: int, move: Message) -> None:
        if not isinstance(move, Turn):
            raise RuleViolation(f"sent {move.type!r}, which is no war move")
        self.board.check_turn(seat, move.up, move.down)

    def shows(self, seat: int, move: Message) -> list[Show]:
        assert isinstance(move, Turn)
        return [Show(pos) for pos in move.up]

    def push(self, seat: int, move: Message) -> None:
        assert isinstance(move, Turn)
        self.board.apply_turn(seat, move.up, move.down)

    def time_out(self, seat: int) -> Message:
        """A seat out of time turns (its own software still sends its keys to the cards turned)."""
        return self.legal_moves(seat)[0]

    def legal_moves(self, seat: int) -> list[Message]:
        if self.board.over or seat != self.board.turner:
            return []
        down, up = self.board.next_turn()
        return [Turn(up=up, down=down)]

    def outcome(self) -> Outcome | None:
        b = self.board
        if not b.over:
            return None
        winners = () if b.winner is None else (b.winner,)
        loser = None if b.winner is None else (b.winner + 1) % SEATS
        return Outcome(winners, tuple(len(pile) for pile in b.piles), b.ending, next_starter=loser)
    def forfeit(self, seat: int) -> Outcome:
        winner = (seat + 1) % SEATS
        return Outcome((winner,), tuple(len(pile) for pile in self.board.piles), f"{{{seat}}} forfeited: {{{winner}}} "
                       "won", next_starter=seat)

    def describe(self, seat: int, move: Message) -> str:
        """ "turned 7♠ against K♦: 2 cards to {1}", "… in the war: …": the mover's own card first, then who took
        the trick (a seat placeholder: the table names it)."""
        assert isinstance(move, Turn)
        b = self.board
        mine, theirs = self.faces[move.up[seat]], self.faces[move.up[1 - seat]]
        line = f"turned {mine} against {theirs}" + (" in the war" if move.down else "")
        if b.taker is None:
            return f"{line}: a war" if b.over else f"{line}: war again!" if move.down else f"{line}: war!"
        return f"{line}: {len(b.trick)} cards to {{{b.taker}}}"

    def view(self, seat: int) -> WarView:
        b = self.board
        trick = tuple(tuple(self.faces[laid.pos] if laid.up else None for laid in b.trick if laid.seat == s)
                      for s in range(SEATS))
        down, up = ([], []) if b.over else b.next_turn()
        return WarView(piles=tuple(len(pile) for pile in b.piles), trick=trick, taker=b.taker, war=b.at_war,
                       tricks=b.tricks, limit=b.limit, to_move=self.to_move(), winner=b.winner, over=b.over,
                       up=tuple(up), down=tuple(down))


class War(Game[Card]):
    """Turn the top cards; the higher takes both; a tie is a war. Whoever runs out loses."""

    about = ABOUT
    messages: ClassVar[tuple[type[Message], ...]] = (Turn,)
    tally: ClassVar[tuple[str, str]] = ("turn", "turns")
    Options = WarOptions

    def faces(self, options: WarOptions, seats: int) -> tuple[Card, ...]:
        return FULL_DECK

    def new(self, setup: Setup[Card]) -> WarState:
        return WarState(setup)

    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        return turn(seed)
