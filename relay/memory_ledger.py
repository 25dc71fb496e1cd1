"""The memory ledger: every room in this process, nothing survives it (the default backend)."""

from __future__ import annotations

import bisect
import json
import logging
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .ledger import (BLOCK_SHARE, DEFAULT_SEATS, SEAT_TAKEN_OVER, WATCHER, Claim, Deliver, Entry, Follower, Ledger,
                     Listing, Party, Refused, Watch, amount, bad_token, check_seats, event_frame, join_token, lobby_key,
                     no_room, now_stamp, room_full, to_json, watch_body, watchers_full)

log = logging.getLogger("discard.relay")

ADDRESS_PARTS = 16  # one address's rooms may hold max_bytes // ADDRESS_PARTS of posts; its /48's, BLOCK_SHARE times that
EVENT_SLOTS = 16  # bytes: an event's places in its room's lists (frames, marks)
ID_ENTRY = 120  # bytes beside the id itself: a post id's entry in its room's ids (its key's tuple, its seq, its slot)
ROOM_COST = 1_400  # bytes a room takes beside its events: its MemoryRoom, lists, dicts, first seat (tracemalloc)
SEAT_COST = 300  # bytes each further seat given out takes: its SeatRecord, its token, its slot (tracemalloc)


def footprint(frame: str, post_id: str | None = None) -> int:
    """The bytes an event takes in a memory ledger, as the store counts them: its frame as Python holds it (1, 2
    or 4 bytes a character by its widest one: a single emoji makes each character of a frame take 4), its places
    in its room's lists and its post id's entry. (Counted as characters, one emoji's frames took four times what
    was counted, and small posts under an id nearly three times.)"""
    return sys.getsizeof(frame) + EVENT_SLOTS + (sys.getsizeof(post_id) + ID_ENTRY if post_id else 0)


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



@dataclass
class SeatRecord:
    token: str
    name_json: str
    epoch: int = 0
    present: bool = False


