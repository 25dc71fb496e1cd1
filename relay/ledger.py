"""The ledger seam: where a relay keeps its rooms, and the two backends kept in this process.

A :class:`Ledger` owns every room's seats and events. The websocket server
(:mod:`relay.server`) talks only to this interface, so a room can live in
this process (:class:`MemoryLedger`, the default), in an SQLite file
(:class:`SQLiteLedger`) or in Redis, shared by several relay nodes
(:class:`relay.redis_ledger.RedisLedger`).

Guarantees every backend gives:

* ``seq`` is 1, 2, 3, ... per room, gapless, one total order for every node.
* An event is stored before :meth:`Ledger.follow` delivers it anywhere.
* A seat has an *epoch*, raised by every claim of it: only the connection
  holding the current epoch may append or release, so a resume anywhere
  takes the seat over and the old connection's late frames change nothing.
"""

from __future__ import annotations

import bisect
import json
import logging
import secrets
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger("discard.relay")


SEAT_TAKEN_OVER = 4000  # close code for a connection whose seat was resumed elsewhere
TRY_AGAIN_LATER = 1013  # close code when the ledger cannot serve the connection now (RFC 6455)
POLICY = 1008  # close code after room_full and bad_token
DEFAULT_SEATS = 2
MAX_SEATS = 6


