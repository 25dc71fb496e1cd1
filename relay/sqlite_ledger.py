"""The SQLite ledger: the memory ledger with every event and seat committed to a file first."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from .ledger import DEFAULT_SEATS, WATCHER, Entry, to_json, watch_body
from .memory_ledger import KINDS, MemoryLedger, MemoryRoom, SeatRecord


class SQLiteLedger(MemoryLedger):
    """A memory ledger whose every event and seat is committed to an SQLite file (WAL mode) before any
    follower sees it, so a relay killed with SIGKILL and started again on the file has lost no event
    that any client received. Seats connected when it died get a ``leave`` at the next start. Posted
    frames are read back from the file (catch-ups), never kept in memory: what is posted costs disk."""

    keeps_frames = False  # the frames are in the file: memory holds no posted data

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
        watched: dict[str, tuple[int, str]] = {}  # room -> its last watcher count and the name that changed it
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
            elif event["kind"] == "watch":
                watched[room] = (event["body"]["watching"], to_json(event["name"]))
        for room, seats in present.items():  # connected when the last process died: they left
            for seat in sorted(seats):
                self._add(room, self.rooms[room], seat, "leave", "null")
        for room, (watching, name_json) in watched.items():  # and so did its watchers: the count says so
            if watching:
                self._add(room, self.rooms[room], WATCHER, "watch", watch_body(0), name_json=name_json)
        self.idle.update(self.rooms)  # nobody is in any room yet

    def drop(self, room: str) -> None:
        super().drop(room)
        for table in ("events", "seats", "rooms"):
            self.db.execute(f"DELETE FROM {table} WHERE room = ?", (room,))

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
