"""A shard's master dies mid-game, five times in a row: its replica takes over and nothing acknowledged is lost.

A Redis Cluster of its own (three masters, three replicas, ``cluster-node-timeout`` 500 ms: the conformance
suite's is shared and stays whole), two relay nodes with ``--wait-replicas 1``, and rooms whose two players post
under ids without pause. Five times: SIGKILL a master, wait for its replica to be promoted, start the dead node
again (it comes back as the new master's replica) and wait until it is in sync. A player whose connection breaks
resumes on the other relay node and sends its unacknowledged post again under the same id. At the end every
room's ledger holds every acknowledged post exactly once, at the seq its acknowledgement named, gapless.
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections.abc import AsyncIterator, Coroutine
from typing import Any, cast

import pytest
from redis.asyncio.cluster import ClusterNode, RedisCluster as ClusterClient
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from websockets.exceptions import ConnectionClosed

from programs import WAIT, RedisCluster, RedisServer, reply, wait_until
from relay.redis_cluster_ledger import RedisClusterLedger, startup_nodes
from relay.redis_ledger import keys
from relay_client import Client, close_leftover_clients as close_leftover_clients  # autouse

ROOMS = 6
KILLS = 5
PACE = 0.05  # s between a player's posts: 20 a second, faster than any game (at 0.01 the relays and Redis took two
# cores' worth of the suite's time posting)
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def own_cluster(tmp_path_factory):
    cluster = RedisCluster(tmp_path_factory.mktemp("failover-cluster"), node_timeout_ms=500)  # a fast failover
    try:
        yield cluster.start()
    finally:
        cluster.stop()


class Background:
    """A test's players and listeners, and the event that tells its players to stop."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task[Any]] = []

    def start(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        self.tasks.append(asyncio.create_task(coroutine))
        return self.tasks[-1]


@pytest.fixture
async def background(spawn) -> AsyncIterator[Background]:
    """Whatever the test raised, its players are told to stop and every task is cancelled and awaited before its
    relays are killed (``spawn``'s teardown comes after this one's): a player left running when a test failed resumed
    against the killed relays for ever, and pytest hung after the test's F."""
    running = Background()
    yield running
    running.stop.set()
    for task in running.tasks:
        task.cancel()
    await asyncio.gather(*running.tasks, return_exceptions=True)


async def player(urls: list[str], room: str, name: str, acked: dict[str, int], stop: asyncio.Event,
                 times: list[float] | None = None) -> int:
    """Post under ids until ``stop`` (noting each acknowledgement's time in ``times``); resume (on the other node)
    whenever the connection breaks. Returns resumes."""
    token: str | None = None
    number, turn, resumes = 0, 0, 0
    while not stop.is_set():
        url = urls[turn % len(urls)]
        turn += 1
        try:
            client = await Client.seated(url, room, name, token, 0, timeout=10)
            token = client.token
            while not stop.is_set():
                post_id = f"{name}-{number}"
                acked[post_id] = await client.post_with_id({"n": number}, post_id)
                if times is not None:
                    times.append(time.monotonic())
                number += 1
                await asyncio.sleep(PACE)  # a game's pace, not a synchronisation
            await client.close()
        except (ConnectionClosed, OSError, TimeoutError, AssertionError):  # the store was unavailable: resume
            resumes += 1
    return resumes


@pytest.mark.long
@pytest.mark.xdist_group("failover-cluster")  # one cluster of its own for the tests that kill its masters
async def test_five_master_kills_in_a_row_lose_and_double_nothing(own_cluster, spawn, background):
    relays = [spawn("--store", own_cluster.url, "--max-per-address", "0", "--wait-replicas", "1",
                    "--wait-ms", "2000") for _ in range(2)]
    urls = [relay.url for relay in relays]
    rooms = [f"failover-{uuid.uuid4().hex[:8]}-{i}" for i in range(ROOMS)]
    acked: dict[str, dict[str, int]] = {room: {} for room in rooms}
    stop = background.stop
    players = [background.start(player(urls[i:] + urls[:i], room, f"{name}{r}", acked[room], stop))
               for r, room in enumerate(rooms) for i, name in enumerate(("a", "b"))]
    gaps = []
    for _ in range(KILLS):
        counts = sum(map(len, acked.values()))
        await asyncio.to_thread(wait_until, lambda: sum(map(len, acked.values())) >= counts + 20, "posts flowing")
        gaps.append(await asyncio.to_thread(own_cluster.kill_a_master))
    before = sum(map(len, acked.values()))
    await asyncio.to_thread(wait_until, lambda: sum(map(len, acked.values())) >= before + 20, "posts after the kills")
    stop.set()
    resumes = await asyncio.gather(*players)
    assert all(relay.alive() for relay in relays), "".join(relay.log() for relay in relays)
    said = [line for relay in relays for line in relay.stderr if "re-subscribing" in line]
    assert said and not [line for line in said if "same slot" in line], said  # no SSUBSCRIBE of every bell at once

    await check_ledgers(own_cluster, acked)
    print(f"\n{sum(map(len, acked.values()))} posts acknowledged, {sum(resumes)} resumes; "
          f"promotion took {', '.join(f'{g:.2f}' for g in gaps)} s")


@pytest.mark.xdist_group("failover-cluster")
async def test_a_dead_master_holds_up_only_its_own_rooms_whose_posts_wait_for_its_replica(own_cluster, spawn,
                                                                                          background):
    """One relay node, a room on each master with two players posting under ids without pause and a listening seat;
    one master SIGKILLed. No player is refused or dropped, on any shard: the rooms on the live masters have posts
    acknowledged all along the dead one's outage, and the dead master's room has its posts wait until its replica
    serves them. (Before, the node sent every shard's appends in one pipeline, which failed whole when one shard's
    connection broke, and redis-py's retry of it closed every shard's connections: every room's players were
    refused and resumed.) Nothing is lost or doubled, and each listener receives its room's whole ledger."""
    relay = spawn("--store", own_cluster.url, "--max-per-address", "0", "--wait-replicas", "1", "--wait-ms", "2000")
    masters = own_cluster.masters()
    rooms = [room_on(master, own_cluster, "shard") for master in masters]  # the first on the master to be killed
    acked: dict[str, dict[str, int]] = {room: {} for room in rooms}
    times: dict[str, list[float]] = {room: [] for room in rooms}
    listeners = []
    for room in rooms:
        client = await Client.open(relay.url, "c")
        await client.join(room, "c", seats=3)
        listeners.append(client)
    reading = [background.start(listener(client)) for client in listeners]
    stop = background.stop
    players = [background.start(player([relay.url], room, f"{name}{r}", acked[room], stop, times[room]))
               for r, room in enumerate(rooms) for name in ("a", "b")]

    def posts_flow(room: str, what: str) -> None:
        before = len(acked[room])
        wait_until(lambda: len(acked[room]) >= before + 20, what)

    await asyncio.to_thread(posts_flow, rooms[0], "posts before the kill")
    killed = time.monotonic()
    promoted = killed + await asyncio.to_thread(own_cluster.kill_a_master, masters[0])
    await asyncio.to_thread(posts_flow, rooms[0], "posts in the dead master's room after the promotion")
    stop.set()
    resumes = await asyncio.gather(*players)
    assert all(relay.alive() for relay in [relay]), relay.log()
    assert sum(resumes) == 0, f"players refused or dropped and resumed: {resumes}" + relay.log()

    gaps = [max(b - a for a, b in zip(times[room], times[room][1:])) for room in rooms]
    late = killed + (promoted - killed) / 2
    for room in rooms[1:]:
        assert any(late < t < promoted for t in times[room]), \
            f"a live master's room had no post acknowledged in the outage's second half: {gaps}" + relay.log()
    heads = await check_ledgers(own_cluster, acked)
    for task in reading:
        task.cancel()  # (a cancelled recv loses no frame)
    await asyncio.gather(*reading, return_exceptions=True)
    for client in listeners:
        await client.until_seq(heads[client.room or ""])
    print(f"\nthe replica promoted in {promoted - killed:.2f} s; the longest wait between two acknowledgements: "
          f"{gaps[0] * 1000:.0f} ms in the dead master's room, {', '.join(f'{g * 1000:.0f}' for g in gaps[1:])} ms in "
          f"the live masters'")


@pytest.mark.xdist_group("failover-cluster")
async def test_a_join_and_a_watch_whose_master_died_before_answering_are_answered_once_by_its_replica(own_cluster):
    """A new seat's join and a watcher's arrival run on a master that is SIGKILLed before it answers them (their
    replies lost, as when a connection breaks after sending; a replica has what they wrote): each is sent again
    under its call id until the replica is promoted, and answered there with the first run's seat, epoch and seq.
    One join event and one watch event, one seat taken, one watcher counted. (Before, both were refused as
    unavailable at once: sending them again would have taken a second seat and counted the watcher twice.)"""
    ledger = RedisClusterLedger(own_cluster.url)
    await ledger.open()
    victim = own_cluster.masters()[0]
    room = room_on(victim, own_cluster, "rejoin")
    try:
        await ledger.claim(room, "ann", None, 3)
        scripts, lost, both_ran = {ledger._claim.sha, ledger._watch.sha}, set(), asyncio.Event()
        send = ledger._pipeline
        killed = 0.0

        async def reply_lost(node: ClusterNode, commands: list[tuple[tuple[str | int, ...], bool]],
                             replicas: int) -> tuple[list[object], bool]:
            """The first claim and watch after this: run, and on a replica (WAIT 1); then their master is killed
            before it answers them."""
            nonlocal killed
            sha = str(commands[0][0][1]) if commands[0][0][0] == "EVALSHA" else ""
            if sha not in scripts - lost:
                return await send(node, commands, replicas)
            replies, ran = await send(node, commands, 1)
            if [r for r in replies if isinstance(r, BaseException)]:  # (NOSCRIPT: loaded, and sent here again)
                return replies, ran
            lost.add(sha)
            if lost == scripts:
                assert victim.proc is not None
                killed = time.monotonic()
                victim.proc.kill()
                victim.proc.wait(WAIT)
                both_ran.set()
            await both_ran.wait()
            return [RedisConnectionError("the master died before answering")] * len(commands), True

        ledger._pipeline = reply_lost  # type: ignore[method-assign]
        joining = asyncio.create_task(ledger.claim(room, "bob", None, 3))
        watching = asyncio.create_task(ledger.watch(room, "wat", 8))
        answered: list[float] = []
        joining.add_done_callback(lambda _: answered.append(time.monotonic()))
        async with asyncio.timeout(WAIT):
            await both_ran.wait()
        promoted = await asyncio.to_thread(own_cluster.taken_over, victim, killed)
        bob, wat = await joining, await watching
        entries = await ledger.read(room, 0)
        (count, watchers), = await ledger._hmgets([keys(room)[0]], ["count", "watching"])
    finally:
        await ledger.close()
    assert sorted((e.seat, e.kind) for e in entries) == [(-1, "watch"), (0, "join"), (1, "join")], entries
    assert (bob.seat, wat.watching, count, watchers) == (1, 1, "2", "1")
    assert [e.seq for e in entries if e.seat == 1] == [bob.seq] and [e.seq for e in entries if e.seat < 0] == [wat.seq]
    print(f"\nthe replica promoted in {promoted:.2f} s; the join answered {answered[0] - killed:.2f} s after the kill")


async def check_ledgers(cluster: RedisCluster, acked: dict[str, dict[str, int]]) -> dict[str, int]:
    """Every room's ledger is gapless and holds each acknowledged post exactly once, at the seq its acknowledgement
    named. Returns each room's last seq."""
    heads = {}
    store = ClusterClient(startup_nodes=startup_nodes(cluster.url), decode_responses=True)
    try:
        for room, posts in acked.items():
            log = cast(list[tuple[str, dict[str, str]]], await store.xrange(f"discard:{{{room}}}:log"))
            seqs = [int(entry_id.split("-")[0]) for entry_id, _ in log]
            assert seqs == list(range(1, len(seqs) + 1)), f"{room}: seq not gapless"
            ids = [fields["i"] for _, fields in log if fields["k"] == "post"]
            assert len(ids) == len(set(ids)), f"{room}: a post doubled"
            at = {fields["i"]: int(entry_id.split("-")[0]) for entry_id, fields in log if fields["k"] == "post"}
            lost = [post_id for post_id, seq in posts.items() if at.get(post_id) != seq]
            assert not lost, f"{room}: acknowledged posts lost or moved: {lost[:5]}"
            heads[room] = seqs[-1]
    finally:
        await store.aclose()
    return heads


async def listener(client: Client) -> None:
    """Read a seat's events as they come (the client checks each is the next seq) until cancelled."""
    while True:
        await client.next_event(timeout=60)


def room_on(master: RedisServer, cluster: RedisCluster, prefix: str) -> str:
    """A fresh room name whose slot ``master`` serves."""
    while cluster.owner(key_slot((room := f"{prefix}-{uuid.uuid4().hex[:8]}").encode())) is not master:
        pass
    return room


@pytest.mark.long
@pytest.mark.xdist_group("redis-cluster")  # the conformance suite's cluster: started once per run
async def test_a_room_resharded_under_live_posts_loses_doubles_and_stalls_nothing(redis_cluster, spawn, background):
    """One room's slot is migrated to another master while its players post without pause, as ``redis-cli --cluster
    reshard`` does it: the relay nodes get ASK while its keys are on the target and the slot not yet, then MOVED, and
    the source drops their subscriptions to its bell (SUNSUBSCRIBE). A room left on the source plays on beside it.
    Each room has a poster and a listening seat on each relay node: every acknowledged post is in the ledger once,
    at its seq, and both listeners of each room receive the whole ledger, what was posted after the move included.
    The slot stays on the target (nothing else cares where it is)."""
    relays = [spawn("--store", redis_cluster.url, "--max-per-address", "0", "--wait-replicas", "1",
                    "--wait-ms", "2000") for _ in range(2)]
    urls = [relay.url for relay in relays]
    source = redis_cluster.masters()[0]
    target = next(m for m in redis_cluster.masters() if m is not source)
    moving, staying = (room_on(source, redis_cluster, name) for name in ("reshard", "bystander"))
    acked: dict[str, dict[str, int]] = {moving: {}, staying: {}}
    listeners = []
    for room in acked:
        for url, name in zip(urls, ("c", "d")):
            client = await Client.open(url, name)
            await client.join(room, name, seats=4)
            listeners.append(client)
    reading = [background.start(listener(client)) for client in listeners]
    stop, times = background.stop, []
    players = [background.start(player(urls[i:] + urls[:i], room, f"{name}{r}", acked[room], stop,
                                          times if room == moving else None))
               for r, room in enumerate(acked) for i, name in enumerate(("a", "b"))]

    def posts_flow(what: str) -> None:
        before = len(acked[moving])
        wait_until(lambda: len(acked[moving]) >= before + 20, what, bound=10)

    await asyncio.to_thread(posts_flow, "posts before the move")
    asked = redis_cluster.errors(source).get("ASK", 0)
    began = time.monotonic()
    await asyncio.to_thread(redis_cluster.move_slot, key_slot(moving.encode()), target,
                            lambda: posts_flow("posts while the keys are on the target and the slot is not (ASK)"))
    moved = time.monotonic()
    await asyncio.to_thread(posts_flow, "posts after the move (MOVED)")
    stop.set()
    resumes = await asyncio.gather(*players)
    assert redis_cluster.owner(key_slot(moving.encode())) is target
    assert redis_cluster.errors(source).get("ASK", 0) > asked, "the relay nodes were never redirected by ASK"
    assert sum(resumes) == 0, "a post was refused while its room moved" + "".join(relay.log() for relay in relays)
    assert all(relay.alive() for relay in relays), "".join(relay.log() for relay in relays)

    heads = await check_ledgers(redis_cluster, acked)
    for client, task in zip(listeners, reading):
        task.cancel()  # (a cancelled recv loses no frame)
        await client.until_seq(heads[client.room or ""])  # nothing stalls: each follower delivers the whole ledger
    gaps = list(zip(times, times[1:]))
    pause = max((b - a for a, b in gaps if b >= began and a <= moved), default=0.0)
    usual = max((b - a for a, b in gaps if b < began), default=0.0)
    print(f"\n{sum(map(len, acked.values()))} posts acknowledged; the move took {moved - began:.2f} s; the longest "
          f"wait between two acknowledgements in the moving room: {pause * 1000:.0f} ms during the move, "
          f"{usual * 1000:.0f} ms before it")


async def listed(lister: Client, mine: list[str]) -> list[str]:
    """Which of ``mine`` the lobby lists, in its order, paging through it (other tests' rooms included)."""
    rooms: list[str] = []
    after = None
    while True:
        page = await lister.list_rooms(after, limit=50)
        assert page["type"] == "rooms", page
        rooms += [row["room"] for row in page["rooms"]]
        if (after := page["next"]) is None:
            assert len(rooms) == len(set(rooms)), "a room listed twice across pages"
            return [room for room in rooms if room in mine]


@pytest.mark.xdist_group("redis-cluster")  # the conformance suite's cluster
async def test_the_lobby_and_a_nodes_registry_are_served_while_their_slots_move(redis_cluster, spawn):
    """The node-wide keys under ``redis-cli --cluster reshard``: the lobby's slot, then the slot of the relay node's
    list of rooms (``discard:node:ID:rooms``), each moved to another master while the lobby is listed, a room fills
    (out of the lobby), new public rooms open (into it and into the node's list) and a player leaves. Each command
    on them while their keys sit on the new master (ASK) is answered there; the lobby lists public rooms of every
    shard in the order they were listed, and the node's list ends with exactly the rooms where it holds seats."""
    relay = spawn("--store", redis_cluster.url, "--max-per-address", "0")
    masters = redis_cluster.masters()
    rooms = [room_on(master, redis_cluster, "lobby") for master in masters]  # a public room on each shard
    players = []
    for room in rooms:
        client = await Client.open(relay.url, "p")
        await client.join(room, "p", seats=2, public={"game": "war"})
        players.append(client)
    lister = await Client.open(relay.url, "L")
    assert await listed(lister, rooms) == rooms
    store = ClusterClient(startup_nodes=startup_nodes(redis_cluster.url), decode_responses=True)
    try:
        registry = [key async for key in store.scan_iter(match="discard:node:*:rooms")
                    if await store.sismember(key, rooms[0])][0]  # this relay node's
        late: list[str] = []

        async def while_the_lobby_moves() -> None:
            assert await listed(lister, rooms) == rooms
            await (await Client.open(relay.url, "q")).join(rooms[1], "q")  # full: out of the lobby
            late.append(room_on(masters[1], redis_cluster, "lobby-late"))
            await (await Client.open(relay.url, "p")).join(late[0], "p", seats=2, public={"game": "war"})
            assert await listed(lister, [*rooms, *late]) == [rooms[0], rooms[2], late[0]]

        async def while_the_registry_moves() -> None:
            late.append(room_on(masters[2], redis_cluster, "lobby-later"))
            await (await Client.open(relay.url, "p")).join(late[1], "p", seats=2)
            await players[0].close()  # the node lets rooms[0] go

        for key, then in (("discard:lobby", while_the_lobby_moves), (registry, while_the_registry_moves)):
            slot = key_slot(key.encode())
            source = redis_cluster.owner(slot)
            target = next(m for m in masters if m is not source)
            asked = redis_cluster.errors(source).get("ASK", 0)
            loop = asyncio.get_running_loop()
            await asyncio.to_thread(redis_cluster.move_slot, slot, target,
                                    lambda: asyncio.run_coroutine_threadsafe(then(), loop).result(30))
            assert redis_cluster.owner(slot) is target
            assert redis_cluster.errors(source).get("ASK", 0) > asked, f"the relay node was never asked for {key}"

        expected = ({*rooms[1:], *late}, [rooms[2], late[0]])  # rooms[0], whose one player left: in neither
        for _ in range(200):  # (the leave is recorded after the connection closed: a bounded number of reads)
            now = (set(await store.smembers(registry)), await listed(lister, [*rooms, *late]))
            if now == expected:
                break
        assert now == expected
    finally:
        await store.aclose()
    assert "unavailable" not in relay.log(), relay.log()


@pytest.mark.xdist_group("redis-cluster")  # the conformance suite's cluster (cluster-node-timeout 5 s): not failed over
async def test_a_master_that_stops_answering_holds_up_no_other_shards_room(redis_cluster):
    """A master whose host stops answering (SIGSTOP: a machine cut off, no connection refused) while a post of its
    room is in flight, and another master whose scripts are gone (SCRIPT FLUSH, as on a promoted replica): the rooms
    on the two others have their posts answered and delivered at once, not after the stuck master's socket timeout
    (10 s: the node's appends and its rooms' reads each waited for every master's pipeline, in flight or in the same
    batch; and the script a master lacked was loaded on every master). The script is loaded again on the master
    that lacked it only; the stuck room's post is answered once its master answers again."""
    ledger = RedisClusterLedger(redis_cluster.url)
    await ledger.open()
    try:
        stuck, flushed, other = redis_cluster.masters()
        rooms = [room_on(master, redis_cluster, "stuck") for master in (stuck, flushed, other)]
        claims = [await ledger.claim(room, "ann", None, 2) for room in rooms]
        for claim, room in zip(claims, rooms):  # (the scripts loaded, as on a node that has served a while)
            await ledger.append(room, claim.seat, claim.epoch, '{"warm": 1}', "warm")
        delivered: list[asyncio.Queue[int]] = [asyncio.Queue(), asyncio.Queue()]
        for room, claim, queue in zip(rooms[1:], claims[1:], delivered):
            ledger.follow(room, claim.seq + 1, lambda entries, queue=queue: [queue.put_nowait(e.seq) for e in entries])
        loads = [script_loads(master) for master in (stuck, flushed, other)]
        assert reply(flushed.port, "script", "flush") == "OK"
        assert stuck.proc is not None
        stuck.proc.send_signal(signal.SIGSTOP)
        try:
            ledger.follow(rooms[0], 0, lambda entries: None)  # its first read waits on the stuck master
            held = asyncio.create_task(ledger.append(rooms[0], claims[0].seat, claims[0].epoch, '{"a": 1}', "held"))
            async with asyncio.timeout(2):
                seqs = await asyncio.gather(*(ledger.append(room, claim.seat, claim.epoch, '{"b": 1}', "free")
                                              for room, claim in zip(rooms[1:], claims[1:])))
                assert [await queue.get() for queue in delivered] == seqs
        finally:
            stuck.proc.send_signal(signal.SIGCONT)
        assert await held == claims[0].seq + 2
        assert [script_loads(master) - before for master, before in zip((stuck, flushed, other), loads)] == [0, 1, 0]
    finally:
        await ledger.close()


def script_loads(master: RedisServer) -> int:
    """How many SCRIPT LOAD ``master`` has run (INFO commandstats)."""
    for line in reply(master.port, "info", "commandstats").splitlines():
        if line.startswith("cmdstat_script|load:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0
