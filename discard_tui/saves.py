"""Unfinished games on disk, so a crashed or closed client can take its seat back.

One file per (relay, room, player name) in a directory the caller names
(the profile's ``games_dir``, discard_tui/profile.py), mode 0600,
written atomically: first the seed every secret key of every game in that
room derives from (before the seat is taken, so a data directory that cannot
be written costs no seat) and the secret id of its join (relay 1.4: a process
that dies before the relay's answer takes back, next time, the seat its join
may have taken), then the relay's seat token (before the session
posts anything). It also records the room's game and number of players
(``game``, ``seats``: going back needs no flags, and starts as many computer
players as before), how far the room got (``stage``), who sits there, the
game under way, the fair games each has won and when the seat last played
(``names``, ``me``, ``number``, ``wins``, ``played_at``), for
``discard-tui --games`` and the screens that offer to go back (the lobby,
the start screen), and the last game whose result line was written
(``reported``), for ``discard-bot --json``.

A process holds a lock beside each seat file it plays from, so two players
with the same name in one room (two bots, say) each keep their own file: the
second takes the next free slot instead of resuming the first one's seat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

try:  # POSIX; elsewhere two same-named players in one room share a file
    import fcntl
except ImportError:
    fcntl = None  # type: ignore[assignment]

from tabletop.words import ago, wins_words

if TYPE_CHECKING:
    from tabletop.shell import Seat

    from .config import PlayConfig
    from tabletop.table import Wish

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
    game: str
    saved_at: float
    stage: str = "waiting"
    reported: int = 0  # the last game whose result line was written
    seats: int = 0  # the room's number of players; 0 in a seat file written before it was recorded
    names: list[str] = dataclasses.field(default_factory=list)  # every seat's name, in seat order ([]: not known)
    me: int = -1  # my seat among ``names``
    number: int = 0  # the game under way (or the last one)
    wins: list[int] = dataclasses.field(default_factory=list)  # fair games won per seat, as ``names``
    played_at: float = 0.0  # when the room last moved on with this seat there (0: not recorded; see saved_at)
    join_id: str = ""  # the secret id our join is sent under (relay 1.4), on disk before it is sent ("": none yet)

    @property
    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)

    @property
    def last_played(self) -> float:
        """When this seat last played: the last recorded progress, or when the seat was taken."""
        return max(self.played_at, self.saved_at)

    @property
    def others(self) -> list[str]:
        """The other players' names, in seat order ([] if the file does not say)."""
        return [name for seat, name in enumerate(self.names) if seat != self.me]

    def standing(self) -> str:
        """The score, or how far the room got before any game ended: "bo 1 – 0 ana, game 2", "game 1 under way";
        around a bigger table the players who have won, "ana: 2 · cy: 1 games won, game 4"."""
        if self.number <= 1 or not self.wins or len(self.wins) != len(self.names) or not 0 <= self.me < len(self.names):
            return f"game {self.number or 1} under way"
        if len(self.names) == 2:
            other = 1 - self.me
            score = f"{self.names[self.me]} {self.wins[self.me]} – {self.wins[other]} {self.names[other]}"
        else:
            score = wins_words(self.names, self.wins) or "no game won yet"
        return f"{score}, game {self.number}"


def opponents(seat: SavedSeat) -> str:
    """Whom ``seat`` plays: the other players' names ("ana, cy"); a file that does not say (one written before
    they were recorded), "the computer" or "?"."""
    if seat.others:
        return ", ".join(seat.others)
    return "the computer" if seat.relay == LOCAL_RELAY else "?"


def summary(seat: SavedSeat, now: float) -> str:
    """One line of what ``seat``'s game is: "discard with ana · bo 1 – 0 ana, game 2 · played 3 min ago"."""
    return f"{seat.game} with {opponents(seat)} · {seat.standing()} · played {ago(now - seat.last_played)}"


def relay_key(relay: str | None, hosting: bool, port: int) -> str:
    """Which relay saved seats belong to: the relay's URL, the port our own relay listens on as a host, or
    the embedded relay of games against the computer."""
    if relay:
        return relay
    return f"host:{port}" if hosting else LOCAL_RELAY


def path_for(directory: Path, relay: str, room: str, name: str) -> Path:
    digest = hashlib.sha256(f"{relay}\n{room}\n{name}".encode()).hexdigest()[:20]
    return directory / f"{digest}.json"


