"""Rooms in Redis, shared by any number of relay nodes (``--store redis://HOST:PORT/DB``).

Layout, per room (one Redis Cluster hash slot per room, thanks to the ``{room}`` hash tag):

* ``discard:{ROOM}:log``, a stream: one entry per event, whose id is ``SEQ-0``, so the
  stream itself is the total order; fields ``s`` seat, ``n`` name (JSON), ``k`` kind,
  ``b`` body (JSON text), ``t`` time.
* ``discard:{ROOM}:seats``, a hash: ``size``, ``count`` (seats given out), ``head`` (last
  seq) and per seat ``e:S`` epoch, ``h:S`` the node holding it (absent when nobody does),
  ``n:S`` name, and ``t:SHA256(TOKEN)`` -> seat (tokens themselves are never stored; a join with an id, protocol
  1.4, derives its token from the id, so the join sent again finds its seat by that hash); ``i:S:ID`` the seq of seat
  S's post of id ID; ``c:ID`` (``SEAT:EPOCH:SEQ``) what the claim of call id ID did, so that one sent again (on a
  Cluster) gets the first run's answer, and one whose answer was lost is undone; and, on a Cluster, ``v:ID``
  (``WATCHING:SEQ``) what a watcher's arrival or departure of call id ID did.

Every change of a room is one Lua script over those two keys, so seq is gapless and
one order holds for all nodes. A public room (protocol 1.2) also has ``pub`` (what it
shows) and ``lk`` (its member of the sorted set ``discard:lobby``, ``MS:ROOM``, all at
score 0 so that it is ordered by listing time); the same scripts add it to that set while
it is open and take it out when it fills or empties. Node liveness: each node renews a lease in the sorted
set ``discard:nodes`` and lists the rooms where it holds seats in
``discard:node:ID:rooms``; any node finding a lease run out appends the ``leave``
events of that node's seats. A room with no seat held expires after the retention
(``PEXPIRE`` on both keys); a claim makes it persistent again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import Any, cast

import redis.asyncio as redis
from redis.exceptions import NoScriptError, RedisClusterException, RedisError

from .ledger import (MAX_SEATS, SEAT_TAKEN_OVER, Claim, Deliver, Entry, Follower, Ledger, Listing, Party, Refused,
                     Unavailable, Watch, bad_token, check_seats, event_frame, join_token, lobby_key, no_room, now_stamp,
                     room_full, to_json, watchers_full)

log = logging.getLogger("discard.relay")

PAGE = 1000  # entries per XRANGE / XREAD reply
BLOCK_MS = 5000  # a follower's blocking XREAD returns empty after this long, and is sent again
NODES = "discard:nodes"
LOBBY = "discard:lobby"  # the open public rooms, members "MS:ROOM" at score 0 (ordered by listing time)
UNDER_WAY = "discard:lobby:under-way"  # the public rooms whose every seat is taken and one held (1.3), the same way
STORE_ERRORS = (RedisError, RedisClusterException)  # what redis-py raises when the store (or a Cluster) fails
COMMAND_CONNECTIONS = 32  # connections for claims, appends and reads (followers have their own)
UNDO_FIRST_DELAY, UNDO_LAST_DELAY = 0.5, 10.0  # seconds between tries to let go of a claim's seat, doubling

ADD = """
local function add(seats, events, seat, name, kind, body, stamp, id)
  local seq = redis.call('HINCRBY', seats, 'head', 1)
  if id and id ~= '' then
    redis.call('XADD', events, seq .. '-0', 's', seat, 'n', name, 'k', kind, 'b', body, 't', stamp, 'i', id)
    redis.call('HSET', seats, 'i:' .. seat .. ':' .. id, seq)
  else
    redis.call('XADD', events, seq .. '-0', 's', seat, 'n', name, 'k', kind, 'b', body, 't', stamp)
  end
  --ring
  return seq
