"""What the discard screen shows of a seat: the phases and one immutable snapshot.

Kept apart from the table so that the app can draw its first frame before the
table, the crypto and the network are imported (discard_tui/viewmodel.py
builds it).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from games.cards import Card

if TYPE_CHECKING:
    from tabletop.ledger import Link


class Phase(str, Enum):
    CONNECTING = "connecting"
    WAITING = "waiting"  # for the opponent to arrive or to accept a rematch
    FLIPPING = "flipping"
    SHUFFLING = "shuffling"
    DEALING = "dealing"
    PLAYING = "playing"
    AUDITING = "auditing"
    OVER = "over"
    VIOLATION = "violation"
    FAILED = "failed"  # the relay cannot be used


@dataclass(frozen=True)
class GameView:
    """What a screen needs, as one immutable snapshot."""

    phase: Phase
    game: int  # the game on screen: the last one played until both players open the next
    my_name: str
    opponent_name: str
    opponent_present: bool
    my_turn: bool
    hand: tuple[Card, ...]
    playable: tuple[bool, ...]
    opponent_hand: int
    draw_pile: int
    discard_top: Card | None
    discard_count: int
    log: tuple[str, ...]
    progress: tuple[str, int, int] | None
    link: Link
    result: str | None  # "win" | "loss"
    verdict: str | None
    problem: str | None  # violation or relay failure, in words
    transcript: str | None
    rematch_offered: bool
    waiting_since: float | None
    deck_size: int
    moves: int
    last_move: str | None = None  # the shown game's last move, from my side: "Computer discarded 8♥"
    score: tuple[int, int] = (0, 0)  # fair games won in this room: (mine, the opponent's)
    safety: str | None = None  # the shown game's safety number, once both hellos are in
    replaying: bool = False  # rebuilding what an earlier run played; nothing on screen is current yet
    opponent_left_at: float | None = None  # the relay's Unix time of the opponent's leave, while away
    link_since: float = 0.0  # time.monotonic() of the last change of ``link``
    deck_chosen_by: str | None = None  # the opponent, when their first hello overrode my --deck
    seat_lost: bool = False  # the relay no longer knows our seat token
    draw_refusal: str | None = "the game is not under way"  # why I cannot draw now, None if I can
    rematch_refusal: str | None = "a rematch can start once this game is over"
