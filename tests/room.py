"""A room without a relay or a pool: tables fed from one in-memory ledger, for fast tests of the pure core.

``Room.run()`` lets every seat post what its table says it owes (computing
exponentiations in-process), in seat order, one post at a time, until nobody
owes anything. A ``tamper`` function may replace any seat's outgoing body:
that is how a cheater is written, through the ledger, not by reaching into a
table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from games import GAMES
from tabletop import ledger, transcript, wire
from tabletop.crypto import Group
from tabletop.groups import DEFAULT_GROUP
from tabletop.table import Needs, Post, Strategy, Table, Violation, Wish, Work
from tabletop.words import verdict_words

Tamper = Callable[[Table, dict], "dict | list[dict] | None"]  # (cheater's table, honest body) -> what to post


def summary(table: Table) -> str:
    """The audit of the table's game on screen, in the words of its log and of the game-over screen."""
    view = table.view()
    assert view.verdict is not None
    return verdict_words(view.verdict, view.names, view.me)


@dataclass
class Event:
    seq: int
    seat: int
    name: str
    kind: str
    body: dict | None
    time: float = 0.0

    def as_json(self) -> dict:
        return vars(self)


@dataclass
class Room:
    game: str = "discard"
    seats: int = 2
    options: dict = field(default_factory=dict)
    group: Group = DEFAULT_GROUP
    name: str = "room"
    catalog: dict = field(default_factory=lambda: dict(GAMES))
    tables: list[Table] = field(default_factory=list)
    strategies: dict[int, Strategy] = field(default_factory=dict)
    tamper: dict[int, Tamper] = field(default_factory=dict)
    ledger: list[Event] = field(default_factory=list)
    violations: dict[int, str] = field(default_factory=dict)
    seeds: list[bytes] | None = None  # each seat's room seed (default: bytes([seat + 1]) * 32)
    names: tuple[str, ...] = ("ana", "bo", "cy", "di", "ed", "flo")  # each seat's player
    gone: set[int] = field(default_factory=set)  # seats whose program stopped: they post and read nothing more
    now: float = 0.0  # the relay's clock (Unix seconds): the stamp of every event appended; a test advances it
    watchers: list[Table] = field(default_factory=list)  # tables of no seat (transcript.observer), fed every event

    def __post_init__(self) -> None:
        for seat in range(self.seats):
            wish = Wish(self.names[seat], self.game, self.seats, dict(self.options), self.group)
            seed = self.seeds[seat] if self.seeds else bytes([seat + 1]) * 32
            self.tables.append(Table(self.name, seat, seed, self.catalog, wish, follow=seat > 0))
        for seat in range(self.seats):
            self.append(seat, "join", None)

    def as_transcript(self, seat: int | None = None, reason: str = "") -> transcript.Transcript:
        """The whole ledger as a transcript kept by ``seat`` (by nobody in particular: None)."""
        events = tuple(ledger.Event(e.seq, e.seat, e.name, e.kind, e.body, e.time) for e in self.ledger)
        return transcript.Transcript(self.name, seat, reason, events)

    def read_as_a_stranger(self) -> tuple[set[int], dict[int, int]]:
        """What a reader of the whole ledger (the relay, anyone holding a transcript) can open: the positions whose
        every seat's key is in the open, and the faces an observer's check of it (discard-verify) learns, over
        every game of the room. Also checks that no audit published a seed."""
        opened: dict[int, set[int]] = {}
        for event in self.ledger:
            assert not (event.body and event.body["msg"]["type"] == "audit" and "seed" in event.body["msg"])
            for key in (event.body or {}).get("shares", {}).get("open", []):
                opened.setdefault(key["pos"], set()).add(key["seat"])
        decks = max((table.play.decks for table in self.tables), key=len)
        dealers = {pos: set(deck.order) for deck in decks for pos in deck.positions()}  # a busted seat deals no more
        public = {pos for pos, owners in opened.items() if owners >= dealers.get(pos, set(range(self.seats)))}
        revealed = {pos: card for check in transcript.check(self.as_transcript(), self.catalog)
                    for pos, card in check.play.revealed.items()}
        return public, revealed

    def append(self, seat: int, kind: str, body: dict | None) -> None:
        name = self.tables[seat].wish.name if 0 <= seat < self.seats else "relay"  # a seat the relay made up
        event = Event(len(self.ledger) + 1, seat, name, kind, body, self.now)
        self.ledger.append(event)
        for table in [*self.tables, *self.watchers]:
            if table.me in self.violations or table.me in self.gone:
                continue
            try:
                table.apply(event)
                transcript.check_proofs(table)
            except Violation as error:
                self.violations[table.me] = str(error)

    def post(self, seat: int, post: Post) -> None:
        for body in self.write(seat, post):
            self.append(seat, "post", body)

    def write(self, seat: int, post: Post) -> list[dict]:
        """What ``seat`` sends for ``post`` as things stand: the body sealed, then through its tamper.

        Writing and landing are one step in :meth:`post`; a test that writes several seats' posts before it
        appends any plays what a relay may do, where each seat answers before it sees the others' answers.
        """
        table = self.tables[seat]
        p = table.play
        n = 1 if post.number > p.number else p.counters.get(seat, 0) + 1
        body = wire.seal(table.identity(post.number), self.name, seat, post.number, n, post.msg, post.shares)
        bodies = self.tamper[seat](table, body) if seat in self.tamper else None
        return [body] if bodies is None else [bodies] if isinstance(bodies, dict) else bodies

    def owed(self, seat: int) -> Post | None:
        table = self.tables[seat]
        if seat in self.violations or seat in self.gone:
            return None
        if (work := table.audit_work()) is not None:
            work.job.compute_here()
        owed = table.owed()
        if isinstance(owed, Work):
            owed = Post(table.play.number, owed.job.compute_here())
        strategy = self.strategies.get(seat)
        if isinstance(owed, Needs) and strategy is not None:
            value = strategy(table)
            if isinstance(value, str) and table.choose(value) is None:
                owed = table.owed()
        if owed is None and strategy is not None and table.play.state is not None:
            move = strategy(table)
            if isinstance(move, wire.Message) and table.refusal(move) is None:
                owed = table.prepare(move)
        return owed if isinstance(owed, Post) else None

    def run(self, until: Callable[[], bool] | None = None, limit: int = 10_000) -> None:
        """Post until nobody owes anything, a violation stops a seat, or ``until()`` holds."""
        for _ in range(limit):
            if until is not None and until():
                return
            for seat in range(self.seats):
                post = self.owed(seat)
                if post is not None:
                    self.post(seat, post)
                    break
            else:
                return
        raise AssertionError("the room never settled")

