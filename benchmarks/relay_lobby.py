"""The lobby with many rooms: how fast a relay answers ``list`` (protocol 1.2) with ROOMS public rooms open.

For each backend (memory, sqlite: a fresh file, redis: a fresh redis-server), in this process: fills a ledger
with ROOMS public rooms, each with one seat taken out of two and a listing like discard's, through
``Ledger.claim`` (the call a join makes; 10,000 websocket connections would measure the machine's sockets
instead), serves it with the relay's own server on loopback, and from one websocket client prints:

* the time to fill it (claims per second);
* a first page of 20 rooms (the default) and of 50 (the largest): p50 and p99 of REQUESTS requests, each
  timed from sending ``list`` to having the ``rooms`` frame parsed;
* a walk through the whole lobby in pages of 50, following ``next``: its total time and its slowest page.

    uv run python benchmarks/relay_lobby.py                  # 10,000 rooms on memory, sqlite and redis
    uv run python benchmarks/relay_lobby.py --rooms 1000 --backends memory
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from local_relay import start_redis  # noqa: E402
from relay.ledger import Ledger  # noqa: E402
from relay.memory_ledger import MemoryLedger  # noqa: E402
from relay.sqlite_ledger import SQLiteLedger  # noqa: E402
from relay.lobby import public_json  # noqa: E402
from relay.server import Limits, Relay  # noqa: E402

GAMES = ["discard", "cabo", "war", "rps"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def fill(ledger: Ledger, rooms: int) -> float:
    """ROOMS public rooms of two seats, one taken; the seconds it took."""
    started = time.perf_counter()
    for n in range(rooms):
        game = GAMES[n % len(GAMES)]
        public = public_json({"game": game, "group": "ed25519", "deck": "short"} if game == "cabo"
                             else {"game": game, "group": "ed25519"})
        await ledger.claim(f"lobby-bench-{n:05d}", f"player-{n:05d}", None, 2, public)
    return time.perf_counter() - started


async def timed_list(ws, after: str | None, limit: int) -> tuple[float, dict]:
    started = time.perf_counter()
    await ws.send(json.dumps({"type": "list", "after": after, "limit": limit}))
    frame = json.loads(await ws.recv())
    elapsed = time.perf_counter() - started
    assert frame["type"] == "rooms", frame
    return elapsed, frame


async def measure(backend: str, rooms: int, requests: int, redis_url: str) -> dict:
    directory = tempfile.mkdtemp(prefix="lobby-bench-")
    ledger: Ledger
    if backend == "memory":
        ledger = MemoryLedger()
    elif backend == "sqlite":
        ledger = SQLiteLedger(os.path.join(directory, "relay.sqlite3"))
    else:
        from relay.redis_ledger import RedisLedger
        ledger = RedisLedger(redis_url)
    limits = Limits(rate=1e6, burst=10**6, read_rate=1e6, read_burst=10**6,  # the client is the benchmark
                    address_list_rate=1e6, address_list_burst=10**6)
    relay = Relay(ledger, limits)
    server = await relay.serve("127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        filled = await fill(ledger, rooms)
        result: dict = {"backend": backend, "rooms": rooms, "fill_per_s": rooms / filled}
        async with connect(f"ws://127.0.0.1:{port}", max_size=None, compression=None) as ws:
            for limit in (20, 50):
                times = []
                for _ in range(requests):
                    elapsed, frame = await timed_list(ws, None, limit)
                    assert len(frame["rooms"]) == limit
                    times.append(elapsed)
                result[f"first{limit}"] = (statistics.median(times), percentile(times, 0.99))
            started, seen, slowest, after = time.perf_counter(), 0, 0.0, None
            while True:
                elapsed, frame = await timed_list(ws, after, 50)
                seen += len(frame["rooms"])
                slowest = max(slowest, elapsed)
                after = frame["next"]
                if after is None:
                    break
            assert seen == rooms, f"{backend}: walked {seen} rooms of {rooms}"
            result["walk"] = (time.perf_counter() - started, slowest, -(-rooms // 50))
        return result
    finally:
        server.close()
        await server.wait_closed()
        await relay.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rooms", type=int, default=10_000)
    p.add_argument("--requests", type=int, default=200, help="first-page requests per page size (default 200)")
    p.add_argument("--backends", default="memory,sqlite,redis")
    args = p.parse_args()
    backends = args.backends.split(",")
    redis_server, redis_url = start_redis() if "redis" in backends else (None, "")
    try:
        print(f"{'backend':8} {'rooms':>6} {'fill/s':>8}  {'page of 20 p50/p99 ms':>22}  {'page of 50 p50/p99 ms':>22}"
              f"  {'all pages of 50: total ms, slowest ms':>38}")
        for backend in backends:
            r = asyncio.run(measure(backend, args.rooms, args.requests, redis_url))
            walk_total, walk_slowest, pages = r["walk"]
            print(f"{backend:8} {r['rooms']:>6} {r['fill_per_s']:>8.0f}  {r['first20'][0] * 1e3:>10.2f} / "
                  f"{r['first20'][1] * 1e3:>8.2f}  {r['first50'][0] * 1e3:>10.2f} / {r['first50'][1] * 1e3:>8.2f}"
                  f"  {walk_total * 1e3:>14.0f} ({pages} pages), {walk_slowest * 1e3:>8.2f}", flush=True)
    finally:
        if redis_server is not None:
            redis_server.kill()
            redis_server.wait()


if __name__ == "__main__":
    main()
