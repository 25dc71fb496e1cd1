"""What one client, one address and all of a relay's strangers may consume, and the connection that keeps to it.

:class:`Limits` holds every number. :class:`Address` is what the connections
from one address share (its byte budget, its lobby pages, the tally of the
messages they are receiving); :class:`Strangers` the same tally for every
connection not joined yet; :class:`ReadBudget` is the websocket connection
that reads no faster than its budget and tallies what it holds. The server
(:mod:`relay.server`) spends these budgets; it decides nothing about them.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import PayloadTooBig
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from .ledger import BLOCK_SHARE, Party

log = logging.getLogger("discard.relay")

READ_SLICE = 8192  # bytes of a read parsed before the read budget is checked again (at most 1,365 frames)
UNJOINED_SLICE = 512  # the same before the connection's join is answered: a join is a few hundred bytes
UNJOINED_FRAME = 16 << 10  # bytes a message may have before the join is answered (a join, a list: well under 2 KiB)
FRAGMENT_COST = 256  # bytes a fragment of an unfinished message counts for at least (websockets keeps a Frame each)


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
    room_watchers: int = 16  # watchers one room may have at once (protocol 1.3); more get room_full
    address_watch_rate: float = 1.0  # watcher joins a second from one address (each appends a watch event)
    address_watch_burst: int = 8
    block_share: int = BLOCK_SHARE  # an IPv6 /48 gets this many times an address's connections, bytes, pages and
    # watches (the memory store's share of a /48 is BLOCK_SHARE times an address's, whatever this is)
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


def block_of(address: str) -> str | None:
    """The /48 an IPv6 /64 address key lies in (a site's, or a tunnel broker's gift to one party: 65,536 /64s),
    whose budgets its /64s share as well; None for an IPv4 address, or a connection counted on its own."""
    if not address.endswith("/64"):
        return None
    return str(ipaddress.IPv6Network(address).supernet(new_prefix=48))


SPARE = 1e-6  # bytes a FairShare may be short of a frame's cost and still let it go (rounding of rate x time)


@dataclass(eq=False)
class Flow:
    """One sharer of a :class:`FairShare` (a connection within its address, or a /64 within its /48): the virtual
    time at which its last frame is paid for."""

    finish: float = 0.0


@dataclass(eq=False)
class Ticket:
    """A frame waiting in a :class:`FairShare`: whose it is, what it costs, and the virtual time at which it is
    paid for."""

    flow: Flow
    cost: int
    finish: float


class FairShare:
    """A budget of bytes, ``rate`` a second and ``burst`` at once, shared fairly by its flows.

    While frames wait for it, the budget is shared as a fluid: every flow with a frame waiting is paid the same
    bytes a second (``rate`` over their number), one frame after another, and a frame goes once it is paid for
    (generalized processor sharing, Parekh and Gallager 1993, kept exactly with a virtual clock: V rises by the
    bytes each waiting flow was paid; a frame of ``size`` bytes is paid for at ``max(V, its flow's last) +
    size``). So flows that keep frames waiting get equal bytes a second, however large or many their frames; a
    small frame goes after only its size times the number of flows waiting (a player's move of 300 bytes beside 63
    connections of a neighbour: 19 KiB of the budget, 9 ms at 2 MiB a second), never after a neighbour's whole
    frames; and no frame waits for ever. A flow that waited for nothing is not charged for it later. A frame larger
    than ``burst`` costs ``burst``. Pure: the caller gives the time and wakes the frames :meth:`grant` lets go."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.last_refill = float(burst), now
        self.virtual = 0.0
        self.waiting: list[Ticket] = []
        self.paid: list[Ticket] = []  # paid for, not handed out by grant yet

    def refill(self, now: float) -> None:
        elapsed, self.last_refill = now - self.last_refill, now
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)

    def full(self, now: float) -> bool:
        """Nothing waits and the whole burst is there again."""
        self.refill(now)
        return not self.waiting and not self.paid and self.tokens >= self.burst

    def ask(self, flow: Flow, size: int, now: float) -> Ticket | None:
        """None if a frame of ``size`` bytes from ``flow`` may go now (nothing waits and the budget holds it: it is
        spent); else the frame's ticket, now waiting for :meth:`grant`."""
        cost = min(size, self.burst)
        self._pay(now)
        if not self.waiting and not self.paid and self.tokens >= cost:
            self.tokens -= cost
            return None
        flow.finish = max(self.virtual, flow.finish) + cost
        ticket = Ticket(flow, cost, flow.finish)
        self.waiting.append(ticket)
        return ticket

    def grant(self, now: float) -> tuple[list[Ticket], float]:
        """The waiting frames that go now, in the order they were paid for, and the seconds until the next one is
        (infinite when none waits)."""
        delay = self._pay(now)
        granted, self.paid = self.paid, []
        return granted, delay

    def _pay(self, now: float) -> float:
        """Share what the budget holds among the waiting flows up to ``now``, moving the frames paid for to
        ``paid``; the seconds until the next is paid for."""
        self.refill(now)
        while self.waiting:
            flows = len({id(ticket.flow) for ticket in self.waiting})
            first = min(self.waiting, key=lambda ticket: ticket.finish)
            owed = max(0.0, first.finish - self.virtual) * flows
            if owed - self.tokens > SPARE:
                self.virtual += self.tokens / flows
                self.tokens = 0.0
                return (first.finish - self.virtual) * flows / self.rate
            self.tokens -= owed
            self.virtual = max(self.virtual, first.finish)
            self.waiting.remove(first)
            self.paid.append(first)
        return math.inf

    def withdraw(self, ticket: Ticket) -> None:
        """The frame is gone with its connection: it waits no more, and its flow is not charged for it."""
        if ticket in self.waiting:
            self.waiting.remove(ticket)
            ticket.flow.finish -= ticket.cost
        elif ticket in self.paid:
            self.paid.remove(ticket)


