"""One abusive client beside an honest room: does the honest room feel it, and does the relay's memory come back?

For each backend (--backends: memory, sqlite, redis) and each abuse, a fresh
relay is started; an honest room of two seats posts 20 small events a second
the whole time, and its delivery latency (sender's clock to the other seat's,
one process, CLOCK_MONOTONIC) is measured before, during and after the abuse,
with the relay's resident memory at the end of each phase and its peak, the relay's CPU during the abuse (a share
of one core) and, for the abuses that measure it, the abuser's own delay. The abuser runs in
a process of its own, over raw sockets from another loopback address (127.0.0.2: another
party to the relay's per-address budgets), and never reads what the relay sends:

- ping-flood: one connection sends ping frames as fast as it can;
- junk: one connection that never joins sends `[]` as fast as it can;
- post-flood: one joined connection posts as fast as it can;
- big-frames: six connections cycle 4 MiB frames, 100,000-deep nesting and
  10,000-digit numbers, reconnecting when dropped;
- slow-readers: twenty seats of one room never read while another seat of it
  posts 100 KB bodies;
- partial-frames: sixty joined connections each send all but the last byte of
  a frame just under what the relay reads (4 x --max-frame), then hold it,
  reconnecting when dropped (it reads, only to see that);
- list-flood: twenty public rooms held open, and forty connections asking
  for the lobby's largest page (50 rooms) at the frame rate each may send
  (100 a second), reading the answers;
- stranger-frames: once a second, twenty-five connections that never join,
  each from an address of its own (127.0.0.2 to 127.0.0.26), each send one
  frame of 4 MiB - 4 KiB (just under what the relay reads of a seated
  connection) at once; a connection is done when its frame is sent or the
  relay answers (then it is closed);
- neighbour: a hostile neighbour behind the honest room's own address
  (127.0.0.1, one NAT): thirty-two connections, each in a room of its own,
  post 200 KiB bodies, two at a time (one more as each is `posted`), so
  that frames always wait for the address's byte budget, while four rooms of
  six (five seats that never read, one posting 100 KB bodies) hold write
  buffers toward the address's 16 MiB; the neighbour's own delay (a post
  sent to its `posted`) is reported beside the honest room's;
- v6-block: a party with a whole IPv6 /48 (2001:db8:4800::/48): five
  connections from each of sixty of its /64s (300; the /48 may hold 128),
  each in a room of its own, post 100 KiB bodies two at a time; the
  honest room plays from ::1. The /48 must be routed to the loopback, which
  takes a network namespace of its own (the relay, Redis and everything
  else run in it too):

      unshare -n sh -c 'ip link set lo up && ip -6 route add local 2001:db8:4800::/48 dev lo &&
          uv run python benchmarks/relay_abuse.py --abuses v6-block'

    uv run python benchmarks/relay_abuse.py
    uv run python benchmarks/relay_abuse.py --backends memory --abuses ping-flood,junk
    uv run python benchmarks/relay_abuse.py --backends memory,redis-cluster --abuses neighbour
    uv run python benchmarks/relay_abuse.py --baseline HEAD~3   # the same abuses on an older relay, side by side
    uv run python benchmarks/relay_abuse.py --baseline DIR      # ... or the relay package in DIR, as it is

Targets (issue 22): during any abuse the honest room's p99 stays under 50 ms on
memory and SQLite and under 100 ms on Redis (and on a Redis Cluster: three
masters, three replicas, --backends redis-cluster), and the relay's memory
grows by at most 64 MiB and comes back down once the abuser is gone.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import multiprocessing.queues
import os
import queue
import select
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from websockets.asyncio.client import connect

from local_relay import start_redis, start_redis_cluster, start_relay, status_mib

ABUSES = ["ping-flood", "junk", "post-flood", "big-frames", "slow-readers", "partial-frames", "list-flood",
          "stranger-frames", "neighbour", "v6-block"]
ABUSER_ADDRESS = "127.0.0.2"  # Linux routes all of 127.0.0.0/8 to loopback
HONEST_ADDRESS = "127.0.0.1"  # where the honest room connects from (the neighbour abuse shares it)
BLOCK = "2001:db8:4800"  # the v6-block abuser's /48 (a documentation prefix), routed to lo in a namespace
IP_FREEBIND = 15  # bind a source address no interface has (the /48 is only routed)
TARGET_P99_MS = {"memory": 50.0, "sqlite": 50.0, "redis": 100.0, "redis-cluster": 100.0}
TARGET_RSS_GROWTH_MIB = 64.0


# -- the abuser: raw RFC 6455 frames over a blocking socket, never reading ----------------------------------


def raw_connect(url: str, source: str = ABUSER_ADDRESS) -> socket.socket:
    host, port = url.removeprefix("ws://").split("/")[0].rsplit(":", 1)
    if ":" in source:  # an IPv6 source of the routed /48
        sock = socket.socket(socket.AF_INET6)
        sock.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
        sock.bind((source, 0))
        sock.connect((host.strip("[]"), int(port)))
    else:
        sock = socket.create_connection((host, int(port)), source_address=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        reply += chunk
    if b" 101 " not in reply.split(b"\r\n", 1)[0]:
        raise ConnectionError(reply.split(b"\r\n", 1)[0].decode())
    return sock


def frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame (the mask is zero: the relay unmasks all the same)."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + b"\0\0\0\0" + payload


def text(obj: object) -> bytes:
    return frame(0x1, json.dumps(obj).encode())


def abuse(kind: str, url: str, room: str, stop_at: float, delays: multiprocessing.queues.Queue) -> None:
    """Run one abuse until ``stop_at`` (time.time()), reconnecting whenever the relay drops a connection; an abuser
    that measures its own delays puts them (ms) in ``delays``."""
    while time.time() < stop_at:
        try:
            if kind == "neighbour":
                neighbour(url, room, stop_at, delays)
            elif kind == "v6-block":
                v6_block(url, room, stop_at, delays)
            elif kind == "slow-readers":
                slow_readers(url, room, stop_at)
            elif kind == "big-frames":
                big_frames(url, stop_at)
            elif kind == "partial-frames":
                partial_frames(url, room, stop_at)
            elif kind == "list-flood":
                list_flood(url, room, stop_at)
            elif kind == "stranger-frames":
                stranger_frames(url, stop_at)
            else:
                flood(kind, url, room, stop_at)
        except OSError:
            time.sleep(0.05)


def flood(kind: str, url: str, room: str, stop_at: float) -> None:
    sock = raw_connect(url)
    if kind == "post-flood":
        sock.sendall(text({"type": "join", "room": f"{room}-abuser", "name": "abuser"}))
    one = {"ping-flood": frame(0x9, b"x" * 125), "junk": text([]),
           "post-flood": text({"type": "post", "body": {"n": 1}})}[kind]
    burst = one * 256
    with sock:
        while time.time() < stop_at:
            sock.sendall(burst)


def big_frames(url: str, stop_at: float) -> None:
    bodies = [frame(0x1, b'"' + b"x" * (4 << 20) + b'"'), text({"type": "post", "body": {}}).replace(
        b"{}", b"[" * 100_000 + b"]" * 100_000), frame(0x1, b'{"type":"post","body":{"n":' + b"9" * 10_000 + b"}}")]
    socks = [raw_connect(url) for _ in range(6)]
    try:
        while time.time() < stop_at:
            for k, sock in enumerate(socks):
                try:
                    sock.sendall(bodies[k % len(bodies)])
                except OSError:
                    socks[k] = raw_connect(url)
    finally:
        for sock in socks:
            sock.close()


def partial_frames(url: str, room: str, stop_at: float) -> None:
    """Sixty joined connections, each holding an unfinished frame of 4 MiB; a dropped one is opened again."""
    size = (4 << 20) - 1  # websockets reads frames up to 4 x the relay's 1 MiB --max-frame
    unfinished = bytes([0x81, 0x80 | 127]) + struct.pack("!Q", size) + b"\0\0\0\0" + b"x" * (size - 1)
    socks: list[socket.socket | None] = [None] * 60
    try:
        while time.time() < stop_at:
            for k, sock in enumerate(socks):
                if sock is not None:
                    try:
                        if not select.select([sock], [], [], 0)[0] or sock.recv(1 << 16):
                            continue  # still holding its frame (what it is sent, it reads: its welcome, pings)
                    except OSError:
                        pass
                    sock.close()  # dropped: again
                try:
                    sock = socks[k] = raw_connect(url)
                    sock.sendall(text({"type": "join", "room": f"{room}-{k}", "name": "holder"}))
                    answer = b""
                    while b"welcome" not in answer:  # seated first: a frame this large before is not read
                        chunk = sock.recv(1 << 16)
                        if not chunk:
                            raise ConnectionError("not seated")
                        answer += chunk
                    sock.sendall(unfinished)
                except OSError:
                    socks[k] = None
            time.sleep(0.05)
    finally:
        for sock in socks:
            if sock is not None:
                sock.close()


def list_flood(url: str, room: str, stop_at: float) -> None:
    """Twenty public rooms of six held open by one seat each; forty connections each send ten `list`s of 50
    rooms every 0.1 s and read what comes back."""
    public = {"game": "discard", "note": "x" * 64}
    holders = [raw_connect(url) for _ in range(20)]
    for k, sock in enumerate(holders):
        sock.sendall(text({"type": "join", "room": f"{room}-{k}", "name": "host", "seats": 6, "public": public}))
    listers = [raw_connect(url) for _ in range(40)]
    asks = text({"type": "list", "limit": 50}) * 10
    try:
        while time.time() < stop_at:
            tick = time.monotonic()
            for sock in listers:
                sock.sendall(asks)
            while time.monotonic() < tick + 0.1:
                for sock in select.select(listers, [], [], max(0.0, tick + 0.1 - time.monotonic()))[0]:
                    if not sock.recv(1 << 20):
                        raise ConnectionError("a lister was dropped")
    finally:
        for sock in holders + listers:
            sock.close()


def stranger_frames(url: str, stop_at: float) -> None:
    """Once a second, 25 unjoined connections from 25 addresses each send one text frame of 4 MiB - 4 KiB at once
    (non-blocking, all together); each is done once its frame is sent or the relay has answered it (a too_large
    error, or a close). A wave that takes longer than a second is followed by the next at once."""
    one = frame(0x1, b'"' + b"x" * ((4 << 20) - (4 << 10) - 2) + b'"')
    while (wave := time.time()) < stop_at:
        socks = []
        for k in range(25):
            try:
                socks.append(raw_connect(url, f"127.0.0.{2 + k}"))
            except OSError:
                pass
        left = {sock: memoryview(one) for sock in socks}
        for sock in socks:
            sock.setblocking(False)
        while left and time.time() < stop_at:
            readable, writable, _ = select.select(list(left), list(left), [], 0.1)
            for sock in readable:  # answered (or dropped): done
                left.pop(sock, None)
            for sock in writable:
                if sock not in left:
                    continue
                try:
                    rest = left[sock][sock.send(left[sock]):]
                except BlockingIOError:
                    continue
                except OSError:
                    rest = memoryview(b"")
                if rest:
                    left[sock] = rest
                else:
                    del left[sock]
        for sock in socks:
            sock.close()
        time.sleep(max(0.0, min(wave + 1.0, stop_at) - time.time()))


def slow_readers(url: str, room: str, stop_at: float, source: str = ABUSER_ADDRESS) -> None:
    """Four rooms of six: five seats that never read, and one that posts 100 KB bodies."""
    readers, posters = [], []
    for r in range(4):
        for k in range(5):
            sock = raw_connect(url, source)
            sock.sendall(text({"type": "join", "room": f"{room}-slow{r}", "name": f"r{k}", "seats": 6}))
            readers.append(sock)
        poster = raw_connect(url, source)
        poster.sendall(text({"type": "join", "room": f"{room}-slow{r}", "name": "poster", "seats": 6}))
        posters.append(poster)
    body = text({"type": "post", "body": {"pad": "x" * 100_000}})
    try:
        while time.time() < stop_at:
            for poster in posters:
                poster.sendall(body)
            time.sleep(0.02)
    finally:
        for sock in readers + posters:
            sock.close()


POSTED = b'"type":"posted"'


def posting(url: str, room: str, sources: list[str], size: int, stop_at: float,
            delays: multiprocessing.queues.Queue) -> None:
    """One connection from each of ``sources``, each in a room of its own, posting bodies of ``size`` bytes: two at
    first, then one more each time one is acknowledged (``posted``), so that the relay always has frames of each
    waiting. Every delay (sent to acknowledged, ms) goes to ``delays``; a connection refused or dropped is opened
    again."""
    pad = "x" * size
    socks: dict[socket.socket, list[float]] = {}  # each connection: when its posts not acknowledged yet went

    def open_one(k: int) -> None:
        try:
            sock = raw_connect(url, sources[k])
        except OSError:  # refused (429: the address or the /48 holds its most): again, later
            return
        sock.sendall(text({"type": "join", "room": f"{room}-p{k}", "name": "neighbour"}))
        socks[sock], slots[sock] = [], k
        for n in range(2):
            socks[sock].append(time.monotonic())
            sock.sendall(text({"type": "post", "body": {"pad": pad}, "id": f"first{n}"}))

    slots: dict[socket.socket, int] = {}
    for k in range(len(sources)):
        open_one(k)
    received: dict[socket.socket, bytes] = {sock: b"" for sock in socks}
    sent = 0
    while time.time() < stop_at:
        missing = set(range(len(sources))) - set(slots.values())
        for k in missing:
            open_one(k)
        for sock in select.select(list(socks), [], [], 0.1)[0]:
            try:
                chunk = sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:  # dropped
                sock.close()
                socks.pop(sock)
                slots.pop(sock)
                received.pop(sock, None)
                continue
            data = received.get(sock, b"") + chunk
            acks = data.count(POSTED)
            cut = data.rfind(POSTED) + len(POSTED) if acks else 0
            received[sock] = data[cut:][1 - len(POSTED):]  # an acknowledgement may be split between two reads
            for _ in range(acks):  # in the order they were sent: one connection's posts are handled in order
                delays.put((time.monotonic() - socks[sock].pop(0)) * 1000)
                sent += 1
                socks[sock].append(time.monotonic())
                sock.sendall(text({"type": "post", "body": {"pad": pad}, "id": f"p{sent}"}))
    for sock in socks:
        sock.close()


def neighbour(url: str, room: str, stop_at: float, delays: multiprocessing.queues.Queue) -> None:
    """From the honest room's own address: 32 connections posting 200 KiB bodies two at a time, and four rooms of
    stalled readers (slow_readers, opened again when dropped) holding write buffers."""
    def hold() -> None:
        while time.time() < stop_at:
            try:
                slow_readers(url, room, stop_at, HONEST_ADDRESS)
            except OSError:  # dropped by the sweep: again
                time.sleep(0.05)

    holders = threading.Thread(target=hold, daemon=True)
    holders.start()
    posting(url, room, [HONEST_ADDRESS] * 32, 200 << 10, stop_at, delays)
    holders.join()


def v6_block(url: str, room: str, stop_at: float, delays: multiprocessing.queues.Queue) -> None:
    """Five connections from each of sixty /64s of one /48, posting 100 KiB bodies two at a time."""
    sources = [f"{BLOCK}:{n:x}::{k + 1}" for n in range(60) for k in range(5)]
    posting(url, room, sources, 100 << 10, stop_at, delays)


# -- the honest room -----------------------------------------------------------------------------------------


async def honest_room(url: str, room: str, phases: list[float]) -> list[list[float]]:
    """Two seats; seat 0 posts 20 events a second until the last phase ends; latencies (ms) seen by seat 1,
    one list per phase (``phases``: the time.monotonic() at which each phase ends)."""
    latencies: list[list[float]] = [[] for _ in phases]
    async with connect(url, max_size=None) as a, connect(url, max_size=None) as b:
        await a.send(json.dumps({"type": "join", "room": room, "name": "a"}))
        await a.recv()
        await b.send(json.dumps({"type": "join", "room": room, "name": "b"}))
        await b.recv()

        async def receive() -> None:
            async for raw in b:
                message = json.loads(raw)
                if message.get("type") == "event" and message["kind"] == "post":
                    now = time.monotonic()
                    phase = next((k for k, end in enumerate(phases) if now <= end), len(phases) - 1)
                    latencies[phase].append((now - message["body"]["t"]) * 1000)

        receiver = asyncio.create_task(receive())
        while time.monotonic() < phases[-1]:
            await a.send(json.dumps({"type": "post", "body": {"t": time.monotonic()}}))
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        receiver.cancel()
    return latencies


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    return status_mib(pid, "VmRSS")


def p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


def run_one(backend: str, kind: str, args: argparse.Namespace, cwd: str | None) -> dict:
    redis: subprocess.Popen | None = None
    cluster = None
    store: list[str] = []
    if backend == "redis":
        redis, redis_url = start_redis()
        store = ["--store", redis_url]
    elif backend == "redis-cluster":
        cluster = start_redis_cluster()
        store = ["--store", cluster.url]
    elif backend == "sqlite":
        store = ["--store", str(Path(tempfile.mkdtemp(prefix="abuse-")) / "relay.sqlite3")]
    if kind == "v6-block":  # the honest room on ::1, the abuser from its /48: IPv6 only
        store += ["--host", "::"]
    relay, url = start_relay(*store, cwd=cwd)
    if kind == "v6-block":
        url = f"ws://[::1]:{url.rsplit(':', 1)[1]}"
    own: list[float] = []
    cpu: list[float] = []  # the relay's CPU seconds when the abuse begins and when it ends
    try:
        start = time.monotonic()
        phases = [start + args.before, start + args.before + args.during, start + args.before + args.during + args.after]
        rss: list[float] = []

        async def main() -> list[list[float]]:
            room = asyncio.create_task(honest_room(url, f"honest-{kind}", phases))
            await asyncio.sleep(max(0.0, phases[0] - time.monotonic()))
            rss.append(rss_mib(relay.pid))
            cpu.append(cpu_seconds(relay.pid))
            context = multiprocessing.get_context("spawn")
            delays = context.Queue()
            abuser = context.Process(
                target=abuse, args=(kind, url, f"abuse-{kind}", time.time() + args.during, delays), daemon=True)
            abuser.start()
            await asyncio.sleep(max(0.0, phases[1] - time.monotonic()))
            rss.append(rss_mib(relay.pid))
            cpu.append(cpu_seconds(relay.pid))
            while abuser.is_alive() or not delays.empty():  # the abuser's own delays, as they come
                try:
                    own.append(await asyncio.to_thread(delays.get, True, 0.5))
                except queue.Empty:
                    if time.monotonic() > phases[1] + 3:
                        break
            abuser.join(2)
            if abuser.is_alive():
                abuser.kill()
            await asyncio.sleep(max(0.0, phases[2] - time.monotonic()))
            rss.append(rss_mib(relay.pid))
            rss.append(status_mib(relay.pid, "VmHWM"))  # the peak, whenever it came
            return await room

        latencies = asyncio.run(main())
    finally:
        relay.terminate()
        relay.wait()
        if redis is not None:
            redis.terminate()
            redis.wait()
        if cluster is not None:
            cluster.stop()
    return {"p50": [p(x, 50) for x in latencies], "p99": [p(x, 99) for x in latencies], "rss": rss,
            "alive": relay.returncode in (0, 143, -15), "own": own, "cpu": (cpu[1] - cpu[0]) / args.during}


def block_routed() -> bool:
    """Whether the v6-block abuser's /48 reaches this machine's loopback (a connection from it to ::1 is answered)."""
    try:
        with socket.socket(socket.AF_INET6) as server, socket.socket(socket.AF_INET6) as client:
            server.bind(("::1", 0))
            server.listen()
            client.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
            client.settimeout(1.0)
            client.bind((f"{BLOCK}::1", 0))
            client.connect(server.getsockname()[:2])
            return True
    except OSError:
        return False


def baseline_tree(revision: str) -> str:
    """A git worktree of ``revision`` in a temporary directory, to run its relay beside this one; or ``revision``
    itself if it is a directory (a checkout, or an exported ``relay`` package, used as it is)."""
    if os.path.isdir(revision):
        return revision
    directory = tempfile.mkdtemp(prefix="abuse-baseline-")
    subprocess.run(["git", "worktree", "add", "--detach", directory, revision], check=True, capture_output=True)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="memory,sqlite,redis")
    parser.add_argument("--abuses", default=",".join(ABUSES))
    parser.add_argument("--before", type=float, default=3.0, help="seconds of the honest room alone first")
    parser.add_argument("--during", type=float, default=8.0, help="seconds of abuse")
    parser.add_argument("--after", type=float, default=4.0, help="seconds after the abuser has gone")
    parser.add_argument("--baseline", metavar="REV|DIR",
                        help="also run the relay of this git revision (or of this directory), side by side")
    args = parser.parse_args()
    abuses = args.abuses.split(",")
    if "v6-block" in abuses and not block_routed():
        print(f"v6-block left out: {BLOCK}::/48 is not routed to the loopback here; run it in a network namespace "
              "of its own (see this file's docstring)", file=sys.stderr)
        abuses.remove("v6-block")
    versions: list[tuple[str, str | None]] = [("this", None)]
    if args.baseline:
        named = os.path.isdir(args.baseline)  # a directory: its last part names it
        versions.append((os.path.basename(os.path.normpath(args.baseline)) if named else args.baseline,
                         baseline_tree(args.baseline)))
    made = [cwd for _, cwd in versions if cwd is not None and cwd != args.baseline]  # worktrees to remove after
    print(f"{'relay':<10} {'backend':<13} {'abuse':<15} {'p50 / p99 ms: before':>22} {'during':>16} {'after':>16} "
          f"{'RSS MiB before/during/after/peak':>39}  ok  {'relay CPU':>9}  {'abuser own p50 / p99 ms (n)':>28}")
    failed = False
    try:
        for backend in args.backends.split(","):
            for kind in abuses:
                for label, cwd in versions:
                    r = run_one(backend, kind, args, cwd)
                    cells = [f"{p50:6.1f} / {p99:6.1f}" for p50, p99 in zip(r["p50"], r["p99"])]
                    rss = r["rss"]
                    ok = (r["p99"][1] <= TARGET_P99_MS[backend] and rss[3] - rss[0] <= TARGET_RSS_GROWTH_MIB
                          and rss[2] - rss[0] <= TARGET_RSS_GROWTH_MIB / 2 and r["alive"])
                    failed |= label == "this" and not ok
                    own = (f"{p(r['own'], 50):8.0f} / {p(r['own'], 99):6.0f} ({len(r['own'])})" if r["own"]
                           else "")
                    print(f"{label[:10]:<10} {backend:<13} {kind:<15} {cells[0]:>22} {cells[1]:>16} {cells[2]:>16} "
                          f"{rss[0]:9.0f} {rss[1]:9.0f} {rss[2]:9.0f} {rss[3]:9.0f}  {'yes' if ok else 'NO ':<3} "
                          f"{r['cpu']:8.0%}   {own:>28}",
                          flush=True)
    finally:
        for cwd in made:
            subprocess.run(["git", "worktree", "remove", "--force", cwd], capture_output=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