KINDS = ("join", "leave", "post", "watch")  # a watch event's seat is -1: its mark is -1 * 4 + 3 = -1


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
    bytes: int = 0  # its events kept in memory take (footprint)
    marks: list[int] = field(default_factory=list)  # seat * 4 + index in KINDS
    seats: dict[int, SeatRecord] = field(default_factory=dict)
    ids: dict[tuple[int, str], int] = field(default_factory=dict)  # (seat, post id) -> seq
    charged: dict[str, int] = field(default_factory=dict)  # bytes of its posts charged to each party (address, /48)
    public: str | None = None  # what its creator chose to show in the lobby (JSON), if it is listed
    listed: str = ""  # its key in the lobby (lobby_key)
    watching: int = 0  # watchers connected (protocol 1.3)
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

    def store(self, entry: Entry, size: int = 0) -> None:
        """Keep ``entry``, which takes ``size`` bytes (:func:`footprint`) if its frame is kept here."""
        if self.keep_frames:
            self.frames.append(entry.frame)
            self.bytes += size
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

    keeps_frames = True  # its rooms keep their events' frames in memory (charged to their parties)

    def __init__(self, retention: float = 600.0, max_bytes: int = 256 << 20, max_idle_bytes: int = 16 << 20,
                 clock: Callable[[], float] = time.time, address_parts: int = ADDRESS_PARTS) -> None:
        self.clock = clock  # the Unix time each event is stamped with (a test's clock, which it advances)
        self.retention = retention
        self.interval = min(60.0, max(retention / 4, 0.05))
        self.max_bytes = max_bytes  # of every room's frames together (a game's ledger: 40 KiB to a few MiB)
        self.max_idle_bytes = max_idle_bytes  # of rooms nobody is in, kept for their retention while below it
        self.stored_bytes = 0  # every room's events kept in memory take (footprint)
        # what one address's rooms may hold (a /48's: BLOCK_SHARE times it); address_parts 1: a relay of one party
        self.address_bytes = max_bytes // address_parts
        self.charged: dict[str, int] = {}  # bytes of posts kept in memory, per party (an address's key, a /48's)
        self.holdings: dict[str, set[str]] = {}  # the rooms holding each party's posts (a key of ``charged``)
        self.rooms: dict[str, MemoryRoom] = {}
        self.idle: set[str] = set()  # the rooms nobody is in (not occupied), which alone may be dropped early
        self.lobby = Lobby()
        self.under_way = Lobby()  # the public rooms whose every seat is taken and one held (1.3)

    async def claim(self, room: str, name: str, token: str | None, seats: int | None,
                    public: str | None = None, join_id: str | None = None, party: Party | None = None) -> Claim:
        """As :meth:`Ledger.claim`; its ``join``, and the ``leave`` that will follow it, are charged to ``party`` as
        a post is (:meth:`append`), and a claim past the party's share is refused with ``store_full``."""
        held = self.rooms.get(room)
        if join_id is not None:
            token = join_token(room, join_id)
        taken_back = held.seat_for_token(token) if held and token is not None else None
        if taken_back is not None:
            assert held is not None
            check_seats(room, held.size, seats)
        elif token is not None and join_id is None:
            raise bad_token(room)
        elif held is not None:
            check_seats(room, held.size, seats)
            if len(held.seats) >= held.size:
                raise room_full(room, held.size)
        made = 0 if not self.keeps_frames else ROOM_COST if held is None else SEAT_COST if taken_back is None else 0
        charge = self._seat_events(room, held, party, 0, to_json(name), "leave", "null", made)
        if held is None:
            held = self.rooms[room] = self._room(seats or DEFAULT_SEATS)
            if public is not None:
                held.public, held.listed = public, lobby_key(int(time.time() * 1000), room)
            self._created(room, held)
        held.bytes += made
        self.stored_bytes += made
        if taken_back is None:
            number = len(held.seats)
            held.seats[number] = SeatRecord(token or secrets.token_urlsafe(24), "")
        else:
            number = taken_back
        record = held.seats[number]
        record.epoch += 1
        if record.present:
            self._add(room, held, number, "leave", "null")
        record.name_json, record.present = to_json(name), True
        self.idle.discard(room)
        self._seated(room, number, record.token, name)
        seq = self._add(room, held, number, "join", "null")
        self._charge(room, held, *charge)
        self._relist(held)
        return Claim(number, record.token, record.epoch, seq, held.size)

    async def append(self, room: str, seat: int, epoch: int, body_json: str, post_id: str | None = None,
                     party: Party | None = None) -> int:
        """As :meth:`Ledger.append`; a post kept in memory is charged to ``party`` (its address and its /48) until
        its room is dropped, and refused with ``store_full`` past the party's share (:meth:`_within_share`)."""
        held = self.rooms[room]
        if held.seats[seat].epoch != epoch:
            raise Refused("not_joined", "this connection's seat was taken over by a newer connection",
                          close=SEAT_TAKEN_OVER)
        if post_id is not None and (seat, post_id) in held.ids:
            return held.ids[seat, post_id]
        entry = self._entry(held, seat, "post", body_json, post_id)
        size = footprint(entry.frame, post_id)
        charged = party if held.keep_frames else None  # a post kept on disk costs no memory: nobody's share
        if charged is not None:
            self._within_share(charged, size)
        if held.keep_frames and self.stored_bytes + size > self.max_bytes:
            self._make_room(held, size)
        seq = self._put(room, held, entry, post_id)
        self._charge(room, held, charged, size)
        return seq

    def _seat_events(self, room: str, held: MemoryRoom | None, party: Party | None, seat: int, name_json: str,
                     kind: str, body_json: str, made: int = 0) -> tuple[Party | None, int]:
        """Before a join (or a watcher's arrival) by ``party``: whom to charge, and what for, its event and the one
        that will end it (a ``kind`` event with ``body_json``, at most as long), which is charged now as it cannot
        be refused then, and ``made``, what the room or seat it makes takes; refused with ``store_full`` past the
        party's share, as a post is. (Charged to nobody, a party's connections joining and leaving again and again
        grew a room without end, past ``max_bytes``, and rooms made and left took 1,776 bytes each.)"""
        if party is None or not self.keeps_frames:
            return None, 0
        seq = (held.head if held else 0) + 3  # (the leave of a seat taken over, then the join, then the last one)
        size = 2 * footprint(event_frame(seq, seat, name_json, kind, body_json, now_stamp(self.clock()))) + made
        self._within_share(party, size, room)
        return party, size

    def _charge(self, room: str, held: MemoryRoom, party: Party | None, size: int) -> None:
        """Charge ``size`` bytes of ``room``'s events to ``party`` (its address and its /48) until the room goes."""
        for key in party or ():
            if key is not None:
                held.charged[key] = held.charged.get(key, 0) + size
                self.charged[key] = self.charged.get(key, 0) + size
                self.holdings.setdefault(key, set()).add(room)

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
            self.idle.add(room)
            self._trim_idle()
        self._relist(held)
        return True

    async def watch(self, room: str, name: str, limit: int, party: Party | None = None) -> Watch:
        """As :meth:`Ledger.watch`; its ``watch`` event, and the one of its departure, are charged to ``party`` as
        a join's are."""
        held = self.rooms.get(room)
        if held is None:
            raise no_room(room)
        if held.watching >= limit:
            raise watchers_full(room, limit)
        charge = self._seat_events(room, held, party, WATCHER, to_json(name), "watch", watch_body(limit))
        held.watching += 1
        seq = self._add(room, held, WATCHER, "watch", watch_body(held.watching), name_json=to_json(name))
        self._charge(room, held, *charge)
        return Watch(held.watching, held.size, seq)

    async def unwatch(self, room: str, name: str) -> None:
        held = self.rooms.get(room)
        if held is not None and held.watching > 0:
            held.watching -= 1
            self._add(room, held, WATCHER, "watch", watch_body(held.watching), name_json=to_json(name))

    def _trim_idle(self) -> None:
        """While the rooms nobody is in keep more than ``max_idle_bytes`` of frames in memory, drop the largest of
        them at once instead of at the end of their retention: what clients post and leave behind is bounded
        (the relay's sweep hands the freed memory back: relay/memory.py)."""
        if self.stored_bytes > self.max_idle_bytes:  # else every room together is within it: nothing to count
            self._drop_idle(sum(self.rooms[name].bytes for name in self.idle) - self.max_idle_bytes)

    def _within_share(self, party: Party, size: int, room: str | None = None) -> None:
        """Before a post of ``size`` bytes would take its party's rooms past their share of the store (its
        address's ``address_bytes``, its /48's BLOCK_SHARE times that): drop the party's rooms nobody is in, those
        holding most of its posts first; if that is not enough, refuse the post, naming whose share is full. So
        that one party, however many connections and rooms it holds, cannot take the memory others' games need.
        (``room``: the room the bytes go to, which is kept.)"""
        for key, share, whose in ((party.address, self.address_bytes, "address's"),
                                  (party.block, BLOCK_SHARE * self.address_bytes, "/48's")):
            if key is None:
                continue
            self._drop_idle(self.charged.get(key, 0) + size - share, key, room)
            if self.charged.get(key, 0) + size > share:
                raise Refused("store_full", f"the relay's memory for your {whose} rooms is full ({amount(share)})")

    def _make_room(self, held: MemoryRoom, size: int) -> None:
        """Before a post of ``size`` bytes would pass ``max_bytes``: drop rooms nobody is in, largest first; if
        that is not enough, refuse the post when its room holds more than its share (``max_bytes`` among the
        rooms there are), so that one room cannot take the memory the others' games need."""
        self._drop_idle(self.stored_bytes + size - self.max_bytes)
        share = self.max_bytes // max(len(self.rooms), 1)
        if self.stored_bytes + size > self.max_bytes and held.bytes + size > share:
            raise Refused("store_full", f"the relay's memory for rooms is full ({amount(self.max_bytes)}) and "
                          f"this room holds more than its share ({amount(held.bytes)})")

    def _drop_idle(self, excess: int, party: str | None = None, keep: str | None = None) -> None:
        """Drop rooms nobody is in, largest first, until ``excess`` bytes of frames are gone (or no such room is
        left); with ``party`` (a key of ``charged``), only rooms holding its posts, counting those bytes: only those
        rooms are looked at, so that a party past its share costs the relay its own rooms a post, not every room.
        The room ``keep`` is not dropped (one being joined)."""
        if excess <= 0:
            return
        names = self.idle if party is None else self.holdings.get(party, ())
        idle = sorted(((r.charged.get(party, 0) if party else r.bytes, name) for name in names
                       if not (r := self.rooms[name]).occupied and name != keep), reverse=True)
        for size, name in idle:
            if excess <= 0 or not size:
                break
            log.info("dropping room=%s before its retention: %s left behind", name, amount(size))
            self.drop(name)
            excess -= size

    def _relist(self, held: MemoryRoom) -> None:
        """Show a public room in the lobby while it is open (not full, somebody there), and only then; and among
        the rooms under way while it is full and somebody is there."""
        if held.public is not None:
            full = len(held.seats) >= held.size
            self.lobby.show(held.listed, not full and held.occupied)
            self.under_way.show(held.listed, full and held.occupied)

    async def lobby_page(self, after: str | None, limit: int, under_way: bool = False
                         ) -> tuple[list[Listing], bool]:
        keys = (self.under_way if under_way else self.lobby).page(after, limit)
        listings = []
        for key in keys[:limit]:
            room = key.split(":", 1)[1]
            held = self.rooms[room]
            assert held.public is not None
            names = [json.loads(held.seats[n].name_json) for n in sorted(held.seats)]
            listings.append(Listing(key, room, held.size, names, held.public, held.watching))
        return listings, len(keys) > limit

    async def expire(self) -> None:
        deadline = time.monotonic() - self.retention
        for name in [n for n in self.idle if self.rooms[n].idle_since < deadline]:
            self.drop(name)

    def drop(self, room: str) -> None:
        """Forget a room at once (the TUI's embedded relay drops finished games)."""
        held = self.rooms.pop(room, None)
        self.idle.discard(room)
        if held is not None:
            self.stored_bytes -= held.bytes
            for key, size in held.charged.items():  # its posts are no longer its parties' to hold
                self.charged[key] -= size
                self.holdings[key].discard(room)
                if not self.charged[key]:
                    del self.charged[key], self.holdings[key]
        if held is not None and held.public is not None:
            self.lobby.show(held.listed, False)
            self.under_way.show(held.listed, False)

    def _add(self, room: str, held: MemoryRoom, seat: int, kind: str, body_json: str, post_id: str | None = None,
             name_json: str | None = None) -> int:
        """Make the room's next event and put it in (:meth:`_put`). (``name_json``: a watcher's, who has no seat to
        hold it.)"""
        return self._put(room, held, self._entry(held, seat, kind, body_json, post_id, name_json), post_id)

    def _entry(self, held: MemoryRoom, seat: int, kind: str, body_json: str, post_id: str | None = None,
               name_json: str | None = None) -> Entry:
        """The room's next event, not stored yet."""
        seq = held.head + 1
        name = held.seats[seat].name_json if name_json is None else name_json
        return Entry(seq, seat, kind, event_frame(seq, seat, name, kind, body_json, now_stamp(self.clock()), post_id))

    def _put(self, room: str, held: MemoryRoom, entry: Entry, post_id: str | None = None) -> int:
        """Store, then hand to every follower: the one way an event enters a memory ledger."""
        seq = entry.seq
        self._stored(room, entry)
        size = footprint(entry.frame, post_id) if held.keep_frames else 0
        held.store(entry, size)
        self.stored_bytes += size
        if post_id is not None:
            held.ids[entry.seat, post_id] = seq
        for deliver in list(held.followers):
            deliver([entry])
        return seq

    # Hooks for a durable subclass; in memory there is nothing to do.
    def _room(self, seats: int) -> MemoryRoom:
        return MemoryRoom(seats, self.keeps_frames)

    def _entries(self, room: str, held: MemoryRoom, after: int) -> list[Entry]:
        return held.entries(after)

    def _created(self, room: str, held: MemoryRoom) -> None:
        pass

    def _seated(self, room: str, seat: int, token: str, name: str) -> None:
        pass

    def _stored(self, room: str, entry: Entry) -> None:
        pass
