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
import uuid

import pytest
from redis.asyncio.cluster import RedisCluster as ClusterClient
from websockets.exceptions import ConnectionClosed

from programs import RedisCluster, wait_until
from relay.redis_cluster_ledger import startup_nodes
from relay_client import Client, close_leftover_clients as close_leftover_clients  # autouse

ROOMS = 6
KILLS = 5
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def own_cluster(tmp_path_factory):
    cluster = RedisCluster(tmp_path_factory.mktemp("failover-cluster"), node_timeout_ms=500)  # a fast failover
    try:
        yield cluster.start()
    finally:
        cluster.stop()


async def player(urls: list[str], room: str, name: str, acked: dict[str, int], stop: asyncio.Event) -> int:
    """Post under ids until ``stop``; resume (on the other node) whenever the connection breaks. Returns resumes."""
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
                number += 1
                await asyncio.sleep(0.01)  # a game's pace, not a synchronisation
            await client.close()
        except (ConnectionClosed, OSError, TimeoutError, AssertionError):  # the store was unavailable: resume
            resumes += 1
    return resumes


@pytest.mark.long
async def test_five_master_kills_in_a_row_lose_and_double_nothing(own_cluster, spawn):
    relays = [spawn("--store", own_cluster.url, "--max-per-address", "0", "--wait-replicas", "1",
                    "--wait-ms", "2000") for _ in range(2)]
    urls = [relay.url for relay in relays]
    rooms = [f"failover-{uuid.uuid4().hex[:8]}-{i}" for i in range(ROOMS)]
    acked: dict[str, dict[str, int]] = {room: {} for room in rooms}
    stop = asyncio.Event()
    players = [asyncio.create_task(player(urls[i:] + urls[:i], room, f"{name}{r}", acked[room], stop))
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

    store = ClusterClient(startup_nodes=startup_nodes(own_cluster.url), decode_responses=True)
    try:
        for room in rooms:
            log = await store.xrange(f"discard:{{{room}}}:log")
            seqs = [int(entry_id.split("-")[0]) for entry_id, _ in log]
            assert seqs == list(range(1, len(seqs) + 1)), f"{room}: seq not gapless"
            ids = [fields["i"] for _, fields in log if fields["k"] == "post"]
            assert len(ids) == len(set(ids)), f"{room}: a post doubled"
            at = {fields["i"]: int(entry_id.split("-")[0]) for entry_id, fields in log if fields["k"] == "post"}
            lost = [post_id for post_id, seq in acked[room].items() if at.get(post_id) != seq]
            assert not lost, f"{room}: acknowledged posts lost or moved: {lost[:5]}"
    finally:
        await store.aclose()
    print(f"\n{sum(map(len, acked.values()))} posts acknowledged, {sum(resumes)} resumes; "
          f"promotion took {', '.join(f'{g:.2f}' for g in gaps)} s")
