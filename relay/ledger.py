"""The ledger seam: where a relay keeps its rooms.

A :class:`Ledger` owns every room's seats and events. The websocket server
(:mod:`relay.server`) talks only to this interface, so a room can live in
this process (:class:`relay.memory_ledger.MemoryLedger`, the default), in an
SQLite file (:class:`relay.sqlite_ledger.SQLiteLedger`), in Redis shared by
several relay nodes (:class:`relay.redis_ledger.RedisLedger`) or in a Redis
Cluster (:class:`relay.redis_cluster_ledger.RedisClusterLedger`): one module
per backend, each beside its peers.

Guarantees every backend gives:

* ``seq`` is 1, 2, 3, ... per room, gapless, one total order for every node.
* An event is stored before :meth:`Ledger.follow` delivers it anywhere.
* A seat has an *epoch*, raised by every claim of it: only the connection
  holding the current epoch may append or release, so a resume anywhere
  takes the seat over and the old connection's late frames change nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

SEAT_TAKEN_OVER = 4000  # close code for a connection whose seat was resumed elsewhere
TRY_AGAIN_LATER = 1013  # close code when the ledger cannot serve the connection now (RFC 6455)
POLICY = 1008  # close code after room_full and bad_token
DEFAULT_SEATS = 2
MAX_SEATS = 6
JOIN_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22,64}")  # a join's id (protocol 1.4): at least 132 bits if drawn at random
BLOCK_SHARE = 2  # an IPv6 /48 gets this many times an address's budgets (relay/budgets.py) and memory store share


SIZE_UNITS = ("KiB", "MiB", "GiB", "TiB")


def amount(size: float) -> str:
    """``size`` bytes as a person reads them, in the largest unit of which there is at least one, to a tenth:
    "64 bytes", "1.5 KiB", "16 MiB". Every size the relay names goes through here (a share of 64 bytes read
    "0.0625 KiB")."""
    if round(size) < 1024:
        return f"{round(size)} byte{'s' * (round(size) != 1)}"
    for unit in SIZE_UNITS:
        size /= 1024
        if round(size, 1) < 1024 or unit == SIZE_UNITS[-1]:
            break
    return f"{round(size, 1):g} {unit}"


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


class Party(NamedTuple):
    """Who a post comes from, as the relay's budgets count parties: its address's key (an IPv4 address, an IPv6 /64,
    or a connection counted on its own) and its /48's (None but for an IPv6 /64)."""

    address: str
    block: str | None = None


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


def join_token(room: str, join_id: str) -> str:
    """The token of the seat a join of id ``join_id`` (protocol 1.4) takes in ``room``: derived from the id, so that
    the join sent again, through any node, finds the seat by its token (the store keeps no id, and, on Redis, only the
    token's hash). Knowing the id is knowing the token, as the protocol says: a join under it is a resume."""
    digest = hashlib.sha256(f"discard-relay join {room} {join_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def check_seats(room: str, seats: int, wanted: int | None) -> None:
    if wanted is not None and wanted != seats:
        raise Refused("bad_request", f"room {room} has {seats} seats, not {wanted}; join without \"seats\" "
                      "or pick another room")


WATCHER = -1  # the seat of a watcher's events (protocol 1.3): no seat


@dataclass(frozen=True)
class Watch:
    """A watcher let in: the room's watchers now, its size, and the seq of the ``watch`` event that counted it."""

    watching: int
    seats: int
    seq: int


def watch_body(watching: int) -> str:
    """The body of a ``watch`` event, the same bytes on every backend."""
    return f'{{"watching":{watching}}}'


def no_room(room: str) -> Refused:
    return Refused("not_found", f"there is no room {room} to watch here; check its name", close=POLICY)


def watchers_full(room: str, limit: int) -> Refused:
    if not limit:
        return Refused("room_full", "this relay lets nobody watch its rooms (--room-watchers 0)", close=POLICY)
    return Refused("room_full", f"room {room} already has {limit} watchers, the most a room has here; "
                   "try again later", close=POLICY)


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
                    public: str | None = None, join_id: str | None = None, party: Party | None = None) -> Claim:
        """Take a free seat (``token`` None) or take back the seat of ``token``, appending its ``join``.

        With ``join_id`` (protocol 1.4; ``token`` is then None), exactly once: the seat whose token is
        :func:`join_token` of it, taken back if the room has it (a join sent again after its answer was lost), else a
        new seat given that token, in the one atomic step that takes the seat.

        A seat still held by a connection gets a ``leave`` first. ``seats`` is the room's size when
        this creates it; a different size for an existing room is refused with ``bad_request``.
        ``public`` (JSON, checked by relay/lobby.py) lists the room in the lobby when this claim creates it;
        a later claim's is ignored. ``party``: whom its ``join`` and the ``leave`` after it are charged to, as a
        post is (:meth:`append`).
        """

    @abstractmethod
    async def append(self, room: str, seat: int, epoch: int, body_json: str, post_id: str | None = None,
                     party: Party | None = None) -> int:
        """Append a post from the holder of (seat, epoch); returns its seq.

        A backend that keeps posts in the relay's own memory charges them to ``party`` (None: to nobody) and
        refuses one past the party's share with ``store_full``; a backend that keeps them elsewhere ignores it.

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
    async def watch(self, room: str, name: str, limit: int, party: Party | None = None) -> Watch:
        """A watcher arrives (protocol 1.3): append a ``watch`` event (seat -1, ``name``, body ``{"watching": N}``,
        the new count); refused with ``not_found`` if the room does not exist, with ``room_full`` if it has
        ``limit`` watchers already. ``party``: whom it and its departure's are charged to, as a join's are."""

    @abstractmethod
    async def unwatch(self, room: str, name: str) -> None:
        """A watcher of this node has gone: append a ``watch`` event with the count one less (nothing if the room
        or the watcher is gone already)."""

    @abstractmethod
    async def lobby_page(self, after: str | None, limit: int, under_way: bool = False
                         ) -> tuple[list[Listing], bool]:
        """The lobby's open rooms after the cursor ``after`` (None: from the first), at most ``limit`` of them,
        oldest listed first; and whether more may follow. Only a room whose creator made it public, that is not
        full and where a seat is held, is open. With ``under_way`` (1.3), the public rooms whose game is under way
        instead: every seat taken, one held; a watcher may join them."""

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
    watching: int = 0  # its watchers now (1.3: shown for a room under way)


def lobby_key(listed_ms: int, room: str) -> str:
    return f"{listed_ms:013d}:{room}"
