"""Discard on the table: its state and its rules for the table (its moves and views are in ``moves``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from games.cards import FULL_DECK, SHORT_DECK, Card
from tabletop.deck import Show
from tabletop.game import Game, GameState, Outcome, RuleViolation, Setup, option_field
from tabletop.wire import STRICT, Message

from .about import ABOUT, DECK, MOVE_TIME, TIME_BANK
from .moves import CantMove, DiscardCard, DiscardView, Draw, OutOfTime
from .rules import Board, matches, short_mismatch
from .strategy import simple


class DiscardOptions(BaseModel):
    model_config = STRICT
    deck: Literal["full", "short"] = option_field(DECK)
    clock: int = option_field(MOVE_TIME)
    bank: int = option_field(TIME_BANK)


@dataclass
class DiscardState(GameState[Card]):
    board: Board = field(init=False)

    def __post_init__(self) -> None:
        s = self.setup
        self.board = Board(len(s.faces), s.starter, s.seats, self.faces)

    def deal(self) -> list[Show]:
        return [Show(pos, seat) for seat, hand in enumerate(self.board.hands) for pos in hand]

    def to_move(self) -> int | None:
        return None if self.board.over else self.board.turn

    def check(self, seat: int, move: Message) -> None:
        if isinstance(move, Draw):
            self.board.check_draw(seat, move.pos)
        elif isinstance(move, DiscardCard):
            self.board.check_discard(seat, move.pos)
            top = self.board.top
            if move.pos in self.faces and not matches(card := self.faces[move.pos], top):  # my own card
                assert top is not None
                raise RuleViolation(f"discarded {card}, which matches neither the suit nor the value of {top}",
                                    rule=short_mismatch(card, top))
        elif isinstance(move, CantMove):
            self.board.check_cant_move(seat)
        elif isinstance(move, OutOfTime):
            self.board.check_turn(seat, "ran out of time")
        else:
            raise RuleViolation(f"sent {move.type!r}, which is no discard move")

    def shows(self, seat: int, move: Message) -> list[Show]:
        if isinstance(move, Draw):
            return [Show(move.pos, seat)]
        if isinstance(move, DiscardCard):
            return [Show(move.pos)]
        if isinstance(move, OutOfTime):
            return []
        if self.setup.proven:  # cant_move: its cards shown to everyone, so that the claim is judged now
            return [Show(pos) for pos in self.board.hands[seat]]
        return []

    def push(self, seat: int, move: Message) -> None:
        if isinstance(move, Draw):
            self.board.apply_draw(seat, move.pos)
        elif isinstance(move, DiscardCard):
            self.board.apply_discard(seat, move.pos)
        elif isinstance(move, OutOfTime):
            self.board.apply_time_out(seat)
        else:
            self.board.apply_cant_move(seat)

    def owed(self, seat: int) -> Message | None:
        t = self.board
        if not t.over and t.turn == seat and t.knows_hand(seat) and not t.can_move(seat):
            return CantMove()
        return None

    def time_out(self, seat: int) -> Message:
        """A seat out of time draws; with nothing to draw, it loses."""
        pile = self.board.draw_pile
        return Draw(pos=pile[0]) if pile else OutOfTime()

    def legal_moves(self, seat: int) -> list[Message]:
        t = self.board
        if t.over or t.turn != seat or not t.knows_hand(seat):
            return []
        moves: list[Message] = [DiscardCard(pos=pos) for pos in t.playable(seat)]
        if t.draw_pile:
            moves.append(Draw(pos=t.draw_pile[0]))
        return moves

    def outcome(self) -> Outcome | None:
        t = self.board
        if t.winner is None:
            return None
        loser = (t.winner + 1) % t.seats
        if t.timed_out:
            reason = f"{{{loser}}} ran out of time with nothing to draw: {{{t.winner}}} won"
        elif t.hands[t.winner]:
            reason = f"{{{loser}}} could not move: {{{t.winner}}} won"
        else:
            reason = f"{{{t.winner}}} discarded the last card and won"
        return Outcome((t.winner,), tuple(len(hand) for hand in t.hands), reason, next_starter=loser)

    def forfeit(self, seat: int) -> Outcome:
        winner = 1 - seat
        return Outcome((winner,), tuple(len(hand) for hand in self.board.hands), f"{{{seat}}} forfeited: {{{winner}}} "
                       "won", next_starter=seat)

    def describe(self, seat: int, move: Message) -> str:
        if isinstance(move, Draw):
            return f"drew {self.faces[move.pos]}" if move.pos in self.faces else "drew a card"
        if isinstance(move, DiscardCard):
            return f"discarded {self.faces[move.pos]}"
        if isinstance(move, OutOfTime):
            return "lost: nothing was left to draw"
        return "had no card to play and none to draw"  # the outcome that follows says "could not move"

    def view(self, seat: int) -> DiscardView:
        t = self.board
        order = self.setup.faces
        known = [(pos, t.faces[pos]) for pos in t.hands[seat] if pos in t.faces]
        hand = tuple(sorted(known, key=lambda pc: order.index(pc[1])))
        return DiscardView(
            hand=hand, playable=tuple(matches(card, t.top) for _, card in hand),
            hand_sizes=tuple(len(h) for h in t.hands), draw_pile=len(t.draw_pile),
            draw_top=t.draw_pile[0] if t.draw_pile else None, top=t.top,
            discard_count=len(t.discard_pile), turn=None if t.over else t.turn, winner=t.winner,
            deck_size=t.deck_size)


class Discard(Game[Card]):
    """Get rid of your cards: discard one that matches the top card's suit or value, or draw."""

    about = ABOUT
    messages: ClassVar[tuple[type[Message], ...]] = (Draw, DiscardCard, CantMove)
    Options = DiscardOptions

    def faces(self, options: DiscardOptions, seats: int) -> tuple[Card, ...]:
        return FULL_DECK if options.deck == "full" else SHORT_DECK

    def new(self, setup: Setup[Card]) -> DiscardState:
        return DiscardState(setup)

    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        return simple(seed)