end
"""

# KEYS[3], KEYS[4]: the lobby and the rooms under way (1.3), if the scripts may touch them (one Redis; not a Cluster,
# where each has a slot of its own). Lists a public room in the lobby while it is open (not full, and a seat held),
# and among the rooms under way while it is full and a seat is held. Returns {lobby member ('' if private), open,
# under way}.
RELIST = """
local function relist(seats, lobby, under_way)
  local state = redis.call('HMGET', seats, 'lk', 'size', 'count')
  if not state[1] then return {'', 0, 0} end
  local count, held = tonumber(state[3] or '0'), false
  for s = 0, count - 1 do
    if redis.call('HEXISTS', seats, 'h:' .. s) == 1 then held = true break end
  end
  local full = count >= tonumber(state[2])
  local open, going = (held and not full) and 1 or 0, (held and full) and 1 or 0
  if lobby then
    if open == 1 then redis.call('ZADD', lobby, 0, state[1]) else redis.call('ZREM', lobby, state[1]) end
    if going == 1 then redis.call('ZADD', under_way, 0, state[1]) else redis.call('ZREM', under_way, state[1]) end
  end
  return {state[1], open, going}
end
"""

# ARGV: token hash ('' for a new seat), new token's hash, name (JSON), seats wanted ('' any), node, time,
# public (JSON, '' for a private room), its lobby member, call id ('' for none: a claim sent again under the same id
# takes nothing more and returns the first run's seat, epoch and seq), and '1' for a join with an id (protocol 1.4:
# the token's hash given in both first arguments; a seat of that token is taken back, else a new one gets it)
CLAIM = ADD + RELIST + """
local seats, events = KEYS[1], KEYS[2]
if ARGV[9] ~= '' then
  local first = redis.call('HGET', seats, 'c:' .. ARGV[9])
  if first then
    local seat, epoch, seq = string.match(first, '^(%d+):(%d+):(%d+)$')
    local listed = relist(seats, KEYS[3], KEYS[4])
    return {'ok', tonumber(seat), tonumber(epoch), tonumber(seq), tonumber(redis.call('HGET', seats, 'size')),
            listed[1], listed[2], listed[3]}
  end
end
local size = tonumber(redis.call('HGET', seats, 'size'))
local seat = false
if ARGV[1] ~= '' and size then seat = redis.call('HGET', seats, 't:' .. ARGV[1]) end
if seat then
  if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= size then return {'seats', size} end
elseif ARGV[1] ~= '' and ARGV[10] == '' then
  return {'bad_token', size or 0}
else
  if not size then
    size = tonumber(ARGV[4] ~= '' and ARGV[4] or '2')
    redis.call('HSET', seats, 'size', size)
    if ARGV[7] ~= '' then redis.call('HSET', seats, 'pub', ARGV[7], 'lk', ARGV[8]) end
  elseif ARGV[4] ~= '' and tonumber(ARGV[4]) ~= size then
    return {'seats', size}
  end
  local count = tonumber(redis.call('HGET', seats, 'count') or '0')
  if count >= size then return {'room_full', size} end
  seat = count
  redis.call('HSET', seats, 'count', count + 1, 't:' .. ARGV[2], seat)
end
local epoch = redis.call('HINCRBY', seats, 'e:' .. seat, 1)
if redis.call('HEXISTS', seats, 'h:' .. seat) == 1 then
  add(seats, events, seat, redis.call('HGET', seats, 'n:' .. seat), 'leave', 'null', ARGV[6])