def save(directory: Path, seat: SavedSeat, key: str | None = None) -> Path:
    """Write ``seat`` (under ``key``, its name by default) readable by its owner only; never half-written."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = path_for(directory, seat.relay, seat.room, key or seat.name)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(asdict(seat), file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    return path


def load(directory: Path, relay: str, room: str, name: str) -> SavedSeat | None:
    try:
        return SavedSeat(**json.loads(path_for(directory, relay, room, name).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def remove(directory: Path, relay: str, room: str, name: str) -> None:
    path_for(directory, relay, room, name).unlink(missing_ok=True)


def mark(session: Seat, **changes: Any) -> None:
    """Record ``changes`` (``stage``, ``reported``) in the session's saved seat, if they change it."""
    claim = _claim_of(session)
    seat = load(claim.directory, claim.relay, claim.room, claim.key) if claim else None
    if claim and seat is not None and any(getattr(seat, field) != value for field, value in changes.items()):
        save(claim.directory, dataclasses.replace(seat, **changes), claim.key)


def saved(session: Seat) -> SavedSeat | None:
    """The session's saved seat, if it has one."""
    claim = _claim_of(session)
    return load(claim.directory, claim.relay, claim.room, claim.key) if claim else None


def unfinished(directory: Path) -> list[SavedSeat]:
    """Every saved seat a person can go back to: a game under way (the computer's own seats are not listed),
    the one played longest ago first."""
    seats = []
    for path in sorted(directory.glob("*.json")):
        try:
            seat = SavedSeat(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if seat.stage == "playing" and not (seat.relay == LOCAL_RELAY and seat.name == COMPUTER):
            seats.append(seat)
    return sorted(seats, key=lambda s: s.last_played)


def returnable(directory: Path, relay: str | None = None) -> list[SavedSeat]:
    """The unfinished games a screen can take the player back to, newest first: those on ``relay`` (None: on
    any relay, and against the computer; a hosted game needs its relay started again, with --host), of a game
    this program plays."""
    from .config import SCREENS

    return [seat for seat in reversed(unfinished(directory)) if seat.game in SCREENS
            and (seat.relay == relay if relay is not None else not seat.relay.startswith("host:"))]


def back_to(base: PlayConfig, directory: Path, seat: SavedSeat) -> PlayConfig:
    """The table that takes ``seat`` back, from a screen's settings ``base``: the seat's relay (None against the
    computer), room and name, its room's game and players, and no new room's options."""
    terms = room_terms(directory, seat.relay, seat.room, seat.name)
    game, seats = terms if terms is not None else (seat.game, base.seats)
    return dataclasses.replace(base, relay=None if seat.relay == LOCAL_RELAY else seat.relay, host=None,
                               room=seat.room, name=seat.name, game=game, seats=seats, options={}, public=False)


def saved_room(directory: Path, relay: str, name: str, game: str | None = None, seats: int | None = None
               ) -> str | None:
    """The room of ``name``'s newest unfinished game (of ``game`` for ``seats`` players, if given) on ``relay``."""
    rooms = [seat.room for seat in unfinished(directory) if seat.relay == relay and seat.name == name
             and game in (None, seat.game) and seats in (None, players(directory, seat))]
    return rooms[-1] if rooms else None


def players(directory: Path, seat: SavedSeat) -> int | None:
    """How many players ``seat``'s room has, or None if its file does not say.

    A seat file from before the number was recorded says nothing; against the computer it is one more
    than the computer players seated in that room (each has its own file, ``computer_name``).
    """
    if seat.seats or seat.relay != LOCAL_RELAY:
        return seat.seats or None
    computers = 0
    while (computer := load(directory, LOCAL_RELAY, seat.room, computer_name(computers))) and computer.token:
        computers += 1
    return 1 + computers if computers else None


def room_terms(directory: Path, relay: str, room: str, name: str) -> tuple[str, int] | None:
    """The game and number of players of ``name``'s saved seat in ``room``, to go back to it as it is.

    None if there is no such seat (or its game is not one this program plays). When the file does not say
    how many players (see ``players``), or says a number the game is not for, the game's usual number.
    """
    from .config import SCREENS

    seat = load(directory, relay, room, name) if room else None
    if seat is None or seat.game not in SCREENS:
        return None
    game = SCREENS[seat.game].about
    seats = players(directory, seat)
    return seat.game, seats if seats is not None and seats in game.seats else game.default_seats


def computer_name(k: int) -> str:
    """The name of the ``k``-th computer player at a table (from 0): "Computer", "Computer 2", …"""
    return COMPUTER if k == 0 else f"{COMPUTER} {k + 1}"


def try_lock(path: Path) -> TextIO | None:
    """``path`` opened and locked for this process alone (flock, without waiting); None if another holds it.

    The lock lasts as long as the file stays open. Where there is no flock (Windows) it always succeeds.
    """
    handle = path.open("a")
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return None
    return handle


def new_seat(relay: str, room: str, name: str, token: str, seed: bytes, game: str, seats: int = 0) -> SavedSeat:
    return SavedSeat(relay, room, name, token, seed.hex(), game, time.time(), seats=seats)


@dataclass
class _Claim:
    """A seat file this process plays from, locked against other processes."""

    directory: Path
    relay: str
    room: str
    key: str  # the player's name, or "name#2", "name#3", … for a second same-named player
    lock: TextIO
    user: Seat | None = None

    @property
    def free(self) -> bool:
        from tabletop.ledger import Link

        return self.user is None or self.user.ledger.link is Link.CLOSED


_claims: dict[Path, _Claim] = {}


def _claim(directory: Path, relay: str, room: str, name: str) -> _Claim:
    """The first slot for (relay, room, name) that no other process and no live session here is using."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    for slot in itertools.count(1):
        key = name if slot == 1 else f"{name}#{slot}"
        path = path_for(directory, relay, room, key).with_suffix(".lock")
        claim = _claims.get(path)
        if claim is not None:
            if claim.free:
                return claim
            continue
        handle = try_lock(path)
        if handle is None:
            continue
        _claims[path] = claim = _Claim(directory, relay, room, key, handle)
        return claim
    raise AssertionError("unreachable")


def _claim_of(session: Seat) -> _Claim | None:
    return next((claim for claim in _claims.values() if claim.user is session), None)


def forget(session: Seat) -> None:
    """The session's game in its room is over: remove its seat file and let go of it."""
    release(session, keep=False)


def release(session: Seat, keep: bool = True) -> None:
    """Let another process take the session's seat file (kept, unless ``keep`` is false)."""
    for path, claim in list(_claims.items()):
        if claim.user is session:
            if not keep:
                remove(claim.directory, claim.relay, claim.room, claim.key)
                path.unlink(missing_ok=True)
            claim.lock.close()
            del _claims[path]


async def resume_or_join(directory: Path, url: str, room: str, wish: Wish, *, relay_key: str | None = None,
                         seed: bytes | None = None, **options: Any) -> tuple[Seat, bool]:
    """Take back the seat saved in ``directory`` for (relay, room, name), or take a new one and save it.

    Returns the seat and whether it resumed. The seed is on disk before the
    seat is taken (with the id its join is sent under, relay 1.4) and the token before the seat can post anything.
    """
    from games import GAMES
    from tabletop.ledger import SeatLost
    from tabletop.shell import join

    claim = _claim(directory, relay_key or url, room, wish.name)
    saved = load(directory, claim.relay, room, claim.key)
    if saved is not None and saved.token:
        try:
            session = await join(url, room, wish, GAMES, token=saved.token, seed=saved.seed_bytes, **options)
            claim.user = session
            return session, True
        except SeatLost:
            remove(directory, claim.relay, room, claim.key)  # the relay forgot the room; start afresh
            saved = None
    seat = saved or new_seat(claim.relay, room, wish.name, "", seed or secrets.token_bytes(32), wish.game,
                             wish.seats)
    # a process that died before the welcome sends the same id again, and gets the seat its join may have taken
    seat = dataclasses.replace(seat, join_id=seat.join_id or secrets.token_urlsafe(24))
    save(directory, seat, claim.key)
    session = await join(url, room, wish, GAMES, seed=seat.seed_bytes, join_id=seat.join_id, **options)
    try:
        save(directory, dataclasses.replace(seat, token=session.ledger.token or ""), claim.key)
    except OSError:
        await session.ledger.close()  # the relay keeps the seat for a while; the protocol has no way to free it
        raise
    claim.user = session
    return session, False
