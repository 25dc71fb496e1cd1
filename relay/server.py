"""The discard relay: rooms of two seats, each an append-only ordered ledger.

Guarantees (see ``shared/relay-protocol.md`` and ``docs/relay.md``):

* Every frame is handled synchronously, start to finish, on the event loop, so
  appending an event, persisting it and writing it to every connection of the
  room happen as one step: all connections see one total order.
* Writes never wait for a client. :func:`websockets.asyncio.server.broadcast`
  puts the frame in each connection's buffer; a connection whose buffer grows
  past ``max_buffer`` is dropped (its owner can resume with its token) instead
  of slowing its room down.
* With a durable store, an event is on disk before any client can see it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass, field
from http import HTTPStatus

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .store import MemoryStore, StoredRoom

log = logging.getLogger("discard.relay")

ROOM_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
SEAT_TAKEN_OVER = 4000  # close code for a connection whose seat was resumed elsewhere
MAX_DEPTH = 64  # nesting levels of arrays and objects a frame may have
TOO_DEEP = f"frame nests arrays and objects deeper than {MAX_DEPTH} levels"
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: only valid in pairs


@dataclass
class Limits:
    """Everything one client may consume. Defaults never trouble a real game."""

    max_frame: int = 1 << 20  # bytes; larger frames get ``too_large``
    rate: float = 100.0  # frames per second, sustained
    burst: int = 400  # frames allowed at once
    max_rooms: int = 10_000
    max_connections: int = 5_000
    max_buffer: int = 8 << 20  # bytes queued to one slow client before it is dropped
    retention: float = 600.0  # seconds a room outlives its last connection
    ping_interval: float = 20.0
    ping_timeout: float = 20.0


class Refused(Exception):
    """A frame the relay will not act on; becomes an ``error`` frame."""

    def __init__(self, code: str, message: str, close: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.close = close


@dataclass
class Client:
    """One websocket connection and what it has joined."""

    connection: ServerConnection
    tokens: float
    last_refill: float
    room: Room | None = None
    seat: int = -1

    def take_token(self, limits: Limits) -> bool:
        now = time.monotonic()
        self.tokens = min(limits.burst, self.tokens + (now - self.last_refill) * limits.rate)
        self.last_refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class Seat:
    token: str
    name: str
    client: Client | None = None


@dataclass
class Room:
    """A ledger and its two seats. ``frames[i]`` is the event with seq i + 1."""

    name: str
    frames: list[str] = field(default_factory=list)
    seats: dict[int, Seat] = field(default_factory=dict)
    idle_since: float = field(default_factory=time.monotonic)

    @property
    def head(self) -> int:
        return len(self.frames)

    def connections(self) -> list[ServerConnection]:
        return [s.client.connection for s in self.seats.values() if s.client is not None]

    def seat_for_token(self, token: str) -> int | None:
        for number, seat in self.seats.items():
            if secrets.compare_digest(seat.token.encode(), token.encode()):  # str form takes ASCII only
                return number
        return None


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is beyond a double's range")
    return number


DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)  # strict JSON only


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


def frame(**fields: object) -> str:
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)


class Relay:
    """Owns the rooms; ``handler`` is the websockets connection handler."""

    def __init__(self, store: MemoryStore | None = None, limits: Limits | None = None) -> None:
        self.store = store or MemoryStore()
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self.connection_count = 0
        self._background: set[asyncio.Task[None]] = set()
        for name, stored in self.store.load().items():
            self._restore(name, stored)

    # -- start-up -----------------------------------------------------------

    def _restore(self, name: str, stored: StoredRoom) -> None:
        """Rebuild a room from the store; seats connected at the crash get a ``leave``."""
        room = Room(name, frames=stored.frames)
        room.seats = {n: Seat(s.token, s.name) for n, s in stored.seats.items()}
        present: set[int] = set()
        for raw in room.frames:
            event = json.loads(raw)
            if event["kind"] == "join":
                present.add(event["seat"])
            elif event["kind"] == "leave":
                present.discard(event["seat"])
        self.rooms[name] = room
        for seat in sorted(present):
            self._append(room, seat, "leave", None)

    # -- the handler --------------------------------------------------------

    async def handler(self, connection: ServerConnection) -> None:
        """Serve one connection until it closes; every frame is handled atomically."""
        now = time.monotonic()
        client = Client(connection, tokens=float(self.limits.burst), last_refill=now)
        self.connection_count += 1
        try:
            async for message in connection:
                self._handle_frame(client, message)
        except ConnectionClosed:
            pass  # an abrupt close is as final as a clean one
        finally:
            self.connection_count -= 1
            self._disconnect(client)

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer ``GET /healthz`` over plain HTTP and refuse connections beyond the cap."""
        if request.path.split("?")[0] == "/healthz" and "Upgrade" not in request.headers:
            return connection.respond(HTTPStatus.OK, "OK\n")
        if self.connection_count >= self.limits.max_connections:
            log.info("refused connection: relay full (%d connections)", self.connection_count)
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "relay full, try again later\n")
        return None

    def _handle_frame(self, client: Client, message: str | bytes) -> None:
        try:
            if not client.take_token(self.limits):
                raise Refused("rate_limited", "too many frames; slow down and send this one again")
            request = self._parse(message)
            if request["type"] == "join":
                self._join(client, request)
            else:
                self._post(client, request)
        except Refused as refused:
            where = f"room={client.room.name} seat={client.seat}" if client.room else "not joined"
            log.info("refused frame (%s): %s %s", refused.code, where, refused.message)
            self._send(client, frame(type="error", code=refused.code, message=refused.message))
            if refused.close:
                self._spawn(client.connection.close(1008, refused.code))

    def _parse(self, message: str | bytes) -> dict:
        if isinstance(message, bytes):
            raise Refused("bad_request", "binary frames are not accepted; send JSON as a text frame")
        if len(message) > self.limits.max_frame // 4 and len(message.encode()) > self.limits.max_frame:
            raise Refused("too_large", f"frame is over the {self.limits.max_frame}-byte limit")
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
        if request.get("type") not in ("join", "post"):
            raise Refused("bad_request", 'unknown "type"; expected "join" or "post"')
        return request

    # -- join, post, leave ---------------------------------------------------

    def _join(self, client: Client, request: dict) -> None:
        if client.room is not None:
            raise Refused("already_joined", f"this connection already holds seat {client.seat} in room {client.room.name}")
        name, room_name = request.get("name"), request.get("room")
        token, after = request.get("token"), request.get("after")
        after = 0 if after is None else after  # absent or null: from the start
        if not isinstance(room_name, str) or not ROOM_PATTERN.fullmatch(room_name):
            raise Refused("bad_request", '"room" must be 1 to 64 characters from A-Z a-z 0-9 . _ -')
        if not isinstance(name, str) or not 1 <= len(name) <= 32 or not name.isprintable():
            raise Refused("bad_request", '"name" must be 1 to 32 printable characters')
        if token is not None and not isinstance(token, str):
            raise Refused("bad_request", '"token" must be a string or null')
        if type(after) is not int or after < 0:
            raise Refused("bad_request", '"after" must be a whole number, 0 or more')

        room = self.rooms.get(room_name)
        if token is not None:
            seat = room.seat_for_token(token) if room else None
            if seat is None:
                raise Refused("bad_token", f"that token holds no seat in room {room_name}; join without a token", close=True)
            assert room is not None
            old = room.seats[seat].client
            if old is not None:
                self._detach(old)
                self._spawn(old.connection.close(SEAT_TAKEN_OVER, "seat resumed by a newer connection"))
            room.seats[seat].name = name
        else:
            if room is None:
                if len(self.rooms) >= self.limits.max_rooms:
                    raise Refused("relay_full", "the relay holds its maximum number of rooms; try again later")
                room = self.rooms[room_name] = Room(room_name)
            if len(room.seats) >= 2:
                raise Refused("room_full", f"room {room_name} already has two players; pick another room", close=True)
            seat = len(room.seats)
            room.seats[seat] = Seat(secrets.token_urlsafe(24), name)

        entry = room.seats[seat]
        self.store.save_seat(room.name, seat, entry.token, name)
        self._append(room, seat, "join", None)
        entry.client, client.room, client.seat = client, room, seat
        self._send(client, frame(type="welcome", room=room.name, seat=seat, token=entry.token, head=room.head))
        for raw in room.frames[after:]:
            self._send(client, raw)
        log.info("join room=%s seat=%d name=%r resumed=%s", room.name, seat, name, token is not None)

    def _post(self, client: Client, request: dict) -> None:
        if client.room is None:
            raise Refused("not_joined", 'join a room before posting: send {"type": "join", ...} first')
        body = request.get("body")
        if not isinstance(body, dict):
            raise Refused("bad_request", '"body" must be a JSON object')
        self._append(client.room, client.seat, "post", body)

    def _disconnect(self, client: Client) -> None:
        if client.room is not None:
            self._detach(client)

    def _detach(self, client: Client) -> None:
        """Free the client's seat and record the ``leave`` in the ledger."""
        room = client.room
        assert room is not None
        room.seats[client.seat].client = None
        client.room = None
        self._append(room, client.seat, "leave", None)
        if not room.connections():
            room.idle_since = time.monotonic()
        log.info("leave room=%s seat=%d", room.name, client.seat)

    def _append(self, room: Room, seat: int, kind: str, body: dict | None) -> None:
        """Persist, then broadcast: the one way an event enters a ledger."""
        seq = room.head + 1
        raw = frame(type="event", seq=seq, seat=seat, name=room.seats[seat].name, kind=kind, body=body,
                    time=round(time.time(), 3))
        self.store.append(room.name, seq, raw)
        room.frames.append(raw)
        self._write(room.connections(), raw)

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
                log.info("dropping a client that stopped reading (%d bytes queued)", transport.get_write_buffer_size())
                transport.abort()

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- housekeeping -----------------------------------------------------------

    def expire_rooms(self) -> None:
        """Forget rooms that have had no connection for ``retention`` seconds."""
        deadline = time.monotonic() - self.limits.retention
        for name in [n for n, r in self.rooms.items() if not r.connections() and r.idle_since < deadline]:
            del self.rooms[name]
            self.store.drop_room(name)
            log.info("expired room=%s", name)

    async def janitor(self) -> None:
        while True:
            await asyncio.sleep(min(60.0, max(self.limits.retention / 4, 0.05)))
            self.expire_rooms()

    async def serve(self, host: str, port: int) -> Server:
        """Start listening; returns the websockets server (``close()`` ends it with 1001)."""
        server = await serve(
            self.handler,
            host,
            port,
            process_request=self.process_request,
            max_size=4 * self.limits.max_frame,
            compression=None,  # deflate state per connection costs memory and CPU; bodies are mostly hex
            close_timeout=2,  # shutdown waits at most this long for a client's closing handshake
            ping_interval=self.limits.ping_interval,
            ping_timeout=self.limits.ping_timeout,
        )
        self._spawn(self.janitor())
        return server

    def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        self.store.close()
