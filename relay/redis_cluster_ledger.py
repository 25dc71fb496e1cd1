"""Rooms on a Redis Cluster (``--store redis-cluster://HOST:PORT[,HOST:PORT...]``): the Redis ledger, sharded.

The keys and scripts are :mod:`relay.redis_ledger`'s: every key of a room carries the ``{ROOM}`` hash tag, so
each script touches one slot and runs on the shard that owns it. What differs on a Cluster:

* **Routing while slots move** (``redis-cli --cluster reshard``). Every command (a room's scripts and reads, the
  node-wide keys, the lobby's sorted sets) goes through :meth:`RedisClusterLedger.routed`, which follows ``ASK``
  (``ASKING`` and the command on one connection), ``MOVED`` and ``TRYAGAIN`` itself, so a post, a join or a lobby
  page is not refused because its key moved, and with ``--wait-replicas`` the ``WAIT`` runs on the master that
  ran the append. A master that answers ``NOSCRIPT`` (a promoted replica, a slot's new master, a ``SCRIPT FLUSH``)
  has the script loaded on it alone and the call sent again there: no other master is waited for.
* **A master's death.** ``routed`` sends each master's calls in a pipeline of their own, the masters concurrently,
  so a dead master fails its own calls only (redis-py's cluster pipeline fails whole, and its retry closes every
  shard's connections). A call the dead master's shard did not serve is sent again, after learning the slots
  anew, until its replica is promoted (``failover``, ``--failover-wait``) if it did not run (the connection could
  not be made, ``CLUSTERDOWN``) or may run twice: reads, releases, posts with an id (the script returns the
  first seq), and claims and watchers' arrivals and departures, each of which carries a call id chosen here (the
  script returns the first run's answer: a join takes one seat, a watcher is counted once); a post without an id
  whose connection broke after sending is refused as unavailable, as on one Redis. The appends that wait do so in
  a task of their own, so the next batch of every other room goes on. Each master's appends, and its rooms'
  reads, are sent by a task of that master's, so a master that stops answering (its host cut off: no connection
  is refused, each call waits for the socket's timeout) holds up only its own rooms, not every shard's batch that
  it is part of.
* **Node-wide keys** (``discard:nodes``, ``discard:node:ID:rooms``) are each one key, read and written one key a
  command, so each lives in its own slot wherever that is.
* **The lobby** (``discard:lobby``) is one key too, so it cannot be in a room's script (a script's keys must share
  one slot). The scripts report whether the public room is now open and this ledger then adds or removes its
  member, and after a removal reads the room again (re-adding it if a later script opened it meanwhile): a room
  that ends open is listed. A page still checks every room it lists (as on one Redis), so a member left over
  by a crash between the script and the update is never shown. Its order is the one sorted set's, so pages are
  stable across shards; a page costs one ``ZRANGE`` on the lobby's shard and one ``HMGET`` per room, pipelined per
  shard (concurrently).
* **Reading rooms.** A Cluster refuses a command whose keys are in different slots (``CROSSSLOT``), even on one
  shard, so one ``XREAD`` over every followed room cannot exist. Instead each room's scripts ring a *bell*, a
  sharded Pub/Sub message (``SPUBLISH discard:{ROOM}:bell SEQ``, in the room's slot); this node keeps one
  subscriber connection per shard it follows, subscribed to its rooms' bells, and reads the rooms that rang with
  one pipeline of ``XRANGE`` (split per shard by the client, concurrently). A bell may be lost (Pub/Sub is at most
  once): a room is read after it is subscribed, and whenever a shard's subscription breaks (a failover; a slot
  moved, when the old master sends ``SUNSUBSCRIBE`` for its bells) its rooms are subscribed again wherever they
  are served then and read from each follower's position, so nothing is skipped or repeated; the other shards'
  subscriptions go on. The bells are subscribed again one a command, never all in one ``SSUBSCRIBE`` (a Cluster
  refuses that: :class:`BellPubSub`).

Durability: with ``replicas`` (``--wait-replicas``), a post is answered only after ``WAIT`` on the connection of
its shard's master says that many replicas have it (see :class:`relay.redis_ledger.RedisLedger`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import secrets
import time
from collections.abc import Coroutine
from typing import Any, cast

import redis.asyncio as redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (AskError, BusyLoadingError, ClusterDownError, ConnectionError, MovedError, NoScriptError,
                              ReadOnlyError, RedisError, SlotNotCoveredError, TimeoutError, TryAgainError)

from .ledger import MAX_SEATS, Deliver, Entry, Follower
from .redis_ledger import (APPEND, CLAIM, LOBBY, PAGE, RELEASE, STORE_ERRORS, UNDER_WAY, WATCH, NotYetSafe, RedisLedger,
                           answer, describe, entries_of, keys)

log = logging.getLogger("discard.relay")

RING = "redis.call('SPUBLISH', (string.gsub(events, ':log$', ':bell')), seq)"
SCHEME = "redis-cluster://"
CLUSTER_CONNECTIONS = 512  # per shard
ROUNDS = 8  # a command sent again more often than this (its slot moving, its script missing, again and again) is
# refused as unavailable
REFRESH = 0.25  # seconds: the slots are learnt again at most this often while a shard fails
DOWN = 1.0  # seconds: a master that failed is not tried by calls that cannot wait, for this long


def ringing(script: str) -> str:
    return script.replace("--ring", RING)


def bell(room: str) -> str:
    return f"discard:{{{room}}}:bell"


def startup_nodes(url: str) -> list[ClusterNode]:
    """``redis-cluster://h:p,h:p`` (or ``redis://h:p``): the nodes to learn the cluster's layout from."""
    where = url.split("://", 1)[1].split("/", 1)[0]
    nodes = []
    for address in where.split(","):
        host, _, port = address.rpartition(":")
        nodes.append(ClusterNode(host or "127.0.0.1", int(port or 6379)))
    return nodes


