"""Rooms on a Redis Cluster (``--store redis-cluster://HOST:PORT[,HOST:PORT...]``): the Redis ledger, sharded.

The keys and scripts are :mod:`relay.redis_ledger`'s: every key of a room carries the ``{ROOM}`` hash tag, so
each script touches one slot and runs on the shard that owns it. What differs on a Cluster:

* **Routing while slots move** (``redis-cli --cluster reshard``). A room's scripts (claims, appends, releases,
  watches) and reads (its events, and its seats for the lobby) go through :meth:`RedisClusterLedger.routed`,
  which follows ``ASK`` (``ASKING`` and the command on one connection), ``MOVED`` and ``TRYAGAIN`` itself, so a
  post is not refused because its room moved, and with ``--wait-replicas`` the ``WAIT`` runs on the master that
  ran the append. The node-wide keys and the lobby's sorted sets are left to redis-py's routing, which follows
  ``MOVED`` but may give up on ``ASK`` (see ``routed``): a command on them while their own slot migrates can fail
  as unavailable, and its client retries.
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
  breaks (a failover; a slot moved, when the old master sends ``SUNSUBSCRIBE`` for its bells), from each
  follower's position, so nothing is skipped or repeated. The bells are subscribed again one a command, never
  all in one ``SSUBSCRIBE`` (a Cluster refuses that: :class:`BellPubSub`).

Durability: with ``replicas`` (``--wait-replicas``), a post is answered only after ``WAIT`` on the connection of
its shard's master says that many replicas have it (see :class:`relay.redis_ledger.RedisLedger`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any, cast

import redis.asyncio as redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AskError, MovedError, NoScriptError, RedisError, TryAgainError

from .ledger import MAX_SEATS, Deliver, Entry, Follower
from .redis_ledger import (APPEND, CLAIM, LOBBY, PAGE, RELEASE, STORE_ERRORS, UNDER_WAY, WATCH, RedisLedger, describe,
                           entries_of, keys)

log = logging.getLogger("discard.relay")

RING = "redis.call('SPUBLISH', (string.gsub(events, ':log$', ':bell')), seq)"
SCHEME = "redis-cluster://"
CLUSTER_CONNECTIONS = 512  # per shard
ROUNDS = 8  # a command redirected more often than this (its slot moving again and again) is refused as unavailable


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
                replies = await self.ledger.routed([(follower.stream, ("XRANGE", follower.stream,
                                                                         str(follower.position + 1), "+", "COUNT", PAGE))
                                                     for follower in wanted])
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


class RoutedScript:
    """A script called as redis-py's are (``script(keys, args)``), sent through :meth:`RedisClusterLedger.routed`
    so that it follows a slot's migration; loaded again on a master that lacks it (one that a slot moved to)."""

    def __init__(self, ledger: RedisClusterLedger, script: str) -> None:
        self.ledger, self.script = ledger, script
        self.sha = ledger.client.register_script(script).sha

    async def __call__(self, keys: list[str], args: list[str | int]) -> Any:
        for _ in range(2):
            reply, = await self.ledger.routed([(keys[0], ("EVALSHA", self.sha, len(keys), *keys, *args))])
            if not isinstance(reply, NoScriptError):
                break
            await self.ledger.client.script_load(self.script)  # (a refused EVALSHA ran nothing)
        if isinstance(reply, BaseException):
            raise reply
        return reply


