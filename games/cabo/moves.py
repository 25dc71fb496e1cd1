"""Cabo's moves and what a seat sees of the game: what its screen and its computer player need of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from tabletop.wire import Message, Position

from .about import Stage


class Draw(Message):
    """I take the top of the draw pile (``pos``): the others send me their keys to it, sealed."""

    type: Literal["draw"] = "draw"
    pos: Position


class Take(Message):
    """I take the top of the discard pile (``pos``), face up."""

    type: Literal["take"] = "take"
    pos: Position


class Stop(Message):
    """I stop the round instead of taking a card: every other player has one more turn."""

    type: Literal["stop"] = "stop"


class Replace(Message):
    """The card I took replaces mine at ``positions``: one card, or several I claim are identical.

    Every card named is shown to everyone (it goes face up on the discard pile, or the claim is judged).
    """

    type: Literal["replace"] = "replace"
    positions: Annotated[list[Position], Field(min_length=1, max_length=52)]


class Discard(Message):
    """The card I drew goes face up on the discard pile; a 7 to 12 gives its power."""

    type: Literal["discard"] = "discard"


class Peek(Message):
    """After a 7 or 8: show me my card at ``pos``."""

    type: Literal["peek"] = "peek"
    pos: Position


class Spy(Message):
    """After a 9 or 10: show me another player's card at ``pos``."""

    type: Literal["spy"] = "spy"
    pos: Position


class Swap(Message):
    """After an 11 or 12: my card at ``mine`` and another player's at ``theirs`` change places, unseen."""

    type: Literal["swap"] = "swap"
    mine: Position
    theirs: Position


class Showdown(Message):
    """The round is over: every card in every hand is shown to everyone, and scored."""

    type: Literal["showdown"] = "showdown"


MOVES: tuple[type[Message], ...] = (Draw, Take, Stop, Replace, Discard, Peek, Spy, Swap, Showdown)


@dataclass(frozen=True)
class Slot:
    """One card on the table as one seat sees it."""

    pos: int
    value: int | None  # None while this seat has not seen it
    public: bool = False  # everyone has seen it


@dataclass(frozen=True)
class CaboView:
    """What a screen or a computer player needs of the game, for one seat."""

    me: int
    round: int  # 1 for the first
    hands: tuple[tuple[Slot, ...], ...]  # per seat, left to right
    deck_size: int  # a round's deck, whole
    draw_pile: int
    draw_top: int | None
    discard_top: Slot | None
    discard_count: int
    taken: Slot | None  # the card the mover holds
    from_draw: bool
    turn: int | None
    stage: Stage
    stopper: int | None
    totals: tuple[int, ...]
    last_scores: tuple[int, ...] | None  # the last round's, once one is scored
    showdown: tuple[tuple[int, ...], ...] | None  # every hand's values at the last round's end
    to_move: int | None  # the seat the game waits on; None once the game is over
    over: bool
    last_stopper: int | None = None  # who stopped the last round scored (None: its draw pile ran out, or no round yet)

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.me

    def known_sum(self, seat: int) -> tuple[int, int]:
        """(the sum of the cards of ``seat``'s hand I know, how many I do not know)."""
        hand = self.hands[seat]
        return sum(s.value for s in hand if s.value is not None), sum(s.value is None for s in hand)
