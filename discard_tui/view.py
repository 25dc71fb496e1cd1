"""What every game's screen shows of a seat: the phases and one immutable snapshot.

Kept apart from the table so that the app can draw its first frame before the
table, the crypto and the network are imported (discard_tui/viewmodel.py
builds it). Each game's screen module extends :class:`SeatView` with its own
fields and the type of its game's board.

A seat is where its table is (:class:`tabletop.values.Phase`), its link to the
relay (``link``) and, if the relay cannot be used, why (``failure``): the
table's phase stays what it was then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from tabletop.values import IN_GAME, Phase

if TYPE_CHECKING:
    from tabletop.clock import ClockView
    from tabletop.ledger import Link
    from tabletop.values import Awaiting, Progress, Result
    from tabletop.values import Verdict

Board = TypeVar("Board")  # a game's own view of the table for one seat (tabletop's GameState.view)


@dataclass(frozen=True)
class SeatView(Generic[Board]):
    """What every game's screen shows of a seat, as one immutable snapshot."""

    phase: Phase  # the table's
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
    problem: str | None  # a violation, in words
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
    store_full: bool = False  # the relay has no memory left to seat us again (the seat is still ours)
    rematch_refusal: str | None = "a rematch can start once this game is over"
    named: tuple[bool, ...] = ()  # per seat: its player has said who they are (else the name is a stand-in)
    note: str = ""  # worth knowing when there is nothing to do ("bo chose the 24-card deck")
    clock: ClockView | None = None  # the action clock: who the game waits on, since when, and each seat's bank
    relay_offset: float | None = None  # the relay's Unix time less time.monotonic(), as this seat bounds it
    history: str | None = None  # the shown game's own record beside the transcript (Hold'em's hand history), if kept
    watching: int = 0  # the room's watchers (relay protocol 1.3), the same count for every seat
    failure: str | None = None  # the relay cannot be used: why (the game stops where it was)
    out: bool = False  # my seat is out of the game under way (a Hold'em player with no chips): it owes nothing more
    awaited: tuple[int, ...] = ()  # the other seats the game waits on now (who owes a move, a step, a key)
    owed: tuple[Awaiting, ...] = ()  # what they owe it
    replay: str | None = None  # a step of ``--replay`` (read-only, no relay), where it is: "step 3 of 40 · game 1 of 2"
    unseen: str | None = None  # a replay's: why it shows no seat's own cards although its transcript's seat saw some

    @property
    def in_game(self) -> bool:
        """A game is under way (from the draw for who starts to its audit) and the relay can be used."""
        return self.phase in IN_GAME and self.failure is None

    @property
    def playing(self) -> bool:
        """The game is being played (its moves can be made) and the relay can be used."""
        return self.phase is Phase.PLAYING and self.failure is None

    @property
    def stopped(self) -> bool:
        """Nothing more happens here: a rule was broken or the relay cannot be used."""
        return self.phase is Phase.VIOLATION or self.failure is not None

    @property
    def watcher(self) -> bool:
        """This is a watcher's view: no seat, no hand, no move (``me`` is tabletop.table.OBSERVER)."""
        return self.me < 0

    @property
    def read_only(self) -> bool:
        """No key makes a move: a watcher's view, or a replay's."""
        return self.watcher or self.replay is not None

    @property
    def near(self) -> int:
        """The seat drawn as the player's own (at the bottom, "you"): mine; a watcher's, seat 1's (0)."""
        return max(self.me, 0)

    @property
    def others(self) -> tuple[int, ...]:
        return tuple(s for s in range(len(self.names)) if s != self.near)

    @property
    def my_name(self) -> str:
        return self.names[self.near]

    @property
    def you(self) -> str:
        """The near seat in a sentence: "you", or (a watcher's view) its player's name."""
        return self.names[self.near] if self.watcher else "you"

    @property
    def your(self) -> str:
        """The near seat's, at a sentence's start: "Your", or (a watcher's view) "ana's"."""
        return f"{self.names[self.near]}'s" if self.watcher else "Your"

    @property
    def opponent_name(self) -> str:
        """The other players, as one subject: "bo", or "bo and cy"."""
        return " and ".join(self.names[s] for s in self.others) or "opponent"

    @property
    def awaited_name(self) -> str:
        """The players the game waits on, as one subject: "cy" when only cy owes anything, not "bo and cy"."""
        return " and ".join(self.names[s] for s in self.awaited) or self.opponent_name

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
        """The players away whose absence counts (``left_at``): a Hold'em player out of chips who left is not named."""
        return " and ".join(self.names[s] for s in self.others if not self.present[s]
                            and (not self.left_at or self.left_at[s] is not None)) or self.opponent_name

