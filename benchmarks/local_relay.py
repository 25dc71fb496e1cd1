"""What the benchmarks share: `python -m relay` on a free loopback port, a redis-server for it, and bots to play."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence

from tabletop.groups import DEFAULT_GROUP, GROUPS


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis_cluster() -> tuple[list[subprocess.Popen], str]:
    """A throwaway Redis Cluster on free loopback ports: three masters, each with one replica (no persistence);
    returns its processes and a ``redis-cluster://`` URL naming the masters."""
    binary, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if binary is None or cli is None:
        sys.exit("redis-server and redis-cli are not installed: apt-get install redis-server")
    ports = [free_port() for _ in range(6)]
    nodes = []
    for port in ports:
        directory = tempfile.mkdtemp(prefix="relay-bench-cluster-")
        nodes.append(subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", directory,
                                       "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                       "--cluster-port", str(free_port()), "--cluster-node-timeout", "5000",
                                       "--appendonly", "no", "--save", "", "--logfile", "", "--daemonize", "no"],
                                      stdout=subprocess.DEVNULL))
    for port in ports:
        while subprocess.run([cli, "-p", str(port), "ping"], capture_output=True, text=True).stdout.strip() != "PONG":
            time.sleep(0.05)
    subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{port}" for port in ports), "--cluster-replicas", "1",
                    "--cluster-yes"], check=True, capture_output=True, timeout=60)
    for port in ports:
        while "cluster_state:ok" not in subprocess.run([cli, "-p", str(port), "cluster", "info"],
                                                       capture_output=True, text=True).stdout:
            time.sleep(0.05)
    return nodes, "redis-cluster://" + ",".join(f"127.0.0.1:{port}" for port in ports[:3])


def start_redis() -> tuple[subprocess.Popen, str]:
    """A throwaway redis-server on a free loopback port (append-only file on, fsync every second, as deployed)."""
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed: apt-get install redis-server")
    port = free_port()
    directory = tempfile.mkdtemp(prefix="relay-bench-redis-")
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", directory,
                               "--appendonly", "yes", "--save", "", "--logfile", "", "--daemonize", "no"],
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    for line in server.stdout:
        if "Ready to accept connections" in line:
            server.stdout.close()
            return server, f"redis://127.0.0.1:{port}/0"
    sys.exit("redis-server did not start")


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