end
redis.call('HSET', seats, 'n:' .. seat, ARGV[3], 'h:' .. seat, ARGV[5])
local seq = add(seats, events, seat, ARGV[3], 'join', 'null', ARGV[6])
if ARGV[9] ~= '' then redis.call('HSET', seats, 'c:' .. ARGV[9], seat .. ':' .. epoch .. ':' .. seq) end
redis.call('PERSIST', seats)
redis.call('PERSIST', events)
local listed = relist(seats, KEYS[3], KEYS[4])
return {'ok', tonumber(seat), epoch, seq, size, listed[1], listed[2], listed[3]}
"""

# ARGV: seat, epoch, node, body (JSON), time, post id ('' for none). Returns the seq (the first one's, for a post id
# already appended: exactly once, whichever node appended it; its id is then written again, so that --wait-replicas'
# WAIT waits for a replica to hold it too), -1 (seat taken over) or -2 (released).
APPEND = ADD + """
local state = redis.call('HMGET', KEYS[1], 'e:' .. ARGV[1], 'h:' .. ARGV[1], 'n:' .. ARGV[1])
if state[1] ~= ARGV[2] then return -1 end
if state[2] ~= ARGV[3] then return -2 end
if ARGV[6] ~= '' then
  local first = redis.call('HGET', KEYS[1], 'i:' .. ARGV[1] .. ':' .. ARGV[6])
  if first then  -- written again, unchanged: a WAIT after this call then covers the post it found (on a promoted
    redis.call('HSET', KEYS[1], 'i:' .. ARGV[1] .. ':' .. ARGV[6], first)  -- replica, say), whichever Redis
    return tonumber(first)  -- counts only a connection's own writes for WAIT
  end
end
return add(KEYS[1], KEYS[2], ARGV[1], state[3], 'post', ARGV[4], ARGV[5], ARGV[6])
"""

# ARGV: node, seat ('' for every seat the node holds), epoch, time, retention in ms. Returns {the leaves added,
# lobby member, open, under way}.
RELEASE = ADD + RELIST + """
local seats, events = KEYS[1], KEYS[2]
local count = tonumber(redis.call('HGET', seats, 'count') or '0')
local anyone, left = false, 0
for s = 0, count - 1 do
  local state = redis.call('HMGET', seats, 'h:' .. s, 'e:' .. s, 'n:' .. s)
  if state[1] == ARGV[1] and (ARGV[2] == '' or (tostring(s) == ARGV[2] and state[2] == ARGV[3])) then
    redis.call('HDEL', seats, 'h:' .. s)
    add(seats, events, s, state[3], 'leave', 'null', ARGV[4])
    left = left + 1
  elseif state[1] then
    anyone = true
  end
end
if count > 0 and not anyone then
  redis.call('PEXPIRE', seats, ARGV[5])
  redis.call('PEXPIRE', events, ARGV[5])
end
local listed = relist(seats, KEYS[3], KEYS[4])
return {left, listed[1], listed[2], listed[3]}
"""

# A watcher arrives or leaves (protocol 1.3). ARGV: change ('1' arriving, '-1' leaving, 'all' every watcher of
# the node, whose lease ran out), name (JSON), node, time, the room's limit, call id ('' for none: a change sent
# again under the same id counts nothing more and returns the first run's answer). The hash counts the room's
# watchers (``watching``) and each node's (``w:NODE``), so that a dead node's are counted out. Returns {outcome,
# watchers now, seq of the watch event (0: none), size}.
WATCH = ADD + """
local seats, events = KEYS[1], KEYS[2]
local size = redis.call('HGET', seats, 'size')
if not size then return {'no_room', 0, 0, 0} end
if ARGV[6] ~= '' then
  local first = redis.call('HGET', seats, 'v:' .. ARGV[6])
  if first then
    local watched, seq = string.match(first, '^(%d+):(%d+)$')
    return {'ok', tonumber(watched), tonumber(seq), tonumber(size)}
  end
