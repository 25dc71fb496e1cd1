"""Unfinished games on disk, so a crashed or closed client can take its seat back.

One file per (relay, room, player name) in the data directory, mode 0600,
written atomically *before* the session posts anything: the seat token and
the seed every secret key of every game in that room derives from.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .engine import Session
from .net import SeatLost
from .paths import data_dir

LOCAL_RELAY = "local"  # the relay key of games against the computer (embedded relay)
COMPUTER = "Computer"  # the computer opponent's name, and the name its seat is saved under


@dataclass
class SavedSeat:
    relay: str
    room: str
    name: str
    token: str
    seed: str  # hex
    deck: str
    saved_at: float

    @property
    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)


def games_dir() -> Path:
    return data_dir() / "games"


def path_for(relay: str, room: str, name: str) -> Path:
    digest = hashlib.sha256(f"{relay}\n{room}\n{name}".encode()).hexdigest()[:20]
    return games_dir() / f"{digest}.json"


def save(seat: SavedSeat) -> Path:
    """Write ``seat`` readable by its owner only; never leaves a half-written file."""
    games_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    path = path_for(seat.relay, seat.room, seat.name)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(asdict(seat), file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    return path


def load(relay: str, room: str, name: str) -> SavedSeat | None:
    try:
        return SavedSeat(**json.loads(path_for(relay, room, name).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def remove(relay: str, room: str, name: str) -> None:
    path_for(relay, room, name).unlink(missing_ok=True)


def unfinished() -> list[SavedSeat]:
    """Every saved seat a person can go back to (the computer's own seats are not listed)."""
    seats = []
    for path in sorted(games_dir().glob("*.json")):
        try:
            seat = SavedSeat(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if not (seat.relay == LOCAL_RELAY and seat.name == COMPUTER):
            seats.append(seat)
    return sorted(seats, key=lambda s: s.saved_at)


def new_seat(relay: str, room: str, name: str, token: str, seed: bytes, deck: str) -> SavedSeat:
    return SavedSeat(relay, room, name, token, seed.hex(), deck, time.time())


async def resume_or_join(url: str, room: str, name: str, *, relay_key: str | None = None,
                         seed: bytes | None = None, **options) -> tuple[Session, bool]:
    """Take back the seat saved for (relay, room, name), or take a new one and save it.

    Returns the session and whether it resumed. The save is on disk before the
    session can post anything.
    """
    key = relay_key or url
    saved = load(key, room, name)
    if saved is not None:
        try:
            session = await Session.connect(url, room, name, token=saved.token, seed=saved.seed_bytes, **options)
            return session, True
        except SeatLost:
            remove(key, room, name)  # the relay forgot the room; start afresh
    session = await Session.connect(url, room, name, seed=seed, **options)
    deck = options.get("deck")
    save(new_seat(key, room, name, session.ledger.token, session.seed, deck.value if deck else "full"))
    return session, False
