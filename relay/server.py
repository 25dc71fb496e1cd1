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
  their frames together take ``address_byte_rate`` bytes a second, shared
  fairly among them (past it a frame waits for its turn: it is never refused
  for what a neighbour spent, nor held behind a neighbour's backlog; the
  budget outlives the address's connections, so reconnecting does not refill
  it); their write buffers and unfinished messages together stay within
  ``address_buffers`` (a connection over its share of it is dropped first);
  and its lobby pages within ``address_list_rate`` a second. The /64s of one
  IPv6 /48 share ``block_share`` times those budgets as well. A memory
  ledger charges each post, join and watcher's arrival to its address and
  its /48 (``Address.party``) and refuses one past their share of its
  store. With
  ``max_per_address`` 0 every connection is an address of its own (behind a
  reverse proxy).
* A connection whose seat is claimed again, on this node or another, is
  closed with code 4000 as soon as this node sees the newer ``join``.
* A join with an ``id`` (protocol 1.4) is taken exactly once: sent again under it, through any node, it takes back
  the seat the first one took (the ledger finds it by the token derived from the id) instead of a second one.
* A watcher's join (``"watch": true``, protocol 1.3) takes no seat: the connection reads the room like a player's
  and its posts are refused with ``read_only``; its arrival and departure are ``watch`` events counting the room's
  watchers, within ``room_watchers`` a room and ``address_watch_rate`` joins a second per address.
* A ``list`` is answered with one page of the lobby (:mod:`relay.lobby`): rooms created public that are
  open, and only what they chose to show; any connection may ask, joined or not, within its rate limit.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import logging
import re
import ssl
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, cast

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from . import lobby
from .budgets import (SAMPLED, Address, Flow, Holding, Limits, ReadBudget, Strangers, address_of, block_of,
                      catch_up_pause, held_bytes, to_drop)
from .ledger import (JOIN_ID_PATTERN, MAX_SEATS, POLICY, SEAT_TAKEN_OVER, WATCHER, Entry, Follower, Ledger, Refused,
                     amount, to_json)
from .memory import MemoryReturn
from .memory_ledger import MemoryLedger

log = logging.getLogger("discard.relay")

ROOM_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
POST_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_DEPTH = 64  # nesting levels of arrays and objects a frame may have
TOO_DEEP = f"frame nests arrays and objects deeper than {MAX_DEPTH} levels"
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: only valid in pairs


