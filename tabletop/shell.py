"""The shell around a :class:`~tabletop.table.Table`: the ledger loop, the outbox, the pool, timers, files.

``Seat.run()`` feeds every ledger event to the table and, once the backlog is
delivered, posts what the table says this seat owes, one message in flight at
a time: a post has happened only when it comes back, so a reconnect or a
restart with the same seed never posts twice. Exponentiations run in the
process pool. Every audited game, and a violation (which stops the seat),
writes the transcript of every event seen (one file per room and seat, the
newest :data:`KEEP_TRANSCRIPTS` kept). Observers are called after every change; a screen turns that call
into a message of its own and reads :meth:`Seat.table` on its own time.
"""

from __future__ import annotations

import asyncio
import glob
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import wire
from .crypto import call, powers, prepare
from .deck import Job, Task
from .game import Game
from .ledger import CAUGHT_UP, Event, Link, RelayClient, RelayError, SeatLost, StoreFull
from .table import Needs, Post, Strategy, Table, Violation, Wish, Work
from . import transcript
from .transcript import events_digest, seed_path, write_seed
from .values import IN_GAME, Phase
from .words import empty_room_words, relay_silent_words, silence_words

log = logging.getLogger("tabletop.shell")
NOT_CONNECTED = "not connected to the relay: nothing was sent"

KEEP_TRANSCRIPTS = 500  # the newest transcripts kept in a transcript directory, so that a disk never fills
CLAIM_MARGIN = 0.5  # seconds past a deadline, by the relay's clock as bounded here, before a claim is posted


class Ledger(Protocol):
    """A room's ordered events and a way to post to it (tabletop.ledger.RelayClient, or a test's wrapper)."""

    seat: int | None
    token: str | None
    link: Link

    def events(self) -> AsyncIterator[Event | object]: ...

    async def post(self, body: dict) -> bool: ...

    async def close(self) -> None: ...


@dataclass
class Timing:
    """When each game started (every hello in), was dealt and ended, by this process's clock; and the CPU time this
    process (every thread of it) spent from the start to the deal."""

    started: float | None = None
    dealt: float | None = None
    ended: float | None = None
    started_cpu: float = 0.0
    dealt_cpu: float = 0.0
    replayed: bool = False  # finished before this run caught up: its timings are not real


