"""One seat's state in a room: the record of each game (:class:`Play`), the seat's secrets, and how the state reads
(its phase, the seats' names). Pure: no I/O.

tabletop/table.py folds the ledger into this state; tabletop/intents.py, tabletop/audit.py and tabletop/view.py use
it, each for a purpose of its own, and :class:`~tabletop.table.Table` is all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from . import commit
from . import deck as mental
from . import wire
from .clock import Timers
from .crypto import Group, derive_bytes
from .game import Game, GameState, Outcome
from .values import Phase, Problem
from .words import overdue_words


@dataclass(frozen=True)
class Wish:
    """What this seat opens a room with (the first hello of a room decides for everyone)."""

    name: str
    game: str
    seats: int
    options: dict[str, str | int]
    group: Group


@dataclass
class Play:
    """One game of the room, from the hellos to the verdict."""

    number: int
    hellos: dict[int, wire.Hello] = field(default_factory=dict)
    verify_keys: dict[int, Ed25519PublicKey] = field(default_factory=dict)
    counters: dict[int, int] = field(default_factory=dict)
    game: Game | None = None
    options: Any = None
    group: Group | None = None
    version: int = 0  # the protocol version of the room's first hello: every other hello must speak it
    seats: int = 0
    draw: commit.Round | None = None
    starter: int | None = None
    next_starter: int | None = None  # from the last game's outcome
    decks: list[mental.Deck] = field(default_factory=list)  # one per deal; most games deal once
    state: GameState | None = None
    dealt: bool = False  # the current deal is complete
    choice: commit.Round | None = None
    moves: list[tuple[int, wire.Message]] = field(default_factory=list)
    choices: list[dict[int, str]] = field(default_factory=list)
    pending: tuple[int, wire.Message] | None = None  # a move waiting for its showings
    timed_out: bool = False  # ... made by the table for a seat whose time ran out (its log line says so)
    timers: Timers | None = None  # the clock: each seat's wait and bank, once the game has begun
    late: set[int] = field(default_factory=set)  # seats timed out whose next move or choice may have crossed the claim
    out: set[int] = field(default_factory=set)  # seats whose time ran out while a deal needed them: out of this game
    forfeited: int | None = None  # the seat whose time ran out while the game needed its keys, ending it
    outcome: Outcome | None = None
    audits: dict[int, wire.Audit] = field(default_factory=dict)
    verdict: list[Problem] | None = None  # [] means fair
    revealed: dict[int, int] = field(default_factory=dict)  # every position's card, once a fair audit decrypted it
    last_move: str | None = None  # the last move as a log line ("bo discarded 8♥")

    @property
    def proven(self) -> bool:
        """Every shuffle step is proven on receipt and nothing secret is published at the end (version 5 on)."""
        return self.version >= wire.PROVEN

    @property
    def audited(self) -> bool:
        """Everything the verdict needs is in: the end of the game (version 5, whose steps, keys and claims were
        checked on receipt), or every seat's audit (versions 3 and 4)."""
        if self.proven:
            return self.outcome is not None
        return self.seats > 0 and len(self.audits) == self.seats

    @property
    def deck(self) -> mental.Deck | None:
        """The deck of the current deal, if the game has cards."""
        return self.decks[-1] if self.decks else None


OBSERVER = -1  # the seat of a table that only watches: it is in no game's shuffle order, is shown nothing, owes nothing
MAX_WATCHING = 10_000  # a watcher count beyond it is no relay's (docs/relay-protocol.md, 1.3): it is not believed


