"""The relay both benchmarks load: `python -m relay` on a free loopback port."""

from __future__ import annotations

import re
import subprocess
import sys


def start_relay() -> tuple[subprocess.Popen, str]:
    """Start a relay (in-memory store, default limits); returns the process and its ws:// address."""
    relay = subprocess.Popen([sys.executable, "-m", "relay", "--port", "0", "--log-level", "warning"],
                             stdout=subprocess.PIPE, text=True)
    assert relay.stdout is not None
    line = relay.stdout.readline()
    match = re.search(r"(ws://\S+)", line)
    if not match:
        relay.kill()
        sys.exit(f"relay did not start: {line!r}")
    return relay, match.group(1)