@dataclass
class Seat:
    """One seat in one room: a table, the ledger it folds, and the work and I/O around it."""

    ledger: Ledger
    table: Table
    autoplay: Strategy | None = None
    think_time: float = 0.0  # a pause before each autoplay move, so a person can follow
    transcript_dir: Path | None = None
    observers: list[Callable[[], None]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    timings: dict[int, Timing] = field(default_factory=dict)
    outbox: dict | None = None  # my post that has not come back yet
    caught_up: bool = False
    replaying: bool = True  # until the first catch-up: rebuilding what an earlier run played
    failure: str | None = None  # the relay cannot be used
    seat_lost: bool = False  # ...because it no longer knows our seat token
    store_full: bool = False  # ...because it has no memory left to seat us again (the seat is still ours)
    link_since: float = field(default_factory=time.monotonic)  # when the link last changed
    transcript_path: Path | None = None
    histories: dict[int, Path] = field(default_factory=dict)  # game -> its history beside the transcript, if the game keeps one
    last_progress: float = field(default_factory=time.monotonic)  # joins and leaves are no progress
    completed: asyncio.Queue[int | None] = field(default_factory=asyncio.Queue)  # audited games; None: stopped
    clock: Callable[[], float] = time.monotonic  # this process's clock (a test's, which it advances)
    seen: tuple[float, float] | None = None  # the relay's stamp of the last event, and when it came (``clock``)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _thinking: asyncio.TimerHandle | None = None
    _claiming: asyncio.TimerHandle | None = None

    # -- running ----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Consume the ledger until it ends; never raises for the other side's faults."""
        try:
            async for item in self.ledger.events():
                if item is CAUGHT_UP:
                    self.caught_up = True
                    if self.replaying:  # a screen showing "catching up" may now show the table
                        self.replaying = False
                        self._changed()
                    if self.outbox is not None:  # lost with the old connection: send it again
                        await self.ledger.post(self.outbox)
                else:
                    assert isinstance(item, Event)
                    if not self._receive(item) or not await self._check_proofs():
                        await self._announce_stop()
                        return
                await self.pump()
        except RelayError as error:
            self.failure = str(error)
            self.seat_lost, self.store_full = isinstance(error, SeatLost), isinstance(error, StoreFull)
            if self.events and self.table.phase in IN_GAME:  # the game stops here, maybe for good (a relay that
                # lost the room keeps nothing of it): what it was so far is kept, for discard-verify
                self.transcript_path = self.write_transcript(self.failure) or self.transcript_path
            self.completed.put_nowait(None)
            self._changed()
        finally:
            if self._claiming is not None:  # nothing more to claim for: the ledger has ended
                self._claiming.cancel()

    def link_changed(self, link: Link) -> None:
        if link is not Link.CONNECTED:
            self.caught_up = False
        self.link_since = time.monotonic()
        self._changed()

    def _receive(self, event: Event) -> bool:
        """Apply one event; False once the table found a violation (the seat stops)."""
        self.events.append(event)
        self.seen = (event.time, self.clock())
        before = self._progress_marker()
        try:
            self.table.apply(event)
        except Violation as error:
            self._stopped(error)
            return False
        if self.table.play.group is not None:  # the room's first hello named it
            prepare(self.table.play.group)
        if event.kind == "post":
            self.last_progress = time.monotonic()
            if event.seat == self.table.me and self.outbox is not None and event.body == self.outbox:
                self.outbox = None
        self._time(before)
        self._changed()
        return True

    async def _check_proofs(self) -> bool:
        """Check the proofs the last event brought, on a worker, before the next event is applied; False once one
        does not hold (the seat stops, as for any violation)."""
        while (work := self.table.check_work()) is not None:
            try:
                await compute(work.job)
            except Violation as error:
                self._stopped(error)
                return False
            self._changed()
        return True

    def _stopped(self, error: Violation) -> None:
        """The table found a violation: keep the transcript, and tell whoever waits for the games that none is
        coming."""
        log.info("seat %s stopped: %s", self.table.me, error)  # the table's log and the caller name it
        self.transcript_path = self.write_transcript(str(error))
        self.completed.put_nowait(None)
        self._changed()

    async def _announce_stop(self) -> None:
        """Tell the others why this seat stopped (wire.Stopped), unless another seat's notice stopped it: they
        would otherwise wait for it until their timeout. Best effort: the link may be down."""
        table, p = self.table, self.table.play
        if table.problem is None or self.outbox is not None or table.me not in p.hellos:
            return  # a post of mine in flight would make this one's counter a guess
        last = self.events[-1].body if self.events else None
        if isinstance(last, dict) and isinstance(last.get("msg"), dict) and last["msg"].get("type") == "stopped":
            return
        n = p.counters.get(table.me, 0) + 1
        body = wire.seal(table.identity(p.number), table.room, table.me, p.number, n,
                         wire.Stopped(reason=wire.stop_reason(table.problem)))
        await self.ledger.post(body)

    def _progress_marker(self) -> tuple[int, Phase]:
        return self.table.play.number, self.table.phase

    def _time(self, before: tuple[int, Phase]) -> None:
        number, phase = self.table.play.number, self.table.phase
        timing = self.timings.setdefault(number, Timing())
        if timing.started is None and phase not in (Phase.WAITING,):
            timing.started, timing.started_cpu = time.monotonic(), time.process_time()
        if timing.dealt is None and phase in (Phase.PLAYING, Phase.AUDITING, Phase.OVER):
            timing.dealt, timing.dealt_cpu = time.monotonic(), time.process_time()
        if timing.ended is None and phase in (Phase.AUDITING, Phase.OVER):
            timing.ended = time.monotonic()
            timing.replayed = self.replaying

    def subscribe(self, observer: Callable[[], None]) -> None:
        self.observers.append(observer)

    def _changed(self) -> None:
        for observer in self.observers:
            observer()

    # -- posting what I owe -----------------------------------------------------------------------------

    async def pump(self) -> None:
        async with self._lock:
            await self._pump_locked()

    async def _pump_locked(self) -> None:
        """Post what the table says I owe, one message in flight at a time."""
        table = self.table
        if not self.caught_up or self.outbox is not None or table.problem is not None:
            return
        while (work := table.audit_work()) is not None:
            await compute(work.job)
            self.transcript_path = self.write_transcript(f"game {work.number} over")
            self.write_history(work.number)
            self.completed.put_nowait(work.number)
            self._changed()
        owed = table.owed()
        if isinstance(owed, Work):
            owed = Post(table.play.number, await compute(owed.job))
        if isinstance(owed, Needs) and self.autoplay is not None:
            value = self.autoplay(table)
            if isinstance(value, str) and table.choose(value) is None:
                owed = table.owed()
        if isinstance(owed, Post):
            await self._post(owed)
        elif owed is None and self.autoplay is not None:
            await self._autoplay()
        if self.outbox is None and (now := self.relay_now()) is not None:  # another seat's time ran out: claim it
            claim = table.claim(int((now - CLAIM_MARGIN) * 1000))
            if claim is not None:
                await self._post(claim)
        self._arm_claim()

    def relay_now(self) -> float | None:
        """A lower bound of the relay's clock now (Unix seconds): the stamp of the last event plus the time since it
        came. The relay stamped it before sending it, so a claim posted once this bound is past a deadline is
        stamped past it too; None before any event."""
        if self.seen is None:
            return None
        stamp, at = self.seen
        return stamp + (self.clock() - at)

    def claim_in(self) -> float | None:
        """Seconds until this seat claims that another seat's time ran out (0 once it may), or None while the clock
        runs for no other seat."""
        deadlines, now = self.table.deadlines(), self.relay_now()
        if not deadlines or now is None:
            return None
        return max(0.0, min(deadlines.values()) / 1000 + CLAIM_MARGIN - now)

    def _arm_claim(self) -> None:
        """Wake up when the next other seat's time to move runs out (the table says when), to claim it."""
        if self._claiming is not None:
            self._claiming.cancel()
            self._claiming = None
        if (delay := self.claim_in()) is not None:
            self._claiming = asyncio.get_running_loop().call_later(delay + 0.01, self._wake_up)

    async def _autoplay(self) -> None:
        table = self.table
        p = table.play
        if table.phase is not Phase.PLAYING or p.state is None or p.state.to_move() != table.me:
            return
        if p.pending is not None or p.choice is not None or (p.deck is not None and p.deck.shows):
            return
        if self.think_time and self._thinking is None:
            self._thinking = asyncio.get_running_loop().call_later(self.think_time, self._wake_up)
            return
        self._thinking = None
        move = self.autoplay(table)  # type: ignore[misc]
        if isinstance(move, wire.Message) and table.refusal(move) is None:
            await self._post(table.prepare(move))

    def _wake_up(self) -> None:
        asyncio.get_running_loop().create_task(self.pump())

    async def _post(self, post: Post) -> None:
        """Seal and send; the message counts once it comes back from the ledger."""
        table = self.table
        p = table.play
        n = 1 if post.number > p.number else p.counters.get(table.me, 0) + 1
        self.outbox = wire.seal(table.identity(post.number), table.room, table.me, post.number, n, post.msg, post.shares)
        await self.ledger.post(self.outbox)

    # -- intents (from a screen or a strategy) -------------------------------------------------------------

    async def move(self, move: wire.Message) -> str | None:
        """Make ``move``; the reason it is refused, or None. Refused while the link is down, rather than queued: a
        key pressed then would act long after, on a table the player has not seen since."""
        async with self._lock:
            if not self.caught_up:
                return NOT_CONNECTED
            if (reason := self.refusal(move)) is not None:
                return reason
            await self._post(self.table.prepare(move))
        return None

    def refusal(self, move: wire.Message) -> str | None:
        """Why :meth:`move` would refuse ``move`` once connected (my last move unsent, or the table); None if not."""
        if self.outbox is not None:
            return "your last move is still on its way"
        return self.table.refusal(move)

    async def choose(self, value: str) -> str | None:
        async with self._lock:
            if not self.caught_up:
                return NOT_CONNECTED
            reason = self.table.choose(value)
            if reason is None:
                await self._pump_locked()
        return reason

    async def rematch(self) -> str | None:
        async with self._lock:
            reason = self.table.rematch()
            if reason is None:
                await self._pump_locked()
        return reason

    # -- silence and evidence -----------------------------------------------------------------------------

    def give_up(self, waited: float) -> str:
        """Stop waiting: one line naming what the silent seats owe (the transcript is kept), or that the relay
        stayed out of reach (a game under way stops there: its transcript so far is kept)."""
        table = self.table
        if self.ledger.link is not Link.CONNECTED:  # the relay, not the others, went silent
            line = relay_silent_words(time.monotonic() - self.link_since)
            if self.events and table.phase in IN_GAME:
                self.transcript_path = self.write_transcript(line) or self.transcript_path
            return line
        if not any(s != table.me for s in table.names):  # nobody else ever joined
            return empty_room_words(table.room, waited)
        line = silence_words(table.awaiting(), table.seat_names(), waited)
        self.transcript_path = self.write_transcript(line)
        return line

    def write_transcript(self, reason: str) -> Path | None:
        """Every ledger event seen, with the reason; the path, or None if there is nowhere to write it.

        One file per room and seat (named after the room's first event, so a resumed seat rewrites its own
        file), rewritten after every game; only the newest :data:`KEEP_TRANSCRIPTS` files of the directory
        are kept. A directory that cannot be written costs the transcript, never the game.
        """
        if self.transcript_dir is None:
            return None
        first = self.events[0].time if self.events else time.time()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(first))
        path = self.transcript_dir / f"{stamp}-{self.table.room}-seat{self.table.me}.json"
        events = [e.as_json() for e in self.events]
        record = {"room": self.table.room, "seat": self.table.me, "reason": reason, "events": events,
                  "digest": events_digest(events)}
        try:
            self.transcript_dir.mkdir(parents=True, exist_ok=True)
            write_seed(seed_path(path), self.table.seed)
            temporary = path.with_suffix(".tmp")
            temporary.write_text(json.dumps(record, indent=1))
            temporary.replace(path)
            prune(self.transcript_dir, KEEP_TRANSCRIPTS)
        except OSError as error:
            log.warning("cannot write the transcript %s: %s", path, error)
            return None
        return path


    def write_history(self, number: int) -> None:
        """Game ``number``'s own record beside the transcript, if the game keeps one (Hold'em's hand history), from
        the moves and the faces this seat saw; a directory that cannot be written costs the file, never the game."""
        play = self.table.plays[number - 1]
        made = play.state.history_file(self.table.seat_names(), self.table.me, number, self.table.room) \
            if play.state is not None and self.transcript_path is not None else None
        if made is None or self.transcript_path is None:
            return
        suffix, text = made
        path = history_path(self.transcript_path, number, suffix)
        try:
            temporary = path.with_suffix(".tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(path)
        except OSError as error:
            log.warning("cannot write the history %s: %s", path, error)
            return
        self.histories[number] = path


def history_path(transcript: Path, number: int, suffix: str) -> Path:
    """Where game ``number``'s history goes: beside its room's transcript, ``…-seat0-game1.phhs``."""
    return transcript.with_name(f"{transcript.stem}-game{number}{suffix}")


async def compute(job: Job[Any] | Task[Any, Any]) -> Any:
    """Run ``job`` on the workers its group needs, and return what its ``finish`` makes of the result."""
    if isinstance(job, Task):
        return job.finish(await call(job.group, job.function, *job.args))
    return job.finish(await powers(job.group, job.bases, job.exponents))


def prune(directory: Path, keep: int) -> None:
    """Remove all but the ``keep`` newest transcripts (``*.json``) of ``directory``, each with its seed and its
    games' histories."""
    def modified(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    for path in sorted(directory.glob("*.json"), key=modified, reverse=True)[keep:]:
        path.unlink(missing_ok=True)
        seed_path(path).unlink(missing_ok=True)
        for history in directory.glob(f"{glob.escape(path.stem)}-game*"):
            history.unlink(missing_ok=True)


async def join(url: str, room: str, wish: Wish, catalog: Mapping[str, Game], *, seed: bytes, token: str | None = None,
               follow: bool = False, autoplay: Strategy | None = None, think_time: float = 0.0,
               transcript_dir: Path | None = None, public: dict[str, str | int | bool] | None = None,
               join_id: str | None = None) -> Seat:
    """Take a seat (or take it back with ``token``) in ``room``; raises RelayError with a one-line reason.
    ``public``: what the room shows in the relay's lobby, if this seat creates it (none: it is not listed);
    ``join_id``: the secret id of the join (relay 1.4; none: the client draws one)."""
    client, seated = linked(RelayClient(url, room, wish.name, token=token, seats=wish.seats, public=public,
                                        join_id=join_id))
    await client.open()
    assert client.seat is not None
    table = Table(room, client.seat, seed, catalog, wish, follow=follow)
    return seated(Seat(client, table, autoplay=autoplay, think_time=think_time, transcript_dir=transcript_dir))


async def watch(url: str, room: str, name: str, catalog: Mapping[str, Game]) -> Seat:
    """Watch ``room`` from no seat (relay protocol 1.3): the whole ledger, then live, folded by a table that holds no
    card, is shown only what every seat is shown and posts nothing; raises RelayError with a one-line reason."""
    client, seated = linked(RelayClient(url, room, name, watch=True))
    await client.open()
    return seated(Seat(client, transcript.observer(room, catalog)))


def linked(client: RelayClient) -> tuple[RelayClient, Callable[[Seat], Seat]]:
    """``client``, telling the seat made on it (by the function returned) of every change of its link."""
    seats: list[Seat] = []

    def link_changed(link: Link) -> None:
        for seat in seats:
            seat.link_changed(link)

    client.on_link = link_changed

    def seated(seat: Seat) -> Seat:
        seats.append(seat)
        return seat

    return client, seated
