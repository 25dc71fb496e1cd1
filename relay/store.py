"""Where the relay keeps its ledgers.

``MemoryStore`` keeps nothing beyond the process; ``SQLiteStore`` appends
every event to an SQLite database (WAL mode) *before* the relay broadcasts
it, so a relay killed with SIGKILL and started again on the same file has
lost no event that any client received.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StoredSeat:
    token: str
    name: str


@dataclass
class StoredRoom:
    frames: list[str] = field(default_factory=list)
    seats: dict[int, StoredSeat] = field(default_factory=dict)


class MemoryStore:
    """No durability: the relay's own memory is the only copy."""

    def load(self) -> dict[str, StoredRoom]:
        return {}

    def append(self, room: str, seq: int, frame: str) -> None:
        pass

    def save_seat(self, room: str, seat: int, token: str, name: str) -> None:
        pass

    def drop_room(self, room: str) -> None:
        pass

    def close(self) -> None:
        pass


class SQLiteStore(MemoryStore):
    """Every event and seat is committed to disk before it is acknowledged."""

    def __init__(self, path: str | Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut)
        # without an fsync per event.
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
            """
        )

    def load(self) -> dict[str, StoredRoom]:
        rooms: dict[str, StoredRoom] = {}
        for room, frame in self.db.execute("SELECT room, frame FROM events ORDER BY room, seq"):
            rooms.setdefault(room, StoredRoom()).frames.append(frame)
        for room, seat, token, name in self.db.execute("SELECT room, seat, token, name FROM seats"):
            rooms.setdefault(room, StoredRoom()).seats[seat] = StoredSeat(token, name)
        return rooms

    def append(self, room: str, seq: int, frame: str) -> None:
        self.db.execute("INSERT INTO events VALUES (?, ?, ?)", (room, seq, frame))

    def save_seat(self, room: str, seat: int, token: str, name: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?)", (room, seat, token, name))

    def drop_room(self, room: str) -> None:
        self.db.execute("DELETE FROM events WHERE room = ?", (room,))
        self.db.execute("DELETE FROM seats WHERE room = ?", (room,))

    def close(self) -> None:
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
