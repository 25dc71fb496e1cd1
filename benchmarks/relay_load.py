"""Relay load: N rooms x 2 clients posting at a steady rate over loopback, on one or more relay set-ups.

For each set-up named by --backends (memory: one node, in memory; redis: one
node on a fresh redis-server; redis-2-nodes: two nodes on one redis-server,
the two clients of every room on different nodes; redis-cluster: one node on
a fresh Redis Cluster of three masters and three replicas; redis-cluster-wait:
the same with --wait-replicas 1, every post on a replica before it is
acknowledged), and for a running relay
given with --relay, one after the other under the same load: opens 2 x ROOMS
websocket connections spread over WORKERS load processes, lets every client
post RATE small events per second for DURATION seconds, and prints delivered
events/s, p50/p99 delivery latency (from the sender's clock to each
receiver's, both CLOCK_MONOTONIC), and the relay's (and Redis's) CPU and peak
RSS, side by side. Every client also checks that its seq numbers have no gap
and no repeat. On a cluster it also prints how the rooms spread over the
masters; with --failover it SIGKILLs a master halfway through and prints how
long the replica took to be promoted and, per master (the killed one first),
the connections dropped, the posts refused and the longest pause between two
posts delivered in one of its rooms. Every post carries an id, as the table's
clients send them (a post sent again under its id is appended once).

    uv run python benchmarks/relay_load.py                 # 1000 rooms, 6 posts/s per client, in memory
    uv run python benchmarks/relay_load.py --backends memory,redis,redis-2-nodes
    uv run python benchmarks/relay_load.py --rooms 200 --duration 5
    uv run python benchmarks/relay_load.py --backends redis,redis-cluster,redis-cluster-wait
    uv run python benchmarks/relay_load.py --backends redis-cluster-wait --failover --node-timeout-ms 1000

Target on the 2-core machine, in memory: 1,000 rooms (2,000 connections), at
least 20,000 delivered events/s, p99 under 50 ms. The exit status is 1 if a
memory set-up misses it; the Redis set-ups are measured, not held to it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import random
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from typing import cast

import redis
from redis.crc import key_slot

from websockets.speedups import apply_mask

from local_relay import RedisCluster, start_redis, start_redis_cluster, start_relay, status_mib

TARGET_EVENTS_PER_S = 20_000
TARGET_P99_MS = 50.0
CONNECT_CONCURRENCY = 50
TICK = 0.002  # seconds between the load ticker's rounds


class LoadClient(asyncio.Protocol):
    """One seat over a lean RFC 6455 client, so that the machine's CPU goes to the relay.

    The relay sees ordinary masked text frames; this side parses the relay's
    frames straight from the socket buffer instead of going through a full
    websockets connection, which would cost more CPU than the relay itself.
    """

    def __init__(self, room: str, name: str) -> None:
        self.room, self.name = room, name
        self.buffer = bytearray()
        self.handshaken = asyncio.get_running_loop().create_future()
        self.welcomed = asyncio.get_running_loop().create_future()
        self.window = (float("inf"), float("inf"))
        self.last_seq = 0
        self.latencies_us: list[int] = []
        self.delivered = 0
        self.gaps = 0
        self.refused = 0  # posts answered with an error (the store unavailable, during a failover)
        self.dropped = False  # the relay closed the connection
        self.last_delivery = 0  # monotonic ns of the last post delivered inside the window
        self.longest_pause_ns = 0  # the longest time between two posts delivered to this client inside the window
        self.posts = 0  # posts sent: each under an id, as the table's clients post

    # -- sending -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.dropped = True

    def send_text(self, text: str | bytes, opcode: int = 0x1) -> None:
        payload = text.encode() if isinstance(text, str) else text
        length = len(payload)
        header = bytes([0x80 | opcode]) + (bytes([0x80 | length]) if length < 126
                                           else bytes([0x80 | 126]) + struct.pack("!H", length))
        mask = random.randbytes(4)
        self.transport.write(header + mask + apply_mask(payload, mask))

    def post(self) -> None:
        if self.dropped:
            return
        self.posts += 1
        self.send_text('{"type":"post","body":{"t":%d},"id":"%d"}' % (time.monotonic_ns(), self.posts))

    # -- receiving ---------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.handshaken.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buffer[:end]).split(b"\r\n", 1)[0]
            del self.buffer[:end + 4]
            if b" 101 " not in status:
                self.handshaken.set_exception(RuntimeError(status.decode(errors="replace")))
                return
            self.handshaken.set_result(None)
        now = time.monotonic_ns()
        while len(self.buffer) >= 2:
            opcode, length, start = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
            if length == 126:
                if len(self.buffer) < 4:
                    return
                length, start = struct.unpack_from("!H", self.buffer, 2)[0], 4
            elif length == 127:
                if len(self.buffer) < 10:
                    return
                length, start = struct.unpack_from("!Q", self.buffer, 2)[0], 10
            if len(self.buffer) < start + length:
                return
            payload = bytes(self.buffer[start:start + length])
            del self.buffer[:start + length]
            if opcode == 0x1:
                self.frame_received(json.loads(payload), now)
            elif opcode == 0x9:
                self.send_text(payload, opcode=0xA)  # pong

    def frame_received(self, frame: dict, now: int) -> None:
        if frame["type"] == "welcome":
            self.welcomed.set_result(frame)
            return
        if frame["type"] == "error":
            self.refused += 1
            return
        if frame["type"] == "posted":
            return
        if frame["type"] != "event":
            raise RuntimeError(f"unexpected frame: {frame}")
        if frame["seq"] != self.last_seq + 1:
            self.gaps += 1
        self.last_seq = frame["seq"]
        if frame["kind"] == "post" and self.window[0] <= now < self.window[1]:
            self.delivered += 1
            self.latencies_us.append((now - frame["body"]["t"]) // 1000)
            if self.last_delivery:
                self.longest_pause_ns = max(self.longest_pause_ns, now - self.last_delivery)
            self.last_delivery = now

    async def open(self, host: str, port: int) -> None:
        key = base64.b64encode(random.randbytes(16)).decode()
        self.transport.write((f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                              f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
        await self.handshaken
        self.send_text(json.dumps({"type": "join", "room": self.room, "name": self.name,
                                   "token": None, "after": 0}))
        await self.welcomed


async def run_worker(urls: list[str], rooms: list[str], rate: float, warmup: float, duration: float,
                     ready, start) -> dict:
    loop = asyncio.get_running_loop()
    clients = [LoadClient(room, name) for room in rooms for name in ("a", "b")]
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def open_one(number: int, client: LoadClient) -> None:
        host, port = urls[number % len(urls)].removeprefix("ws://").rsplit(":", 1)  # a room's two on two nodes
        async with limit:
            await loop.create_connection(lambda: client, host, int(port))
            await client.open(host, int(port))

    await asyncio.gather(*(open_one(n, c) for n, c in enumerate(clients)))
    ready.set()
    await asyncio.to_thread(start.wait)
    begin = time.monotonic_ns()
    window = (begin + int(warmup * 1e9), begin + int((warmup + duration) * 1e9))
    for client in clients:
        client.window = window
    # One ticker sends all posts on schedule: post j goes out at
    # begin + j * interval / n from client j mod n, so each client posts
    # `rate` times a second and the load is spread evenly over time.
    spacing_ns = 1e9 / rate / len(clients)
    posted = 0
    while (now := time.monotonic_ns()) < window[1]:
        while begin + posted * spacing_ns <= now:
            clients[posted % len(clients)].post()
            posted += 1
        await asyncio.sleep(TICK)
    await asyncio.sleep(0.5)  # let the last posts arrive; they fall outside the window anyway
    for client in clients:
        if not client.dropped:
            client.transport.close()
    rooms_seen: dict[str, dict] = {}
    for client in clients:  # (a room still waiting at the window's end: its pause so far)
        client.longest_pause_ns = max(client.longest_pause_ns, window[1] - (client.last_delivery or window[0]))
        seen = rooms_seen.setdefault(client.room, {"dropped": 0, "refused": 0, "pause_ms": 0.0})
        seen["dropped"] += client.dropped
        seen["refused"] += client.refused
        seen["pause_ms"] = max(seen["pause_ms"], client.longest_pause_ns / 1e6)
    return {"latencies_us": [x for c in clients for x in c.latencies_us], "rooms": rooms_seen,
            "delivered": sum(c.delivered for c in clients),
            "gaps": sum(c.gaps for c in clients),
            "refused": sum(c.refused for c in clients),
            "dropped": sum(c.dropped for c in clients),
            "longest_pause_ms": max(c.longest_pause_ns for c in clients) / 1e6,
            "connections": len(clients)}


def worker(url, rooms, rate, warmup, duration, ready, start, results) -> None:
    results.put(asyncio.run(run_worker(url, rooms, rate, warmup, duration, ready, start)))


def peak_rss_mib(pid: int) -> float:
    return status_mib(pid, "VmHWM")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(urls: list[str], pids: list[int], store_pids: list[int], args: argparse.Namespace,
            rooms: list[str] | None = None, midway: Callable[[], float] | None = None) -> dict:
    """Load the relay node(s) at ``urls`` and return the figures. ``midway``, if given, runs in the middle of the
    measured window (a failover) and returns a figure of its own (the seconds a replica took to be promoted)."""
    context = multiprocessing.get_context("spawn")
    ready = [context.Event() for _ in range(args.workers)]
    start, results = context.Event(), context.Queue()
    rooms = rooms or room_names(args.rooms)
    processes = [context.Process(target=worker, args=(urls, rooms[w::args.workers], args.rate, args.warmup,
                                                      args.duration, ready[w], start, results))
                 for w in range(args.workers)]
    for process in processes:
        process.start()
    for event in ready:
        while not event.wait(1):
            if not all(p.is_alive() for p in processes):
                sys.exit("a load worker died while connecting")
    watched = [*pids, *store_pids]
    cpu_before = [cpu_seconds(pid) for pid in watched]
    start.set()
    promoted = None
    if midway:
        time.sleep(args.warmup + args.duration / 2)
        promoted = midway()
    reports = [results.get(timeout=args.warmup + args.duration + 120) for _ in processes]
    cpu = [(cpu_seconds(pid) - before) / (args.warmup + args.duration + 0.5) * 100
           for pid, before in zip(watched, cpu_before)] if not midway else []  # a killed process has no CPU figure
    for process in processes:
        process.join()
    latencies = sorted(x for r in reports for x in r["latencies_us"])
    return {"delivered": sum(r["delivered"] for r in reports) / args.duration,
            "p50": latencies[len(latencies) // 2] / 1000, "p99": latencies[int(len(latencies) * 0.99)] / 1000,
            "max": latencies[-1] / 1000, "mean": statistics.fmean(latencies) / 1000,
            "gaps": sum(r["gaps"] for r in reports), "connections": sum(r["connections"] for r in reports),
            "refused": sum(r["refused"] for r in reports), "dropped": sum(r["dropped"] for r in reports),
            "pause": max(r["longest_pause_ms"] for r in reports), "promoted": promoted,
            "relay_cpu": cpu[: len(pids)], "redis_cpu": cpu[len(pids):],
            "relay_rss": [peak_rss_mib(pid) for pid in pids],
            "rooms": {room: seen for r in reports for room, seen in r["rooms"].items()}}


def room_names(count: int) -> list[str]:
    return [f"load-{os.getpid()}-{time.monotonic_ns()}-{i}" for i in range(count)]


def masters_of(cluster: RedisCluster, rooms: list[str]) -> dict[str, int]:
    """The port of the master that holds each of ``rooms`` now: a room's keys hash by their ``{ROOM}`` tag (CRC16
    mod 16384)."""
    ports = [master.port for master in cluster.masters()]
    reply = redis.Redis(port=ports[0]).execute_command("CLUSTER", "SLOTS")  # [[first, last, [host, port, id], …]…]
    owner = [0] * 16384
    for first, last, primary, *_ in reply:
        owner[first:last + 1] = [int(primary[1])] * (last - first + 1)
    return {room: owner[key_slot(room.encode())] for room in rooms}


def per_shard(where: dict[str, int], seen: dict[str, dict], killed: int | None) -> list[dict]:
    """Rooms, connections dropped, posts refused and the longest pause between two posts delivered in a room, per
    master (as they were before the kill), the killed one first."""
    shards = []
    for port in sorted(set(where.values()), key=lambda port: (port != killed, port)):
        rooms = [seen[room] for room, at in where.items() if at == port and room in seen]
        shards.append({"rooms": len(rooms), "killed": port == killed,
                       "dropped": sum(r["dropped"] for r in rooms), "refused": sum(r["refused"] for r in rooms),
                       "pause": max((r["pause_ms"] for r in rooms), default=0.0)})
    return shards


# name: (store: "" | "redis" | "redis-cluster", relay nodes, the relay's extra options)
SETUPS = {"memory": ("", 1, ()), "redis": ("redis", 1, ()), "redis-2-nodes": ("redis", 2, ()),
          "redis-cluster": ("redis-cluster", 1, ()),
          "redis-cluster-wait": ("redis-cluster", 1, ("--wait-replicas", "1", "--wait-ms", "1000"))}


def run_setup(name: str, args: argparse.Namespace) -> dict:
    store, nodes, options = SETUPS[name]
    server, cluster, url = None, None, ""
    if store == "redis":
        server, url = start_redis()
    elif store == "redis-cluster":
        cluster = start_redis_cluster(node_timeout_ms=args.node_timeout_ms)
        url = cluster.url
    # every client comes from this host: each connection is its own address (the load, not the per-address budgets)
    relays = [start_relay("--max-per-address", "0", *(["--store", url] if store else []), *options)
              for _ in range(nodes)]
    rooms = room_names(args.rooms)
    try:
        store_pids = [server.pid] if server else [n.proc.pid for n in cluster.nodes if n.proc] if cluster else []
        where = masters_of(cluster, rooms) if cluster else {}
        masters = {m.port for m in cluster.masters()} if cluster else set()
        figures = measure([url for _, url in relays], [relay.pid for relay, _ in relays], store_pids, args, rooms,
                          cluster.kill_a_master if cluster and args.failover else None)
        if cluster:
            killed = next(iter(masters - {m.port for m in cluster.masters()}), None)
            figures["shards"] = per_shard(where, figures["rooms"], killed)
        return figures
    finally:
        for relay, _ in relays:
            relay.terminate()
        for relay, _ in relays:
            try:
                relay.wait(timeout=30)
            except subprocess.TimeoutExpired:  # closing thousands of connections on a busy machine
                relay.kill()
        if server:
            server.terminate()
            server.wait(timeout=10)
        if cluster:
            cluster.stop()


def table(results: dict[str, dict]) -> str:
    def row(label: str, cell) -> str:
        return f"{label:<24}" + "".join(f"{cell(r):>22}" for r in results.values())

    def per_process(values: list[float], unit: str) -> str:
        if len(values) > 2:  # a cluster's six: the busiest and the sum
            return f"{len(values)}: max {max(values):.0f}, sum {sum(values):.0f}{unit}"
        return " + ".join(f"{v:.0f}" for v in values) + unit if values else "-"

    def optional(key: str, form: str) -> Callable[[dict], str]:
        return lambda r: form.format(r[key]) if r.get(key) is not None else "-"

    return "\n".join([
        row("", lambda r: r["name"]),
        row("delivered events/s", lambda r: f"{r['delivered']:,.0f}"),
        row("latency p50 ms", lambda r: f"{r['p50']:.1f}"),
        row("latency p99 ms", lambda r: f"{r['p99']:.1f}"),
        row("latency max ms", lambda r: f"{r['max']:.1f}"),
        row("relay CPU, % of a core", lambda r: per_process(r["relay_cpu"], "%")),
        row("redis CPU, % of a core", lambda r: per_process(r["redis_cpu"], "%")),
        row("relay peak RSS", lambda r: per_process(r["relay_rss"], " MiB")),
        row("seq gaps or repeats", lambda r: str(r["gaps"])),
        row("posts refused", lambda r: f"{r['refused']:,}"),
        row("connections dropped", lambda r: f"{r['dropped']:,}"),
        row("longest pause in a room", lambda r: f"{r['pause']:,.0f} ms"),
        row("rooms per master", lambda r: " / ".join(str(s["rooms"]) for s in r["shards"]) if r.get("shards") else "-"),
        row("replica promoted in", optional("promoted", "{:.2f} s")),
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=1000, help="rooms, two clients each (default 1000)")
    parser.add_argument("--rate", type=float, default=6.0, help="posts per second per client (default 6: 24,000 deliveries/s offered)")
    parser.add_argument("--duration", type=float, default=10.0, help="measured seconds (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first (default 2)")
    parser.add_argument("--backends", default="memory", help=f"comma-separated set-ups to start and load, from "
                        f"{', '.join(SETUPS)} (default memory; 'none' with --relay)")
    parser.add_argument("--relay", metavar="URL[,URL]", help="also load this running relay (its nodes, comma-separated)")
    parser.add_argument("--workers", type=int, default=2, help="load-generating processes (default 2)")
    parser.add_argument("--failover", action="store_true", help="on a Redis Cluster, SIGKILL a master halfway through "
                        "the measured window: the longest pause and the refused posts are the failover's cost")
    parser.add_argument("--node-timeout-ms", type=int, default=5000, help="a Redis Cluster's cluster-node-timeout "
                        "(default 5000; how long a dead master goes unnoticed)")
    args = parser.parse_args()
    names = [] if args.backends == "none" else args.backends.split(",")
    if unknown := [n for n in names if n not in SETUPS]:
        parser.error(f"unknown set-up {unknown[0]!r}; choose from {', '.join(SETUPS)}")

    results: dict[str, dict] = {}
    if args.relay:
        results["given"] = measure(args.relay.split(","), [], [], args) | {"name": "given relay"}
    for name in names:
        results[name] = run_setup(name, args) | {"name": name}
    print(f"{args.rooms} rooms x 2 clients, each posting {args.rate:g}/s ({args.rooms * 2 * args.rate * 2:,.0f} "
          f"deliveries/s offered); {args.workers} load processes; {args.duration:g} s measured after "
          f"{args.warmup:g} s; targets in memory: >= {TARGET_EVENTS_PER_S:,}/s, p99 < {TARGET_P99_MS:g} ms")
    print(table(results))
    for name, figures in results.items():
        for number, shard in enumerate(figures.get("shards") or (), 1):
            if args.failover:
                print(f"{name} master {number}{' (killed)' if shard['killed'] else ''}: {shard['rooms']} rooms, "
                      f"{shard['dropped']} connections dropped, {shard['refused']} posts refused, longest pause "
                      f"{shard['pause']:,.0f} ms")
    missed = [r["name"] for key, r in results.items() if key == "memory" and
              not (r["delivered"] >= TARGET_EVENTS_PER_S and r["p99"] < TARGET_P99_MS and r["gaps"] == 0)]
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
