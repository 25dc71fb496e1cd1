"""The discard relay's websocket server: rooms of 2 to 6 seats, each an append-only ordered ledger.

Guarantees (see ``docs/relay-protocol.md`` and ``docs/relay.md``):

* The server keeps no ledger of its own: it claims seats, appends posts and
  follows rooms through a :class:`~relay.ledger.Ledger`, in memory, in
  SQLite or in Redis shared with other relay nodes.
* One follower per room per node feeds that room's local connections, in
  seq order, gapless; a joining connection catches up from the ledger and
  then joins the live stream with nothing missed or repeated between the two.
* Writes never wait for a client. :func:`websockets.asyncio.server.broadcast`
  puts the frame in each connection's buffer; a connection whose buffer grows
  past ``max_buffer`` is dropped (its owner can resume with its token) instead
  of slowing its room down. A sweep every ``sweep`` seconds applies the same
  limit to what websockets writes by itself (pongs) and to what a connection
  sent that is not handled yet (an unfinished message, frames waiting), and
  while all of them together pass ``max_buffers`` drops from the address
  holding the most.
* No connection is read faster than ``read_rate`` frames a second (every
  frame counts, pings included): beyond its burst, reading it pauses, which
  slows its sender down through TCP instead of spending the relay's CPU.
  Until its join is answered, a connection's burst is ``unjoined_burst``
  frames: one that sends more at once is dropped after parsing a few hundred
  bytes of it, so a stranger reconnecting to flood costs little more than
  the handshake. Until then its messages may have ``UNJOINED_FRAME`` bytes: a
  larger one is refused from its frame header (close 1009), its payload never
  read; and what all such connections are receiving together stays within
  ``unjoined_buffers`` (past it the one whose message has not grown for the
  longest is dropped). A connection that keeps sending frames the relay refuses (more than
  ``max_refused`` in ``refusal_window`` seconds) is closed with 1008.
* Log lines about refusals and drops are sampled: at most a few of each kind
  every ``refusal_window`` seconds, then one line counting the rest.
* A post with an ``id`` lands once: sent again (a lost acknowledgement, a
  reconnect, another node), it appends nothing and is acknowledged with the
  first one's seq.
* What one address can do with many connections is bounded too (an IPv4
  address, or an IPv6 /64, a subscriber's usual share): at most
  ``max_per_address`` connections at once (more are refused with 429); all
  their frames together take ``address_byte_rate`` bytes a second (past it a
  frame waits: it is never refused for what a neighbour spent; the budget
  outlives the address's connections, so reconnecting does not refill it);
  their write buffers and unfinished messages together stay within
  ``address_buffers`` (the connection holding the most is dropped); and its
  lobby pages within ``address_list_rate`` a second. With ``max_per_address`` 0 every
  connection is an address of its own (behind a reverse proxy).
* A connection whose seat is claimed again, on this node or another, is
  closed with code 4000 as soon as this node sees the newer ``join``.
* A ``list`` is answered with one page of the lobby (:mod:`relay.lobby`): rooms created public that are
  open, and only what they chose to show; any connection may ask, joined or not, within its rate limit.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import json
import logging
import re
import ssl
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed, PayloadTooBig
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State

from . import lobby
from .ledger import (MAX_SEATS, POLICY, SEAT_TAKEN_OVER, Entry, Follower, Ledger, MemoryLedger, Refused,
                     to_json)
from .memory import MemoryReturn

log = logging.getLogger("discard.relay")

ROOM_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
POST_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_DEPTH = 64  # nesting levels of arrays and objects a frame may have
TOO_DEEP = f"frame nests arrays and objects deeper than {MAX_DEPTH} levels"
READ_SLICE = 8192  # bytes of a read parsed before the read budget is checked again (at most 1,365 frames)
UNJOINED_SLICE = 512  # the same before the connection's join is answered: a join is a few hundred bytes
UNJOINED_FRAME = 16 << 10  # bytes a message may have before the join is answered (a join, a list: well under 2 KiB)
FRAGMENT_COST = 256  # bytes a fragment of an unfinished message counts for at least (websockets keeps a Frame each)
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: only valid in pairs


@dataclass
class Limits:
    """Everything one client may consume. Defaults never trouble a real game."""

    max_frame: int = 1 << 20  # bytes; larger frames get ``too_large``
    rate: float = 100.0  # frames per second, sustained
    burst: int = 400  # frames allowed at once
    byte_rate: float = 1 << 20  # bytes of frames per second, sustained (a six-player MODP-3072 deal is ~0.2 MB)
    byte_burst: int = 8 << 20  # bytes of frames at once
    max_rooms: int = 10_000  # rooms with a connection on this node
    max_connections: int = 5_000
    max_buffer: int = 8 << 20  # bytes queued to one slow client before it is dropped
    max_buffers: int = 32 << 20  # bytes held by all connections together (queued to them, unread from them)
    max_per_address: int = 64  # connections from one address at once (0: every connection counts as its own address)
    address_byte_rate: float = 2 << 20  # bytes of frames per second from all of one address's connections together
    address_byte_burst: int = 8 << 20
    address_buffers: int = 16 << 20  # the same for one address's connections (and its unfinished messages)
    address_list_rate: float = 10.0  # lobby pages a second for one address (a page of 50 costs the store a query)
    address_list_burst: int = 20
    read_rate: float = 200.0  # frames per second read from one connection, pings included (then reading pauses)
    read_burst: int = 800
    unjoined_burst: int = 32  # frames a connection may send at once before its join is answered (a join, a list)
    unjoined_buffers: int = 4 << 20  # bytes of messages being received by all unjoined connections together
    max_refused: int = 100  # refused frames in one refusal_window before the connection is closed
    refusal_window: float = 10.0
    sweep: float = 0.1  # seconds between two checks of every connection's write buffer
    drain_timeout: float = 20.0  # seconds a catch-up waits for its reader to take an eighth of max_buffer
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    close_timeout: float = 2.0  # seconds a closing connection may take before it is reset


def held_bytes(connection: ServerConnection) -> int:
    """The memory a connection holds: what is queued to it, and (read through :class:`ReadBudget`) what it sent
    that is not handled yet."""
    held = connection.transport.get_write_buffer_size()
    return held + connection.unread_bytes() if isinstance(connection, ReadBudget) else held


def address_of(peer: Any) -> str | None:
    """What one party's connections have in common: its IPv4 address, or the /64 of its IPv6 address (the block
    one subscriber is usually given), an IPv4-mapped IPv6 address counting as the IPv4 one; None when the peer
    is no IP address (gone before it was read, or a Unix socket)."""
    if not isinstance(peer, tuple) or not peer or not isinstance(peer[0], str):
        return None
    try:
        ip = ipaddress.ip_address(peer[0].split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(eq=False)
class Address:
    """What all the connections from one address share: their count, a budget of bytes for their frames and one
    of lobby pages, and the tally of the messages they are receiving."""

    key: str
    byte_tokens: float
    list_tokens: float
    last_refill: float
    connections: int = 0
    unfinished: int = 0  # bytes of messages its connections are receiving, not yet whole
    receiving: set[ReadBudget] = field(default_factory=set)  # its connections, to find the one to drop
    queue: asyncio.Lock = field(default_factory=asyncio.Lock)  # frames waiting for the byte budget, in order

    def refill(self, limits: Limits, now: float) -> None:
        elapsed, self.last_refill = now - self.last_refill, now
        self.byte_tokens = min(limits.address_byte_burst, self.byte_tokens + elapsed * limits.address_byte_rate)
        self.list_tokens = min(limits.address_list_burst, self.list_tokens + elapsed * limits.address_list_rate)

    def bytes_delay(self, limits: Limits, size: int, now: float) -> float:
        """Seconds until the budget holds ``size`` bytes of frames (a whole burst at most)."""
        self.refill(limits, now)
        return max(0.0, (min(size, limits.address_byte_burst) - self.byte_tokens) / limits.address_byte_rate)

    def take_bytes(self, limits: Limits, size: int) -> None:
        """Spend ``size`` bytes of frames (a whole burst at most), once :meth:`bytes_delay` says they are there."""
        self.byte_tokens -= min(size, limits.address_byte_burst)

    def take_list(self, limits: Limits, now: float) -> bool:
        """Spend one lobby page, if there is one."""
        self.refill(limits, now)
        if self.list_tokens < 1:
            return False
        self.list_tokens -= 1
        return True

    def forgettable(self, limits: Limits, now: float) -> bool:
        """No connection left and the budgets full again: forgetting it now gives nothing back early."""
        if self.connections or self.unfinished:
            return False
        self.refill(limits, now)
        return self.byte_tokens >= limits.address_byte_burst and self.list_tokens >= limits.address_list_burst


@dataclass(eq=False)
class Strangers:
    """What all of a relay's connections whose join is not answered yet are receiving: the bytes of their messages
    not yet whole, and who holds them, to find the one to drop (:meth:`ReadBudget._count_unfinished`)."""

    unfinished: int = 0
    receiving: set[ReadBudget] = field(default_factory=set)


@dataclass(eq=False)
class Client:
    """One websocket connection and the seat it holds."""

    connection: ServerConnection
    address: Address
    tokens: float
    last_refill: float
    room: str | None = None  # the room of the seat this connection claimed
    seat: int = -1
    epoch: int = 0
    joined_at: int = 0  # seq of the join event that gave this connection its seat
    channel: Channel | None = None  # None once the seat is gone (taken over) or the connection ended
    cursor: int = 0  # last seq written to this connection
    live: bool = False  # caught up: the room's follower writes to it
    refused: int = 0  # frames refused in the current refusal window
    window_start: float = 0.0
    closing: bool = False  # closed for its refusals: its later frames are not even read as requests
    byte_tokens: float = 0.0  # bytes of frames it may send now (Limits.byte_burst at first)
    waiting: int = 0  # bytes of the frame waiting for its address's budget (the sweep counts them)
    last_held: int = 0  # bytes it held at the last sweep

    def take_token(self, limits: Limits) -> bool:
        now = time.monotonic()
        elapsed = now - self.last_refill
        self.tokens = min(limits.burst, self.tokens + elapsed * limits.rate)
        self.byte_tokens = min(limits.byte_burst, self.byte_tokens + elapsed * limits.byte_rate)
        self.last_refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def take_bytes(self, size: int) -> bool:
        """Spend ``size`` bytes of frames (refilled by :meth:`take_token`, which every frame takes first)."""
        if self.byte_tokens < size:
            return False
        self.byte_tokens -= size
        return True


@dataclass(eq=False)
class Channel:
    """One room's connections on this node and the one follower that feeds them."""

    room: str
    position: int  # last seq the follower delivered
    members: set[Client] = field(default_factory=set)
    follower: Follower | None = None

    def seat_holder(self, seat: int) -> Client | None:
        """This node's connection holding ``seat``, if any (for tests and logs)."""
        return next((c for c in self.members if c.seat == seat), None)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is beyond a double's range")
    return number


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: with a repeated key, readers disagree on which one counts."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise Refused("bad_request", f"frame repeats the key {json.dumps(key)[:40]} in one object")
            seen.add(key)
    return value


