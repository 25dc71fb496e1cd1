"""What the benchmarks share: `python -m relay` on a free loopback port, a redis-server or a Redis Cluster for it, and
bots to play."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tabletop.groups import DEFAULT_GROUP, GROUPS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from programs import RedisCluster, RedisServer  # noqa: E402  (the tests' own way to start them)


def start_relay(*args: str, cwd: str | None = None) -> tuple[subprocess.Popen, str]:
    """Start a relay (default limits; in memory unless ``args`` say otherwise); returns the process and its ws://
    address. ``cwd``: a checkout whose ``relay`` package to run instead of this one (a baseline)."""
    relay = subprocess.Popen([sys.executable, "-m", "relay", "--port", "0", "--log-level", "warning", *args],
                             stdout=subprocess.PIPE, text=True, cwd=cwd)
    assert relay.stdout is not None
    line = relay.stdout.readline()
    match = re.search(r"(wss?://\S+)", line)
    if not match:
        relay.kill()
        sys.exit(f"relay did not start: {line!r}")
    return relay, match.group(1)


def status_mib(pid: int, key: str) -> float:
    """A memory figure of /proc/PID/status in MiB: ``VmRSS`` (now) or ``VmHWM`` (the peak)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_redis() -> tuple[subprocess.Popen, str]:
    """A throwaway redis-server on a free loopback port (append-only file on, fsync every second, as deployed)."""
    server = RedisServer(Path(tempfile.mkdtemp(prefix="relay-bench-redis-"))).start()
    assert server.proc is not None
    return server.proc, server.url


def start_redis_cluster(node_timeout_ms: int = 5000) -> RedisCluster:
    """A throwaway Redis Cluster: three masters with a replica each, as the tests start it (``.stop()`` ends it)."""
    return RedisCluster(Path(tempfile.mkdtemp(prefix="relay-bench-cluster-")), node_timeout_ms).start()


def run_bots(commands: list[list[str]], data_dir: str, cwd: str | None = None, timeout: float = 1800) -> list[dict]:
    """Start one discard-bot per command at once (sharing ``data_dir``), wait for all; every bot's JSON lines.

    A bot that fails ends the benchmark with its one-line reason.
    """
    env = dict(os.environ, DISCARD_DATA_DIR=data_dir)
    bots = [subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for command in commands]
    lines = []
    for bot in bots:
        out, err = bot.communicate(timeout=timeout)
        if bot.returncode != 0:
            sys.exit(f"bot failed ({bot.returncode}): {err.strip()}")
        lines += [json.loads(line) for line in out.splitlines() if line.strip()]
    return lines


# -- a game between discard-bot processes (benchmarks/cabo.py, benchmarks/holdem.py) ---------------------------


def game_arguments(doc: str) -> argparse.ArgumentParser:
    """A game benchmark's arguments, described by its docstring's first line: ``--group`` (add the game's own)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--group", choices=list(GROUPS), default=DEFAULT_GROUP.name,
                        help=f"the group the cards are encrypted in (default {DEFAULT_GROUP.name})")
    return parser


@contextlib.contextmanager
def game_relay(group: str) -> Iterator[str]:
    """Says what the machine is (cores, one exponentiation in ``group``), then runs a relay for the block: its
    ws:// address."""
    from shuffle import operation_us  # shuffle.py imports this module

    print(f"cores: {os.cpu_count()}, one exponentiation ({group}): {operation_us(group)[0]:.0f} µs", flush=True)
    relay, url = start_relay()
    try:
        yield url
    finally:
        relay.terminate()
        relay.wait(timeout=10)


def play_game(url: str, room: str, game: str, group: str, options: Sequence[str], names: Sequence[str],
              data_dir: str) -> list[dict]:
    """One ``discard-bot --game GAME --json`` per name in ``room``, seeded 0, 1, …: every bot's JSON lines."""
    command = [sys.executable, "-m", "discard_tui.bot", "--relay", url, "--room", room, "--game", game,
               "--seats", str(len(names)), *options, "--json", "--timeout", "120", "--group", group]
    return run_bots([command + ["--name", name, "--seed", str(k)] for k, name in enumerate(names)], data_dir)