def is_cluster(url: str) -> bool:
    """A ``redis-cluster://`` URL, or a ``redis://`` one whose server says it is in cluster mode."""
    if url.startswith(SCHEME):
        return True
    import redis as blocking

    try:
        with blocking.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2) as probe:
            return bool(probe.info("cluster").get("cluster_enabled"))
    except (RedisError, ValueError):
        return False  # unreachable now: RedisLedger.open says so


class BellFollower(Follower):
    """One room followed by this node: its position, fed by the node's :class:`BellReader`."""

    def __init__(self, reader: BellReader, room: str, after: int, deliver: Deliver) -> None:
        self.reader, self.stream, self.bell, self.deliver = reader, keys(room)[1], bell(room), deliver
        self.position = after

    def receive(self, entries: list[Entry]) -> None:
        fresh = [e for e in entries if e.seq > self.position]
        if fresh:
            self.position = fresh[-1].seq
            self.deliver(fresh)

    def stop(self) -> None:
        self.reader.remove(self)


class BellPubSub(PubSub):
    """A shard's subscriptions, which a reconnection does not renew: redis-py's would send every bell in one
    ``SSUBSCRIBE``, which a Cluster refuses (``CROSSSLOT``: the bells are in their rooms' slots). The shard's
    client does not retry either, so a broken connection is reported as what it is, and the :class:`BellReader`
    subscribes every bell again, one a command, to the shard that owns it then."""

    async def on_connect(self, connection: Any) -> None:
        self.pending_unsubscribe_shard_channels.clear()


