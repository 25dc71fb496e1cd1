"""The action clock, pure: how long each seat has been owing the game, its time bank, and whether a claim that its
time ran out holds. Every time is the relay's, in milliseconds, from the stamps of the ledger's events, so every seat
computes the same (docs/protocol.md, "The clock").

A seat *waits on* the game from the stamp of the event after which it owes a move (or a choice, or its reveal) to the
stamp of the event that ends it: its own move, or any event after which it no longer owes. Each wait is numbered per
seat (1, 2, …), so that a claim names the wait it is about. A wait's first ``move_ms`` are free; what it takes past
them comes out of the seat's bank. A claim about wait ``k`` of seat ``s``, stamped ``t``, holds when ``s`` is still
on wait ``k`` and ``t − since ≥ move_ms + bank``; the seat's bank is then spent.

A seat whose time ran out *sits out* until it acts again (a move, a choice, a shuffle step, the last key it owed):
each wait it begins meanwhile has ``SITTING_OUT_MS`` (or the move's time, if shorter) and no bank, so that a table
whose player has vanished waits one full clock for it, not one for every step the game then owes it.

A wait for a shuffle step has ``SHUFFLE_STEP_MS`` free at the least, sitting out or not: a step is the program's work,
but its proof takes seconds in a MODP group, more than the shortest clock.

The table decides what a seat owes (tabletop/intents.py, ``owing``); the shell decides when to claim (a timer of
its own); this module only keeps the arithmetic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .about import BANK, CLOCK

SITTING_OUT_MS = 5_000  # the time a seat sitting out has for each wait (docs/protocol.md, "The clock")
SHUFFLE_STEP_MS = 30_000  # the least free time of a shuffle step's wait: its proof takes seconds in a MODP group


@dataclass(frozen=True)
class Clock:
    """A room's clock: milliseconds for each move, and each seat's bank at the start of a game."""

    move_ms: int
    bank_ms: int

    def allowance(self, sitting_out: bool) -> int:
        """The free time of a wait: the move's, or that of a seat sitting out."""
        return min(self.move_ms, SITTING_OUT_MS) if sitting_out else self.move_ms

    def free(self, wait: Wait | None, sitting_out: bool) -> int:
        """The free time of ``wait`` (None: a seat's next one): :meth:`allowance`, and its ``least`` at the least (a
        shuffle step's SHUFFLE_STEP_MS)."""
        return max(wait.least if wait else 0, self.allowance(sitting_out))

    @classmethod
    def of(cls, options: Any) -> Clock | None:
        """The clock a game's options set (tabletop.about.clock), or None for a game that declares none."""
        move, bank = getattr(options, CLOCK, None), getattr(options, BANK, None)
        return None if move is None or bank is None else cls(move * 1000, bank * 1000)


@dataclass(frozen=True)
class Wait:
    """Seat ``seat`` has owed the game since ``since`` (the relay's time, ms): its wait number ``number``."""

    seat: int
    number: int
    since: int
    least: int = 0  # its free time at the least (SHUFFLE_STEP_MS for a shuffle step), whatever the clock says


@dataclass(frozen=True)
class ClockView:
    """The clock as a screen shows it: each seat's bank before its running wait, the running waits, and the seats
    sitting out."""

    clock: Clock
    banks: tuple[int, ...]
    waits: tuple[Wait, ...]
    out_since: tuple[tuple[int, int], ...] = ()  # the seats sitting out: (seat, the number of the wait whose claim
    # made it sit out)

    @property
    def sitting_out(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.out_since)

    def step(self, seat: int) -> int | None:
        """The running wait of a seat sitting out, counted from the first it began after its time ran out (1, 2…):
        each thing the game goes on owing it has a wait of its own. None if it does not sit out or owes nothing."""
        wait, since = next((w for w in self.waits if w.seat == seat), None), dict(self.out_since).get(seat)
        return None if wait is None or since is None else wait.number - since

    def left(self, seat: int, now: int) -> tuple[int, int] | None:
        """The move's time and the bank ``seat`` has left at ``now`` (the relay's time, ms; never below 0), or None
        while the clock does not run for it."""
        wait = next((w for w in self.waits if w.seat == seat), None)
        if wait is None:
            return None
        spent, free = max(0, now - wait.since), self.free(seat)
        return max(0, free - spent), max(0, self.banks[seat] - max(0, spent - free))

    def free(self, seat: int) -> int:
        """The free time of ``seat``'s running wait (as :meth:`Timers.free`; the move's if it has none)."""
        return self.clock.free(next((w for w in self.waits if w.seat == seat), None), seat in self.sitting_out)


