"""A player's sitting at one room, with no screen: what discard-tui (in a terminal or, through discard-web, in a
browser) and discard-bot do apart from showing it.

A :class:`Session` starts our own relay when we host or play the computer, seats
the computer players, takes (or takes back) my seat, runs them all, lets the
computer play my seat to the end of a game (auto-play), keeps the seat file
up to date with the room, and closes everything when the player leaves. It
never draws anything: the caller subscribes to ``seat`` and renders in its own
time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .config import PlayConfig
from .profile import Profile

PLAYED_EVERY = 60.0  # seconds between two records of when a game under way last moved on (a crash loses no more)

if TYPE_CHECKING:
    from relay.memory_ledger import MemoryLedger
    from relay.server import Relay
    from tabletop.shell import Seat
    from tabletop.table import Strategy, Wish
    from websockets.asyncio.server import Server


class Session:
    """One player's run at ``config``'s room, as ``profile`` says where their files go.

    Guarantees: the embedded relay's store on disk is held by one process at a time (a second gets a
    ``RelayError`` naming the directory); after :meth:`close` no seat, relay or lock of this session is left
    open, and a room the player left finished (:meth:`forget_room`) is dropped from the embedded relay's store.
    ``strategy`` plays my own seat throughout (discard-bot); otherwise the player does, or auto-play.
    """

    def __init__(self, config: PlayConfig, profile: Profile, strategy: Strategy | None = None) -> None:
        self.config, self.profile, self.strategy = config, profile, strategy
        self.seat: Seat | None = None
        self.computers: list[Seat] = []
        self._invite_urls: list[str] = []  # the relay's addresses a friend can reach (hosted: one per address)
        self.invite_note = ""  # why the command may not work from another machine, if it may not
        self.autoplaying: int | None = None  # the game that auto-play is playing to its end
        self._computer_runs: list[asyncio.Task[None]] = []
        self._relay_server: Server | None = None
        self._relay: Relay | None = None
        self._store: MemoryLedger | None = None  # the embedded relay's ledger (on disk when games resume)
        self._store_lock: TextIO | None = None
        self._room_over = False  # the player left a finished game: its seats and ledger can go
        self._standing: tuple[object, ...] | None = None  # what the saved seat says of the room, as last written
        self._played: tuple[float, float] = (0.0, 0.0)  # the seat's last progress and when it was recorded

    @property
    def invites(self) -> list[str]:
        """The commands a friend types to join this room (hosted: one per address), naming the room's game and
        seats as they stand now (a room joined takes the game its first hello chose)."""
        from .invite import relay_command

        c = self.config
        return [relay_command(url, c.room, c.game, c.seats) for url in self._invite_urls]

    @property
    def relay_key(self) -> str:
        """Which relay saved seats belong to (saves.relay_key)."""
        from . import saves

        return saves.relay_key(self.config.relay, self.config.host is not None, self.config.port)

    # -- sitting down ----------------------------------------------------------------------------

    async def open_relay(self) -> str:
        """The relay's URL: ``config.relay``, or our own relay started here (durable in the data directory when
        games resume, so a crash loses no game). Raises ``RelayError`` with one line if it cannot be used."""
        from relay.memory_ledger import MemoryLedger
        from relay.server import Relay
        from tabletop.ledger import RelayError

        c = self.config
        if c.relay and c.watch:
            return c.relay  # a watcher invites nobody: it takes no seat
        if c.relay:
            from . import invite

            self._invite_urls = [c.relay]
            if invite.loopback_only(c.relay):
                self.invite_note = (f"{c.relay} works only on this machine: a friend elsewhere needs an address of "
                                    "the relay they can reach (or you host one: --host finds yours).")
            return c.relay
        if c.host is not None and not self.profile.resumes:
            raise RelayError("a browser visitor cannot host a relay on the server: play the computer, "
                             "or meet in a room on the relay the server offers")
        # (a visitor's store in memory: its every seat, the computers' too, comes from 127.0.0.1, one party, which
        # may hold all of it, not an address's sixteenth)
        self._store = self._durable_store() if self.profile.resumes else MemoryLedger(address_parts=1)
        self._relay = relay = Relay(self._store)
        host = c.host or "127.0.0.1"
        try:
            self._relay_server = server = await relay.serve(host, c.port)
        except OSError as error:
            raise RelayError(f"cannot start a relay on {host}:{c.port}: "
                             f"{error.strerror or error}; pick another --port") from None
        port = server.sockets[0].getsockname()[1]
        if c.host:
            from . import invite

            self._invite_urls = [f"ws://{address}:{port}" for address in invite.addresses(host)]
        return f"ws://127.0.0.1:{port}"

    def _durable_store(self) -> MemoryLedger:
        """The embedded relay's SQLite store in the data directory, locked against a second copy."""
        from relay.sqlite_ledger import SQLiteLedger
        from tabletop.ledger import RelayError

        c = self.config
        store_name = "computer-relay.sqlite3" if c.against_computer else f"host-{c.port}.sqlite3"
        data_dir = self.profile.data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / store_name
        self._store_lock = hold_lock(path.with_suffix(".lock"))
        try:
            return SQLiteLedger(path)
        except sqlite3.DatabaseError as error:
            raise RelayError(f"the saved games in {path} are unreadable ({error}); "
                             "move that file away to start afresh") from None

    async def sit_down(self, url: str) -> bool:
        """Seat the computer players (each starts playing at once), then take my seat or take it back; whether
        it was taken back. Raises ``RelayError`` or ``OSError`` (a data directory that cannot be written)."""
        from games import GAMES
        from tabletop.crypto import prepare
        from tabletop.groups import GROUPS
        from tabletop.table import Wish

        from . import saves
        from .lobby import public_fields

        c = self.config
        if c.watch:  # no seat: nothing is saved, nobody is seated beside
            from tabletop.shell import watch

            self.seat = await watch(url, c.room, c.name, GAMES)
            return False
        game = GAMES[c.game]
        prepare(GROUPS[c.group])  # a MODP room's process pool starts while the seats do
        transcripts = self.profile.transcripts_dir

        def wish(name: str) -> Wish:
            return Wish(name, game.name, c.seats, dict(c.options), GROUPS[c.group])

        while len(self.computers) < c.computers:
            k = len(self.computers)
            seed = c.opponent_seed + k if c.opponent_seed is not None else None
            computer, _ = await saves.resume_or_join(
                self.profile.games_dir, url, c.room, wish(saves.computer_name(k)), relay_key=self.relay_key,
                seed=c.seeds[1 + k] if c.seeds else None, follow=True, autoplay=game.computer(seed),
                think_time=c.think_time, transcript_dir=transcripts)
            self.computers.append(computer)
            self._computer_runs.append(asyncio.create_task(computer.run()))
        self.seat, resumed = await saves.resume_or_join(
            self.profile.games_dir, url, c.room, wish(c.name), relay_key=self.relay_key,
            seed=c.seeds[0] if c.seeds else None, autoplay=self.strategy,
            think_time=c.think_time if self.strategy else 0.0, transcript_dir=transcripts,
            public=public_fields(c) if c.public else None)
        return resumed

    async def run(self) -> None:
        """Play until every seat's ledger ends (a seat never raises for the others' faults: an error raised
        here, by any seat, is a bug of ours)."""
        assert self.seat is not None, "sit down first"
        await asyncio.gather(self.seat.run(), *self._computer_runs)

    # -- as the room moves on ---------------------------------------------------------------------

    def follow(self) -> bool:
        """Bring what is kept of the room up to date with my seat's state; call it after every change.

        Stops auto-play once its game ends, records in the seat file how far the room got, who plays, the score
        and when it last moved on (for ``--games``, the lobby and the start screen), and, if the room plays another game or for other players than asked for (its first hello decides),
        takes its terms into ``config`` and the seat file: then it returns True (the caller shows that game).
        """
        from . import saves

        seat = self.seat
        if seat is None:
            return False
        table = seat.table
        play = table.play
        if self.autoplaying is not None and (play.number != self.autoplaying or play.outcome is not None
                                             or table.problem is not None):
            self.set_autoplay(False)
        self._record(seat)  # a watcher has no saved seat: nothing is written
        if play.game is None or (play.game.name, play.seats) == (self.config.game, self.config.seats):
            return False
        self.config = dataclasses.replace(self.config, game=play.game.name, seats=play.seats)
        saves.mark(seat, game=play.game.name, seats=play.seats)  # going back shows this game, for as many
        return True

    def _record(self, seat: Seat) -> None:
        """Keep the seat file's account of the room up to date: at once when its stage, players, game or score
        change; when it last moved on, at most every PLAYED_EVERY seconds (a write is an fsync). Nothing while
        replaying: what an earlier run played is already recorded."""
        from . import saves

        stage = room_stage(seat)
        if stage is None:
            return
        table = seat.table
        standing = (stage, table.seat_names(), table.me, table.play.number, table.wins())
        now = time.time()
        progress, recorded = self._played
        moved = seat.last_progress != progress and now - recorded >= PLAYED_EVERY
        if standing != self._standing or moved:
            self._standing, self._played = standing, (seat.last_progress, now)
            saves.mark(seat, stage=stage, names=list(standing[1]), me=table.me, number=table.play.number,
                       wins=list(standing[4]), played_at=now)

    def set_autoplay(self, on: bool) -> bool:
        """Let the game's computer strategy play my seat to the end of this game, or stop it; whether it could.

        The computer players stop pausing meanwhile: whoever asks for auto-play wants the result. A violation
        stops the seat, auto-play included; the end of the game, or a new one, stops it in :meth:`follow`.
        Once on, :meth:`pump` makes the first move.
        """
        seat = self.seat
        game = seat.table.play.game if seat is not None else None
        if seat is None or game is None:
            return False
        self.autoplaying = seat.table.play.number if on else None
        seat.autoplay = game.computer(None) if on else self.strategy
        for computer in self.computers:
            computer.think_time = 0 if on else self.config.think_time
        return True

    async def pump(self) -> None:
        """Make whatever moves my seat owes now (auto-play's first, say)."""
        if self.seat is not None:
            await self.seat.pump()

    # -- leaving ----------------------------------------------------------------------------------

    def forget_room(self, drop: bool = True) -> None:
        """Nothing to come back to in this room: drop the saved seats, and (``drop``) the embedded relay's copy
        of the room when the session closes. Only a room this run sat down in: another copy may play this one."""
        from . import saves

        for seat in (self.seat, *self.computers):
            if seat is not None:
                saves.forget(seat)
        self._room_over = drop

    async def close(self) -> None:
        """Leave: close every seat's connection, stop the computers, then our relay (whose store gets the last
        leave events first), and let go of the store's lock."""
        for seat in (self.seat, *self.computers):
            if seat is not None:
                seat.observers.clear()
                await seat.ledger.close()
        for run in self._computer_runs:
            run.cancel()
        await asyncio.gather(*self._computer_runs, return_exceptions=True)
        if self._relay_server is not None and self._relay is not None:
            self._relay_server.close()
            await self._relay_server.wait_closed()
            if self._room_over and self._store is not None:  # nobody comes back to a finished game
                self._store.drop(self.config.room)
            await self._relay.close()
        if self._store_lock is not None:
            self._store_lock.close()


def room_stage(seat: Seat) -> str | None:
    """How far the room got, for the saved seat: "waiting", "playing" or "over" (None: not known yet)."""
    from tabletop.values import Phase

    if seat.replaying or seat.failure:
        return None
    phase = seat.table.phase
    if phase in (Phase.STARTING, Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING, Phase.AUDITING):
        return "playing"
    if phase in (Phase.OVER, Phase.VIOLATION) or seat.table.play.number > 1:
        return "over"
    return "waiting"


def hold_lock(path: Path) -> TextIO:
    """Hold an exclusive lock on ``path`` for as long as the returned file stays open.

    Two copies of the game must not run one embedded relay's store at once.
    """
    from tabletop.ledger import RelayError

    from .saves import try_lock

    handle = try_lock(path)
    if handle is None:
        raise RelayError("another discard-tui is already running this game from "
                         f"{path.parent}; finish it there, or set DISCARD_DATA_DIR to play another")
    return handle
