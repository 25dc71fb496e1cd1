"""The relays both benchmarks load: `python -m relay` on a free loopback port, and a redis-server for it."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import tempfile


def start_relay(*args: str) -> tuple[subprocess.Popen, str]:
    """Start a relay (default limits; in memory unless ``args`` say otherwise); returns the process and its ws:// address."""
    relay = subprocess.Popen([sys.executable, "-m", "relay", "--port", "0", "--log-level", "warning", *args],
                             stdout=subprocess.PIPE, text=True)
    assert relay.stdout is not None
    line = relay.stdout.readline()
    match = re.search(r"(wss?://\S+)", line)
    if not match:
        relay.kill()
        sys.exit(f"relay did not start: {line!r}")
    return relay, match.group(1)


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
