"""Commit–reveal: simultaneous choices that nobody, the relay included, can see before everyone has chosen.

Every seat of a round posts :class:`Commit` (a digest of its value and a
secret nonce); only when every commitment is in the ledger does each seat post
:class:`Reveal` (nonce and value), which must match its digest. The table
uses a round to draw who starts; a game uses rounds for throws and bids.

The nonce derives from the seat's game seed and the round's label, so a seat
that crashed between its commit and its reveal finds its own value again by
trying the round's allowed values against its digest: nothing else needs
saving.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import Field

from .wire import Digest, Message, Word, canonical

Value = Annotated[str, Field(max_length=32, pattern=r"^[a-z0-9_-]*$")]


class Commit(Message):
    """Step 1 of a round: SHA-256 over the round, the seat, a secret nonce and the chosen value."""

    type: Literal["commit"] = "commit"
    label: Word
    digest: Digest


class Reveal(Message):
    """Step 2, once every commitment of the round is in: the nonce and the value."""

    type: Literal["reveal"] = "reveal"
    label: Word
    nonce: Digest
    value: Value


MESSAGES = (Commit, Reveal)


class CommitViolation(Exception):
    """A commitment or reveal that breaks the round's rules; the message reads after the seat's name."""


def digest(room: str, game: int, seat: int, label: str, nonce: bytes, value: str) -> str:
    record = {"domain": "discard/v3/commit", "room": room, "game": game, "seat": seat, "label": label,
              "nonce": nonce.hex(), "value": value}
    return hashlib.sha256(canonical(record)).hexdigest()


@dataclass
class Round:
    """One commit–reveal round among ``seats``; values must be one of ``allowed``."""

    room: str
    game: int
    label: str
    seats: tuple[int, ...]
    allowed: tuple[str, ...]
    commits: dict[int, str] = field(default_factory=dict)
    values: dict[int, str] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)

    @property
    def committed(self) -> bool:
        return len(self.commits) == len(self.seats)

    @property
    def done(self) -> bool:
        return len(self.values) == len(self.seats)

    def owed(self, seat: int) -> Literal["commit", "reveal"] | None:
        if seat not in self.seats:
            return None
        if seat not in self.commits:
            return "commit"
        return "reveal" if self.committed and seat not in self.values else None

    def commit(self, seat: int, message: Commit) -> None:
        if self.owed(seat) != "commit":
            raise CommitViolation(f"committed twice to {self.label}" if seat in self.commits
                                  else f"committed to {self.label} without a place in it")
        self.commits[seat] = message.digest

    def reveal(self, seat: int, message: Reveal) -> None:
        if seat in self.values:
            raise CommitViolation(f"revealed {self.label} twice")
        if self.owed(seat) != "reveal":
            raise CommitViolation(f"revealed {self.label} before everyone had committed")
        nonce = bytes.fromhex(message.nonce)
        if digest(self.room, self.game, seat, self.label, nonce, message.value) != self.commits[seat]:
            raise CommitViolation(f"revealed {self.label} in a way that does not match their commitment")
        if message.value not in self.allowed:
            raise CommitViolation(f"revealed {message.value!r} for {self.label}, which is not allowed")
        self.values[seat] = message.value
        self.nonces[seat] = nonce

    def recover(self, seat: int, nonce: bytes) -> str | None:
        """The value ``seat`` committed to with ``nonce`` (after a restart), if it is an allowed one."""
        return next((v for v in self.allowed
                     if digest(self.room, self.game, seat, self.label, nonce, v) == self.commits.get(seat)), None)

    def draw(self, count: int) -> int:
        """A number in [0, count) that no seat could choose: from every nonce, in seat order."""
        assert self.done
        joined = b"".join(self.nonces[s] for s in sorted(self.seats))
        return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big") % count


def make_commit(room: str, game: int, seat: int, label: str, nonce: bytes, value: str) -> Commit:
    return Commit(label=label, digest=digest(room, game, seat, label, nonce, value))


def make_reveal(label: str, nonce: bytes, value: str) -> Reveal:
    return Reveal(label=label, nonce=nonce.hex(), value=value)