class Early(Exception):
    """A claim made before the seat's time ran out; the message says by how much, after the claimant's name."""


@dataclass
class Timers:
    """Each seat's running wait and bank: a fold of the ledger's stamps."""

    clock: Clock
    seats: int
    banks: list[int] = field(init=False)
    waits: dict[int, Wait] = field(default_factory=dict)  # seat -> its running wait
    counts: dict[int, int] = field(default_factory=dict)  # seat -> waits begun
    sitting_out: dict[int, int] = field(default_factory=dict)  # seats whose time ran out and that have not acted
    # since: the number of the wait whose claim held first

    def __post_init__(self) -> None:
        self.banks = [self.clock.bank_ms] * self.seats

    def update(self, owing: Iterable[int], stamp: int, acted: int | None = None, shuffling: Iterable[int] = ()
               ) -> None:
        """After an event stamped ``stamp``: ``owing`` are the seats the game waits on now (``shuffling``, those of
        them that owe a shuffle step: their wait has SHUFFLE_STEP_MS at the least); ``acted``, the seat whose own
        move or choice the event was (its wait ends even if it owes again at once)."""
        now = set(owing)
        for seat in [s for s in self.waits if s not in now or s == acted]:
            self._end(seat, stamp)
        if acted is not None:
            self.sitting_out.pop(acted, None)
        for seat in sorted(now - set(self.waits)):
            self.counts[seat] = self.counts.get(seat, 0) + 1
            self.waits[seat] = Wait(seat, self.counts[seat], stamp)
        for seat in set(shuffling) & set(self.waits):  # a wait that goes on into a shuffle step has its time too
            self.waits[seat] = dataclasses.replace(self.waits[seat], least=SHUFFLE_STEP_MS)

    def _end(self, seat: int, stamp: int) -> None:
        over = stamp - self.waits[seat].since - self.free(seat)
        self.waits.pop(seat)
        if over > 0:
            self.banks[seat] = max(0, self.banks[seat] - over)

    def deadline(self, seat: int) -> int | None:
        """When the running wait of ``seat`` runs out (the relay's time, ms), or None if it waits on nothing."""
        wait = self.waits.get(seat)
        return None if wait is None else wait.since + self.free(seat) + self.banks[seat]

    def free(self, seat: int) -> int:
        """The free time of ``seat``'s running wait: the move's, or less while it sits out, and a shuffle step's
        SHUFFLE_STEP_MS at the least."""
        return self.clock.free(self.waits.get(seat), seat in self.sitting_out)

    def view(self) -> ClockView:
        return ClockView(self.clock, tuple(self.banks), tuple(self.waits[s] for s in sorted(self.waits)),
                         tuple(sorted(self.sitting_out.items())))

    def running(self, seat: int, number: int) -> bool:
        """Is ``number`` the seat's running wait? (False for a wait that has ended: a claim about it came late.)"""
        wait = self.waits.get(seat)
        return wait is not None and wait.number == number

    def begun(self, seat: int, number: int) -> bool:
        return 1 <= number <= self.counts.get(seat, 0)

    def judge(self, seat: int, stamp: int) -> None:
        """A claim stamped ``stamp`` that the running wait of ``seat`` ran out: spend its bank and end the wait, or
        :class:`Early`."""
        deadline = self.deadline(seat)
        assert deadline is not None
        if stamp < deadline:
            wait = self.waits[seat]
            why = "for a shuffle step" if wait.least > self.clock.allowance(seat in self.sitting_out) else \
                "while sitting out" if seat in self.sitting_out else "for the move"
            free = f"{seconds(self.free(seat))} {why}"
            raise Early(f"{seconds(deadline - stamp)} early: {seconds(stamp - wait.since)} after the wait began, "
                        f"of {free} and {seconds(self.banks[seat])} of bank")
        number = self.waits.pop(seat).number
        self.banks[seat] = 0
        self.sitting_out.setdefault(seat, number)


def seconds(ms: int) -> str:
    """ "12.3 s"."""
    return f"{ms / 1000:.1f} s" if ms % 1000 else f"{ms // 1000} s"


def stamp_ms(time: float) -> int:
    """An event's stamp (the relay's Unix time in seconds, to the millisecond) in milliseconds."""
    return round(time * 1000)