class Shard:
    """One subscriber connection to a shard's master, for the bells of the rooms it owns."""

    def __init__(self, reader: BellReader, node: ClusterNode) -> None:
        self.reader, self.name = reader, node.name
        self.client = redis.Redis(host=node.host, port=int(node.port), decode_responses=True, socket_connect_timeout=2,
                                  retry=Retry(NoBackoff(), 0))
        self.pubsub = BellPubSub(self.client.connection_pool)
        self.channels: set[str] = set()  # wanted
        self.leaving: collections.Counter[str] = collections.Counter()  # unsubscribed, not yet confirmed
        self.task: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()

    async def subscribe(self, channel: str) -> None:
        async with self.lock:  # (the first command makes the connection: only one may)
            self.channels.add(channel)
            await self.pubsub.ssubscribe(channel)  # one a command: each bell is in its room's slot
            if self.task is None:
                self.task = asyncio.get_running_loop().create_task(self._listen())

    async def unsubscribe(self, channel: str) -> None:
        async with self.lock:
            self.channels.discard(channel)
            self.leaving[channel] += 1
            await self.pubsub.sunsubscribe(channel)

    async def _listen(self) -> None:
        try:
            while True:
                message = await self.pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind, channel = message["type"], message["channel"]
                if kind == "smessage":
                    self.reader.rang(channel)
                elif kind == "ssubscribe":
                    self.reader.rang(channel)  # subscribed now: read what came before
                elif kind == "sunsubscribe":
                    if self.leaving[channel] > 0:  # ours
                        self.leaving[channel] -= 1
                        if not self.leaving[channel]:
                            del self.leaving[channel]
                    elif channel in self.channels:  # the server's: it moved the slot away
                        raise RedisError(f"{channel} moved off {self.name}")
        except STORE_ERRORS as error:
            self.reader.broken(self, error)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        try:
            await self.pubsub.aclose()
            await self.client.aclose()
        except STORE_ERRORS:
            pass


