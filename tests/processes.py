"""One way to start a discard-bot process in tests, and to wait for it."""

from __future__ import annotations

import asyncio
import subprocess
import sys


def run_bot(url: str, room: str, *flags: str) -> subprocess.Popen[str]:
    """``discard-bot --relay URL --room ROOM FLAGS…`` as a child process with captured output."""
    return subprocess.Popen([sys.executable, "-m", "discard_tui.bot", "--relay", url, "--room", room, *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def finish(process: subprocess.Popen[str], timeout: float = 90) -> tuple[int, str, str]:
    """Wait for the process without blocking the loop: (exit code, stdout, stderr)."""
    out, err = await asyncio.to_thread(process.communicate, timeout=timeout)
    return process.returncode, out, err
