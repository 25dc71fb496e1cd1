"""What a screen needs of the table, as one immutable snapshot (:class:`TableView`), and the safety number players
read to each other to know they share one ledger. Pure: a reading of the state, the intents and the audit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .audit import Audit
from .clock import ClockView
from .intents import Intents
from .state import OBSERVER
from .values import Awaiting, Phase, Progress, Result, Verdict


@dataclass(frozen=True)
class TableView:
    """What a screen needs of the table, as one immutable snapshot."""

    phase: Phase
    number: int  # the game on screen: the last one played until every seat has opened the next
    me: int
    seats: int
    names: tuple[str, ...]
    present: tuple[bool, ...]
    my_turn: bool
    log: tuple[str, ...]
    progress: Progress | None
    result: Result | None  # for me
    ending: str | None  # how the game ended, in words
    verdict: Verdict | None  # once audited
    problem: str | None
    rematch_offered: bool
    awaiting: tuple[Awaiting, ...]
    last_move: str | None  # the shown game's last move, from my side: "Computer discarded 8♥"
    wins: tuple[int, ...]  # fair games won in this room, per seat
    safety: str | None
    board: Any  # the game's own view for me (GameState.view), None before the game starts
    moves: int
    clock: ClockView | None = None  # the action clock of the game on screen, once it has begun
    watching: int = 0  # the room's watchers, as the relay counts them in the ledger (the same for every seat)


class Viewable(Intents, Audit):
    """A table that shows itself: the snapshot of its state, its intents and its audit."""

    # -- the view ----------------------------------------------------------------------------------------

    def view(self) -> TableView:
        p = self.play
        if len(self.plays) > 1 and len(p.hellos) < p.seats:
            p = self.plays[-2]  # a rematch not everyone has opened: keep the last game on screen
        seats = p.seats or self.wish.seats
        state = p.state if p.dealt else None
        outcome = p.outcome
        watcher = self.me == OBSERVER  # neither wins nor loses
        result = Result.of(outcome.winners, self.me) if outcome is not None and not watcher else None
        ending = outcome.reason.format(*(self.who(s) for s in range(seats))) if outcome else None
        if ending is not None and p.forfeited is not None:  # the game's words say who won, not why it ended there
            ending = f"{self.overdue(p.forfeited)}; {ending}"
        return TableView(
            phase=self.phase, number=p.number, me=self.me, seats=seats,
            names=self.seat_names(),
            present=tuple(s in self.present for s in range(seats)),
            my_turn=bool(state is not None and self.phase is Phase.PLAYING and p.pending is None
                         and state.to_move() == self.me and p.choice is None),
            log=tuple(self.log), progress=self._progress(), result=result,
            ending=ending,
            verdict=self.verdict(p), problem=self.problem, rematch_offered=self.rematch_offered,
            awaiting=tuple(self.awaiting()), last_move=p.last_move, wins=self.wins(), safety=self.safety_number(),
            board=state.view(self.me) if state is not None else None, moves=len(p.moves), watching=self.watching,
            clock=p.timers.view() if p.timers is not None else None)

    def _progress(self) -> Progress | None:
        p, phase = self.play, self.phase
        steps = 2 * p.deck.seats if p.deck is not None else 0
        total = steps + 3
        if phase is Phase.STARTING:
            return Progress(phase, 0, total)
        if phase is Phase.SHUFFLING and p.deck is not None:
            under_way = 0 if p.deck.shuffled else len(p.deck.steps) + 1  # all in: their proofs are being checked
            return Progress(phase, 1 + len(p.deck.steps), total, under_way, steps)
        if phase is Phase.DEALING:
            return Progress(phase, steps + 1, total)
        if phase is Phase.AUDITING:
            return Progress(phase, steps + 2, total)
        return None

    # -- identities -------------------------------------------------------------------------------------

    def safety_number(self) -> str | None:
        """The shown game's safety number (see :func:`safety_number`), once every seat has said hello."""
        p = self.play
        if p.seats == 0 or len(p.hellos) < p.seats:
            return None
        return safety_number(self.room, p.number, [p.hellos[s].verify_key for s in range(p.seats)])


def safety_number(room: str, game: int, verify_keys: list[str]) -> str:
    """Six groups of five digits from the room, the game and every hello's verify key (seat 0's first).

    Players who read the same number to each other share one ledger: a relay that seats each of them in
    a room of its own, and plays them all, cannot make the numbers match without finding a collision in
    about 100 bits.
    """
    record = json.dumps([room, game, *verify_keys], separators=(",", ":"), ensure_ascii=False).encode()
    digest = hashlib.sha512(b"discard/v1/safety-number\0" + record).digest()
    return " ".join(f"{int.from_bytes(digest[i:i + 5], 'big') % 100000:05d}" for i in range(0, 30, 5))