class Refused(Exception):
    """A frame the relay will not act on; becomes an ``error`` frame (then a close, if ``close`` is a code)."""

    def __init__(self, code: str, message: str, close: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.close = close


class Unavailable(Refused):
    """The ledger cannot be reached; the client should reconnect later (or to another node)."""

    def __init__(self, reason: str) -> None:
        super().__init__("unavailable", f"the relay's store is unavailable ({reason}); reconnect and resume",
                         close=TRY_AGAIN_LATER)
        self.reason = reason


@dataclass(frozen=True)
class Claim:
    """A seat taken (or taken back): its token, its new epoch and the seq of its ``join`` event."""

    seat: int
    token: str
    epoch: int
    seq: int
    seats: int  # the room's number of seats


class Entry(NamedTuple):
    """One ledger event: the frame every client gets, and what the relay itself needs of it."""

    seq: int
    seat: int
    kind: str  # "join" | "leave" | "post"
    frame: str


Deliver = Callable[[list[Entry]], None]  # a follower's callback: consecutive entries, oldest first


def event_frame(seq: int, seat: int, name_json: str, kind: str, body_json: str, stamp: str,
                post_id: str | None = None) -> str:
    """The ``event`` frame text; ``name_json`` and ``body_json`` are already JSON (one formatter for every backend).
    A post that carried an ``id`` (letters, digits, ``_`` and ``-`` only) has it in its event too."""
    tail = f',"id":"{post_id}"' if post_id else ""
    return (f'{{"type":"event","seq":{seq},"seat":{seat},"name":{name_json},"kind":"{kind}",'
            f'"body":{body_json},"time":{stamp}{tail}}}')


def to_json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def now_stamp(now: float | None = None) -> str:
    """The relay's Unix time in seconds (``now``, by default the system's), as the JSON number an event carries."""
    return repr(round(time.time() if now is None else now, 3))


def check_seats(room: str, seats: int, wanted: int | None) -> None:
    if wanted is not None and wanted != seats:
        raise Refused("bad_request", f"room {room} has {seats} seats, not {wanted}; join without \"seats\" "
                      "or pick another room")


def room_full(room: str, seats: int) -> Refused:
    return Refused("room_full", f"room {room} already has {seats} players; pick another room", close=POLICY)


def bad_token(room: str) -> Refused:
    return Refused("bad_token", f"that token holds no seat in room {room}; join without a token", close=POLICY)


class Follower(ABC):
    """A running follow of one room; ``stop`` ends it (no delivery after it returns)."""

    @abstractmethod
    def stop(self) -> None: ...


class Ledger(ABC):
    """Where rooms live. Every method but ``follow`` may suspend; all raise :class:`Refused` for refusals
    and :class:`Unavailable` when the backend cannot be reached."""

    interval: float = 60.0  # seconds between two calls of ``expire``

    async def open(self) -> None:
        """Connect (and check the backend answers); called once before serving."""

    @abstractmethod
    async def claim(self, room: str, name: str, token: str | None, seats: int | None,
                    public: str | None = None) -> Claim:
        """Take a free seat (``token`` None) or take back the seat of ``token``, appending its ``join``.

        A seat still held by a connection gets a ``leave`` first. ``seats`` is the room's size when
        this creates it; a different size for an existing room is refused with ``bad_request``.
        ``public`` (JSON, checked by relay/lobby.py) lists the room in the lobby when this claim creates it;
        a later claim's is ignored.
        """

    @abstractmethod
    async def append(self, room: str, seat: int, epoch: int, body_json: str, post_id: str | None = None) -> int:
        """Append a post from the holder of (seat, epoch); returns its seq.

        With ``post_id``, exactly once: a post of that id from that seat already in the room's ledger (sent
        again after a lost acknowledgement, through this node or another) appends nothing and returns the first
        one's seq. Refused with ``not_joined`` (close 4000) when a newer claim took the seat, and with
        ``unavailable`` when the seat was released under the connection (a node's lease ran out).
        """

    @abstractmethod
    async def read(self, room: str, after: int) -> list[Entry]:
        """Stored entries with seq > ``after``, oldest first (possibly only the first page of them)."""

    @abstractmethod
    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        """Call ``deliver`` with every entry after ``after``: the backlog, then live ones, gapless, in order."""

    @abstractmethod
    async def release(self, room: str, seat: int, epoch: int) -> bool:
        """The holder of (seat, epoch) has gone: append its ``leave``; False (and nothing) if the epoch is stale."""

    @abstractmethod
    async def lobby_page(self, after: str | None, limit: int) -> tuple[list[Listing], bool]:
        """The lobby's open rooms after the cursor ``after`` (None: from the first), at most ``limit`` of them,
        oldest listed first; and whether more may follow. Only a room whose creator made it public, that is not
        full and where a seat is held, is open."""

    @abstractmethod
    async def expire(self) -> None:
        """Housekeeping, every ``interval`` seconds: drop rooms idle past their retention."""

    async def health(self) -> str | None:
        """None when the backend is usable, else why not."""
        return None

    async def close(self) -> None:
        """Flush and disconnect."""


# -- the lobby (protocol 1.2: relay/lobby.py) ------------------------------------


class Listing(NamedTuple):
    """One open room as a backend stores it; :func:`row` makes it what a client sees."""

    key: str  # "MS:ROOM": its place in the lobby (the cursor of the page that ends with it)
    room: str
    seats: int
    names: list[str]  # the names of the seats given out, in seat order
    public_json: str  # the object its creator chose to show, as JSON


def lobby_key(listed_ms: int, room: str) -> str:
    return f"{listed_ms:013d}:{room}"



class Lobby:
    """The open rooms of one process's ledger, as their sorted keys: a page is a binary search and a slice."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def show(self, key: str, shown: bool) -> None:
        """List ``key`` (``shown``), or stop listing it; either may already be so."""
        at = bisect.bisect_left(self.keys, key)
        present = at < len(self.keys) and self.keys[at] == key
        if shown and not present:
            self.keys.insert(at, key)
        elif present and not shown:
            del self.keys[at]

    def page(self, after: str | None, limit: int) -> list[str]:
        """Up to ``limit`` + 1 keys after ``after`` (one more than asked: whether another page follows)."""
        start = 0 if after is None else bisect.bisect_right(self.keys, after)
        return self.keys[start:start + limit + 1]


# -- in this process ---------------------------------------------------------------


@dataclass
class SeatRecord:
    token: str
    name_json: str
    epoch: int = 0
    present: bool = False


KINDS = ("join", "leave", "post")


@dataclass
class MemoryRoom:
    """A ledger and its seats. ``frames[i]`` is the event with seq i + 1, ``marks[i]`` its seat and kind.

    Plain strings and small ints, not an object per event: the garbage collector
    does not walk them, which keeps its pauses short on a busy relay. A room
    whose events live on disk keeps no frames here (``keep_frames`` false):
    only the marks, so that its memory does not grow with what is posted.
    """

    size: int
    keep_frames: bool = True
    frames: list[str] = field(default_factory=list)
    bytes: int = 0  # of the frames kept in memory
    marks: list[int] = field(default_factory=list)  # seat * 4 + index in KINDS
    seats: dict[int, SeatRecord] = field(default_factory=dict)
    ids: dict[tuple[int, str], int] = field(default_factory=dict)  # (seat, post id) -> seq
    public: str | None = None  # what its creator chose to show in the lobby (JSON), if it is listed
    listed: str = ""  # its key in the lobby (lobby_key)
    idle_since: float = field(default_factory=time.monotonic)
    followers: list[Deliver] = field(default_factory=list)

    @property
    def head(self) -> int:
        return len(self.marks)

    @property
    def occupied(self) -> bool:
        """Somebody is in the room (a seat's connection is present)."""
        return any(seat.present for seat in self.seats.values())

    def entries(self, after: int) -> list[Entry]:
        assert self.keep_frames, "this room's frames are on disk"
        return [Entry(seq, mark >> 2, KINDS[mark & 3], frame)
                for seq, mark, frame in zip(range(after + 1, self.head + 1), self.marks[after:], self.frames[after:])]

    def store(self, entry: Entry) -> None:
        if self.keep_frames:
            self.frames.append(entry.frame)
            self.bytes += len(entry.frame)
        self.marks.append(entry.seat * 4 + KINDS.index(entry.kind))

    def seat_for_token(self, token: str) -> int | None:
        for number, seat in self.seats.items():
            if secrets.compare_digest(seat.token.encode(), token.encode()):  # str form takes ASCII only
                return number
        return None


class MemoryFollower(Follower):
    def __init__(self, room: MemoryRoom, deliver: Deliver) -> None:
        self.room, self.deliver = room, deliver

    def stop(self) -> None:
        if self.deliver in self.room.followers:
            self.room.followers.remove(self.deliver)


class MemoryLedger(Ledger):
    """Rooms in this process's memory; nothing survives it. Every method completes without suspending,
    so an append reaches every follower in the same step of the event loop."""

    def __init__(self, retention: float = 600.0, max_bytes: int = 256 << 20, max_idle_bytes: int = 16 << 20,
                 clock: Callable[[], float] = time.time) -> None:
        self.retention = retention
        self.clock = clock  # the Unix time each event is stamped with (a test's clock, which it advances)
        self.interval = min(60.0, max(retention / 4, 0.05))
        self.max_bytes = max_bytes  # of every room's frames together (a game's ledger: 40 KiB to a few MiB)
        self.max_idle_bytes = max_idle_bytes  # of rooms nobody is in, kept for their retention while below it
        self.stored_bytes = 0  # of every room's frames kept in memory
        self.rooms: dict[str, MemoryRoom] = {}
        self.lobby = Lobby()

    async def claim(self, room: str, name: str, token: str | None, seats: int | None,
                    public: str | None = None) -> Claim:
        held = self.rooms.get(room)
        if token is not None:
            number = held.seat_for_token(token) if held else None
            if held is None or number is None:
                raise bad_token(room)
            check_seats(room, held.size, seats)
        else:
            if held is None:
                held = self.rooms[room] = self._room(seats or DEFAULT_SEATS)
                if public is not None:
                    held.public, held.listed = public, lobby_key(int(time.time() * 1000), room)
                self._created(room, held)
            check_seats(room, held.size, seats)
            if len(held.seats) >= held.size:
                raise room_full(room, held.size)
            number = len(held.seats)
            held.seats[number] = SeatRecord(secrets.token_urlsafe(24), "")
        record = held.seats[number]
        record.epoch += 1
        if record.present:
            self._add(room, held, number, "leave", "null")
        record.name_json, record.present = to_json(name), True
        self._seated(room, number, record.token, name)
        seq = self._add(room, held, number, "join", "null")
        self._relist(held)
        return Claim(number, record.token, record.epoch, seq, held.size)

    async def append(self, room: str, seat: int, epoch: int, body_json: str, post_id: str | None = None) -> int:
        held = self.rooms[room]
        if held.seats[seat].epoch != epoch:
            raise Refused("not_joined", "this connection's seat was taken over by a newer connection",
                          close=SEAT_TAKEN_OVER)
        if post_id is not None and (seat, post_id) in held.ids:
            return held.ids[seat, post_id]
        if held.keep_frames and self.stored_bytes + len(body_json) > self.max_bytes:
            self._make_room(held, len(body_json))
        return self._add(room, held, seat, "post", body_json, post_id)

    async def read(self, room: str, after: int) -> list[Entry]:
        held = self.rooms.get(room)
        return self._entries(room, held, after) if held else []

    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        held = self.rooms[room]
        if held.head > after:
            deliver(self._entries(room, held, after))
        held.followers.append(deliver)
        return MemoryFollower(held, deliver)

    async def release(self, room: str, seat: int, epoch: int) -> bool:
        held = self.rooms.get(room)
        record = held.seats.get(seat) if held else None
        if held is None or record is None or record.epoch != epoch or not record.present:
            return False
        record.present = False
        self._add(room, held, seat, "leave", "null")
        if not held.occupied:
            held.idle_since = time.monotonic()
            self._trim_idle()
        self._relist(held)
        return True

    def _trim_idle(self) -> None:
        """While the rooms nobody is in keep more than ``max_idle_bytes`` of frames in memory, drop the largest of
        them at once instead of at the end of their retention: what clients post and leave behind is bounded
        (the relay's sweep hands the freed memory back: relay/memory.py)."""
        if self.stored_bytes > self.max_idle_bytes:  # else every room together is within it: nothing to count
            self._drop_idle(sum(r.bytes for r in self.rooms.values() if not r.occupied) - self.max_idle_bytes)

    def _make_room(self, held: MemoryRoom, size: int) -> None:
        """Before a post of ``size`` bytes would pass ``max_bytes``: drop rooms nobody is in, largest first; if
        that is not enough, refuse the post when its room holds more than its share (``max_bytes`` among the
        rooms there are), so that one room cannot take the memory the others' games need."""
        self._drop_idle(self.stored_bytes + size - self.max_bytes)
        share = self.max_bytes // max(len(self.rooms), 1)
        if self.stored_bytes + size > self.max_bytes and held.bytes + size > share:
            raise Refused("store_full", f"the relay's memory for rooms is full ({self.max_bytes >> 20} MiB) and "
                          f"this room holds more than its share ({held.bytes >> 10} KiB)")

    def _drop_idle(self, excess: int) -> None:
        """Drop rooms nobody is in, largest first, until ``excess`` bytes of frames are gone (or no such room is
        left)."""
        if excess <= 0:
            return
        idle = sorted(((r.bytes, name) for name, r in self.rooms.items() if r.bytes and not r.occupied),
                      reverse=True)
        for size, name in idle:
            if excess <= 0:
                break
            log.info("dropping room=%s before its retention: %d bytes left behind", name, size)
            self.drop(name)
            excess -= size

    def _relist(self, held: MemoryRoom) -> None:
        """Show a public room in the lobby while it is open (not full, somebody there), and only then."""
        if held.public is not None:
            self.lobby.show(held.listed, len(held.seats) < held.size and held.occupied)

    async def lobby_page(self, after: str | None, limit: int) -> tuple[list[Listing], bool]:
        keys = self.lobby.page(after, limit)
        listings = []
        for key in keys[:limit]:
            room = key.split(":", 1)[1]
            held = self.rooms[room]
            assert held.public is not None
            names = [json.loads(held.seats[n].name_json) for n in sorted(held.seats)]
            listings.append(Listing(key, room, held.size, names, held.public))
        return listings, len(keys) > limit

    async def expire(self) -> None:
        deadline = time.monotonic() - self.retention
        for name in [n for n, r in self.rooms.items()
                     if r.idle_since < deadline and not r.occupied]:
            self.drop(name)

    def drop(self, room: str) -> None:
        """Forget a room at once (the TUI's embedded relay drops finished games)."""
        held = self.rooms.pop(room, None)
        if held is not None:
            self.stored_bytes -= held.bytes
        if held is not None and held.public is not None:
            self.lobby.show(held.listed, False)

    def _add(self, room: str, held: MemoryRoom, seat: int, kind: str, body_json: str, post_id: str | None = None
             ) -> int:
        """Store, then hand to every follower: the one way an event enters a memory ledger."""
        seq = held.head + 1
        entry = Entry(seq, seat, kind, event_frame(seq, seat, held.seats[seat].name_json, kind, body_json,
                                                   now_stamp(self.clock()), post_id))
        self._stored(room, entry)
        held.store(entry)
        if held.keep_frames:
            self.stored_bytes += len(entry.frame)
        if post_id is not None:
            held.ids[seat, post_id] = seq
        for deliver in list(held.followers):
            deliver([entry])
        return seq

    # Hooks for a durable subclass; in memory there is nothing to do.
    def _room(self, seats: int) -> MemoryRoom:
        return MemoryRoom(seats)

    def _entries(self, room: str, held: MemoryRoom, after: int) -> list[Entry]:
        return held.entries(after)

    def _created(self, room: str, held: MemoryRoom) -> None:
        pass

    def _seated(self, room: str, seat: int, token: str, name: str) -> None:
        pass

    def _stored(self, room: str, entry: Entry) -> None:
        pass


class SQLiteLedger(MemoryLedger):
    """A memory ledger whose every event and seat is committed to an SQLite file (WAL mode) before any
    follower sees it, so a relay killed with SIGKILL and started again on the file has lost no event
    that any client received. Seats connected when it died get a ``leave`` at the next start. Posted
    frames are read back from the file (catch-ups), never kept in memory: what is posted costs disk."""

    def __init__(self, path: str | Path, retention: float = 600.0) -> None:
        super().__init__(retention)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut) without an fsync per event.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS events (
                room TEXT NOT NULL, seq INTEGER NOT NULL, frame TEXT NOT NULL,
                PRIMARY KEY (room, seq)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS seats (
                room TEXT NOT NULL, seat INTEGER NOT NULL,
                token TEXT NOT NULL, name TEXT NOT NULL,
                PRIMARY KEY (room, seat)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, seats INTEGER NOT NULL) WITHOUT ROWID;
            """
        )
        if "public" not in {row[1] for row in self.db.execute("PRAGMA table_info(rooms)")}:  # files from before 1.2
            self.db.execute("ALTER TABLE rooms ADD COLUMN public TEXT")
            self.db.execute("ALTER TABLE rooms ADD COLUMN listed TEXT NOT NULL DEFAULT ''")
        self._load()

    def _load(self) -> None:
        sizes = {}  # files from before N seats: 2
        for room, seats, public, listed in self.db.execute("SELECT room, seats, public, listed FROM rooms"):
            sizes[room] = seats
            if public is not None:  # listed again once a seat is taken back (nobody is there after a restart)
                held = self.rooms[room] = self._room(seats)
                held.public, held.listed = public, listed
        for room, seat, token, name in self.db.execute("SELECT room, seat, token, name FROM seats ORDER BY room, seat"):
            held = self.rooms.setdefault(room, self._room(sizes.get(room, DEFAULT_SEATS)))
            held.seats[seat] = SeatRecord(token, to_json(name), epoch=1)
        present: dict[str, set[int]] = {}
        for room, frame in self.db.execute("SELECT room, frame FROM events ORDER BY room, seq"):
            event = json.loads(frame)
            held = self.rooms.setdefault(room, self._room(sizes.get(room, DEFAULT_SEATS)))
            held.store(Entry(event["seq"], event["seat"], event["kind"], frame))
            if "id" in event:
                held.ids[event["seat"], event["id"]] = event["seq"]
            seats = present.setdefault(room, set())
            if event["kind"] == "join":
                seats.add(event["seat"])
            elif event["kind"] == "leave":
                seats.discard(event["seat"])
        for room, seats in present.items():  # connected when the last process died: they left
            for seat in sorted(seats):
                self._add(room, self.rooms[room], seat, "leave", "null")

    def drop(self, room: str) -> None:
        super().drop(room)
        for table in ("events", "seats", "rooms"):
            self.db.execute(f"DELETE FROM {table} WHERE room = ?", (room,))

    def _room(self, seats: int) -> MemoryRoom:
        return MemoryRoom(seats, keep_frames=False)  # the frames are in the file: memory holds no posted data

    def _entries(self, room: str, held: MemoryRoom, after: int) -> list[Entry]:
        rows = self.db.execute("SELECT seq, frame FROM events WHERE room = ? AND seq > ? ORDER BY seq", (room, after))
        return [Entry(seq, held.marks[seq - 1] >> 2, KINDS[held.marks[seq - 1] & 3], frame) for seq, frame in rows]

    def _created(self, room: str, held: MemoryRoom) -> None:
        self.db.execute("INSERT OR REPLACE INTO rooms VALUES (?, ?, ?, ?)", (room, held.size, held.public, held.listed))

    def _seated(self, room: str, seat: int, token: str, name: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?)", (room, seat, token, name))

    def _stored(self, room: str, entry: Entry) -> None:
        self.db.execute("INSERT INTO events VALUES (?, ?, ?)", (room, entry.seq, entry.frame))

    async def close(self) -> None:
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
