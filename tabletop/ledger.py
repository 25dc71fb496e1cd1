"""The ledger: a relay room seen as an ordered stream of events.

``RelayClient`` joins a room, delivers every event exactly once and in order,
and, when the connection drops, reconnects by itself with backoff, resuming
with its seat token and the last ``seq`` it saw. Given several relay nodes
(``ws://a:8765,ws://b:8765``), it moves on to the next whenever one cannot be
reached or cannot serve, on the first connection and on every reconnect.
After every (re)join it emits ``CAUGHT_UP`` once the backlog has been
delivered: only then does the engine know what the ledger holds and what it
still owes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import re
import secrets
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import Enum

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from .words import clip

log = logging.getLogger("discard.net")

SEAT_TAKEN_OVER = 4000
WELCOME_TIMEOUT = 10.0  # seconds a relay has to answer a join
FIRST_DELAY = 0.1  # seconds before the first reconnect; doubles up to max_backoff
JOIN_ATTEMPTS = 4  # joins sent under one id, before the first welcome, before giving up (their answers were lost)
RELAY_RATE, RELAY_BURST = 100.0, 400  # a relay's frame limits when its welcome does not state them
RELAY_BYTE_RATE, RELAY_BYTE_BURST = float(1 << 20), float(8 << 20)  # its byte limits, the same (protocol 1.2)
MIN_RATE = 1.0  # frames a second we keep to at the least, whatever a relay states
MIN_BYTE_RATE = 1024.0  # bytes a second, the same (a post larger than the stated burst waits for a full bucket)
PACE = 0.9  # the share of a relay's limits a client uses: frames may arrive closer together than they left


class Bucket:
    """A token bucket on the event loop's clock: ``rate`` tokens a second, ``capacity`` at most."""

    def __init__(self, rate: float, capacity: float, spent: float, now: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.tokens, self.last = capacity - spent, now

    def refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def delay(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` tokens (at most the capacity) are there."""
        self.refill(now)
        return max(0.0, (min(amount, self.capacity) - self.tokens) / self.rate)

    def take(self, amount: float, now: float) -> None:
        self.refill(now)
        self.tokens -= min(amount, self.capacity)


class Pace:
    """Client-side token buckets, so that posts never exceed the relay's ``rate_limited`` buckets: frames a
    second, and bytes a second (1.2).

    A refused post would leave a gap in the seat's counters if a later one got through, so the client
    waits instead: a post waits until both buckets have room for it. Fresh for each connection, as the relay's are.
    """

    def __init__(self, limits: tuple[float, float, float, float], spent: int, spent_bytes: int) -> None:
        rate, burst, byte_rate, byte_burst = limits
        now = asyncio.get_running_loop().time()
        self.frames = Bucket(rate * PACE, max(1.0, burst * PACE), spent, now)
        self.bytes = Bucket(byte_rate * PACE, max(1.0, byte_burst * PACE), spent_bytes, now)

    async def wait(self, size: int) -> None:
        """Wait until a frame of ``size`` bytes may go, and count it."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        delay = max(self.frames.delay(1, now), self.bytes.delay(size, now))
        if delay > 0:
            await asyncio.sleep(delay)
            now = loop.time()
        self.frames.take(1, now)
        self.bytes.take(size, now)


RELAY_URL = re.compile(r"wss?://[^\s/,]+(/\S*)?")


def relay_urls(text: str) -> list[str]:
    """The relay addresses of a ``--relay`` value: one ws:// or wss:// URL, or several separated by commas."""
    urls = [part.strip() for part in text.split(",")]
    for url in urls:
        if not RELAY_URL.fullmatch(url):
            raise ValueError(f"{url!r} is not a relay address; use ws://HOST:PORT or wss://HOST:PORT, "
                             "several separated by commas")
    return urls


def ssl_context(ca_file: str | None = None) -> ssl.SSLContext:
    """How wss:// relays are verified: the system's trust store, plus the certificates in ``ca_file``
    (for a relay with a self-signed certificate). A bad file raises ValueError with a one-line reason."""
    context = ssl.create_default_context()
    if ca_file is not None:
        try:
            context.load_verify_locations(ca_file)
        except (OSError, ssl.SSLError) as error:
            raise ValueError(f"cannot use {ca_file} as a CA file: {getattr(error, 'strerror', None) or error}") from None
    return context


TRUST: list[ssl.SSLContext] = []  # set by trust(): the context for wss:// in this process (default: the system's)


def trust(context: ssl.SSLContext) -> None:
    """Verify every wss:// relay this process connects to with ``context`` (``--relay-ca``)."""
    TRUST[:] = [context]


@dataclass(frozen=True)
class Event:
    seq: int
    seat: int
    name: str
    kind: str  # "join" | "leave" | "post" | "watch"
    body: dict | None
    time: float

    def as_json(self) -> dict:
        return {"seq": self.seq, "seat": self.seat, "name": self.name, "kind": self.kind,
                "body": self.body, "time": self.time}


MAX_SEATS = 6  # seats a room has at most (docs/relay-protocol.md): a seat number is 0 to 5, a watcher's -1


def event_of(item: object) -> Event | None:
    """A relay's ``event`` frame (or a transcript's record of one) as an :class:`Event`, or None unless every field
    has its type and range (docs/relay-protocol.md): a seat 0 to 5 or a watcher's -1 (a ``watch`` is -1), a ``time``
    that is a finite number, which the clock reads. A post in seat -1 passes: the table names it as the relay's
    (``Table._post``), so that a transcript keeps it as evidence."""
    if not isinstance(item, dict):
        return None
    seq, seat, name, kind, body, time = (item.get(k) for k in ("seq", "seat", "name", "kind", "body", "time"))
    if not (type(seq) is int and type(seat) is int and isinstance(name, str) and isinstance(kind, str)
            and kind in ("join", "leave", "post", "watch") and isinstance(time, int | float)
            and not isinstance(time, bool) and math.isfinite(time)
            and -1 <= seat < MAX_SEATS and (kind != "watch" or seat == -1)
            and (isinstance(body, dict) if kind in ("post", "watch") else body is None)):
        return None
    return Event(seq, seat, name, kind, body, float(time))


class Link(str, Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


class RelayError(Exception):
    """The relay cannot be used; the message says what to do."""


class SeatLost(RelayError):
    """The relay no longer knows our seat token (the room expired or the relay lost it)."""


class RoomFull(RelayError):
    """The room already has all its players: a seat is taken back with its token, never a new one (its game is
    under way: it may be watched instead, relay 1.3)."""


class StoreFull(RelayError):
    """The relay keeps rooms in memory and has none left for ours (relay 1.4's ``store_full``: the memory for this
    address's rooms, or for every room, is full): the join is refused until rooms expire there."""


class Unserved(Exception):
    """This relay node cannot serve us now (its store is unavailable): try the next one."""


CAUGHT_UP = object()  # marker in the event stream: the backlog is delivered


class RelayClient:
    """One seat in one relay room, through any of one or more relay nodes; or, with ``watch``, no seat: a watcher
    (relay protocol 1.3), who reads the whole ledger and follows it live, and posts nothing."""

    def __init__(self, url: str, room: str, name: str, token: str | None = None, after: int = 0,
                 on_link: Callable[[Link], None] | None = None, max_backoff: float = 5.0, seats: int = 2,
                 public: dict[str, str | int | bool] | None = None, watch: bool = False,
                 join_id: str | None = None) -> None:
        self.address, self.room, self.name, self.seats, self.watch = url, room, name, seats, watch
        # the secret id of our first join (relay 1.4), sent again until a welcome gives us a token: a join whose answer
        # was lost is then answered with the seat it took, never a second one
        self.join_id = None if watch or token is not None else join_id or secrets.token_urlsafe(24)
        self._joins_sent = 0  # joins sent before the first welcome
        self.public = public  # what the room shows in the relay's lobby, if this join creates it listed
        self.urls = [url]
        self._current = 0  # index in urls of the node in use (or tried next)
        self.token, self.last_seq = token, after
        self.seat: int | None = None
        self.link = Link.CONNECTING
        self.on_link = on_link
        self.max_backoff = max_backoff
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._connection: ClientConnection | None = None
        self._pace: Pace | None = None
        self._sending = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._joined: asyncio.Future[None] | None = None

    @property
    def url(self) -> str:
        return self.urls[self._current]

    async def open(self) -> None:
        """Connect and take a seat; raises :class:`RelayError` if that is impossible."""
        try:
            self.urls = relay_urls(self.address)
        except ValueError as error:
            raise RelayError(str(error)) from None
        self._joined = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run())
        await asyncio.shield(self._joined)

    async def post(self, body: dict) -> bool:
        """Send a post; False if the link is down (the caller re-posts after ``CAUGHT_UP``)."""
        connection, pace = self._connection, self._pace
        if connection is None or pace is None or self.link is not Link.CONNECTED or self.watch:
            return False
        frame = json.dumps({"type": "post", "body": body, "id": post_id(body)}, separators=(",", ":"))
        async with self._sending:  # one post at a time: the ledger keeps the order they were sent in
            await pace.wait(len(frame.encode()))
            if connection is not self._connection:
                return False  # the link went down meanwhile
            try:
                await connection.send(frame)
            except ConnectionClosed:
                return False
        return True

    async def events(self) -> AsyncIterator[Event | object]:
        """Events in ledger order, with ``CAUGHT_UP`` markers; ends with RelayError if the seat is lost."""
        while True:
            item = await self._queue.get()
            if isinstance(item, RelayError):
                raise item
            yield item

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._set_link(Link.CLOSED)

    # -- the connection loop ----------------------------------------------------

    def _set_link(self, link: Link) -> None:
        if link is not self.link:
            self.link = link
            if self.on_link is not None:
                self.on_link(link)

    def _fail(self, error: RelayError) -> None:
        assert self._joined is not None
        if not self._joined.done():
            self._joined.set_exception(error)
        else:
            self._queue.put_nowait(error)
        self._set_link(Link.CLOSED)

    async def _run(self) -> None:
        assert self._joined is not None
        self._delay = FIRST_DELAY
        self._unreachable: list[str] = []  # nodes that failed since the last welcome or the last full round
        while True:
            url = self.url
            try:
                async with connect(url, open_timeout=10, max_size=8 << 20, compression=None,
                                   ssl=(TRUST[0] if TRUST else ssl_context()) if url.startswith("wss:") else None) as connection:
                    await self._session(connection)
            except RelayError as error:
                self._fail(error)
                return
            except (OSError, InvalidHandshake, TimeoutError, Unserved) as error:
                self._unreachable.append(f"{url} ({describe(error)})")
                self._current = (self._current + 1) % len(self.urls)
                if len(self._unreachable) < len(self.urls):
                    continue  # the next node at once
                if not self._joined.done() and not self._may_join_again():
                    self._fail(RelayError(unreachable(self._unreachable)))
                    return
                self._unreachable = []  # a full round failed: wait, then go round again
            except InvalidURI:
                self._fail(RelayError(f"{url} is not a relay address; use ws://HOST:PORT"))
                return
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == SEAT_TAKEN_OVER:
                    self._fail(RelayError("this seat was taken over by another window with the same token"))
                    return
                if not self._joined.done():
                    if not self._may_join_again():
                        self._fail(RelayError(f"the relay at {url} closed the connection before seating us"))
                        return
                    self._current = (self._current + 1) % len(self.urls)  # the next node, under the same id
            finally:
                self._connection = None
            self._set_link(Link.RECONNECTING)
            log.info("relay connection lost; retrying in %.1fs", self._delay)
            await asyncio.sleep(self._delay)
            self._delay = min(self.max_backoff, self._delay * 2)

    def _may_join_again(self) -> bool:
        """Whether to send our join again after its answer was lost (``unavailable``, or the connection broke, before
        any welcome): under its id, which takes back the seat it may have taken, a few times at most."""
        return self.token is None and self.join_id is not None and 0 < self._joins_sent < JOIN_ATTEMPTS

    async def _session(self, connection: ClientConnection) -> None:
        join: dict[str, object] = {"type": "join", "room": self.room, "name": self.name, "token": self.token, "after": self.last_seq}
        if self.token is None and self.join_id is not None:
            join["id"] = self.join_id  # relay 1.4: the same seat for the same id, however often it is sent
        if self.watch:
            join = {"type": "join", "room": self.room, "name": self.name, "watch": True, "after": self.last_seq}
        elif self.seats != 2:
            join["seats"] = self.seats  # the room's size, when this join creates it (docs/relay-protocol.md)
        if self.public is not None:
            join["public"] = self.public  # listed in the lobby, when this join creates the room (protocol 1.2)
        join_frame = json.dumps(join)
        await connection.send(join_frame)
        if self.seat is None:
            self._joins_sent += 1
        try:  # not wait_for: on Python 3.11 it drops a cancel (close()) that comes as the welcome does, and the
            async with asyncio.timeout(WELCOME_TIMEOUT):  # client would go on reconnecting for ever
                welcome = self._frame(await connection.recv())
        except TimeoutError:
            raise RelayError(f"{self.url} did not answer our join in {WELCOME_TIMEOUT:g} s; "
                             "is it a discard relay?") from None
        if welcome.get("type") == "error":
            if welcome.get("code") == "unavailable":
                raise Unserved(clip(welcome.get("message"), 200))
            error = {"bad_token": SeatLost, "room_full": RoomFull, "store_full": StoreFull}.get(
                str(welcome.get("code")), RelayError)
            refused = "let us watch" if self.watch else "seat us"
            raise error(f"the relay refused to {refused} in room {self.room}: {clip(welcome.get('message'), 200)}")
        try:
            self.seat, self.token, head = welcome["seat"], welcome["token"], welcome["head"]
        except KeyError as missing:
            raise RelayError(f"{self.url} is not a discard relay (its welcome has no {missing})") from None
        self._pace = Pace(stated_limits(welcome), spent=1, spent_bytes=len(join_frame.encode()))  # and the join's
        self._connection = connection
        self._delay, self._unreachable = FIRST_DELAY, []  # a session again: the next loss starts afresh
        self._set_link(Link.CONNECTED)
        assert self._joined is not None
        if not self._joined.done():
            self._joined.set_result(None)
        if self.last_seq >= head:
            self._queue.put_nowait(CAUGHT_UP)
        async for raw in connection:
            frame = self._frame(raw)
            if frame.get("type") == "error":
                if frame.get("code") == "unavailable":  # the node lost its store: reconnect, maybe elsewhere
                    raise Unserved(clip(frame.get("message"), 200))
                raise RelayError(f"the relay refused a message: {clip(frame.get('message'), 200)}")
            if frame.get("type") != "event" or frame.get("seq", 0) <= self.last_seq:
                continue
            event = event_of(frame)
            if event is None:
                raise RelayError(f"the relay sent a malformed event: {clip(json.dumps(frame), 80)}")
            if event.seq != self.last_seq + 1:
                raise RelayError(f"the relay skipped events: #{event.seq} came after #{self.last_seq}")
            self.last_seq = event.seq
            self._queue.put_nowait(event)
            if event.seq == head:
                self._queue.put_nowait(CAUGHT_UP)

    def _frame(self, raw: str | bytes) -> dict:
        """One frame from the relay as a JSON object, or a RelayError that says it is not one."""
        try:
            frame = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
            frame = None
        if not isinstance(frame, dict):
            raise RelayError(f"{self.url} sent something that is not a discard relay frame: {str(raw)[:60]!r}")
        return frame


def post_id(body: dict) -> str:
    """The id a post is sent under (docs/relay-protocol.md, 1.1): the same body, sent again after a reconnect or
    through another node, has the same id, so the relay appends it once."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]


def stated_limits(welcome: dict) -> tuple[float, float, float, float]:
    """The rate and burst (1.1), and the byte rate and byte burst (1.2), a welcome states, or a relay's defaults
    for those it does not."""

    def stated(key: str, default: float, least: float) -> float:
        value = welcome.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return max(float(value), least)  # an untrusted relay cannot stall us silently
        return default

    return (stated("rate", RELAY_RATE, MIN_RATE), stated("burst", RELAY_BURST, 1.0),
            stated("byte_rate", RELAY_BYTE_RATE, MIN_BYTE_RATE), stated("byte_burst", RELAY_BYTE_BURST, 1.0))


def unreachable(failures: list[str]) -> str:
    if len(failures) == 1:
        return f"cannot reach the relay at {failures[0]}; is discard-relay running there?"
    return f"cannot reach any relay: {'; '.join(failures)}"


def describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
