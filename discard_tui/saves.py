"""Unfinished games on disk, so a crashed or closed client can take its seat back.

One file per (relay, room, player name) in the data directory, mode 0600,
written atomically: first the seed every secret key of every game in that
room derives from (before the seat is taken, so a data directory that cannot
be written costs no seat), then the relay's seat token (before the session
posts anything). It also records how far the room got (``stage``), for
``discard-tui --games``, and the last game whose result line was written
(``reported``), for ``discard-bot --json``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .paths import data_dir

if TYPE_CHECKING:
    from .engine import Session

LOCAL_RELAY = "local"  # the relay key of games against the computer (embedded relay)
COMPUTER = "Computer"  # the computer opponent's name, and the name its seat is saved under
STAGES = ("waiting", "playing", "over")  # no game yet; a game under way; the last game is over


@dataclass
class SavedSeat:
    relay: str
    room: str
    name: str
    token: str  # "" until the relay has seated us
    seed: str  # hex
    deck: str
    saved_at: float
    stage: str = "waiting"
    reported: int = 0  # the last game whose result line was written

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


def mark(relay: str, room: str, name: str, **changes: Any) -> None:
    """Record ``changes`` (``stage``, ``reported``) in the saved seat, if there is one and they change it."""
    seat = load(relay, room, name)
    if seat is not None and any(getattr(seat, field) != value for field, value in changes.items()):
        save(dataclasses.replace(seat, **changes))


def unfinished() -> list[SavedSeat]:
    """Every saved seat a person can go back to: a game under way (the computer's own seats are not listed)."""
    seats = []
    for path in sorted(games_dir().glob("*.json")):
        try:
            seat = SavedSeat(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if seat.stage == "playing" and not (seat.relay == LOCAL_RELAY and seat.name == COMPUTER):
            seats.append(seat)
    return sorted(seats, key=lambda s: s.saved_at)


def new_seat(relay: str, room: str, name: str, token: str, seed: bytes, deck: str) -> SavedSeat:
    return SavedSeat(relay, room, name, token, seed.hex(), deck, time.time())


async def resume_or_join(url: str, room: str, name: str, *, relay_key: str | None = None,
                         seed: bytes | None = None, **options: Any) -> tuple[Session, bool]:
    """Take back the seat saved for (relay, room, name), or take a new one and save it.

    Returns the session and whether it resumed. The seed is on disk before the
    seat is taken and the token before the session can post anything.
    """
    from .engine import Session
    from .net import SeatLost

    key = relay_key or url
    saved = load(key, room, name)
    if saved is not None and saved.token:
        try:
            session = await Session.connect(url, room, name, token=saved.token, seed=saved.seed_bytes, **options)
            return session, True
        except SeatLost:
            remove(key, room, name)  # the relay forgot the room; start afresh
            saved = None
    deck = options.get("deck")
    seat = saved or new_seat(key, room, name, "", seed or secrets.token_bytes(32), deck.value if deck else "full")
    save(seat)
    session = await Session.connect(url, room, name, seed=seat.seed_bytes, **options)
    try:
        save(dataclasses.replace(seat, token=session.ledger.token))
    except OSError:
        await session.ledger.close()  # the relay keeps the seat for a while; the protocol has no way to free it
        raise
    return session, False