end
local watching = tonumber(redis.call('HGET', seats, 'watching') or '0')
local mine = tonumber(redis.call('HGET', seats, 'w:' .. ARGV[3]) or '0')
local change = ARGV[1] == 'all' and -mine or tonumber(ARGV[1])
if change > 0 and watching >= tonumber(ARGV[5]) then return {'full', watching, 0, tonumber(size)} end
if change < 0 then change = math.max(change, -mine) end
if change == 0 then return {'ok', watching, 0, tonumber(size)} end
watching = redis.call('HINCRBY', seats, 'watching', change)
if redis.call('HINCRBY', seats, 'w:' .. ARGV[3], change) == 0 then redis.call('HDEL', seats, 'w:' .. ARGV[3]) end
local seq = add(seats, events, -1, ARGV[2], 'watch', '{"watching":' .. watching .. '}', ARGV[4])
if ARGV[6] ~= '' then redis.call('HSET', seats, 'v:' .. ARGV[6], watching .. ':' .. seq) end
return {'ok', watching, seq, tonumber(size)}
"""


def keys(room: str) -> list[str]:
    return [f"discard:{{{room}}}:seats", f"discard:{{{room}}}:log"]


def with_lobby(room: str) -> list[str]:
    """A room's keys and the lobby's, for the scripts that may list or unlist it (cross-slot keys for Cluster)."""
    return [*keys(room), LOBBY, UNDER_WAY]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def describe(error: BaseException) -> str:
    return str(error) or type(error).__name__


def entries_of(records: list[tuple[str, dict[str, str]]]) -> list[Entry]:
    out = []
    for entry_id, f in records:
        seq, seat = int(entry_id.split("-", 1)[0]), int(f["s"])
        out.append(Entry(seq, seat, f["k"], event_frame(seq, seat, f["n"], f["k"], f["b"], f["t"], f.get("i"))))
    return out


class NotYetSafe(RedisError):
    """An append that ran, which fewer replicas than ``--wait-replicas`` acknowledged in time: not answered."""


def answer(done: asyncio.Future[int], reply: object) -> None:
    """Answer an append's caller: its seq, or the store's error as unavailable."""
    if done.done():
        return
    if isinstance(reply, BaseException):
        done.set_exception(Unavailable(describe(reply)))
    else:
        done.set_result(int(cast(int, reply)))


def bulk(value: str) -> bytes:
    """One RESP bulk string, as a command argument is sent."""
    data = value.encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


class RedisFollower(Follower):
    """One room followed by this node: its position, fed by the node's :class:`StreamReader`."""

    def __init__(self, reader: StreamReader, room: str, after: int, deliver: Deliver) -> None:
        self.reader, self.stream, self.deliver = reader, keys(room)[1], deliver
        self.packed_stream = bulk(self.stream)
        self.position, self.packed_id = after, bulk(f"{after}-0")

    def receive(self, records: list[list]) -> None:
        entries = [e for e in entries_of([(eid, dict(zip(f[::2], f[1::2]))) for eid, f in records])
                   if e.seq > self.position]
        if entries:
            self.position = entries[-1].seq
            self.packed_id = bulk(f"{self.position}-0")
            self.deliver(entries)

    def stop(self) -> None:
        self.reader.remove(self)