class RedisClusterLedger(RedisLedger):
    """Rooms on a Redis Cluster; any number of relay nodes may serve the same rooms at once."""

    SCRIPTS = (ringing(CLAIM), ringing(APPEND), ringing(RELEASE), ringing(WATCH))

    def __init__(self, url: str, retention: float = 600.0, lease: float = 15.0, replicas: int = 0,
                 wait_ms: int = 1000) -> None:
        super().__init__(url, retention, lease, replicas, wait_ms)
        claim, append, release, watch = self.SCRIPTS
        self._claim, self._release, self._watch = (RoutedScript(self, script) for script in (claim, release, watch))
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
        (size, count, *held), = await self._hmgets([seats], ["size", "count", *(f"h:{s}" for s in range(MAX_SEATS))])
        if size is not None and any(held):  # opened or filled again by a later script, whose listing went first
            now = UNDER_WAY if int(count or 0) >= int(size) else LOBBY
            if now in gone:
                await self.client.zadd(now, {member: 0})

    def follow(self, room: str, after: int, deliver: Deliver) -> Follower:
        follower = BellFollower(self.streams, room, after, deliver)
        self.streams.add(follower)
        return follower

    async def _send_appends_once(self, calls: list[tuple[list[str], list[str | int]]]) -> list[object]:
        """One pipeline a round (see :meth:`routed`); with ``replicas``, each shard's part ends with ``WAIT`` on the
        connection that ran it, so an append redirected to another shard is covered by that shard's ``WAIT``."""
        return await self.routed([(room_keys[0], ("EVALSHA", self._append.sha, len(room_keys), *room_keys, *args))
                                  for room_keys, args in calls], self.replicas)

    async def routed(self, calls: list[tuple[str, tuple[str | int, ...]]], replicas: int = 0) -> list[object]:
        """Each call (the key that names its slot, and the command) in one pipeline a round, split per shard by the
        client and run concurrently; the replies, or the errors, in order. A call the shard redirected was not run,
        so it goes in the next round: after ``ASK`` (its slot is migrating and its keys are on the importing master)
        to that master, right after ``ASKING`` on the same connection; after ``MOVED`` to the slot's new master;
        after ``TRYAGAIN`` (its keys are split between the two for a moment) a moment later. (redis-py's own
        redirection sends ``ASKING`` and the command on two connections of its pool, so the master answers
        ``MOVED`` back to the old one until the client gives up.) With ``replicas``, each shard's part of a round
        ends with ``WAIT`` on its connection, and the calls that ``WAIT`` does not cover fail as not yet safe."""
        results: list[object] = [None] * len(calls)
        todo: dict[int, ClusterNode | None] = dict.fromkeys(range(len(calls)))  # the master that said ASK
        for _ in range(ROUNDS):
            sent: list[tuple[int, str, bool]] = []
            masters: dict[str, ClusterNode] = {}
            async with self.client.pipeline(transaction=False) as pipe:
                for n, asked in todo.items():
                    node = asked or self.client.get_node_from_key(calls[n][0])
                    if asked is not None:
                        pipe.execute_command("ASKING", target_nodes=node)
                    pipe.execute_command(*calls[n][1], target_nodes=node)
                    sent.append((n, node.name, asked is not None))
                    masters[node.name] = node
                for node in masters.values() if replicas else ():
                    pipe.execute_command("WAIT", replicas, self.wait_ms, target_nodes=node)
                replies = await pipe.execute(raise_on_error=False, allow_redirections=False)
            todo, later = {}, False
            ran: dict[str, list[int]] = collections.defaultdict(list)
            position = 0
            for n, name, asking in sent:
                position += asking  # (ASKING's OK)
                reply = replies[position]
                position += 1
                if isinstance(reply, AskError):
                    todo[n] = self.client.get_node(reply.host, reply.port)
                elif isinstance(reply, MovedError):
                    await self.client.nodes_manager.move_slot(reply)
                    todo[n] = None
                elif isinstance(reply, TryAgainError):
                    todo[n], later = None, True
                else:
                    results[n] = reply
                    ran[name].append(n)
            for name, acked in zip(masters, replies[position:]):
                self._unsafe(results, acked, ran[name])
            if not todo:
                return results
            if later:
                await asyncio.sleep(0.05)  # (the migration moves the rest of the keys meanwhile)
        for n in todo:
            results[n] = RedisError(f"redirected {ROUNDS} times while its slot moved")
        return results

    async def _hmgets(self, hashes: list[str], fields: list[str]) -> list[list[str | None]]:
        """``fields`` of each hash (rooms' seats, in their rooms' slots), routed (see :meth:`routed`)."""
        replies = await self.routed([(name, ("HMGET", name, *fields)) for name in hashes])
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return cast(list[list[str | None]], replies)

    async def read(self, room: str, after: int) -> list[Entry]:
        stream = keys(room)[1]
        async with self._talking():
            reply, = await self.routed([(stream, ("XRANGE", stream, str(after + 1), "+", "COUNT", PAGE))])
            if isinstance(reply, BaseException):
                raise reply
        return entries_of(cast(list[tuple[str, dict[str, str]]], reply))

    async def _close_reader(self) -> None:
        await self.streams.close()
