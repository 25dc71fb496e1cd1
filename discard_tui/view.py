"""What every game's screen shows of a seat: the phases and one immutable snapshot.

Kept apart from the table so that the app can draw its first frame before the
table, the crypto and the network are imported (discard_tui/viewmodel.py
builds it). Each game's screen module extends :class:`SeatView` with its own
fields and the type of its game's board.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from tabletop.ledger import Link
    from tabletop.values import Progress, Result
    from tabletop.values import Verdict

Board = TypeVar("Board")  # a game's own view of the table for one seat (tabletop's GameState.view)


class SeatPhase(str, Enum):
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
class SeatView(Generic[Board]):
    """What every game's screen shows of a seat, as one immutable snapshot."""

    phase: SeatPhase
    number: int  # the game on screen: the last one played until every seat has opened the next
    me: int
    names: tuple[str, ...]  # per seat
    present: tuple[bool, ...]
    my_turn: bool
    log: tuple[str, ...]
    progress: Progress | None
    link: Link
    result: Result | None
    verdict: Verdict | None
    problem: str | None  # violation or relay failure, in words
    transcript: str | None
    rematch_offered: bool
    waiting_since: float | None
    moves: int
    board: Board | None = None  # the game's own view (tabletop's GameState.view), None until the game is dealt
    last_move: str | None = None  # the shown game's last move, from my side: "Computer discarded 8♥"
    ending: str | None = None  # how the shown game ended: "you discarded the last card and won"
    wins: tuple[int, ...] = ()  # fair games won in this room, per seat
    safety: str | None = None  # the shown game's safety number, once every hello is in
    replaying: bool = False  # rebuilding what an earlier run played; nothing on screen is current yet
    left_at: tuple[float | None, ...] = ()  # per seat: the relay's Unix time of its leave, while away
    link_since: float = 0.0  # time.monotonic() of the last change of ``link``
    seat_lost: bool = False  # the relay no longer knows our seat token
    rematch_refusal: str | None = "a rematch can start once this game is over"
    named: tuple[bool, ...] = ()  # per seat: its player has said who they are (else the name is a stand-in)
    note: str = ""  # worth knowing when there is nothing to do ("bo chose the 24-card deck")
    history: str | None = None  # the shown game's own record beside the transcript (Hold'em's hand history), if kept

    @property
    def others(self) -> tuple[int, ...]:
        return tuple(s for s in range(len(self.names)) if s != self.me)

    @property
    def my_name(self) -> str:
        return self.names[self.me]

    @property
    def opponent_name(self) -> str:
        """The other players, as one subject: "bo", or "bo and cy"."""
        return " and ".join(self.names[s] for s in self.others) or "opponent"

    @property
    def opponent_present(self) -> bool:
        return all(self.present[s] for s in self.others)

    @property
    def opponent_left_at(self) -> float | None:
        """When the first of the players who are away now left (the relay's Unix time)."""
        away = [left for s in self.others if not self.present[s] and (left := self.left_at[s]) is not None]
        return min(away) if away else None

    @property
    def absent_name(self) -> str:
        return " and ".join(self.names[s] for s in self.others if not self.present[s]) or self.opponent_name

