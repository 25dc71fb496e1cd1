"""Discard's moves and what a seat sees of the game: what its screen and its computer player need of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from games.cards import Card
from tabletop.wire import Message, Position


class Draw(Message):
    """I draw the card at ``pos``, the top of the draw pile: the others send me their keys to it."""

    type: Literal["draw"] = "draw"
    pos: Position


class DiscardCard(Message):
    """I discard the card at ``pos``; the move carries every key to it, so everyone sees it."""

    type: Literal["discard"] = "discard"
    pos: Position


class OutOfTime(Message):
    """Made by the table, never sent: my time ran out with no card to draw, and I lose (docs/games.md, "The
    clock")."""

    type: Literal["out_of_time"] = "out_of_time"


class CantMove(Message):
    """I can neither discard nor draw: I lose. The audit checks the claim."""

    type: Literal["cant_move"] = "cant_move"


@dataclass(frozen=True)
class DiscardView:
    """What a screen or a computer player needs of the game, for one seat."""

    hand: tuple[tuple[int, Card], ...]  # (position, card), sorted by deck order
    playable: tuple[bool, ...]
    hand_sizes: tuple[int, ...]  # per seat
    draw_pile: int
    draw_top: int | None  # the position on top of the draw pile
    top: Card | None
    discard_count: int
    turn: int | None
    winner: int | None
    deck_size: int
