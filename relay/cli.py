"""``discard-relay``: run the ordering relay from the command line."""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import resource
import signal
import sqlite3
import ssl
import sys

try:  # libuv's event loop cuts the relay's CPU per event by about a third (see docs/relay.md)
    from uvloop import run as run_loop
except ImportError:  # Windows: uvloop is not available there
    from asyncio import run as run_loop  # type: ignore[assignment]

from .ledger import Ledger, Unavailable
from .memory_ledger import MemoryLedger
from .sqlite_ledger import SQLiteLedger
from .server import Limits, Relay


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag costs one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def at_least_zero(text: str) -> int:
    """A whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number, 0 or more, not {text}")
    return int(text)


def port(text: str) -> int:
    """A TCP port number, 0 to 65535."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, not {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-relay", description="Order the messages of discard games: each room is an "
                      "append-only ledger that both players see in the same order. The relay never sees a card.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=port, default=8765, help="TCP port to listen on (default 8765; 0 picks a free one)")
    p.add_argument("--max-frame", type=positive(int), default=1 << 20, metavar="BYTES",
                   help="largest frame accepted; bigger ones get a too_large error (default 1048576)")
    p.add_argument("--retention", type=positive(float), default=600.0, metavar="SECONDS",
                   help="how long a room's ledger outlives its last connection (default 600)")
    p.add_argument("--store", metavar="PATH|URL", help="where ledgers live: an SQLite file that keeps them across "
                   "restarts, or redis://HOST:PORT/DB shared by several relay nodes, or a Redis Cluster "
                   "(redis-cluster://HOST:PORT[,HOST:PORT...], or a redis:// URL of any of its nodes) (default: memory only)")
    p.add_argument("--max-memory", type=positive(int), default=256, metavar="MIB",
                   help="without --store: what every room's events may take in memory; past it, rooms nobody is in "
                   "are dropped, then a room past its share gets store_full; one address's rooms may hold a "
                   "sixteenth of it, an IPv6 /48's an eighth (default 256)")
    p.add_argument("--lease", type=positive(float), default=15.0, metavar="SECONDS",
                   help="with redis://: how long a dead node's seats stay taken before another node posts their "
                   "leave events (default 15)")
    p.add_argument("--wait-replicas", type=int, default=0, metavar="N",
                   help="with Redis: answer a post only once N replicas of its master have it (WAIT N MS); "
                   "else the post is refused as unavailable and the client resumes (default 0: on the master)")
    p.add_argument("--wait-ms", type=positive(int), default=1000, metavar="MS",
                   help="with --wait-replicas: how long a post may wait for its replicas (default 1000)")
    p.add_argument("--failover-wait", type=positive(float), default=10.0, metavar="SECONDS",
                   help="with a Redis Cluster: how long a post (or a read, a join) waits for a shard that cannot serve "
                   "it, while a replica of its dead master is promoted, before it is refused as unavailable (default 10)")
    p.add_argument("--tls-cert", metavar="FILE", help="serve wss:// with this PEM certificate (chain) file")
    p.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert (PEM)")
    p.add_argument("--rate", type=positive(float), default=100.0, metavar="N",
                   help="frames per second one connection may send, sustained (default 100)")
    p.add_argument("--burst", type=positive(int), default=400, metavar="N",
                   help="frames one connection may send at once before the rate applies (default 400)")
    p.add_argument("--max-rooms", type=positive(int), default=10_000, metavar="N", help="rooms held at once (default 10000)")
    p.add_argument("--max-connections", type=positive(int), default=5_000, metavar="N",
                   help="open connections at once (default 5000)")
    p.add_argument("--max-per-address", type=at_least_zero, default=64, metavar="N",
                   help="open connections from one IPv4 address or IPv6 /64, whose frames and write buffers also "
                   "share one budget, fairly (default 64; an IPv6 /48 holds twice an address's; 0 behind a reverse "
                   "proxy, where every connection comes from it)")
    p.add_argument("--room-watchers", type=at_least_zero, default=16, metavar="N",
                   help="watchers one room may have at once (protocol 1.3; default 16; 0: nobody may watch)")
    p.add_argument("--log-level", default="INFO", type=str.upper,
                   choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="log verbosity (default INFO)")
    return p