class Gate:
    """A :class:`FairShare` in the event loop: a frame that must wait sleeps until its turn, or until its
    connection closes."""

    def __init__(self, share: FairShare) -> None:
        self.share = share
        self.sleeping: dict[Ticket, asyncio.Future[None]] = {}
        self.timer: asyncio.TimerHandle | None = None

    async def take(self, flow: Flow, size: int, connection: ServerConnection) -> bool:
        """Spend ``size`` bytes for ``flow``, waiting for its turn first if frames wait or the budget is short.
        False if the connection closed meanwhile (the frame goes with it)."""
        ticket = self.share.ask(flow, size, time.monotonic())
        if ticket is None:
            return True
        turn = self.sleeping[ticket] = asyncio.get_running_loop().create_future()
        self._wake()
        closed = asyncio.ensure_future(connection.wait_closed())
        try:
            await asyncio.wait((turn, closed), return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
            if not turn.done():  # closed (or the relay shut down): its place goes to the others
                self.share.withdraw(ticket)
                del self.sleeping[ticket]
                self._wake()
        return turn.done() and connection.state is not State.CLOSED

    def _wake(self) -> None:
        """Let go the frames whose turn it is, and sleep until the next one's."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        granted, delay = self.share.grant(time.monotonic())
        for ticket in granted:
            self.sleeping.pop(ticket).set_result(None)
        if self.share.waiting:
            self.timer = asyncio.get_running_loop().call_later(delay, self._wake)


@dataclass
class Tokens:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` at once."""

    rate: float
    burst: float
    tokens: float
    last_refill: float

    @classmethod
    def full(cls, rate: float, burst: float, now: float) -> Tokens:
        return cls(rate, burst, float(burst), now)

    def refill(self, now: float) -> None:
        elapsed, self.last_refill = now - self.last_refill, now
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)

    def take(self, now: float) -> bool:
        """Spend one token, if there is one."""
        self.refill(now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def filled(self, now: float) -> bool:
        """The whole burst is there again."""
        self.refill(now)
        return self.tokens >= self.burst


@dataclass(eq=False)
class Address:
    """What all the connections from one address share (or all the /64s of one IPv6 /48, its ``block``): their
    count, a budget of bytes for their frames shared fairly among them, one of lobby pages and one of watcher
    joins, and the tally of the messages they are receiving."""

    key: str
    bytes: Gate
    pages: Tokens  # lobby pages
    watches: Tokens  # watcher joins (each one's arrival and departure append an event)
    block: Address | None = None  # the /48 whose budgets it shares as well (an IPv6 /64's)
    flow: Flow = field(default_factory=Flow)  # its place in its block's byte budget
    connections: int = 0
    unfinished: int = 0  # bytes of messages its connections are receiving, not yet whole
    receiving: set[ReadBudget] = field(default_factory=set)  # its connections, to find the one to drop

    @classmethod
    def make(cls, key: str, limits: Limits, now: float, scale: int = 1, block: Address | None = None) -> Address:
        """An address's budgets, full; ``scale`` times an address's for a /48."""
        share = FairShare(limits.address_byte_rate * scale, limits.address_byte_burst * scale, now)
        pages = Tokens.full(limits.address_list_rate * scale, limits.address_list_burst * scale, now)
        watches = Tokens.full(limits.address_watch_rate * scale, limits.address_watch_burst * scale, now)
        return cls(key, Gate(share), pages, watches, block)

    @property
    def party(self) -> Party:
        """Who its connections' posts are charged to in a memory store: its key and its /48's."""
        return Party(self.key, None if self.block is None else self.block.key)

    def forgettable(self, now: float) -> bool:
        """No connection left and the budgets full again: forgetting it now gives nothing back early."""
        if self.connections or self.unfinished:
            return False
        return self.bytes.share.full(now) and self.pages.filled(now) and self.watches.filled(now)


def catch_up_pause(limits: Limits, connections: int) -> int:
    """Bytes queued to a connection past which its catch-up waits for it to drain: an eighth of ``max_buffer``, or
    half its share of its address's ``address_buffers`` (over the address's ``connections``) if that is less."""
    return min(limits.max_buffer // 8, limits.address_buffers // (2 * max(connections, 1)))


class Holding(NamedTuple):
    """What one connection holds, as the sweep found it: bytes, and whether it did not drain since the last sweep."""

    address: Address
    stalled: bool
    size: int
    connection: ServerConnection


def to_drop(holdings: list[Holding], limits: Limits) -> list[Holding]:
    """The holdings the sweep drops, in order, so that each address's connections together hold at most
    ``address_buffers`` and all of them ``max_buffers``.

    Past ``max_buffers`` the party holding the most gives up first (an address, or all the /64s of one /48
    together), so that many small holdings of one party do not make another's one larger holding the first to
    go. Within a party, a connection holding more than its share of its address (``address_buffers`` over the
    address's connections) goes first, then one that did not drain since the last sweep, larger first: a
    connection within its share is never dropped for what its neighbours hold (were all within theirs, the
    address would be within its budget)."""
    def share(address: Address) -> float:
        return limits.address_buffers / max(address.connections, 1)

    parties: dict[Address, list[Holding]] = {}
    by_address: dict[Address, int] = {}
    for holding in holdings:
        parties.setdefault(holding.address.block or holding.address, []).append(holding)
        by_address[holding.address] = by_address.get(holding.address, 0) + holding.size
    total = sum(by_address.values())
    dropped = []
    for held in sorted(parties.values(), key=lambda held: sum(h.size for h in held), reverse=True):
        for holding in sorted(held, key=lambda h: (h.size > share(h.address), h.stalled, h.size), reverse=True):
            if by_address[holding.address] <= limits.address_buffers and total <= limits.max_buffers:
                continue
            dropped.append(holding)
            by_address[holding.address] -= holding.size
            total -= holding.size
    return dropped


@dataclass(eq=False)
class Strangers:
    """What all of a relay's connections whose join is not answered yet are receiving: the bytes of their messages
    not yet whole, and who holds them, to find the one to drop (:meth:`ReadBudget._count_unfinished`)."""

    unfinished: int = 0
    receiving: set[ReadBudget] = field(default_factory=set)


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

    def __init__(self, *args: Any, limits: Limits, strangers: Strangers | None, **kwargs: Any) -> None:
        """websockets' arguments, and the relay's ``limits`` and tally of its ``strangers`` (None: not counted)."""
        super().__init__(*args, **kwargs)
        self.read_rate, self.read_burst = limits.read_rate, float(limits.read_burst)
        self.address_buffers, self.unjoined_buffers = limits.address_buffers, limits.unjoined_buffers
        self.address: Address | None = None  # set by the relay's handler (attach)
        self.unfinished = 0  # bytes of the message being received, as last counted
        self.fragments = 0  # frames of that message received so far
        self.grew_at = 0.0  # when its unfinished message last grew (time.monotonic())
        self.burst, self.slice = float(limits.unjoined_burst), UNJOINED_SLICE  # until joined() is called
        self.joined_size = self.protocol.max_message_size  # Relay.serve's max_size (None: no limit)
        self.protocol.max_message_size = min(UNJOINED_FRAME, self.joined_size or UNJOINED_FRAME)
        self.unjoined = strangers  # counted among the strangers until joined()
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