@dataclass(eq=False)
class Client:
    """One websocket connection and the seat it holds."""

    connection: ServerConnection
    address: Address
    tokens: float
    last_refill: float
    room: str | None = None  # the room of the seat this connection claimed (or watches)
    seat: int = -1
    watcher: str | None = None  # a watcher's name (protocol 1.3): it holds no seat
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
    flow: Flow = field(default_factory=Flow)  # its place in its address's byte budget
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
        self._count(address, +1)
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
            self._count(address, -1)
            if client.room is not None:
                await self._leave(client)

    def _count(self, address: Address, change: int) -> None:
        """A connection of ``address`` opened (+1) or closed (-1): counted against it and its /48; one with no
        connection left waits to be forgotten (the sweep forgets it once its budgets are full again)."""
        for party in (address, address.block):
            if party is not None:
                party.connections += change
                if not party.connections:
                    self._idle.add(party)

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
        block_key = None if key is None else block_of(key)
        block = None if block_key is None else self.addresses.get(block_key)
        for party, most, what in ((address, self.limits.max_per_address, "your address"),
                                  (block, self.limits.max_per_address * self.limits.block_share, "your /48")):
            if party is not None and party.connections >= most:
                SAMPLED.info("refused connections", "refused connection: %d connections from %s already",
                             party.connections, party.key)
                return connection.respond(HTTPStatus.TOO_MANY_REQUESTS,
                                          f"{party.connections} connections from {what} already\n")
        return None

    def _address_key(self, connection: ServerConnection) -> str | None:
        """The key of the connection's shared :class:`Address`, or None when it has none to share."""
        return address_of(connection.remote_address) if self.limits.max_per_address else None

    def _address(self, connection: ServerConnection, now: float) -> Address:
        """The :class:`Address` this connection counts against (made at its first connection, or again once
        forgotten), with the /48 it shares budgets with for an IPv6 address; with ``max_per_address`` 0 (behind a
        proxy), or no IP address to go by, one of its own."""
        key = self._address_key(connection) or f"connection {next(self._connection_numbers)}"
        block_key = block_of(key)
        block = None
        if block_key is not None:
            block = self.addresses.get(block_key)
            if block is None:
                block = self.addresses[block_key] = Address.make(block_key, self.limits, now, self.limits.block_share)
            self._idle.discard(block)
        address = self.addresses.get(key)
        if address is None:
            address = self.addresses[key] = Address.make(key, self.limits, now, block=block)
        if address.block is not block:  # its /48 was forgotten and made again meanwhile: a place in the new one
            address.block, address.flow = block, Flow()
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
                raise Refused("too_large", f"frame is over the {amount(self.limits.max_frame)} limit")
            if not client.take_bytes(size):
                raise Refused("rate_limited", f"more than {amount(self.limits.byte_rate)} a second; "
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
        """Take ``size`` bytes from the budget of the frame's address (and of its /48, for IPv6), waiting first for
        the frame's turn while frames wait or the budget is short: the address's connections share it fairly
        (:class:`~relay.budgets.FairShare`), so a neighbour sending more cannot make this connection's frames wait
        behind its own. The frame is not refused: whoever sent it may share the address with whoever spent the
        budget, and a refused post leaves a gap in its seat's counters. While it waits the sweep counts it as held
        by its connection. False if the connection closed meanwhile (the frame goes with it)."""
        address = client.address
        client.waiting = size
        try:
            return (await address.bytes.take(client.flow, size, client.connection)
                    and (address.block is None or await address.block.bytes.take(address.flow, size, client.connection)))
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
            holds = "watches" if client.watcher is not None else f"holds seat {client.seat} in"
            raise Refused("already_joined", f"this connection already {holds} room {client.room}")
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
        watch, join_id = request.get("watch"), request.get("id")
        if join_id is not None and (not isinstance(join_id, str) or not JOIN_ID_PATTERN.fullmatch(join_id)):
            raise Refused("bad_request", '"id" must be 22 to 64 characters from A-Z a-z 0-9 _ -, drawn at random')
        if join_id is not None and token is not None:
            raise Refused("bad_request", 'a join has a "token" or an "id", not both: resume with the token')
        if watch not in (None, False, True):
            raise Refused("bad_request", '"watch" must be true (a watcher\'s join), false or null')
        if watch and (token is not None or seats is not None or public is not None or join_id is not None):
            raise Refused("bad_request", 'a watcher\'s join has no "token", "seats", "public" or "id": it takes no seat')
        if room not in self.channels and len(self.channels) >= self.limits.max_rooms:
            raise Refused("relay_full", "the relay holds its maximum number of rooms; try again later")
        if watch:
            await self._watch(client, room, name, after)
            return

        claim = await self.ledger.claim(room, name, token, seats, public, join_id, party=client.address.party)
        client.room, client.seat, client.epoch, client.joined_at = room, claim.seat, claim.epoch, claim.seq
        client.cursor = min(after, claim.seq)
        channel = self._enter(client, room, claim.seq)
        echo = {} if join_id is None else {"id": join_id}  # 1.4: this relay took the id into account
        self._send(client, to_json({"type": "welcome", "room": room, "seat": claim.seat, "token": claim.token,
                                    "head": claim.seq, "seats": claim.seats, **self._stated(), **echo}))
        log.info("join room=%s seat=%d name=%r resumed=%s", room, claim.seat, name, token is not None)
        await self._catch_up(client, channel)

    async def _watch(self, client: Client, room: str, name: str, after: int) -> None:
        """A watcher's join (protocol 1.3): no seat; the whole ledger, then live, and nothing it may post. Within
        its address's budget of watcher joins, and the room's ``room_watchers``."""
        now, address = time.monotonic(), client.address
        if not address.watches.take(now) or (address.block is not None and not address.block.watches.take(now)):
            raise Refused("rate_limited", f"more than {self.limits.address_watch_rate:g} watcher joins a second "
                                          "from your address; slow down and send this one again")
        watch = await self.ledger.watch(room, name, self.limits.room_watchers, client.address.party)
        client.room, client.seat, client.joined_at, client.watcher = room, WATCHER, watch.seq, name
        client.cursor = min(after, watch.seq)
        channel = self._enter(client, room, watch.seq)
        self._send(client, to_json({"type": "welcome", "room": room, "seat": None, "token": None, "head": watch.seq,
                                    "seats": watch.seats, "watch": True, "watching": watch.watching,
                                    "watchers": self.limits.room_watchers, **self._stated()}))
        log.info("watch room=%s name=%r watching=%d", room, name, watch.watching)
        await self._catch_up(client, channel)

    def _stated(self) -> dict[str, float]:
        """A connection's limits, as its welcome states them."""
        return {"rate": self.limits.rate, "burst": self.limits.burst, "byte_rate": self.limits.byte_rate,
                "byte_burst": self.limits.byte_burst}

    def _enter(self, client: Client, room: str, seq: int) -> Channel:
        """Make ``client`` a member of the room's channel on this node (its follower starts after ``seq``)."""
        channel = self.channels.get(room)
        if channel is None:
            channel = self.channels[room] = Channel(room, position=seq)
            channel.follower = self.ledger.follow(room, seq, lambda entries: self._deliver(channel, entries))
        channel.members.add(client)
        client.channel = channel
        if isinstance(client.connection, ReadBudget):
            client.connection.joined()
        return channel

    async def _catch_up(self, client: Client, channel: Channel) -> None:
        """Send the stored events after the client's cursor until it reaches the follower, then go live. The
        backlog goes at the reader's pace: past an eighth of ``max_buffer`` queued, or half the connection's share
        of its address's ``address_buffers`` if that is less, wait until it has drained (a reader that has not
        within ``drain_timeout`` is dropped), so that a room larger than the buffer (or many resumes at once) is
        not queued whole in memory, and a resume stays within its share of its address (where the sweep does not
        drop it for what its neighbours hold)."""
        transport = client.connection.transport
        pause = catch_up_pause(self.limits, client.address.connections)
        while client.channel is channel and not client.live:
            entries = await self.ledger.read(channel.room, client.cursor)
            for entry in entries:
                if client.channel is not channel or transport.is_closing():  # taken over or dropped meanwhile
                    return
                self._send_entries(client, [entry])
                if transport.get_write_buffer_size() > pause:
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
        after, limit, under_way = lobby.page_request(request)
        now, address = time.monotonic(), client.address
        if not address.pages.take(now) or (address.block is not None and not address.block.pages.take(now)):
            raise Refused("rate_limited", f"more than {self.limits.address_list_rate:g} lobby pages a second from "
                                          "your address; slow down and send this one again")
        listings, more = await self.ledger.lobby_page(after, limit, under_way)
        self._send(client, lobby.rooms_frame(listings, more, int(time.time() * 1000), under_way))

    async def _post(self, client: Client, request: dict) -> None:
        if client.channel is None or client.room is None:
            raise Refused("not_joined", 'join a room before posting: send {"type": "join", ...} first')
        if client.watcher is not None:
            raise Refused("read_only", f"you are watching room {client.room}: a watcher cannot post, only its "
                                       "players can")
        body, post_id = request.get("body"), request.get("id")
        if not isinstance(body, dict):
            raise Refused("bad_request", '"body" must be a JSON object')
        if post_id is not None and (not isinstance(post_id, str) or not POST_ID_PATTERN.fullmatch(post_id)):
            raise Refused("bad_request", '"id" must be 1 to 64 characters from A-Z a-z 0-9 _ -')
        seq = await self.ledger.append(client.room, client.seat, client.epoch, to_json(body), post_id,
                                       client.address.party)
        if post_id is not None:  # the first append's seq, for a post sent again: exactly once
            self._send(client, to_json({"type": "posted", "id": post_id, "seq": seq}))

    async def _leave(self, client: Client) -> None:
        """The connection has ended: free its seat, which appends its ``leave``."""
        room, seat, epoch = client.room, client.seat, client.epoch
        assert room is not None
        self._detach(client)
        if client.watcher is not None:
            try:
                await self.ledger.unwatch(room, client.watcher)
            except Refused as refused:  # the store is down: the count stays one too high until the room goes
                log.warning("watcher's leave room=%s not recorded: %s", room, refused.message)
            return
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
        SAMPLED.info("dropped clients", "dropping a client that holds %s (queued to it, or unread from it)",
                     amount(held_bytes(connection)))
        connection.transport.abort()

    async def sweeper(self) -> None:
        """Every ``sweep`` seconds: drop the connections that hold more than ``max_buffer`` (their write buffer,
        whatever filled it: websockets writes pongs by itself; and what they sent that is not handled yet, such as
        an unfinished message, a frame waiting for its address's budget); then those :func:`~relay.budgets.to_drop`
        picks while one address's connections hold more than ``address_buffers`` or all of them more than
        ``max_buffers``; forget the addresses with no connection left whose budget is full again; and hand what
        the allocator holds free back to the system."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            holdings = []
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
                holdings.append(Holding(client.address, stalled, size, client.connection))
            for holding in to_drop(holdings, self.limits):
                self._drop(holding.connection)
            now = time.monotonic()
            for address in [address for address in self._idle if address.forgettable(now)]:
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
        """What websockets makes each connection with: a :class:`ReadBudget` held to this relay's limits and
        strangers' tally (websockets only calls it, with a connection's arguments)."""
        return cast(type[ServerConnection], functools.partial(ReadBudget, limits=self.limits,
                                                               strangers=self.strangers))

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
