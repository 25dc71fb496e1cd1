"""The ledger: a relay room seen as an ordered stream of events.

``RelayClient`` joins a room, delivers every event exactly once and in order,
and, when the connection drops, reconnects by itself with backoff, resuming
with its seat token and the last ``seq`` it saw. After every (re)join it
emits ``CAUGHT_UP`` once the backlog has been delivered: only then does the
engine know what the ledger holds and what it still owes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import Enum

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

log = logging.getLogger("discard.net")

SEAT_TAKEN_OVER = 4000
WELCOME_TIMEOUT = 10.0  # seconds a relay has to answer a join


@dataclass(frozen=True)
class Event:
    seq: int
    seat: int
    name: str
    kind: str  # "join" | "leave" | "post"
    body: dict | None
    time: float

    def as_json(self) -> dict:
        return {"seq": self.seq, "seat": self.seat, "name": self.name, "kind": self.kind,
                "body": self.body, "time": self.time}


class Link(str, Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


class RelayError(Exception):
    """The relay cannot be used; the message says what to do."""


class SeatLost(RelayError):
    """The relay no longer knows our seat token (the room expired or the relay lost it)."""


CAUGHT_UP = object()  # marker in the event stream: the backlog is delivered


class RelayClient:
    """One seat in one relay room."""

    def __init__(self, url: str, room: str, name: str, token: str | None = None, after: int = 0,
                 on_link: Callable[[Link], None] | None = None, max_backoff: float = 5.0, seats: int = 2) -> None:
        self.url, self.room, self.name, self.seats = url, room, name, seats
        self.token, self.last_seq = token, after
        self.seat: int | None = None
        self.link = Link.CONNECTING
        self.on_link = on_link
        self.max_backoff = max_backoff
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._connection: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._joined: asyncio.Future[None] | None = None

    async def open(self) -> None:
        """Connect and take a seat; raises :class:`RelayError` if that is impossible."""
        self._joined = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run())
        await asyncio.shield(self._joined)

    async def post(self, body: dict) -> bool:
        """Send a post; False if the link is down (the caller re-posts after ``CAUGHT_UP``)."""
        connection = self._connection
        if connection is None or self.link is not Link.CONNECTED:
            return False
        try:
            await connection.send(json.dumps({"type": "post", "body": body}, separators=(",", ":")))
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
        delay = 0.1
        while True:
            try:
                async with connect(self.url, open_timeout=10, max_size=8 << 20, compression=None) as connection:
                    await self._session(connection)
                    delay = 0.1
            except RelayError as error:
                self._fail(error)
                return
            except (OSError, InvalidHandshake, TimeoutError) as error:
                if not self._joined.done():
                    self._fail(RelayError(f"cannot reach the relay at {self.url} ({describe(error)}); "
                                          "is discard-relay running there?"))
                    return
            except InvalidURI:
                self._fail(RelayError(f"{self.url} is not a relay address; use ws://HOST:PORT"))
                return
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code == SEAT_TAKEN_OVER:
                    self._fail(RelayError("this seat was taken over by another window with the same token"))
                    return
                if not self._joined.done():
                    self._fail(RelayError(f"the relay at {self.url} closed the connection before seating us"))
                    return
            finally:
                self._connection = None
            self._set_link(Link.RECONNECTING)
            log.info("relay connection lost; retrying in %.1fs", delay)
            await asyncio.sleep(delay)
            delay = min(self.max_backoff, delay * 2)

    async def _session(self, connection: ClientConnection) -> None:
        join = {"type": "join", "room": self.room, "name": self.name, "token": self.token, "after": self.last_seq}
        if self.seats != 2:
            join["seats"] = self.seats  # the room's size, when this join creates it (docs/relay-protocol.md)
        await connection.send(json.dumps(join))
        try:
            welcome = self._frame(await asyncio.wait_for(connection.recv(), WELCOME_TIMEOUT))
        except TimeoutError:
            raise RelayError(f"{self.url} did not answer our join in {WELCOME_TIMEOUT:g} s; "
                             "is it a discard relay?") from None
        if welcome.get("type") == "error":
            error = SeatLost if welcome.get("code") == "bad_token" else RelayError
            raise error(f"the relay refused to seat us in room {self.room}: {welcome.get('message')}")
        try:
            self.seat, self.token, head = welcome["seat"], welcome["token"], welcome["head"]
        except KeyError as missing:
            raise RelayError(f"{self.url} is not a discard relay (its welcome has no {missing})") from None
        self._connection = connection
        self._set_link(Link.CONNECTED)
        assert self._joined is not None
        if not self._joined.done():
            self._joined.set_result(None)
        if self.last_seq >= head:
            self._queue.put_nowait(CAUGHT_UP)
        async for raw in connection:
            frame = self._frame(raw)
            if frame.get("type") == "error":
                raise RelayError(f"the relay refused a message: {frame.get('message')}")
            if frame.get("type") != "event" or frame.get("seq", 0) <= self.last_seq:
                continue
            try:
                event = Event(frame["seq"], frame["seat"], frame["name"], frame["kind"], frame["body"], frame["time"])
            except KeyError as missing:
                raise RelayError(f"the relay sent an event without {missing}") from None
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
        except ValueError:
            frame = None
        if not isinstance(frame, dict):
            raise RelayError(f"{self.url} sent something that is not a discard relay frame: {str(raw)[:60]!r}")
        return frame


def describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
