"""Rooms on a Redis Cluster (``--store redis-cluster://HOST:PORT[,HOST:PORT...]``): the Redis ledger, sharded.

The keys and scripts are :mod:`relay.redis_ledger`'s: every key of a room carries the ``{ROOM}`` hash tag, so
each script touches one slot and runs on the shard that owns it (redis-py's cluster client routes it, and follows
``MOVED``/``ASK`` while slots move). What differs on a Cluster:

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
  once): a room is read after it is subscribed, and every followed room is read again whenever a subscription
  breaks (a failover, a slot moved: the server drops its subscribers), from each follower's position, so
  nothing is skipped or repeated.

Durability: with ``replicas`` (``--wait-replicas``), a post is answered only after ``WAIT`` on the connection of
its shard's master says that many replicas have it (see :class:`relay.redis_ledger.RedisLedger`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any, cast

import redis.asyncio as redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisError

from .ledger import Deliver, Entry, Follower
from .redis_ledger import (APPEND, CLAIM, LOBBY, PAGE, RELEASE, STORE_ERRORS, UNDER_WAY, WATCH, RedisLedger, describe,
                           entries_of, keys)

log = logging.getLogger("discard.relay")

RING = "redis.call('SPUBLISH', (string.gsub(events, ':log$', ':bell')), seq)"
SCHEME = "redis-cluster://"
CLUSTER_CONNECTIONS = 512  # per shard


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


class Shard:
    """One subscriber connection to a shard's master, for the bells of the rooms it owns."""

    def __init__(self, reader: BellReader, node: ClusterNode) -> None:
        self.reader, self.name = reader, node.name
        self.client = redis.Redis(host=node.host, port=int(node.port), decode_responses=True, socket_connect_timeout=2)
        self.pubsub = self.client.pubsub()
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
    follower's position after it is subscribed and after every break, so a lost bell delays nothing for long."""

    def __init__(self, ledger: RedisClusterLedger) -> None:
        self.ledger = ledger
        self.followers: dict[str, BellFollower] = {}  # by bell channel
        self.dirty: set[str] = set()  # bells of rooms to read
        self.kick = asyncio.Event()
        self.shards: dict[str, Shard] = {}
        self.resharding = False
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
        if not self.resharding:
            self._spawn(self._subscribe(follower.bell))

    def remove(self, follower: BellFollower) -> None:
        if self.followers.get(follower.bell) is follower:
            del self.followers[follower.bell]
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
        if channel not in self.followers or self.resharding:  # stopped since, or the resharding does it
            return
        try:
            await self._home(channel).subscribe(channel)
        except (*STORE_ERRORS, AttributeError, KeyError) as error:  # no slot map yet, or a shard gone
            if not self.resharding:
                self._spawn(self._reshard(describe(error)))

    def _home(self, channel: str) -> Shard:
        """The subscription to the shard that owns ``channel``'s slot now."""
        node = self.ledger.client.get_node_from_key(channel)
        if node.name not in self.shards:
            self.shards[node.name] = Shard(self, node)
        return self.shards[node.name]

    def broken(self, shard: Shard, error: BaseException) -> None:
        if not self.resharding:
            self._spawn(self._reshard(f"{shard.name}: {describe(error)}"))

    async def _reshard(self, why: str) -> None:
        """A subscription broke: learn the slots again, subscribe every bell anew, and read every room."""
        self.resharding = True
        log.warning("re-subscribing %d rooms' bells (%s)", len(self.followers), why)
        delay = 0.05
        try:
            while True:
                shards, self.shards = list(self.shards.values()), {}
                for shard in shards:
                    await shard.close()
                try:
                    await self.ledger.client.nodes_manager.initialize()
                    while todo := [c for c in self.followers if all(c not in s.channels for s in self.shards.values())]:
                        for channel in todo:  # (followers added while subscribing are in the next round)
                            await self._home(channel).subscribe(channel)
                except (*STORE_ERRORS, OSError) as error:
                    log.warning("re-subscribing: %s; again in %.2fs", describe(error), delay)
                    await asyncio.sleep(delay)
                    delay = min(1.0, delay * 2)
                    continue
                break
        finally:
            self.resharding = False
        for channel in self.followers:
            self.rang(channel)

    async def _read(self) -> None:
        delay = 0.05
        while True:
            await self.kick.wait()
            self.kick.clear()
            wanted = [self.followers[c] for c in self.dirty if c in self.followers]
            self.dirty.clear()
            if not wanted:
                continue
            try:
                async with self.ledger.client.pipeline(transaction=False) as pipe:
                    for follower in wanted:
                        pipe.xrange(follower.stream, min=str(follower.position + 1), count=PAGE)
                    replies = await pipe.execute(raise_on_error=False)
            except STORE_ERRORS as error:
                replies = [error] * len(wanted)
            failed = None
            for follower, reply in zip(wanted, replies):
                if isinstance(reply, BaseException):
                    failed = reply
                    self.rang(follower.bell)
                    continue
                records = cast(list[tuple[str, dict[str, str]]], reply)
                follower.receive(entries_of(records))
                if len(records) >= PAGE:
                    self.rang(follower.bell)
            if failed is not None:
                log.warning("reading rooms: %s; again in %.2fs", describe(failed), delay)
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
            else:
                delay = 0.05

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        for task in list(self.background):
            task.cancel()

    async def close(self) -> None:
        self.stop()
        for shard in self.shards.values():
            await shard.close()


