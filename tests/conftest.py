"""Shared fixtures: a real relay on a free loopback port, in this process."""

from __future__ import annotations

import asyncio

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
    await relay.close()


@pytest.fixture
async def relay_url(relay_server):
    return relay_server[1]


@pytest.fixture(scope="session", autouse=True)
def crypto_pool():
    """One process pool for the whole run, started before any app captures stdio."""
    from discard_tui import crypto

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