# strict JSON only: no NaN or Infinity, no number beyond a double, no key twice in one object
DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite, object_pairs_hook=_unique_keys)


def too_deep(value: object) -> bool:
    """True if ``value`` nests lists and dicts more than MAX_DEPTH levels (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > MAX_DEPTH:
                    return True
                stack.append((child, depth + 1))
    return False


def encodable(value: object) -> bool:
    """True if ``value`` serialises to valid UTF-8 (no lone surrogates)."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


class Sampled:
    """Log lines of one kind, at most ``per_window`` every ``window`` seconds; the rest are counted, and the count
    is logged once the window is over, so that no client can fill a disk."""

    def __init__(self, window: float, per_window: int = 5) -> None:
        self.window, self.per_window = window, per_window
        self.start = time.monotonic()
        self.shown: dict[str, int] = {}
        self.hidden: dict[str, int] = {}

    def info(self, kind: str, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self.start >= self.window:
            for hidden_kind, count in self.hidden.items():
                log.info("%d more %s in the last %.0f s (not shown)", count, hidden_kind, now - self.start)
            self.start, self.shown, self.hidden = now, {}, {}
        if self.shown.get(kind, 0) < self.per_window:
            self.shown[kind] = self.shown.get(kind, 0) + 1
            log.info(message, *args)
        else:
            self.hidden[kind] = self.hidden.get(kind, 0) + 1


SAMPLED = Sampled(window=10.0)  # the relay's sampled log lines (refusals, drops), shared by every connection


class ReadBudget(ServerConnection):
    """A connection read no faster than ``read_rate`` frames a second, control frames included: past its burst,
    reading pauses until the bucket has refilled (TCP then slows the sender). One that sends a whole further
    burst's worth at once (reading may be resumed by websockets' own flow control, and one read can hold
    thousands of tiny frames) is aborted, and its frames still queued are dropped unread. Set up by
    :meth:`Relay.serve`.

    Until :meth:`joined`, websockets reads messages of ``UNJOINED_FRAME`` bytes at most: it checks a frame's
    length in its header, before reading the payload, and closes a connection that sends a larger one with 1009
    (Message Too Big), reading no more of it. A frame whose header was parsed before the join was answered (sent
    along with the join, before the welcome) is held to that limit too."""

    read_rate: float = 200.0
    read_burst: float = 800.0
    unjoined_burst: float = 32.0
    address_buffers: int = 16 << 20
    unjoined_buffers: int = 4 << 20
    strangers: Strangers | None = None  # the relay's tally of what its unjoined connections are receiving
    address: Address | None = None  # set by the relay's handler (attach)
    unfinished = 0  # bytes of the message being received, as last counted
    fragments = 0  # frames of that message received so far
    grew_at = 0.0  # when its unfinished message last grew (time.monotonic())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.burst, self.slice = self.unjoined_burst, UNJOINED_SLICE  # until joined() is called
        self.joined_size = self.protocol.max_message_size  # Relay.serve's max_size (None: no limit)
        self.protocol.max_message_size = min(UNJOINED_FRAME, self.joined_size or UNJOINED_FRAME)
        self.unjoined = self.strangers  # counted among the strangers until joined() (None: not counted)
        if self.unjoined is not None:
            self.unjoined.receiving.add(self)
        self.read_tokens, self.read_refill = self.burst, time.monotonic()
        self.read_resume: asyncio.TimerHandle | None = None
        self.flooding = False
        self.read_after_close = 0  # bytes received since this connection began to close
        self.told_too_big = False  # its 1009 (a message over max_message_size) was logged

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame):
            self.read_tokens -= 1
            if event.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                self.fragments = 0 if event.fin else self.fragments + 1
        super().process_event(event)

    def data_received(self, data: bytes) -> None:
        self._parse_within_budget(data)
        if isinstance(self.protocol.parser_exc, PayloadTooBig) and not self.told_too_big:
            self.told_too_big = True  # websockets closed it with 1009 and reads no more of the frame
            SAMPLED.info("refused frames", "closed a connection (%s) with 1009: %s",
                         "not joined" if self.slice == UNJOINED_SLICE else "joined", self.protocol.parser_exc)
        self._count_unfinished(len(self.protocol.reader.buffer) + (self.protocol.current_size or 0)
                               + FRAGMENT_COST * self.fragments)

    def _count_unfinished(self, unfinished: int) -> None:
        """Keep this connection's address's tally of bytes received in messages not yet whole (an unfinished frame,
        or the fragments of an unfinished message, each counting for FRAGMENT_COST at least: up to 4 x max_frame,
        held as long as the sender likes), and until it is joined the relay's tally of all its unjoined
        connections' (:class:`Strangers`). Once the address's passes ``address_buffers``, or the strangers' passes
        ``unjoined_buffers``, drop the connection among them whose message has not grown for the longest (a post
        or a join on its way in is growing; a hold is not): arriving at network speed, they cannot wait for the
        sweep."""
        grown, self.unfinished = unfinished - self.unfinished, unfinished
        address, strangers = self.address, self.unjoined
        for holding in (address, strangers):
            if holding is not None:
                holding.unfinished += grown
        if grown <= 0:
            return
        self.grew_at = time.monotonic()
        if address is not None and address.unfinished > self.address_buffers:
            SAMPLED.info("dropped clients", "dropping a client whose address holds %d bytes of unfinished frames",
                         address.unfinished)
            self._drop_stalest(address.receiving)
        if strangers is not None and strangers.unfinished > self.unjoined_buffers:
            SAMPLED.info("dropped clients", "dropping a client: connections not joined hold %d bytes of unfinished "
                         "frames", strangers.unfinished)
            self._drop_stalest(strangers.receiving)

    @staticmethod
    def _drop_stalest(receiving: set[ReadBudget]) -> None:
        """Abort the holder among ``receiving`` whose message has not grown for the longest (one that is still
        sending is more likely a post than a hold), and count it out of every tally at once: its connection_lost
        then changes nothing."""
        stalest = min((c for c in receiving if c.unfinished), key=lambda c: (c.grew_at, -c.unfinished))
        stalest.transport.abort()
        for holding in (stalest.address, stalest.unjoined):
            if holding is not None:
                holding.receiving.discard(stalest)
                holding.unfinished -= stalest.unfinished
        stalest.unfinished, stalest.address, stalest.unjoined = 0, None, None

    def attach(self, address: Address) -> None:
        """Count this connection's unfinished messages against ``address`` from now on."""
        self.address = address
        address.receiving.add(self)
        address.unfinished += self.unfinished

    def _parse_within_budget(self, data: bytes) -> None:
        """Parse ``data`` a slice at a time, so that a read full of tiny frames (a socket read can hold tens of
        thousands) costs at most one slice beyond the budget before the connection is dropped."""
        now = time.monotonic()
        self.read_tokens = min(self.burst, self.read_tokens + (now - self.read_refill) * self.read_rate)
        self.read_refill = now
        for start in range(0, len(data), self.slice):
            if self.flooding:
                return  # dropped: the rest is not even parsed
            if self.protocol.state not in (State.CONNECTING, State.OPEN):  # closing: only a close frame may matter
                self.read_after_close += len(data) - start
                if self.read_after_close > READ_SLICE:  # a sender that goes on (the rest of a frame too large):
                    self.transport.pause_reading()  # unread, it waits on TCP until the close times out
                    if self.read_resume is not None:
                        self.read_resume.cancel()
                    self.read_resume = self.loop.call_later(self.close_timeout or 0, self.transport.abort)
                    return
                super().data_received(data[start:] if start else data)
                break
            # frames, or the handshake's request and frames sent along with it: all within the budget
            super().data_received(data[start:start + self.slice] if len(data) > self.slice else data)
            if self.read_tokens < -self.burst:
                self.flooding = True
                SAMPLED.info("dropped floods", "dropping a connection that sent %d frames beyond its budget at once",
                             -int(self.read_tokens))
                self.transport.abort()
        if self.read_tokens < 0 and self.read_resume is None and not self.transport.is_closing():
            self.transport.pause_reading()
            self.read_resume = self.loop.call_later(-self.read_tokens / self.read_rate, self._resume_reading)

    def joined(self) -> None:
        """The connection holds a seat: it may now send a game's bursts and messages up to the relay's max_size
        (from its next frame header on), read in larger slices, and no longer counts among the strangers."""
        self.read_tokens += self.read_burst - self.burst
        self.burst, self.slice = self.read_burst, READ_SLICE
        self.protocol.max_message_size = self.joined_size
        if self.unjoined is not None:
            self.unjoined.receiving.discard(self)
            self.unjoined.unfinished -= self.unfinished
            self.unjoined = None

    def unread_bytes(self) -> int:
        """Bytes received and not handled yet: an unfinished message (as tallied), and frames waiting for the
        handler (the fragments of an unfinished message may be counted twice). The sweep counts them with the
        write buffer."""
        queued = self.recv_messages.frames.queue
        return self.unfinished + (sum(len(frame.data) for frame in queued) if queued else 0)

    def _resume_reading(self) -> None:
        self.read_resume = None
        if not self.transport.is_closing() and not self.recv_messages.paused and self.protocol.state is State.OPEN:
            self.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.read_resume is not None:
            self.read_resume.cancel()
        self._count_unfinished(0)
        for holding in (self.address, self.unjoined):
            if holding is not None:
                holding.receiving.discard(self)
        super().connection_lost(exc)


