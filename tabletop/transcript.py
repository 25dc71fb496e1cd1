"""Checking a saved transcript offline: the room's ledger folded by a :class:`Table` with no seat.

A transcript (tabletop/shell.py writes one per room and seat) holds every
ledger event one seat saw, from the room's first. :func:`check` folds them
through the same pure table the players used, as an observer that holds no
cards and posts nothing: every signature and counter, every shuffle step,
every key against its commitment and every move against the rules is checked
on receipt, and each game's audit (every seat's published deck seed) re-checks
the rest, sealed shares included. Pure apart from the exponentiations, which
run here, in this process.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .groups import DEFAULT_GROUP
from .game import Game
from .ledger import Event, event_of
from . import wire
from .table import OBSERVER, Play, Table, Violation, Wish
from .values import Phase
from .values import Verdict
from .words import first_problem, overdue_words, unaudited_words, unfinished_words, verdict_words


class NotATranscript(Exception):
    """The file cannot be read, or is not a transcript; the message says which, in one line."""


@dataclass(frozen=True)
class Transcript:
    room: str
    seat: int | None  # whose transcript it is
    reason: str
    events: tuple[Event, ...]


@dataclass
class GameCheck:
    """What checking one game of a transcript found."""

    number: int
    title: str
    names: tuple[str, ...]
    winners: tuple[int, ...] | None  # None: the game did not finish
    problem: str | None  # None: every shuffle, deal and move the transcript holds checked out
    verdict: Verdict | None  # the audit's, when it ran
    play: Play = field(repr=False)
    unfinished: str | None = None  # why the game cannot be called verified although nothing broke the rules

    @property
    def fair(self) -> bool:
        """Nothing the transcript holds broke the rules (an unfinished game is fair so far)."""
        return self.problem is None

    @property
    def verified(self) -> bool:
        """The game ended and everything in it checked out."""
        return self.problem is None and self.unfinished is None

    def line(self) -> str:
        """One plain line: who won and that everything checked out, or exactly what did not and who did it, or
        that the game is unfinished and honest as far as it goes."""
        players = " vs ".join(self.names)
        head = f"game {self.number} ({self.title}, {players})"
        if self.problem is not None:
            return f"{head}: NOT VERIFIED: {self.problem}"
        if self.unfinished is not None:
            return f"{head}: UNFINISHED: {self.unfinished}; everything up to there checked out"
        assert self.winners is not None and self.verdict is not None
        won = "a draw" if not self.winners else " and ".join(self.names[s] for s in self.winners) + " won"
        if (gone := self.play.forfeited) is not None:  # "ana won": the game ended without bo, whom it waited on
            won += f" ({self.names[gone]} forfeited: {overdue_words('their', 'their', 'game')})"
        return f"{head}: {won}. {verdict_words(self.verdict, self.names)}"


def load(path: Path) -> Transcript:
    """The transcript in ``path``; NotATranscript if it cannot be read or is not one."""
    try:
        record = json.loads(path.read_bytes())
    except OSError as error:
        raise NotATranscript(f"cannot read it: {error.strerror or error}") from None
    except (ValueError, RecursionError):
        raise NotATranscript("not a transcript: it is not JSON") from None
    return parse(record)


def parse(record: Any) -> Transcript:
    if not isinstance(record, dict) or not isinstance(record.get("room"), str) or \
            not isinstance(record.get("events"), list):
        raise NotATranscript("not a transcript: it has no room and events")
    digest = record.get("digest")
    if digest is not None and digest != events_digest(record["events"]):
        raise NotATranscript("damaged: its events are not the ones it was written with (the file was changed "
                             "after the game; nobody's moves are judged from it)")
    events: list[Event] = []
    for index, item in enumerate(record["events"]):
        event = event_of(item)
        if event is None:
            raise NotATranscript(f"not a transcript: its event {index + 1} is not a ledger event")
        if events and event.seq != events[-1].seq + 1:
            raise NotATranscript(f"damaged: the events between sequence numbers {events[-1].seq} and {event.seq} "
                                 "are missing")
        events.append(event)
    seat = record.get("seat")
    reason = record.get("reason")
    return Transcript(record["room"], seat if isinstance(seat, int) else None,
                      reason if isinstance(reason, str) else "", tuple(events))


def observer(room: str, catalog: Mapping[str, Game], seat: int = OBSERVER, seed: bytes = bytes(32)) -> Table:
    """A table that watches ``room`` from no seat (the first hello decides the game, as for everyone); or, with a
    seat's own ``seed``, from that seat, posting nothing."""
    wish = Wish("observer", "", 2, {}, DEFAULT_GROUP)
    return Table(room, seat, seed, catalog, wish)


def seed_path(transcript: Path) -> Path:
    """Where the seat's own seed is kept beside its transcript (``….seed``, mode 0600), so that ``--replay`` run
    from that data directory shows the seat's own cards; the transcript itself holds no secret and can be
    shared."""
    return transcript.with_suffix(".seed")


