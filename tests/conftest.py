"""Shared fixtures: a real relay on a free loopback port, in this process."""

from __future__ import annotations

import asyncio
import os
import re
import sys

import pexpect
import pytest

from relay.server import Limits, Relay


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path, monkeypatch):
    """Saved seats and transcripts go to the test's own directory, for this process and its children."""
    monkeypatch.setenv("DISCARD_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
async def relay_server():
    """A running in-process relay; yields (relay, url)."""
    relay = Relay(limits=Limits())
    server = await relay.serve("127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield relay, f"ws://127.0.0.1:{port}"
    server.close()
    await server.wait_closed()
    relay.close()


@pytest.fixture
async def relay_url(relay_server):
    return relay_server[1]


@pytest.fixture(scope="session", autouse=True)
def crypto_pool():
    """One process pool for the whole run, started before any app captures stdio."""
    from tabletop import crypto

    crypto.start_pool()
    yield
    crypto.shutdown_pool()


async def _until(condition, what, rounds=3000):
    """Poll ``condition`` (bounded in rounds; the condition, not the clock, decides)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


@pytest.fixture
def until():
    """``await until(condition, what)``: wait for a state the test cannot be told about."""
    return _until


@pytest.fixture
async def players(relay_url):
    """``await players(room, [strategy, …], …)``: seats playing in ``room`` over the test's relay (tests/arena.py)."""
    from arena import start_players

    started: list = []

    async def start(room, strategies, **options):
        started.append(await start_players(relay_url, room, strategies, **options))
        return started[-1]

    yield start
    for each in started:
        await each.stop()


class Terminal(pexpect.spawn):
    """A real process in a real pseudo-terminal, as a person runs it (Ctrl-C included)."""

    def after_screen(self) -> list[str]:
        """The lines printed once the full-screen app has left the alternate screen."""
        text = (self.before or "") if self.after is pexpect.EOF else self.buffer
        text = self.logfile_read.getvalue() if self.logfile_read else text
        tail = text.rsplit("\x1b[?1049l", 1)[-1]
        plain = re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-B]|[=>])", "", tail)
        return [line for line in plain.replace("\r", "").split("\n") if line.strip()]


@pytest.fixture
def terminal(private_data_dir):
    """``terminal(*python_args, size=(rows, cols))``: start ``python *python_args`` in a pseudo-terminal."""
    import io

    started: list[Terminal] = []

    def spawn(*argv: str, size: tuple[int, int] = (24, 80), env: dict[str, str] | None = None) -> Terminal:
        child = Terminal(sys.executable, list(argv), dimensions=size, encoding="utf-8", timeout=60,
                         env={**os.environ, **(env or {})})
        child.logfile_read = io.StringIO()
        started.append(child)
        return child

    yield spawn
    for child in started:
        if child.isalive():
            child.terminate(force=True)


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (Linux /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat_file:
                    fields = stat_file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