class Relay:
    """Serves rooms from a ledger; ``handler`` is the websockets connection handler."""

    def __init__(self, ledger: Ledger | None = None, limits: Limits | None = None) -> None:
        self.ledger = ledger or MemoryLedger()
        self.limits = limits or Limits()
        self.channels: dict[str, Channel] = {}
        self.connection_count = 0
        self.clients: set[Client] = set()
        self.addresses: dict[str, Address] = {}  # kept after their last connection until their budget is full
        self._idle: set[Address] = set()  # the addresses with no connection left, until forgotten
        self.strangers = Strangers()  # what the connections not joined yet are receiving, all together
        self._connection_numbers = itertools.count()  # when each connection is an address of its own
        self._background: set[asyncio.Task[Any]] = set()
        self._unreleased: list[tuple[str, int, int]] = []  # seats whose leave the ledger could not take yet
        self.memory = MemoryReturn()

    # -- the handler --------------------------------------------------------

    async def handler(self, connection: ServerConnection) -> None:
        """Serve one connection until it closes; its frames are handled one after another."""
        now = time.monotonic()
        address = self._address(connection, now)
        client = Client(connection, address, tokens=float(self.limits.burst),
                        byte_tokens=float(self.limits.byte_burst), last_refill=now, window_start=now)
        address.connections += 1
        if isinstance(connection, ReadBudget):
            connection.attach(address)
        self.connection_count += 1
        self.clients.add(client)
        try:
            async for message in connection:
                await self._handle_frame(client, message)
        except ConnectionClosed:
            pass  # an abrupt close is as final as a clean one
        finally:
            self.clients.discard(client)
            self.connection_count -= 1
            address.connections -= 1
            if not address.connections:
                self._idle.add(address)
            if client.room is not None:
                await self._leave(client)

    async def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer ``GET /healthz`` over plain HTTP(S) and refuse connections beyond the cap."""
        if request.path.split("?")[0] == "/healthz" and "Upgrade" not in request.headers:
            problem = await self.ledger.health()
            if problem is not None:
                return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, f"unhealthy: {problem}\n")
            return connection.respond(HTTPStatus.OK, "OK\n")
        if self.connection_count >= self.limits.max_connections:
            SAMPLED.info("refused connections", "refused connection: relay full (%d connections)",
                              self.connection_count)
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "relay full, try again later\n")
        key = self._address_key(connection)
        address = None if key is None else self.addresses.get(key)
        if address is not None and address.connections >= self.limits.max_per_address:
            SAMPLED.info("refused connections", "refused connection: %d connections from %s already",
                         address.connections, address.key)
            return connection.respond(HTTPStatus.TOO_MANY_REQUESTS,
                                      f"{address.connections} connections from your address already\n")
        return None

    def _address_key(self, connection: ServerConnection) -> str | None:
        """The key of the connection's shared :class:`Address`, or None when it has none to share."""
        return address_of(connection.remote_address) if self.limits.max_per_address else None

    def _address(self, connection: ServerConnection, now: float) -> Address:
        """The :class:`Address` this connection counts against (made at its first connection, or again once
        forgotten); with ``max_per_address`` 0 (behind a proxy), or no IP address to go by, one of its own."""
        key = self._address_key(connection) or f"connection {next(self._connection_numbers)}"
        address = self.addresses.get(key)
        if address is None:
            address = self.addresses[key] = Address(key, float(self.limits.address_byte_burst),
                                                    float(self.limits.address_list_burst), now)
        self._idle.discard(address)
        return address

    async def _handle_frame(self, client: Client, message: str | bytes) -> None:
        if client.closing or getattr(client.connection, "flooding", False):
            return
        try:
            if not client.take_token(self.limits):
                raise Refused("rate_limited", "too many frames; slow down and send this one again")
            size = len(message) if isinstance(message, bytes) or message.isascii() else len(message.encode())
            if size > self.limits.max_frame:
                raise Refused("too_large", f"frame is over the {self.limits.max_frame}-byte limit")
            if not client.take_bytes(size):
                raise Refused("rate_limited", f"more than {self.limits.byte_rate / (1 << 20):g} MiB a second; "
                                              "slow down and send this one again")
            if not await self._address_bytes(client, size):
                return  # the connection closed while its frame waited: dropped with it
            request = self._parse(message, size)
            if request["type"] == "join":
                await self._join(client, request)
            elif request["type"] == "list":
                await self._list(client, request)
            else:
                await self._post(client, request)
        except Refused as refused:
            where = f"room={client.room} seat={client.seat}" if client.room else "not joined"
            SAMPLED.info("refused frames", "refused frame (%s): %s %s", refused.code, where, refused.message)
            self._send(client, to_json({"type": "error", "code": refused.code, "message": refused.message}))
            if refused.close is None and self._too_many_refusals(client):
                SAMPLED.info("closed connections", "closing a connection (%s) after %d refused frames",
                                  where, client.refused)
                client.closing = True
                self._spawn(client.connection.close(POLICY, "too many refused frames"))
            if refused.close is not None:
                if refused.close == SEAT_TAKEN_OVER:
                    self._detach(client)  # no leave: the newer claim appended it
                self._spawn(client.connection.close(refused.close, refused.code))

    async def _address_bytes(self, client: Client, size: int) -> bool:
        """Take ``size`` bytes from the budget of the frame's address, waiting first while it has not got them, in
        the order the frames came (``Address.queue``: a large frame is not passed by small ones for ever). The
        frame is not refused: whoever sent it may share the address with whoever spent the budget, and a refused
        post leaves a gap in its seat's counters. While it waits the sweep counts it as held by its connection.
        False if the connection closed meanwhile (the frame goes with it)."""
        address, limits = client.address, self.limits
        if not address.queue.locked() and not address.bytes_delay(limits, size, time.monotonic()):
            address.take_bytes(limits, size)
            return True
        client.waiting = size
        try:
            async with address.queue:
                while (delay := address.bytes_delay(limits, size, time.monotonic())) > 0:
                    try:
                        async with asyncio.timeout(delay):
                            await client.connection.wait_closed()
                        return False
                    except TimeoutError:
                        pass
                address.take_bytes(limits, size)
                return client.connection.state is not State.CLOSED
        finally:
            client.waiting = 0

    def _too_many_refusals(self, client: Client) -> bool:
        now = time.monotonic()
        if now - client.window_start >= self.limits.refusal_window:
            client.window_start, client.refused = now, 0
        client.refused += 1
        return client.refused > self.limits.max_refused

    def _parse(self, message: str | bytes, size: int) -> dict:
        """The request a frame of ``size`` bytes (UTF-8) holds, or Refused."""
        if isinstance(message, bytes):
            raise Refused("bad_request", "binary frames are not accepted; send JSON as a text frame")
        try:
            request = DECODER.decode(message)
        except RecursionError:  # deeper than Python's own limit
            raise Refused("bad_request", TOO_DEEP) from None
        except ValueError as error:
            if "integer string conversion" in str(error):
                raise Refused("bad_request", "a number in the frame has more than 4300 digits") from None
            raise Refused("bad_request", "frame is not valid JSON") from None
        if message.count("[") + message.count("{") > MAX_DEPTH and too_deep(request):
            raise Refused("bad_request", TOO_DEEP)
        if SURROGATE_ESCAPE.search(message) and not encodable(request):
            raise Refused("bad_request", "frame has a lone surrogate escape (\\ud800 to \\udfff), which is no character")
        if not isinstance(request, dict):
            raise Refused("bad_request", "frame must be a JSON object")
        if request.get("type") not in ("join", "post", "list"):
            raise Refused("bad_request", 'unknown "type"; expected "join", "post" or "list"')
        return request

    # -- join, post, leave ---------------------------------------------------

    async def _join(self, client: Client, request: dict) -> None:
        if client.channel is not None:
            raise Refused("already_joined", f"this connection already holds seat {client.seat} in room {client.room}")
        name, room = request.get("name"), request.get("room")
        token, after, seats = request.get("token"), request.get("after"), request.get("seats")
        after = 0 if after is None else after  # absent or null: from the start
        if not isinstance(room, str) or not ROOM_PATTERN.fullmatch(room):
            raise Refused("bad_request", '"room" must be 1 to 64 characters from A-Z a-z 0-9 . _ -')
        if set(room) == {"."}:
            raise Refused("bad_request", '"room" must not be dots only: "." and ".." read as directories')
        if not isinstance(name, str) or not 1 <= len(name) <= 32 or not name.isprintable():
            raise Refused("bad_request", '"name" must be 1 to 32 printable characters')
        if token is not None and not isinstance(token, str):
            raise Refused("bad_request", '"token" must be a string or null')
        if type(after) is not int or after < 0:
            raise Refused("bad_request", '"after" must be a whole number, 0 or more')
        if seats is not None and (type(seats) is not int or not 2 <= seats <= MAX_SEATS):
            raise Refused("bad_request", f'"seats" must be a whole number from 2 to {MAX_SEATS}')
        public = None if request.get("public") is None else lobby.public_json(request["public"])
        if room not in self.channels and len(self.channels) >= self.limits.max_rooms:
            raise Refused("relay_full", "the relay holds its maximum number of rooms; try again later")

        claim = await self.ledger.claim(room, name, token, seats, public)
        client.room, client.seat, client.epoch, client.joined_at = room, claim.seat, claim.epoch, claim.seq
        client.cursor = min(after, claim.seq)
        channel = self.channels.get(room)
        if channel is None:
            channel = self.channels[room] = Channel(room, position=claim.seq)
            channel.follower = self.ledger.follow(room, claim.seq, lambda entries: self._deliver(channel, entries))
        channel.members.add(client)
        client.channel = channel
        if isinstance(client.connection, ReadBudget):
            client.connection.joined()
        self._send(client, to_json({"type": "welcome", "room": room, "seat": claim.seat, "token": claim.token,
                                    "head": claim.seq, "seats": claim.seats,
                                    "rate": self.limits.rate, "burst": self.limits.burst,
                                    "byte_rate": self.limits.byte_rate, "byte_burst": self.limits.byte_burst}))
        log.info("join room=%s seat=%d name=%r resumed=%s", room, claim.seat, name, token is not None)
        await self._catch_up(client, channel)

    async def _catch_up(self, client: Client, channel: Channel) -> None:
        """Send the stored events after the client's cursor until it reaches the follower, then go live. The
        backlog goes at the reader's pace: past an eighth of ``max_buffer`` queued, wait until it has drained (a
        reader that has not within ``drain_timeout`` is dropped), so that a room larger than the buffer (or many
        resumes at once) is not queued whole in memory."""
        transport = client.connection.transport
        while client.channel is channel and not client.live:
            entries = await self.ledger.read(channel.room, client.cursor)
            for entry in entries:
                if client.channel is not channel or transport.is_closing():  # taken over or dropped meanwhile
                    return
                self._send_entries(client, [entry])
                if transport.get_write_buffer_size() > self.limits.max_buffer // 8:
                    try:
                        async with asyncio.timeout(self.limits.drain_timeout):
                            await client.connection.drain()
                    except TimeoutError:  # a reader that takes nothing: dropped, as it would be once live
                        self._drop(client.connection)
                        return
                    except ConnectionError:
                        return  # the handler sees the close
            if client.channel is not channel:
                return
            if client.cursor >= channel.position:
                client.live = True  # from here the follower writes to it; nothing in between
            elif not entries:
                raise AssertionError(f"ledger of room {channel.room} ends at {client.cursor} "
                                     f"but its follower is at {channel.position}")

    async def _list(self, client: Client, request: dict) -> None:
        """One page of the lobby, to this connection only, within its address's budget of pages."""
        after, limit = lobby.page_request(request)
        if not client.address.take_list(self.limits, time.monotonic()):
            raise Refused("rate_limited", f"more than {self.limits.address_list_rate:g} lobby pages a second from "
                                          "your address; slow down and send this one again")
        listings, more = await self.ledger.lobby_page(after, limit)
        self._send(client, lobby.rooms_frame(listings, more, int(time.time() * 1000)))

    async def _post(self, client: Client, request: dict) -> None:
        if client.channel is None or client.room is None:
            raise Refused("not_joined", 'join a room before posting: send {"type": "join", ...} first')
        body, post_id = request.get("body"), request.get("id")
        if not isinstance(body, dict):
            raise Refused("bad_request", '"body" must be a JSON object')
        if post_id is not None and (not isinstance(post_id, str) or not POST_ID_PATTERN.fullmatch(post_id)):
            raise Refused("bad_request", '"id" must be 1 to 64 characters from A-Z a-z 0-9 _ -')
        seq = await self.ledger.append(client.room, client.seat, client.epoch, to_json(body), post_id)
        if post_id is not None:  # the first append's seq, for a post sent again: exactly once
            self._send(client, to_json({"type": "posted", "id": post_id, "seq": seq}))

    async def _leave(self, client: Client) -> None:
        """The connection has ended: free its seat, which appends its ``leave``."""
        room, seat, epoch = client.room, client.seat, client.epoch
        assert room is not None
        self._detach(client)
        try:
            left = await self.ledger.release(room, seat, epoch)  # a no-op for a seat taken over
        except Refused as refused:  # the store is down: the janitor tries again
            log.warning("leave room=%s seat=%d not recorded yet: %s", room, seat, refused.message)
            self._unreleased.append((room, seat, epoch))
            return
        if left:
            log.info("leave room=%s seat=%d", room, seat)

    def _detach(self, client: Client) -> None:
        """Take the client out of its room's channel; the last one out stops the room's follower."""
        channel, client.channel, client.live = client.channel, None, False
        if channel is None:
            return
        channel.members.discard(client)
        if not channel.members:
            del self.channels[channel.room]
            if channel.follower is not None:  # and the cycle channel -> follower -> its callback -> channel goes,
                channel.follower.stop()  # so that a dropped room's frames are freed now, not at some later gc
                channel.follower = None

    # -- fan-out --------------------------------------------------------------

    def _deliver(self, channel: Channel, entries: list[Entry]) -> None:
        """The follower's callback: write the next entries to every live connection of the room."""
        if self.channels.get(channel.room) is not channel:
            return  # stopped
        first = entries[0].seq
        assert first == channel.position + 1, f"follower of {channel.room} skipped from {channel.position} to {first}"
        channel.position = entries[-1].seq
        in_step, ahead = [], []
        for client in channel.members:
            if client.live and client.cursor == first - 1:
                in_step.append(client.connection)
                client.cursor = channel.position
            elif client.live:  # ahead of the follower after its catch-up: only what it has not seen
                ahead.append(client)
        for entry in entries:
            self._write(in_step, entry.frame)
        for client in ahead:
            self._send_entries(client, [e for e in entries if e.seq > client.cursor])
        if any(e.kind == "join" for e in entries):
            for client in list(channel.members):
                self._close_if_taken_over(client, entries)

    def _send_entries(self, client: Client, entries: list[Entry]) -> None:
        for entry in entries:
            if entry.seq == client.cursor + 1:
                self._send(client, entry.frame)
                client.cursor = entry.seq
        self._close_if_taken_over(client, entries)

    def _close_if_taken_over(self, client: Client, entries: list[Entry]) -> None:
        """A later ``join`` of this client's seat means a newer connection holds it now."""
        if client.channel is None:
            return
        if any(e.kind == "join" and e.seat == client.seat and e.seq > client.joined_at for e in entries):
            log.info("leave room=%s seat=%d (taken over by a newer connection)", client.room, client.seat)
            self._detach(client)
            self._spawn(client.connection.close(SEAT_TAKEN_OVER, "seat resumed by a newer connection"))

    # -- writing without waiting ----------------------------------------------

    def _send(self, client: Client, raw: str) -> None:
        self._write([client.connection], raw)

    def _write(self, connections: list[ServerConnection], raw: str) -> None:
        """Queue one frame to each connection without waiting; drop any that stopped reading."""
        open_ones = [c for c in connections if c.transport is not None and not c.transport.is_closing()]
        broadcast(open_ones, raw)  # encodes the frame once for all of them
        for connection in open_ones:
            transport = connection.transport
            if transport.get_write_buffer_size() > self.limits.max_buffer:
                self._drop(connection)

    def _drop(self, connection: ServerConnection) -> None:
        """Abort a connection that holds too much memory (it stopped reading, or it holds an unfinished frame);
        its owner can resume with its token."""
        SAMPLED.info("dropped clients", "dropping a client that holds %d bytes (queued to it, or unread from it)",
                     held_bytes(connection))
        connection.transport.abort()

    async def sweeper(self) -> None:
        """Every ``sweep`` seconds: drop the connections that hold more than ``max_buffer`` (their write buffer,
        whatever filled it: websockets writes pongs by itself; and what they sent that is not handled yet, such as
        an unfinished message, a frame waiting for its address's budget); then, while one address's connections
        hold more than ``address_buffers`` or all of them more than ``max_buffers``, from the address holding the
        most (many small holdings of one address do not make another's one larger holding the first to go), its
        connections that did not drain since the last sweep first, largest first; forget the addresses with no
        connection left whose budget is full again; and hand what the allocator holds free back to the system."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            holdings: dict[Address, list[tuple[bool, int, Client]]] = {}
            total = 0
            for client in list(self.clients):
                transport = client.connection.transport
                if transport is None or transport.is_closing():
                    continue
                size = held_bytes(client.connection) + client.waiting
                stalled, client.last_held = size >= client.last_held, size  # not draining since the last sweep
                if not size:
                    continue  # nearly every connection, nearly always
                if size > self.limits.max_buffer:
                    self._drop(client.connection)
                    continue
                holdings.setdefault(client.address, []).append((stalled, size, client))
                total += size
            by_address = sorted(((sum(size for _, size, _ in held), held) for held in holdings.values()),
                                key=lambda pair: pair[0], reverse=True)
            for held_by_address, held in by_address:  # stalled holdings first, then the largest
                for _, size, client in sorted(held, key=lambda item: (item[0], item[1]), reverse=True):
                    if held_by_address <= self.limits.address_buffers and total <= self.limits.max_buffers:
                        break
                    self._drop(client.connection)
                    held_by_address -= size
                    total -= size
            now = time.monotonic()
            for address in [address for address in self._idle if address.forgettable(self.limits, now)]:
                self._idle.discard(address)
                del self.addresses[address.key]
            self.memory.check(now)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- housekeeping -----------------------------------------------------------

    async def janitor(self) -> None:
        """The ledger's housekeeping (room expiry; for Redis, this node's lease and dead nodes' seats)."""
        while True:
            await asyncio.sleep(self.ledger.interval)
            try:
                while self._unreleased:
                    await self.ledger.release(*self._unreleased[0])
                    self._unreleased.pop(0)
                await self.ledger.expire()
            except Refused as refused:
                log.warning("housekeeping put off: %s", refused.message)

    async def serve(self, host: str, port: int, tls: ssl.SSLContext | None = None) -> Server:
        """Open the ledger and start listening (wss:// with ``tls``); ``close()`` on the server ends it with 1001."""
        await self.ledger.open()
        server = await serve(
            self.handler,
            host,
            port,
            ssl=tls,
            process_request=self.process_request,
            create_connection=self._connection_class(),
            max_size=4 * self.limits.max_frame,
            compression=None,  # deflate state per connection costs memory and CPU; bodies are mostly hex
            close_timeout=self.limits.close_timeout,  # a closing handshake (and shutdown) waits no longer
            ping_interval=self.limits.ping_interval,
            ping_timeout=self.limits.ping_timeout,
        )
        self._spawn(self.janitor())
        self._spawn(self.sweeper())
        return server

    def _connection_class(self) -> type[ServerConnection]:
        limits = self.limits
        return type("Budgeted", (ReadBudget,), {"read_rate": limits.read_rate, "read_burst": float(limits.read_burst),
                                                 "unjoined_burst": float(limits.unjoined_burst),
                                                 "address_buffers": limits.address_buffers,
                                                 "unjoined_buffers": limits.unjoined_buffers,
                                                 "strangers": self.strangers})

    async def close(self) -> None:
        """Stop housekeeping and followers, then close the ledger (after the server has closed)."""
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        for channel in list(self.channels.values()):
            if channel.follower is not None:
                channel.follower.stop()
        self.channels.clear()
        await self.ledger.close()