class BellReader:
    """Every room this node follows on a Cluster: one subscriber connection per shard for their bells, and one
    pipelined read of the rooms that rang (see the module's docstring). Gapless: a room is read from its
    follower's position after it is subscribed and after every break, so a lost bell delays nothing for long.

    A shard's trouble stays with its rooms: a broken subscription has only its own bells subscribed again (to the
    shard that serves them then, once one does), and a room whose read failed is read again a moment later while
    the others go on being read as they ring."""

    def __init__(self, ledger: RedisClusterLedger) -> None:
        self.ledger = ledger
        self.followers: dict[str, BellFollower] = {}  # by bell channel
        self.dirty: set[str] = set()  # bells of rooms to read
        self.kick = asyncio.Event()
        self.shards: dict[str, Shard] = {}
        self.orphans: set[str] = set()  # bells whose subscription broke or failed, to subscribe again
        self.resubscribing = False
        self.reading: set[str] = set()  # masters (by name) with a read of their rooms in flight
        self.delays: dict[str, float] = {}  # masters whose last read failed: the pause before their rooms' next
        self.task: asyncio.Task[None] | None = None
        self.background: set[asyncio.Task[None]] = set()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def add(self, follower: BellFollower) -> None:
        self.followers[follower.bell] = follower
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._read())
        self.rang(follower.bell)
        self._spawn(self._subscribe(follower.bell))

    def remove(self, follower: BellFollower) -> None:
        if self.followers.get(follower.bell) is follower:
            del self.followers[follower.bell]
            self.orphans.discard(follower.bell)
            for shard in self.shards.values():
                if follower.bell in shard.channels:
                    self._spawn(self._quietly(shard.unsubscribe(follower.bell)))

    async def _quietly(self, coroutine: Any) -> None:
        try:
            await coroutine
        except STORE_ERRORS:
            pass

    def rang(self, channel: str) -> None:
        if channel in self.followers:
            self.dirty.add(channel)
            self.kick.set()

    async def _subscribe(self, channel: str) -> None:
        if channel not in self.followers or self.resubscribing:  # stopped since, or the resubscriber does it
            self.orphans.add(channel)
            return
        try:
            shard = self._home(channel)
        except (*STORE_ERRORS, AttributeError, KeyError) as error:  # no slot map yet
            self.orphans.add(channel)
            self._resubscribe_soon(describe(error))
            return
        try:
            await shard.subscribe(channel)
        except STORE_ERRORS as error:
            self.broken(shard, error)

    def _home(self, channel: str) -> Shard:
        """The subscription to the shard that owns ``channel``'s slot now."""
        node = self.ledger.client.get_node_from_key(channel)
        if node.name not in self.shards:
            self.shards[node.name] = Shard(self, node)
        return self.shards[node.name]

    def broken(self, shard: Shard, error: BaseException) -> None:
        """``shard``'s subscription broke (its master died, or a slot moved off it): its bells only are subscribed
        again, wherever they are served then; the other shards' go on."""
        if self.shards.get(shard.name) is shard:
            del self.shards[shard.name]
            self._spawn(shard.close())
        self.orphans |= shard.channels
        self._resubscribe_soon(f"{shard.name}: {describe(error)}")

    def _resubscribe_soon(self, why: str) -> None:
        if not self.resubscribing:
            self.resubscribing = True
            self._spawn(self._resubscribe(why))

    async def _resubscribe(self, why: str) -> None:
        """Learn the slots again and subscribe the orphaned bells anew, one a command (a Cluster refuses them all in
        one ``SSUBSCRIBE``), until every one is; then read their rooms."""
        log.warning("re-subscribing %d rooms' bells (%s)", len(self.orphans), why)
        delay = 0.05
        try:
            while todo := [channel for channel in self.orphans if channel in self.followers]:
                await self.ledger.refresh()
                down: set[str] = set()  # shards that failed this round: their other bells wait for the next
                for channel in todo:
                    try:
                        shard = self._home(channel)
                    except (*STORE_ERRORS, AttributeError, KeyError):
                        continue
                    if shard.name in down:
                        continue
                    try:
                        await shard.subscribe(channel)
                    except STORE_ERRORS as error:
                        down.add(shard.name)
                        self.broken(shard, error)
                        continue
                    self.orphans.discard(channel)
                    self.rang(channel)  # (read from its position: what rang meanwhile)
                if self.orphans & self.followers.keys():
                    log.warning("re-subscribing %d rooms' bells: %s down; again in %.2fs",
                                len(self.orphans & self.followers.keys()), ", ".join(sorted(down)) or "no slot map",
                                delay)
                    await asyncio.sleep(delay)
                    delay = min(1.0, delay * 2)
        finally:
            self.resubscribing = False
            self.orphans &= self.followers.keys()

    async def _read(self) -> None:
        """Read the rooms that rang, one pipeline per master, the masters each on their own: a master that is slow
        to answer (its host cut off: the socket's timeout) holds up its own rooms' next reads only."""
        while True:
            await self.kick.wait()
            self.kick.clear()
            groups: dict[str, list[BellFollower]] = {}
            for channel in list(self.dirty):
                follower = self.followers.get(channel)
                master = "" if follower is None else self.ledger.master_of(follower.stream)
                if follower is not None and master in self.reading:
                    continue  # (read once that master's read in flight is done)
                self.dirty.discard(channel)
                if follower is not None:
                    groups.setdefault(master, []).append(follower)
            for master, wanted in groups.items():
                self.reading.add(master)
                self._spawn(self._read_rooms(master, wanted))

    async def _read_rooms(self, master: str, wanted: list[BellFollower]) -> None:
        """Read ``wanted`` (rooms ``master`` serves) in one pipeline; those whose shard failed are read again after a
        pause that grows while failures go on (their bells are re-subscribed meanwhile)."""
        try:
            try:
                replies = await self.ledger.routed([(follower.stream, ("XRANGE", follower.stream,
                                                                         str(follower.position + 1), "+", "COUNT",
                                                                         PAGE)) for follower in wanted])
            except (*STORE_ERRORS, OSError) as error:  # (learning a moved slot failed)
                replies = [error] * len(wanted)
            failed, again = None, []
            for follower, reply in zip(wanted, replies):
                if isinstance(reply, BaseException):
                    failed = reply
                    again.append(follower.bell)
                    continue
                records = cast(list[tuple[str, dict[str, str]]], reply)
                follower.receive(entries_of(records))
                if len(records) >= PAGE:
                    self.rang(follower.bell)
            delay = self.delays.get(master, 0.05)
            if failed is not None:
                log.warning("reading %d rooms: %s; again in %.2fs", len(again), describe(failed), delay)
                asyncio.get_running_loop().call_later(delay, self._ring_again, again)
                self.delays[master] = min(2.0, delay * 2)
            else:
                self.delays.pop(master, None)
        finally:
            self.reading.discard(master)
            if self.dirty:
                self.kick.set()

    def _ring_again(self, channels: list[str]) -> None:
        for channel in channels:
            self.rang(channel)

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        for task in list(self.background):
            task.cancel()

    async def close(self) -> None:
        self.stop()
        for shard in self.shards.values():
            await shard.close()


