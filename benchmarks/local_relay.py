"""What the benchmarks share: `python -m relay` on a free loopback port, a redis-server for it, and bots to play."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile


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
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed: apt-get install redis-server")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
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
