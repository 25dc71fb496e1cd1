"""Relay load: N rooms x 2 clients posting at a steady rate over loopback, on one or more relay set-ups.

For each set-up named by --backends (memory: one node, in memory; redis: one
node on a fresh redis-server; redis-2-nodes: two nodes on one redis-server,
the two clients of every room on different nodes), and for a running relay
given with --relay, one after the other under the same load: opens 2 x ROOMS
websocket connections spread over WORKERS load processes, lets every client
post RATE small events per second for DURATION seconds, and prints delivered
events/s, p50/p99 delivery latency (from the sender's clock to each
receiver's, both CLOCK_MONOTONIC), and the relay's (and Redis's) CPU and peak
RSS, side by side. Every client also checks that its seq numbers have no gap
and no repeat.

    uv run python benchmarks/relay_load.py                 # 1000 rooms, 6 posts/s per client, in memory
    uv run python benchmarks/relay_load.py --backends memory,redis,redis-2-nodes
    uv run python benchmarks/relay_load.py --rooms 200 --duration 5

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
import sys
import time
from typing import cast

from websockets.speedups import apply_mask

from local_relay import start_redis, start_relay, status_mib

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

    # -- sending -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def send_text(self, text: str | bytes, opcode: int = 0x1) -> None:
        payload = text.encode() if isinstance(text, str) else text
        length = len(payload)
        header = bytes([0x80 | opcode]) + (bytes([0x80 | length]) if length < 126
                                           else bytes([0x80 | 126]) + struct.pack("!H", length))
        mask = random.randbytes(4)
        self.transport.write(header + mask + apply_mask(payload, mask))

    def post(self) -> None:
        self.send_text('{"type":"post","body":{"t":%d}}' % time.monotonic_ns())

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
        if frame["type"] != "event":
            raise RuntimeError(f"unexpected frame: {frame}")
        if frame["seq"] != self.last_seq + 1:
            self.gaps += 1
        self.last_seq = frame["seq"]
        if frame["kind"] == "post" and self.window[0] <= now < self.window[1]:
            self.delivered += 1
            self.latencies_us.append((now - frame["body"]["t"]) // 1000)

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
        client.transport.close()
    return {"latencies_us": [x for c in clients for x in c.latencies_us],
            "delivered": sum(c.delivered for c in clients),
            "gaps": sum(c.gaps for c in clients),
            "connections": len(clients)}


def worker(url, rooms, rate, warmup, duration, ready, start, results) -> None:
    results.put(asyncio.run(run_worker(url, rooms, rate, warmup, duration, ready, start)))


def peak_rss_mib(pid: int) -> float:
    return status_mib(pid, "VmHWM")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(urls: list[str], pids: list[int], redis_pid: int | None, args: argparse.Namespace) -> dict:
    """Load the relay node(s) at ``urls`` and return the figures."""
    context = multiprocessing.get_context("spawn")
    ready = [context.Event() for _ in range(args.workers)]
    start, results = context.Event(), context.Queue()
    rooms = [f"load-{os.getpid()}-{time.monotonic_ns()}-{i}" for i in range(args.rooms)]
    processes = [context.Process(target=worker, args=(urls, rooms[w::args.workers], args.rate, args.warmup,
                                                      args.duration, ready[w], start, results))
                 for w in range(args.workers)]
    for process in processes:
        process.start()
    for event in ready:
        while not event.wait(1):
            if not all(p.is_alive() for p in processes):
                sys.exit("a load worker died while connecting")
    watched = [*pids, *([redis_pid] if redis_pid else [])]
    cpu_before = [cpu_seconds(pid) for pid in watched]
    start.set()
    reports = [results.get(timeout=args.warmup + args.duration + 120) for _ in processes]
    cpu = [(cpu_seconds(pid) - before) / (args.warmup + args.duration + 0.5) * 100
           for pid, before in zip(watched, cpu_before)]
    for process in processes:
        process.join()
    latencies = sorted(x for r in reports for x in r["latencies_us"])
    return {"delivered": sum(r["delivered"] for r in reports) / args.duration,
            "p50": latencies[len(latencies) // 2] / 1000, "p99": latencies[int(len(latencies) * 0.99)] / 1000,
            "max": latencies[-1] / 1000, "mean": statistics.fmean(latencies) / 1000,
            "gaps": sum(r["gaps"] for r in reports), "connections": sum(r["connections"] for r in reports),
            "relay_cpu": cpu[: len(pids)], "redis_cpu": cpu[len(pids):],
            "relay_rss": [peak_rss_mib(pid) for pid in pids]}


SETUPS = {"memory": (False, 1), "redis": (True, 1), "redis-2-nodes": (True, 2)}  # name: (on Redis, nodes)


def run_setup(name: str, args: argparse.Namespace) -> dict:
    on_redis, nodes = SETUPS[name]
    redis, store = start_redis() if on_redis else (None, "")
    # every client comes from this host: each connection is its own address (the load, not the per-address budgets)
    relays = [start_relay("--max-per-address", "0", *(["--store", store] if on_redis else [])) for _ in range(nodes)]
    try:
        return measure([url for _, url in relays], [relay.pid for relay, _ in relays],
                       redis.pid if redis else None, args)
    finally:
        for relay, _ in relays:
            relay.terminate()
            relay.wait(timeout=10)
        if redis:
            redis.terminate()
            redis.wait(timeout=10)


def table(results: dict[str, dict]) -> str:
    def row(label: str, cell) -> str:
        return f"{label:<24}" + "".join(f"{cell(r):>22}" for r in results.values())

    def per_process(values: list[float], unit: str) -> str:
        return " + ".join(f"{v:.0f}" for v in values) + unit if values else "-"

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
    args = parser.parse_args()
    names = [] if args.backends == "none" else args.backends.split(",")
    if unknown := [n for n in names if n not in SETUPS]:
        parser.error(f"unknown set-up {unknown[0]!r}; choose from {', '.join(SETUPS)}")

    results: dict[str, dict] = {}
    if args.relay:
        results["given"] = measure(args.relay.split(","), [], None, args) | {"name": "given relay"}
    for name in names:
        results[name] = run_setup(name, args) | {"name": name}
    print(f"{args.rooms} rooms x 2 clients, each posting {args.rate:g}/s ({args.rooms * 2 * args.rate * 2:,.0f} "
          f"deliveries/s offered); {args.workers} load processes; {args.duration:g} s measured after "
          f"{args.warmup:g} s; targets in memory: >= {TARGET_EVENTS_PER_S:,}/s, p99 < {TARGET_P99_MS:g} ms")
    print(table(results))
    missed = [r["name"] for key, r in results.items() if key == "memory" and
              not (r["delivered"] >= TARGET_EVENTS_PER_S and r["p99"] < TARGET_P99_MS and r["gaps"] == 0)]
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