class TableState:
    """What the ledger has made of one seat in one room so far: every game's record, the seat's secrets, its log."""

    def __init__(self, room: str, me: int, seed: bytes, catalog: Mapping[str, Game], wish: Wish,
                 follow: bool = False) -> None:
        self.room = room
        self.me = me
        self.seed = seed
        self.catalog = catalog
        self.wish = wish
        self.follow = follow  # open every next game another seat opens (the computer opponent does)
        self.plays: list[Play] = [Play(1)]
        self.names: dict[int, str] = {}
        self.present: set[int] = set()
        self.left_at: dict[int, float] = {}  # seat -> the relay's time of its leave, while it is away
        self.watching = 0  # watchers in the room, as the ledger's last ``watch`` event counts them (relay 1.3)
        self.want = 1  # the game number I want to be playing; a rematch raises it
        self.choices: dict[str, str] = {}  # my chosen values for rounds I have not committed to yet
        self.problem: str | None = None
        self.log: list[str] = []
        self._logged_game = 0
        self.stamp = 0  # the relay's time of the last event (ms): what the clock reads
        self._acted: int | None = None  # the seat whose own move or choice the event being applied is
        self._applied: dict[tuple[int, int, int], bytes] = {}  # (game, seat, n) -> digest of the post applied
        self._identities: dict[int, Ed25519PrivateKey] = {}
        self._secrets: dict[int, mental.Secrets] = {}

    # -- secrets ------------------------------------------------------------------------------------

    def game_seed(self, number: int) -> bytes:
        return derive_bytes(self.seed, f"game/{number}", 32)

    def identity(self, number: int) -> Ed25519PrivateKey:
        if number not in self._identities:
            self._identities[number] = Ed25519PrivateKey.from_private_bytes(
                derive_bytes(self.game_seed(number), "identity", 32))
        return self._identities[number]

    def secrets(self, number: int, group: Group) -> mental.Secrets:
        """My deck secrets for game ``number``: from a seed of their own (versions 3 and 4 published it at the audit)."""
        if number not in self._secrets:
            self._secrets[number] = mental.Secrets(group, self.deck_seed(number))
        return self._secrets[number]

    def deck_seed(self, number: int) -> bytes:
        return derive_bytes(self.game_seed(number), "deck", 32)

    def nonce(self, number: int, label: str) -> bytes:
        """My secret nonce for the commit–reveal round ``label`` of game ``number``."""
        return derive_bytes(self.game_seed(number), f"nonce/{label}", 32)

    # -- reading the state --------------------------------------------------------------------------

    @property
    def play(self) -> Play:
        return self.plays[-1]

    @property
    def phase(self) -> Phase:
        p = self.play
        if self.problem is not None:
            return Phase.VIOLATION
        if p.verdict is not None:
            return Phase.OVER
        if p.seats == 0 or len(p.hellos) < p.seats:
            return Phase.WAITING
        if p.starter is None:
            return Phase.STARTING
        if p.deck is not None and not p.deck.ready and not p.deck.void:
            return Phase.SHUFFLING
        if not p.dealt:
            return Phase.DEALING
        return Phase.PLAYING if p.outcome is None else Phase.AUDITING

    def name(self, seat: int) -> str:
        """The seat's name as its player chose it; a second player of the same name is told apart: "ana (2)"."""
        name = self.names.get(seat, f"seat {seat}")
        same = [s for s in sorted(self.names) if self.names[s] == name]
        return name if same[:1] in ([], [seat]) else f"{name} ({same.index(seat) + 1})"

    def who(self, seat: int) -> str:
        """A seat as the subject of a log line: "you" for me."""
        return "you" if seat == self.me else self.name(seat)

    def whose(self, seat: int) -> str:
        """A seat as a possessive: "your", "bo's"."""
        return "your" if seat == self.me else f"{self.name(seat)}'s"

    def overdue(self, seat: int, needed_by: str = "game") -> str:
        """Why ``seat`` forfeited the game (or, ``needed_by`` "deal", why the deal is void), before the game's words
        for it: "bo's time ran out while the game needed their keys"."""
        return overdue_words(self.whose(seat), "your" if seat == self.me else "their", needed_by)

    def seat_names(self) -> tuple[str, ...]:
        """Every seat's :meth:`name`, in seat order: what tabletop/words.py names seats from."""
        return tuple(self.name(s) for s in range(self.play.seats or self.wish.seats))

    def others(self) -> list[int]:
        return [s for s in range(self.play.seats or self.wish.seats) if s != self.me]

    # -- the log -----------------------------------------------------------------------------------

    def _say(self, line: str) -> None:
        if self.play.number != self._logged_game:  # each game's lines under its own heading
            self._logged_game = self.play.number
            self.log.append(f"— game {self.play.number} —")
        self.log.append(line)