def ledger_for(args: argparse.Namespace) -> Ledger:
    """The backend ``--store`` names: Redis for a redis:// URL, else an SQLite file, else memory."""
    if args.store and args.store.startswith(("redis://", "rediss://", "unix://", "redis-cluster://")):
        # only a Redis relay needs the client library loaded
        from .redis_cluster_ledger import RedisClusterLedger, is_cluster
        from .redis_ledger import RedisLedger

        if is_cluster(args.store):
            return RedisClusterLedger(args.store, retention=args.retention, lease=args.lease,
                                      replicas=args.wait_replicas, wait_ms=args.wait_ms, failover=args.failover_wait)
        return RedisLedger(args.store, retention=args.retention, lease=args.lease, replicas=args.wait_replicas,
                           wait_ms=args.wait_ms)
    if args.store:
        return SQLiteLedger(args.store, retention=args.retention)
    return MemoryLedger(retention=args.retention, max_bytes=args.max_memory << 20)


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def fail(message: str) -> int:
    print(f"discard-relay: {message}", file=sys.stderr)
    return 2


def open_file_limit(connections: int) -> None:
    """Raise the soft open-file limit toward what ``connections`` need (each one is a file), or say in one line
    why the relay will refuse connections before reaching that number."""
    wanted = connections + 64  # the store, the listening sockets, logs
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    except (ValueError, OSError):
        pass
    if soft < wanted:
        logging.getLogger("discard.relay").warning(
            "the open-file limit (%d) is below --max-connections %d: connections past about %d will fail; "
            "raise it (ulimit -n) or lower --max-connections", soft, connections, max(soft - 64, 0))


async def run(args: argparse.Namespace) -> int:
    limits = Limits(max_frame=args.max_frame, rate=args.rate, burst=args.burst, room_watchers=args.room_watchers,
                    max_rooms=args.max_rooms, max_connections=args.max_connections,
                    max_per_address=args.max_per_address)
    if (args.tls_cert is None) != (args.tls_key is None):
        return fail("--tls-cert and --tls-key go together")
    try:
        tls = tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    except (OSError, ssl.SSLError) as error:
        return fail(f"cannot load --tls-cert/--tls-key: {getattr(error, 'strerror', None) or error}")
    try:
        ledger = ledger_for(args)
    except (sqlite3.Error, ValueError) as error:
        return fail(f"cannot open store {args.store}: {error}")
    open_file_limit(args.max_connections)
    relay = Relay(ledger, limits)
    try:
        server = await relay.serve(args.host, args.port, tls)
    except Unavailable as error:
        await relay.close()
        return fail(f"cannot use store {args.store}: {error.reason}")
    except OSError as error:
        await relay.close()
        hint = " (is another relay running? pick another --port)" if error.errno == errno.EADDRINUSE else ""
        return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}{hint}")
    stop: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def stopping(signum: int) -> None:  # a second signal while stopping changes nothing
        if not stop.done():
            stop.set_result(128 + signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stopping, sig)
    port = server.sockets[0].getsockname()[1]
    scheme = "wss" if tls else "ws"
    logging.getLogger("discard.relay").info("listening on %s://%s:%d%s", scheme, args.host, port,
                                             f" (store {args.store})" if args.store else "")
    print(f"discard-relay listening on {scheme}://{args.host}:{port}", flush=True)
    status = await stop
    server.close()  # stops accepting and closes every connection with 1001
    await server.wait_closed()
    await relay.close()
    logging.getLogger("discard.relay").info("stopped")
    return status  # the shell's status for the signal: 130 (SIGINT) or 143 (SIGTERM)


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("websockets").setLevel(max(logging.WARNING, logging.getLogger().level))
    sys.exit(run_loop(run(args)))