def write_seed(path: Path, seed: bytes) -> None:
    """Write ``seed`` (hex) to ``path``, readable by its owner alone."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(seed.hex())


def events_digest(events: list[Any]) -> str:
    """SHA-256 of a transcript's events as written (sorted keys, ASCII): the writer records it, so that a file
    damaged or edited afterwards is named as such instead of blaming a player for what a change made."""
    return hashlib.sha256(json.dumps(events, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def seed_beside(path: Path) -> bytes | None:
    """The seat's own seed kept beside its transcript in its data directory (tabletop/shell.py writes it), if
    there is one that reads as a seed."""
    try:
        text = seed_path(path).read_text().strip()
        seed = bytes.fromhex(text)
    except (OSError, ValueError):
        return None
    return seed if len(seed) == 32 else None


def seat_table(transcript: Transcript, catalog: Mapping[str, Game], seed: bytes, seen: Seen | None = None
               ) -> Table | None:
    """The transcript folded again from its own seat with that seat's ``seed``, posting nothing: its games as the
    seat saw them, its own cards included; None if there is no seat or the seed is not that seat's (its hellos'
    keys would not be the ones the seed makes). Up to a violation, if the transcript has one (the public check
    names it). ``seen``: see :func:`fold`."""
    if transcript.seat is None or transcript.seat < 0:
        return None
    table, _ = fold(transcript, catalog, observer(transcript.room, catalog, transcript.seat, seed), seen)
    return table if its_seed(table) else None


def its_seed(table: Table) -> bool:
    """``table``, folded from a seat with a seed, has that seat's seed: the seat's hellos carry the keys the seed
    makes (a wrong seed stops the fold at the seat's first hello)."""
    if not table.plays or table.me not in table.plays[0].hellos:
        return False
    return all(hello.verify_key == wire.public_hex(table.identity(play.number))
               for play in table.plays if (hello := play.hellos.get(table.me)) is not None)


def audit(table: Table) -> None:
    """Run the audit the table owes now, if any, here in this process."""
    work = table.audit_work()
    if work is not None:
        work.job.compute_here()


def check_proofs(table: Table) -> None:
    """Check, here in this process, every proof the last event brought (Violation if one does not hold)."""
    while (work := table.check_work()) is not None:
        work.job.compute_here()


Seen = Callable[[Table], None]  # called with the table after each event it took in (a replay's views)


def fold(transcript: Transcript, catalog: Mapping[str, Game], table: Table | None = None, seen: Seen | None = None
         ) -> tuple[Table, str | None]:
    """Every event through ``table`` (by default an observer's), auditing each game as it completes, ``seen`` after
    each; the table and the violation that stopped it, if any."""
    if table is None:
        table = observer(transcript.room, catalog)
    for event in transcript.events:
        try:
            table.apply(event)
            check_proofs(table)
        except Violation as error:
            return table, str(error)
        audit(table)
        if seen is not None:
            seen(table)
    return table, None


def check(transcript: Transcript, catalog: Mapping[str, Game], seen: Seen | None = None, table: Table | None = None
          ) -> list[GameCheck]:
    """One check per game the transcript reaches (a next game only offered, with hellos still missing, is left
    out); an empty list when it holds no game at all. ``seen`` and ``table`` (by default an observer's; a seat's,
    with its seed, checks the shares sealed to it as well): see :func:`fold`."""
    try:
        table, violation = fold(transcript, catalog, table, seen)
    except Exception as error:  # a transcript crafted to break an assumption: a finding, never a traceback
        raise NotATranscript(f"cannot be checked: {type(error).__name__}: {error}") from None
    checks = []
    for play in table.plays:
        last = play is table.play
        if play.game is None and last and violation is not None:  # stopped at a hello: say why
            checks.append(GameCheck(play.number, "not started", tuple(table.names.values()), None, violation, None,
                                    play))
        if play.game is None or (last and violation is None and len(play.hellos) < play.seats and play.number > 1):
            continue
        names = tuple(table.name(s) for s in range(play.seats))
        problem = unfinished = None
        if last and violation is not None:
            problem = violation
        elif play.verdict is None:
            unfinished = _unfinished(table, play)
        verdict = table.verdict(play)
        if problem is None and verdict is not None:
            problem = first_problem(verdict, names)
        checks.append(GameCheck(play.number, play.game.title, names, play.outcome.winners if play.outcome else None,
                                problem, verdict, play, unfinished))
    return checks


def _unfinished(table: Table, play: Play) -> str:
    names = table.seat_names()
    if play.outcome is not None and table.phase is Phase.AUDITING:
        return unaudited_words([s for s in range(play.seats) if s not in play.audits], names)
    return unfinished_words(table.awaiting() if play is table.play else [], names)