class Unserved(RedisError):
    """A call its shard did not serve (its master unreachable, the cluster down for a moment, its replicas short):
    it did not run, or running it again changes nothing, so it may be sent again once the shard is served."""


def sent_again(reply: object, ran: bool, repeatable: bool) -> bool:
    """Whether a failed call may be sent again: the shard refused it before running it (``CLUSTERDOWN``, a replica
    still loading or read-only), or the connection failed before it was sent; or it may have run (the connection
    broke while its reply was awaited, or ``WAIT`` fell short) and the caller says running it twice is harmless."""
    if isinstance(reply, (ClusterDownError, BusyLoadingError, ReadOnlyError, SlotNotCoveredError)) or not ran:
        return True
    return repeatable and isinstance(reply, (ConnectionError, TimeoutError, NotYetSafe))


class RoutedScript:
    """A script called as redis-py's are (``script(keys, args)``), sent through :meth:`RedisClusterLedger.routed`
    so that it follows a slot's migration, waits out a failover and is loaded again on a master that lacks it (a
    promoted replica, or one that a slot moved to)."""

    def __init__(self, ledger: RedisClusterLedger, script: str, repeatable: bool = False) -> None:
        self.ledger, self.repeatable = ledger, repeatable
        self.sha = ledger.client.register_script(script).sha
        ledger.scripts[self.sha] = script

    async def __call__(self, keys: list[str], args: list[str | int]) -> Any:
        reply, = await self.run([(keys, args)], patience=self.ledger.failover)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def run(self, calls: list[tuple[list[str], list[str | int]]], replicas: int = 0, patience: float = 0.0,
                  repeatable: list[bool] | None = None) -> list[object]:
        """Each call (its keys and arguments), routed (``repeatable``: which may run twice, if not the script's
        rule); the replies or errors, in order."""
        return await self.ledger.routed(
            [(room_keys[0], ("EVALSHA", self.sha, len(room_keys), *room_keys, *args)) for room_keys, args in calls],
            replicas, patience, [self.repeatable] * len(calls) if repeatable is None else repeatable)