class StreamReader:
    """Every room this node follows, read with one blocking ``XREAD`` over all their streams.

    One command (and one connection) for all rooms: under load each reply carries the new
    entries of many rooms at once. A room starts being read at once: adding it appends to
    this node's wake-up stream, which the blocked ``XREAD`` also waits on. If Redis goes
    away, reading resumes from each room's position: nothing is skipped or repeated.

    The command names every followed stream each time, so it is packed here from pieces
    kept per room (redis-py would encode thousands of arguments anew per call).
    """

    HEAD = b"".join(bulk(word) for word in ("XREAD", "COUNT", str(PAGE), "BLOCK", str(BLOCK_MS), "STREAMS"))

    def __init__(self, ledger: RedisLedger) -> None:
        self.ledger = ledger
        self.wake = f"discard:node:{ledger.node}:wake"
        self.woken = "0-0"  # last wake-up entry seen
        self.followers: dict[str, RedisFollower] = {}
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def add(self, follower: RedisFollower) -> None:
        self.followers[follower.stream] = follower
        self.changed.set()
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())
            self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:  # never expected: say so loudly
            log.error("this node stopped reading its rooms", exc_info=task.exception())

    def remove(self, follower: RedisFollower) -> None:
        if self.followers.get(follower.stream) is follower:
            del self.followers[follower.stream]

    def command(self, followers: list[RedisFollower]) -> bytes:
        return b"".join([b"*%d\r\n" % (6 + 2 * (len(followers) + 1)), self.HEAD, bulk(self.wake),
                         *[f.packed_stream for f in followers], bulk(self.woken), *[f.packed_id for f in followers]])

    async def _run(self) -> None:
        delay = 0.1
        await self.ledger.reader.initialize()  # makes its one connection (connected on first use)
        connection = self.ledger.reader.connection
        assert connection is not None
        while True:
            if not self.followers:
                self.changed.clear()
                await self.changed.wait()
            self.changed.clear()
            try:
                await connection.send_packed_command(self.command(list(self.followers.values())))
                reply = await connection.read_response()
            except STORE_ERRORS as error:
                await connection.disconnect()  # the next command connects afresh
                log.warning("reading %d rooms: %s; retrying in %.1fs", len(self.followers), describe(error), delay)
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
                continue
            delay = 0.1
            for stream, records in (reply.items() if isinstance(reply, dict) else reply or ()):  # RESP3 or 2
                if stream == self.wake:
                    self.woken = records[-1][0]
                elif (follower := self.followers.get(stream)) is not None:
                    follower.receive(records)

    async def wake_up(self) -> None:
        """Make the blocked XREAD return, so that it is sent again with the rooms added since."""
        if self.changed.is_set():
            try:
                await self.ledger.client.xadd(self.wake, {"w": "1"}, maxlen=10, approximate=True)
            except STORE_ERRORS as error:
                log.warning("cannot wake this node's reader: %s", describe(error))

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class RedisLedger(Ledger):
    """Rooms in Redis; any number of nodes may serve the same rooms at once.

    With ``replicas`` > 0, a post is acknowledged only once ``WAIT replicas wait_ms`` says that many replicas have
    it; if they do not within ``wait_ms``, the append is refused as ``unavailable`` (it may still be in the
    ledger: the client's resume with the same post id returns its seq, exactly once).
    """

    SCRIPTS = (CLAIM, APPEND, RELEASE, WATCH)

    def __init__(self, url: str, retention: float = 600.0, lease: float = 15.0, replicas: int = 0,
                 wait_ms: int = 1000) -> None:
        self.url, self.retention, self.lease = url, retention, lease
        self.replicas, self.wait_ms = replicas, wait_ms
        self.interval = lease / 3
        self.node = secrets.token_hex(8)
        options: dict[str, Any] = {"decode_responses": True, "socket_connect_timeout": 2,
                                   "socket_timeout": BLOCK_MS / 1000 + 5}
        # Commands share a few connections, waiting for one when all are busy; the rooms' blocking
        # XREAD has a connection of its own.
        self.client: Any = self._connect(url, options)
        claim, append, release, watch = self.SCRIPTS
        self._claim = self.client.register_script(claim)
        self._append = self.client.register_script(append)
        self._release = self.client.register_script(release)
        self._watch = self.client.register_script(watch)
        self._holding: collections.Counter[str] = collections.Counter()  # rooms -> seats held from this node
        self._appends: list[tuple[list[str], list[str | int], asyncio.Future[int]]] = []  # waiting for a pipeline
        self._sending: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.streams: Any = StreamReader(self)

    def _connect(self, url: str, options: dict[str, Any]) -> Any:
        """The command client (and, here, the rooms' reader with its own connection)."""
        self.reader = redis.Redis.from_url(url, single_connection_client=True, **options)
        return redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(
            url, max_connections=COMMAND_CONNECTIONS, timeout=5, **options))

    def _lobby_keys(self, room: str) -> list[str]:
        """The keys a claim or a release may touch: the room's and, on one Redis, the lobby's."""
        return with_lobby(room)

    def _call_id(self) -> str:
        """The id of a watcher's change, by which one sent again is run once ("": none; one Redis never sends one
        again: a connection that broke after sending refuses it as unavailable)."""
        return ""

    async def _listed(self, member: str, open_: int, going: int) -> None:
        """A script changed whether the public room ``member`` is open or under way; on one Redis it listed it
        itself."""

    async def _command(self, *command: str | int) -> Any:
        """One command on a node-wide key (``command[1]``: the node registry, a node's rooms, the lobby's sets)."""
        return await self.client.execute_command(*command)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @asynccontextmanager
    async def _talking(self) -> AsyncIterator[None]:
        try:
            yield
        except STORE_ERRORS as error:
            raise Unavailable(describe(error)) from None

    async def open(self) -> None:
        try:
            await self._reach()
        except STORE_ERRORS as error:
            raise Unavailable(f"cannot reach {self.url}: {describe(error)}") from None
        await self._renew()

    async def _reach(self) -> None:
        """One round trip to the store, so that a store that is not there is said at once."""
        await self.client.ping()

    async def claim(self, room: str, name: str, token: str | None, seats: int | None,
                    public: str | None = None, join_id: str | None = None, party: Party | None = None) -> Claim:
        """As :meth:`Ledger.claim`; its events are in Redis: ``party`` is not charged."""
        if join_id is not None:
            token = new_token = join_token(room, join_id)
        else:
            new_token = secrets.token_urlsafe(24) if token is None else ""
        call = secrets.token_hex(8)  # the script keeps what this claim did under it: to answer or undo it by
        async with self._talking():
            if not self._holding[room]:  # before the claim: a reaper must find the room if this node dies
                await self._command("SADD", f"discard:node:{self.node}:rooms", room)
            self._holding[room] += 1
            try:
                result = await self._claim(self._lobby_keys(room), [
                    token_hash(token) if token is not None else "", token_hash(new_token), to_json(name),
                    "" if seats is None else seats, self.node, now_stamp(), public or "",
                    lobby_key(int(time.time() * 1000), room), call, "" if join_id is None else "1"])
            except BaseException:
                self._spawn(self._undo(room, call))  # it may have run, unanswered: let its seat go
                raise
        outcome = result[0]
        if outcome != "ok":
            await self._let_go(room)
            if outcome == "bad_token":
                raise bad_token(room)
            if outcome == "room_full":
                raise room_full(room, int(result[1]))
            check_seats(room, int(result[1]), seats)
        _, seat, epoch, seq, size, member, open_, going = result
        if member:
            await self._listed(member, int(open_), int(going))
        return Claim(int(seat), token if token is not None else new_token, int(epoch), int(seq), int(size))

    async def append(self, room: str, seat: int, epoch: int, body_json: str, post_id: str | None = None,
                     party: Party | None = None) -> int:
        """Queued, and sent with the other appends of this moment in one pipeline (one round trip). The posts are in
        Redis, not in the relay's memory: ``party`` is not charged."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._appends.append((keys(room), [seat, epoch, self.node, body_json, now_stamp(), post_id or ""], done))
        if len(self._appends) == 1 and self._sending is None:
            self._sending = asyncio.get_running_loop().create_task(self._send_appends())
        seq = await done
        if seq == -1:
            raise Refused("not_joined", "this connection's seat was taken over by a newer connection",
                          close=SEAT_TAKEN_OVER)
        if seq == -2:
            raise Unavailable("this relay node's lease on the seat ran out")
        return seq

    async def _send_appends(self) -> None:
        try:
            while self._appends:
                batch, self._appends = self._appends, []
                await self._settle(batch)
        finally:
            self._sending = None

    async def _settle(self, batch: list[tuple[list[str], list[str | int], asyncio.Future[int]]]) -> None:
        """Run a batch of appends and answer each."""
        try:
            replies = await self._run_appends([(room_keys, args) for room_keys, args, _ in batch])
        except STORE_ERRORS as error:
            replies = [error] * len(batch)
        for (_, _, done), reply in zip(batch, replies):
            answer(done, reply)

    async def _run_appends(self, calls: list[tuple[list[str], list[str | int]]]) -> list[object]:
        """The append script for each call, in one pipeline (EVALSHA; the script is loaded again if Redis
        restarted without it: a refused EVALSHA ran nothing, so it is safe to send again)."""
        replies: list[object] = [None] * len(calls)
        todo = list(range(len(calls)))
        for _ in range(2):
            for i, reply in zip(todo, await self._send_appends_once([calls[i] for i in todo])):
                replies[i] = reply
            todo = [i for i in todo if isinstance(replies[i], NoScriptError)]
            if not todo:
                break
            await self.client.script_load(self._append.script)
        return replies

    async def _send_appends_once(self, calls: list[tuple[list[str], list[str | int]]]) -> list[object]:
        """One pipeline of EVALSHA, then (with ``replicas``) WAIT on its connection: WAIT counts this client's
        writes."""
        async with self.client.pipeline(transaction=False) as pipe:
            for room_keys, args in calls:
                pipe.evalsha(self._append.sha, len(room_keys), *room_keys, *args)
            if self.replicas:
                pipe.execute_command("WAIT", self.replicas, self.wait_ms)
            results = await pipe.execute(raise_on_error=False)
        if self.replicas:
            self._unsafe(results, results.pop(), range(len(calls)))
        return results

    def _unsafe(self, results: list[object], acked: object, which: range | list[int]) -> None:
        """The durability rule: appends that fewer than ``replicas`` replicas acknowledged are not answered."""
        if isinstance(acked, int) and acked >= self.replicas:
            return
        why = describe(acked) if isinstance(acked, BaseException) else f"on {acked} of {self.replicas} replicas"
        for i in which:
            if not isinstance(results[i], BaseException):
                results[i] = NotYetSafe(f"not yet safe ({why} after {self.wait_ms} ms)")

    async def read(self, room: str, after: int) -> list[Entry]:
        async with self._talking():
            records = await self.client.xrange(keys(room)[1], min=str(after + 1), count=PAGE)
        return entries_of(cast(list[tuple[str, dict[str, str]]], records))

    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        follower = RedisFollower(self.streams, room, after, deliver)
        self.streams.add(follower)
        self._spawn(self.streams.wake_up())
        return follower

    async def lobby_page(self, after: str | None, limit: int, under_way: bool = False
                         ) -> tuple[list[Listing], bool]:
        """One ``ZRANGE BYLEX`` for the page's members, then one pipeline reading each room's hash."""
        async with self._talking():
            members = cast(list[str], await self._command(
                "ZRANGEBYLEX", UNDER_WAY if under_way else LOBBY, f"({after}" if after else "-", "+", "LIMIT", 0,
                limit + 1))
            fields = ["size", "count", "pub", "watching", *(f"n:{seat}" for seat in range(MAX_SEATS)),
                      *(f"h:{seat}" for seat in range(MAX_SEATS))]
            states = await self._hmgets([keys(member.split(":", 1)[1])[0] for member in members[:limit]], fields)
        listings = []
        for member, (size, count, public, watching, *seats) in zip(members, states):
            names, held = seats[:MAX_SEATS], seats[MAX_SEATS:]
            if size is not None and public is not None and (int(count or 0) >= int(size)) == under_way and any(held):
                # (else expired or closed since the range was read: a Cluster's lobby is updated after the script)
                listings.append(Listing(member, member.split(":", 1)[1], int(size), [json.loads(n) for n in names
                                                                                     if n is not None], public,
                                        int(watching or 0)))
        return listings, len(members) > limit

    async def _hmgets(self, hashes: list[str], fields: list[str]) -> list[list[str | None]]:
        """``fields`` of each hash, in one pipeline."""
        async with self.client.pipeline(transaction=False) as pipe:
            for name in hashes:
                pipe.hmget(name, fields)
            return cast(list[list[str | None]], await pipe.execute())

    async def release(self, room: str, seat: int, epoch: int) -> bool:
        left = await self._release_seat(room, seat, epoch)
        await self._let_go(room)
        return left

    async def _release_seat(self, room: str, seat: int, epoch: int) -> bool:
        async with self._talking():
            left, member, open_, going = await self._release(self._lobby_keys(room), [
                self.node, seat, epoch, now_stamp(), self._retention_ms])
            if member:
                await self._listed(member, int(open_), int(going))
        return bool(left)

    async def _undo(self, room: str, call: str) -> None:
        """A claim that failed unanswered may have run (its reply lost with a connection, a failover outwaited): once
        the store answers, release the seat it took (``c:CALL``: seat and epoch), unless a newer claim took the seat
        since (the client sending its join again under its id, protocol 1.4). So a client that gives up leaves no seat
        held by nobody, and the room expires as any room. The node keeps the room in its list meanwhile: if it dies
        first, the reaper lets the seat go."""
        delay = UNDO_FIRST_DELAY
        while True:
            try:
                took = await self._command("HGET", keys(room)[0], f"c:{call}")
                if took:
                    seat, epoch, _ = str(took).split(":")
                    if await self._release_seat(room, int(seat), int(epoch)):
                        log.info("let go of seat %s in room=%s: its claim ran unanswered", seat, room)
                break
            except (*STORE_ERRORS, Unavailable):
                await asyncio.sleep(delay)
                delay = min(UNDO_LAST_DELAY, delay * 2)
        with contextlib.suppress(Unavailable):  # (else the room stays in the node's list, which costs a reaper nothing)
            await self._let_go(room)

    async def watch(self, room: str, name: str, limit: int, party: Party | None = None) -> Watch:
        async with self._talking():
            if not self._holding[room]:  # as for a seat: a reaper finds the room's watchers if this node dies
                await self._command("SADD", f"discard:node:{self.node}:rooms", room)
            self._holding[room] += 1
            try:
                outcome, watching, seq, size = await self._watch(keys(room), [
                    1, to_json(name), self.node, now_stamp(), limit, self._call_id()])
            except BaseException:
                await self._let_go(room)
                raise
        if outcome != "ok":
            await self._let_go(room)
            raise no_room(room) if outcome == "no_room" else watchers_full(room, limit)
        return Watch(int(watching), int(size), int(seq))

    async def unwatch(self, room: str, name: str) -> None:
        async with self._talking():
            await self._watch(keys(room), [-1, to_json(name), self.node, now_stamp(), 0, self._call_id()])
        await self._let_go(room)

    async def _let_go(self, room: str) -> None:
        self._holding[room] -= 1
        if self._holding[room] <= 0:
            del self._holding[room]
            async with self._talking():
                await self._command("SREM", f"discard:node:{self.node}:rooms", room)

    @property
    def _retention_ms(self) -> int:
        return max(1, int(self.retention * 1000))

    async def expire(self) -> None:
        """Renew this node's lease, and free the seats of nodes whose lease ran out (rooms expire by themselves)."""
        await self._renew()
        async with self._talking():
            dead = cast(list[str], await self._command("ZRANGEBYSCORE", NODES, "-inf", int(time.time() * 1000)))
            for node in dead:
                rooms = f"discard:node:{node}:rooms"
                held = cast(set[str], await self._command("SMEMBERS", rooms))
                for room in held:
                    _, member, open_, going = await self._release(self._lobby_keys(room), [
                        node, "", "", now_stamp(), self._retention_ms])
                    if member:
                        await self._listed(member, int(open_), int(going))
                    # a dead node's watchers (no call id: sent again, it finds none of the node's left to count out)
                    await self._watch(keys(room), ["all", to_json(""), node, now_stamp(), 0, ""])
                    log.info("released the seats of dead node %s in room=%s", node, room)
                await self._command("DEL", rooms)  # (one key a command: each has its own slot on a Cluster)
                await self._command("DEL", f"discard:node:{node}:wake")
                await self._command("ZREM", NODES, node)

    async def _renew(self) -> None:
        async with self._talking():
            await self._command("ZADD", NODES, int((time.time() + self.lease) * 1000), self.node)

    async def health(self) -> str | None:
        try:
            async with asyncio.timeout(2):
                await self.client.ping()
        except (*STORE_ERRORS, TimeoutError) as error:
            return f"redis at {self.url}: {describe(error)}"
        return None

    async def close(self) -> None:
        self.streams.stop()
        for task in list(self._background):
            task.cancel()
        try:
            if not self._holding:  # a clean stop: this node's lease ends now
                await self._command("ZREM", NODES, self.node)
                await self._command("DEL", f"discard:node:{self.node}:wake")
        except STORE_ERRORS:
            pass
        await self.client.aclose()
        await self._close_reader()

    async def _close_reader(self) -> None:
        await self.reader.aclose()

