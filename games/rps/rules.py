"""Rock-paper-scissors as a match: first to three won throws; equal throws are thrown again. No crypto, no network.

A :class:`Match` is the whole game between two seats: the throws so far and who
won each. ``play`` takes both seats' revealed throws at once (the table gets
them by commit–reveal) and refuses anything the rules forbid, with a message
that reads after the offending seat's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tabletop.game import RuleViolation

from .about import THROWS, UNTHROWN
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}  # each throw and the one it beats
VERBS = {"rock": "blunts", "paper": "covers", "scissors": "cut"}  # "rock blunts scissors"
TARGET = 3  # won throws that win the match
SEATS = 2


def throw_winner(throws: tuple[str, ...]) -> int | None:
    """The seat whose throw beats the other's, or None for equal throws."""
    first, second = throws
    if first == second:
        return None
    return 0 if BEATS[first] == second else 1


def how(winning: str, losing: str) -> str:
    """ "paper covers rock"."""
    return f"{winning} {VERBS[winning]} {losing}"


@dataclass(frozen=True)
class Throw:
    """One throw of the match: each seat's value, in seat order, and who won it (None: equal, thrown again)."""

    values: tuple[str, ...]
    winner: int | None


@dataclass
class Match:
    """Every throw so far. ``play`` raises :class:`RuleViolation` and changes nothing, or records a throw."""

    target: int = TARGET
    throws: list[Throw] = field(default_factory=list)

    @property
    def scores(self) -> tuple[int, ...]:
        """Throws won, per seat."""
        return tuple(sum(t.winner == seat for t in self.throws) for seat in range(SEATS))

    @property
    def winner(self) -> int | None:
        return next((seat for seat, score in enumerate(self.scores) if score >= self.target), None)

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def number(self) -> int:
        """The number of the throw under way (or of the next one), counting equal throws: 1, 2, …"""
        return len(self.throws) + 1

    def check(self, values: Mapping[int, str]) -> None:
        if self.over:
            raise RuleViolation(f"threw after the match was over (throw {self.number})")
        if sorted(values) != list(range(SEATS)):
            raise RuleViolation(f"sent throw {self.number} for seats {sorted(values)}, not for both players")
        for value in values.values():
            if value not in THROWS:
                raise RuleViolation(f"threw {value[:20]!r}, which is not rock, paper or scissors")

    def forfeit(self, seat: int) -> Throw:
        """``seat``'s time ran out during the throw: the other seat wins it; neither throw is known (``UNTHROWN``)."""
        throw = Throw((UNTHROWN,) * SEATS, 1 - seat)
        self.throws.append(throw)
        return throw

    def play(self, values: Mapping[int, str]) -> Throw:
        """Record both seats' throws; the throw, with its winner."""
        self.check(values)
        played = tuple(values[seat] for seat in range(SEATS))
        throw = Throw(played, throw_winner(played))
        self.throws.append(throw)
        return throw