class RedisClusterLedger(RedisLedger):
    """Rooms on a Redis Cluster; any number of relay nodes may serve the same rooms at once.

    ``failover``: how long a call whose shard cannot serve it (a master died and its replica is not yet promoted)
    waits for it before it is refused as unavailable."""

    SCRIPTS = (ringing(CLAIM), ringing(APPEND), ringing(RELEASE), ringing(WATCH))

    def __init__(self, url: str, retention: float = 600.0, lease: float = 15.0, replicas: int = 0,
                 wait_ms: int = 1000, failover: float = 10.0) -> None:
        super().__init__(url, retention, lease, replicas, wait_ms)
        self.failover = failover
        self.scripts: dict[str, str] = {}  # by SHA1, for a master that says NOSCRIPT
        claim, append, release, watch = self.SCRIPTS
        # (a claim or a watcher's change sent again finds the first run's answer under its call id)
        self._claim = RoutedScript(self, claim, repeatable=True)
        self._watch = RoutedScript(self, watch, repeatable=True)
        self._release = RoutedScript(self, release, repeatable=True)  # (a second run finds the seat let go)
        self._append = RoutedScript(self, append)  # repeatable with a post id (returns the first seq): see _settle
        self.streams = BellReader(self)
        self._refreshed = 0.0
        self._down: dict[str, float] = {}  # masters by name: when a connection to one last failed
        self._later: set[asyncio.Task[None]] = set()  # the senders, and the appends waiting for a failover
        self._queued: collections.defaultdict[str, list[tuple[list[str], list[str | int], asyncio.Future[int]]]] = \
            collections.defaultdict(list)  # appends by the name of their master, for its sender
        self._senders: set[str] = set()  # masters whose sender runs

    def _connect(self, url: str, options: dict[str, Any]) -> Any:
        # (per shard; the cluster client refuses a command past it rather than wait, so it is generous). No retries
        # of its own: redis-py retries a pipeline that met a dead master by closing every shard's connections.
        return RedisCluster(startup_nodes=startup_nodes(url), max_connections=CLUSTER_CONNECTIONS,
                            retry=Retry(NoBackoff(), 0), **options)

    async def _reach(self) -> None:
        await self.client.initialize()  # learns the slots from the startup nodes

    def master_of(self, key: str) -> str:
        """The name of the master that serves ``key``'s slot as this node last learnt it ("" if none does)."""
        try:
            return str(self.client.get_node_from_key(key).name)
        except (*STORE_ERRORS, AttributeError, KeyError):
            return ""

    def _lobby_keys(self, room: str) -> list[str]:
        return keys(room)

    def _call_id(self) -> str:
        return secrets.token_hex(8)

    async def _command(self, *command: str | int) -> Any:
        reply, = await self.routed([(str(command[1]), command)], patience=self.failover, repeatable=True)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def _listed(self, member: str, open_: int, going: int) -> None:
        seats = keys(member.split(":", 1)[1])[0]
        shown = {LOBBY: open_, UNDER_WAY: going}
        for index in [index for index, listed in shown.items() if listed]:
            await self._command("ZADD", index, 0, member)
        gone = [index for index, listed in shown.items() if not listed]
        for index in gone:
            await self._command("ZREM", index, member)
        (size, count, *held), = await self._hmgets([seats], ["size", "count", *(f"h:{s}" for s in range(MAX_SEATS))])
        if size is not None and any(held):  # opened or filled again by a later script, whose listing went first
            now = UNDER_WAY if int(count or 0) >= int(size) else LOBBY
            if now in gone:
                await self._command("ZADD", now, 0, member)

    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        follower = BellFollower(self.streams, room, after, deliver)
        self.streams.add(follower)
        return follower

    async def _settle(self, batch: list[tuple[list[str], list[str | int], asyncio.Future[int]]]) -> None:
        """Hand each append to the sender of its room's master, which sends what gathered for that master in one
        pipeline (with ``replicas``, ending with ``WAIT`` on its connection) as soon as its previous one is done: a
        master slow to answer (its host cut off: the socket's timeout) holds up its own rooms only."""
        for item in batch:
            self._queued[self.master_of(item[0][0])].append(item)
        for master in [m for m in self._queued if m not in self._senders]:
            self._senders.add(master)
            self._start(self._send_to(master))

    async def _send_to(self, master: str) -> None:
        try:
            while batch := self._queued.pop(master, []):
                await self._send_batch(batch)
        finally:
            self._senders.discard(master)

    def _start(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _send_batch(self, batch: list[tuple[list[str], list[str | int], asyncio.Future[int]]]) -> None:
        """Appends in one pipeline per shard (routed: the master learnt may have changed). Those a shard did not
        serve (:class:`Unserved`: not run, or a post with an id, whose script returns its first seq when run again)
        wait for the shard in a task of their own, so that the next batch does not wait with them."""
        try:
            replies = await self._append.run([(room_keys, args) for room_keys, args, _ in batch], self.replicas,
                                             repeatable=[bool(args[5]) for _, args, _ in batch])
        except (*STORE_ERRORS, OSError) as error:  # (learning a moved slot failed)
            replies = [error] * len(batch)
        later = []
        for item, reply in zip(batch, replies):
            if isinstance(reply, Unserved):
                later.append(item)
            else:
                answer(item[2], reply)
        if later:
            self._start(self._settle_later(later))

    async def _settle_later(self, batch: list[tuple[list[str], list[str | int], asyncio.Future[int]]]) -> None:
        replies = await self._append.run([(room_keys, args) for room_keys, args, _ in batch], self.replicas,
                                         self.failover, [bool(args[5]) for _, args, _ in batch])
        for (_, _, done), reply in zip(batch, replies):
            answer(done, reply)

    async def refresh(self) -> None:
        """Learn the slots again (a replica promoted, a slot moved), at most every ``REFRESH`` seconds (each time
        redis-py has every pooled connection reconnect)."""
        now = time.monotonic()
        if now - self._refreshed < REFRESH:
            return
        self._refreshed = now
        try:
            await self.client.nodes_manager.initialize()
        except (*STORE_ERRORS, OSError) as error:
            log.warning("learning the cluster's slots: %s", describe(error))

    async def routed(self, calls: list[tuple[str, tuple[str | int, ...]]], replicas: int = 0, patience: float = 0.0,
                     repeatable: bool | list[bool] = False) -> list[object]:
        """Each call (the key that names its slot, and the command), in one pipeline per master, the masters
        concurrently, so that one that fails fails its own calls only; the replies, or the errors, in order.

        A call the shard redirected was not run, so it goes in the next round: after ``ASK`` (its slot is migrating
        and its keys are on the importing master) to that master, right after ``ASKING`` on the same connection;
        after ``MOVED`` to the slot's new master; after ``TRYAGAIN`` (its keys are split between the two for a moment)
        a moment later. (redis-py's own redirection sends ``ASKING`` and the command on two connections of its pool,
        so the master answers ``MOVED`` back to the old one until the client gives up.) An ``EVALSHA`` answered
        ``NOSCRIPT`` ran nothing either: its script is loaded on that master only (in a pipeline of its own), and
        it is sent there again, so that no other master (one frozen, say) is waited for. A call its shard did not
        serve (:func:`sent_again`) is sent again, after learning the slots again, for ``patience`` seconds (a
        replica promoted meanwhile serves it), then fails as :class:`Unserved`; without ``patience``, a master that
        failed in the last ``DOWN`` seconds is not tried (a host gone makes each connection wait for its timeout).
        ``repeatable``: whether each call (or all) may run twice. With ``replicas``, each master's
        pipeline ends with ``WAIT`` on its connection, and the calls that ``WAIT`` does not cover fail as not yet
        safe."""
        results: list[object] = [None] * len(calls)
        todo: dict[int, ClusterNode | None] = dict.fromkeys(range(len(calls)))  # the master that said ASK
        again = repeatable if isinstance(repeatable, list) else [repeatable] * len(calls)
        deadline, delay, redirected = time.monotonic() + patience, 0.05, 0
        while todo:
            pipelines: dict[str, tuple[ClusterNode, list[int]]] = {}
            for n, asked in todo.items():
                try:
                    node = asked or self.client.get_node_from_key(calls[n][0])
                except (*STORE_ERRORS, AttributeError, KeyError) as error:  # no master for its slot now
                    results[n] = Unserved(describe(error))
                    continue
                if not patience and time.monotonic() - self._down.get(node.name, -DOWN) < DOWN:
                    results[n] = Unserved(f"{node.name} failed a moment ago")
                    continue
                pipelines.setdefault(node.name, (node, []))[1].append(n)
            answers = await asyncio.gather(*(self._pipeline(node, [(calls[n][1], todo[n] is not None) for n in ns],
                                                            replicas) for node, ns in pipelines.values()))
            failing: dict[int, ClusterNode | None] = {}
            missing: dict[str, tuple[ClusterNode, set[str]]] = {}  # the masters that said NOSCRIPT, and which
            unreached, later = False, False
            for (node, ns), (replies, ran) in zip(pipelines.values(), answers):
                if ran:
                    self._down.pop(node.name, None)
                for n, reply in zip(ns, replies):
                    if isinstance(reply, MovedError):  # (a kind of AskError: first)
                        await self.client.nodes_manager.move_slot(reply)
                        failing[n] = None
                    elif isinstance(reply, AskError):
                        failing[n] = self.client.get_node(reply.host, reply.port)
                    elif isinstance(reply, TryAgainError):
                        failing[n], later = None, True
                    elif isinstance(reply, NoScriptError):
                        missing.setdefault(node.name, (node, set()))[1].add(str(calls[n][1][1]))
                        failing[n] = todo[n]  # (after ASKING again, if that master said ASK)
                    elif isinstance(reply, BaseException) and sent_again(reply, ran, again[n]):
                        results[n] = Unserved(describe(reply))
                        unreached |= not isinstance(reply, NotYetSafe)
                        if isinstance(reply, (ConnectionError, TimeoutError, OSError)):
                            self._down[node.name] = time.monotonic()
                    else:
                        results[n] = reply
            await asyncio.gather(*(self._pipeline(node, [(("SCRIPT", "LOAD", self.scripts[sha]), False) for sha in shas],
                                                  0) for node, shas in missing.values()))  # (one that fails: sent again)
            redirected += bool(failing)
            if redirected > ROUNDS:
                for n in failing:
                    results[n] = RedisError(f"sent {ROUNDS} times to masters that redirected it or lacked its script")
                break
            waiting = [n for n in todo if isinstance(results[n], Unserved)]
            if waiting and time.monotonic() + delay > deadline:
                waiting = []
            todo = {**failing, **dict.fromkeys(waiting)}
            if waiting:
                await asyncio.sleep(delay)
                delay = min(0.5, delay * 2)
                if unreached:
                    await self.refresh()
            elif later:
                await asyncio.sleep(0.05)  # (the migration moves the rest of the keys meanwhile)
        return results

    async def _pipeline(self, node: ClusterNode, commands: list[tuple[tuple[str | int, ...], bool]],
                        replicas: int) -> tuple[list[object], bool]:
        """The commands (each after ``ASKING`` if asked) in one pipeline to one master, then ``WAIT`` with
        ``replicas``: each command's reply or error, and whether they were sent (a connection that could not be
        made, or broke while sending: none ran)."""
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for command, asking in commands:
                    if asking:
                        pipe.execute_command("ASKING", target_nodes=node)
                    pipe.execute_command(*command, target_nodes=node)
                if replicas:
                    pipe.execute_command("WAIT", replicas, self.wait_ms, target_nodes=node)
                replies = await pipe.execute(raise_on_error=False, allow_redirections=False)
        except (*STORE_ERRORS, OSError) as error:
            return [error] * len(commands), False
        results, position = [], 0
        for _, asking in commands:
            position += asking  # (ASKING's OK)
            results.append(replies[position])
            position += 1
        if replicas:
            self._unsafe(results, replies[position], [n for n, reply in enumerate(results)
                                                      if not isinstance(reply, BaseException)])
        return results, True

    async def _hmgets(self, hashes: list[str], fields: list[str]) -> list[list[str | None]]:
        """``fields`` of each hash (rooms' seats, in their rooms' slots), routed (see :meth:`routed`)."""
        replies = await self.routed([(name, ("HMGET", name, *fields)) for name in hashes], patience=self.failover,
                                    repeatable=True)
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return cast(list[list[str | None]], replies)

    async def read(self, room: str, after: int) -> list[Entry]:
        stream = keys(room)[1]
        async with self._talking():
            reply, = await self.routed([(stream, ("XRANGE", stream, str(after + 1), "+", "COUNT", PAGE))],
                                       patience=self.failover, repeatable=True)
            if isinstance(reply, BaseException):
                raise reply
        return entries_of(cast(list[tuple[str, dict[str, str]]], reply))

    async def health(self) -> str | None:
        """Unhealthy only when no master answers: a dead master's rooms wait for its replica on every relay node
        alike, so taking this node out of rotation would help nobody."""
        if any(await asyncio.gather(*(self._answers(node) for node in self.client.get_primaries()))):
            return None
        return f"redis cluster at {self.url}: no master answers"

    async def _answers(self, node: ClusterNode) -> bool:
        try:
            async with asyncio.timeout(2):
                (reply,), _ = await self._pipeline(node, [(("PING",), False)], 0)
        except TimeoutError:
            return False
        return not isinstance(reply, BaseException)

    async def close(self) -> None:
        for task in list(self._later):
            task.cancel()
        await super().close()

    async def _close_reader(self) -> None:
        await self.streams.close()