class RedisClusterLedger(RedisLedger):
    """Rooms on a Redis Cluster; any number of relay nodes may serve the same rooms at once."""

    SCRIPTS = (ringing(CLAIM), ringing(APPEND), ringing(RELEASE), ringing(WATCH))

    def __init__(self, url: str, retention: float = 600.0, lease: float = 15.0, replicas: int = 0,
                 wait_ms: int = 1000) -> None:
        super().__init__(url, retention, lease, replicas, wait_ms)
        self.streams = BellReader(self)

    def _connect(self, url: str, options: dict[str, Any]) -> Any:
        # (per shard; the cluster client refuses a command past it rather than wait, so it is generous)
        return RedisCluster(startup_nodes=startup_nodes(url), max_connections=CLUSTER_CONNECTIONS, **options)

    def _lobby_keys(self, room: str) -> list[str]:
        return keys(room)

    async def _listed(self, member: str, open_: int, going: int) -> None:
        seats = keys(member.split(":", 1)[1])[0]
        shown = {LOBBY: open_, UNDER_WAY: going}
        for index in [index for index, listed in shown.items() if listed]:
            await self.client.zadd(index, {member: 0})
        gone = [index for index, listed in shown.items() if not listed]
        for index in gone:
            await self.client.zrem(index, member)
        size, count, *held = await self.client.hmget(seats, "size", "count", *(f"h:{s}" for s in range(6)))
        if size is not None and any(held):  # opened or filled again by a later script, whose listing went first
            now = UNDER_WAY if int(count or 0) >= int(size) else LOBBY
            if now in gone:
                await self.client.zadd(now, {member: 0})

    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        follower = BellFollower(self.streams, room, after, deliver)
        self.streams.add(follower)
        return follower

    async def _send_appends_once(self, calls: list[tuple[list[str], list[str | int]]]) -> list[object]:
        """One pipeline, split per shard by the client; with ``replicas``, each shard's part ends with ``WAIT`` on
        the same connection. An append the client had to send again elsewhere (its slot moved) is not covered by
        that ``WAIT``: it is refused as unavailable, and the client's resume (same post id) settles it."""
        homes = [self.client.get_node_from_key(room_keys[0]) for room_keys, _ in calls]
        masters = {node.name: node for node in homes}
        async with self.client.pipeline(transaction=False) as pipe:
            for room_keys, args in calls:
                # (a cluster pipeline refuses .evalsha, as scripts may name keys of several slots: these do not)
                pipe.execute_command("EVALSHA", self._append.sha, len(room_keys), *room_keys, *args)
            if self.replicas:
                for node in masters.values():
                    pipe.execute_command("WAIT", self.replicas, self.wait_ms, target_nodes=node)
            results = await pipe.execute(raise_on_error=False)
        if self.replicas:
            for name, acked in zip(masters, results[len(calls):]):
                self._unsafe(results, acked, [n for n, home in enumerate(homes) if home.name == name])
            del results[len(calls):]
            for n, ((room_keys, _), home) in enumerate(zip(calls, homes)):
                if self.client.get_node_from_key(room_keys[0]).name != home.name \
                        and not isinstance(results[n], BaseException):
                    results[n] = RedisError("its shard changed while it was sent")
        return results

    async def _close_reader(self) -> None:
        await self.streams.close()
