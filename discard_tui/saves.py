"""Unfinished games on disk, so a crashed or closed client can take its seat back.

One file per (relay, room, player name) in the data directory, mode 0600,
written atomically *before* the session posts anything: the seat token and
the seed every secret key of every game in that room derives from.

A process holds a lock beside each seat file it plays from, so two players
with the same name in one room (two bots, say) each keep their own file: the
second takes the next free slot instead of resuming the first one's seat.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

try:  # POSIX; elsewhere two same-named players in one room share a file
    import fcntl
except ImportError:
    fcntl = None  # type: ignore[assignment]

from games import GAMES
from tabletop.ledger import Link, SeatLost
from tabletop.shell import Seat, join
from tabletop.table import Wish

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
    game: str
    saved_at: float

    @property
    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)


def games_dir() -> Path:
    return data_dir() / "games"


def path_for(relay: str, room: str, name: str) -> Path:
    digest = hashlib.sha256(f"{relay}\n{room}\n{name}".encode()).hexdigest()[:20]
    return games_dir() / f"{digest}.json"


def save(seat: SavedSeat, key: str | None = None) -> Path:
    """Write ``seat`` (under ``key``, its name by default) readable by its owner only; never half-written."""
    games_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    path = path_for(seat.relay, seat.room, key or seat.name)
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


def new_seat(relay: str, room: str, name: str, token: str, seed: bytes, game: str) -> SavedSeat:
    return SavedSeat(relay, room, name, token, seed.hex(), game, time.time())


@dataclass
class _Claim:
    """A seat file this process plays from, locked against other processes."""

    relay: str
    room: str
    key: str  # the player's name, or "name#2", "name#3", … for a second same-named player
    lock: TextIO
    user: Seat | None = None

    @property
    def free(self) -> bool:
        return self.user is None or self.user.ledger.link is Link.CLOSED


_claims: dict[Path, _Claim] = {}


def _claim(relay: str, room: str, name: str) -> _Claim:
    """The first slot for (relay, room, name) that no other process and no live session here is using."""
    games_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    for slot in itertools.count(1):
        key = name if slot == 1 else f"{name}#{slot}"
        path = path_for(relay, room, key).with_suffix(".lock")
        claim = _claims.get(path)
        if claim is not None:
            if claim.free:
                return claim
            continue
        handle = path.open("a")
        if fcntl is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
        _claims[path] = claim = _Claim(relay, room, key, handle)
        return claim
    raise AssertionError("unreachable")


def forget(seat: Seat) -> None:
    """The seat's game in its room is over: remove its seat file and let go of it."""
    for path, claim in list(_claims.items()):
        if claim.user is seat:
            remove(claim.relay, claim.room, claim.key)
            path.unlink(missing_ok=True)
            claim.lock.close()
            del _claims[path]


async def resume_or_join(url: str, room: str, wish: Wish, *, relay_key: str | None = None, seed: bytes | None = None,
                         **options) -> tuple[Seat, bool]:
    """Take back the seat saved for (relay, room, name), or take a new one and save it.

    Returns the seat and whether it resumed. The save is on disk before the
    seat can post anything.
    """
    claim = _claim(relay_key or url, room, wish.name)
    saved = load(claim.relay, room, claim.key)
    if saved is not None:
        try:
            seat = await join(url, room, wish, GAMES, token=saved.token, seed=saved.seed_bytes, **options)
            claim.user = seat
            return seat, True
        except SeatLost:
            remove(claim.relay, room, claim.key)  # the relay forgot the room; start afresh
    seed = seed if seed is not None else secrets.token_bytes(32)
    seat = await join(url, room, wish, GAMES, seed=seed, **options)
    assert seat.ledger.token is not None
    save(new_seat(claim.relay, room, wish.name, seat.ledger.token, seed, wish.game), claim.key)
    claim.user = seat
    return seat, False
