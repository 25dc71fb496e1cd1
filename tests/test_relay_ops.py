"""Operational tests of the relay: durability, shutdown, CLI, logging, limits.

Every test talks to a real relay over real sockets on a free port: either a
``python -m relay`` subprocess or an in-process :class:`Relay`, through the
conformance tests' client (:class:`relay_client.Client`), so every frame the
relay sends is checked here too: events gapless, shapes as the protocol says. Nothing
waits on the wall clock: tests wait for specific frames or log lines (with
generous timeouts), and the relay's clock is replaced where time matters.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable
from typing import Any, cast
import base64
import json
import logging
import random
import signal
import socket
import ssl
import subprocess
import sys
import time
import tracemalloc
import weakref
from pathlib import Path

import pytest
from websockets.asyncio.connection import Connection
from websockets.exceptions import InvalidStatus

from relay import budgets
from relay import memory_ledger as ledger_module
from relay import server as relay_module
from relay.ledger import SEAT_TAKEN_OVER, Claim, Party, Refused, amount
from relay.memory_ledger import MemoryLedger
from relay.memory import MemoryReturn
from relay.server import Limits, Relay
from relay_client import Client
from relay_client import close_leftover_clients as close_leftover_clients  # autouse

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10.0  # seconds: an upper bound on anything that should happen at once


# -- clients ------------------------------------------------------------------


async def seated(url: str, room: str, name: str, token: str | None = None, after: int = 0,
                 source: str | None = None) -> Client:
    """A client in its seat (or back in it, with ``token``), waiting up to ``WAIT`` for any frame; connected from
    the loopback address ``source`` (127.0.0.2, …) to be another party than the tests' usual 127.0.0.1."""
    return await Client.seated(url, room, name, token, after, timeout=WAIT, source=source)


async def unseated(url: str, label: str, source: str | None = None) -> Client:
    """A client that has connected (from ``source``) and sent nothing yet."""
    return await Client.open(url, label, timeout=WAIT, source=source)


def kinds(events: list[dict]) -> list[tuple[str, int]]:
    return [(e["kind"], e["seat"]) for e in events]


def check_order(events: list[dict], first: int = 1) -> None:
    assert [e["seq"] for e in events] == list(range(first, first + len(events)))


# -- relays ---------------------------------------------------------------------


class InProcess:
    """An in-process relay with its websockets server, for limits and timing."""

    def __init__(self, relay: Relay, server, url: str) -> None:
        self.relay = relay
        self.server = server
        self.url = url

    def handler_tasks(self) -> set[asyncio.Task]:
        return set(self.server.handler_tasks)

    async def settled(self, tasks: set[asyncio.Task]) -> None:
        """Wait until these connection handlers have returned (their leave is in the ledger)."""
        await asyncio.wait_for(asyncio.gather(*tasks), WAIT)


@pytest.fixture
async def in_process_relay():
    started: list[InProcess] = []

    async def start(retention: float = 600.0, max_store_bytes: int = 256 << 20, **limits: Any) -> InProcess:
        relay = Relay(MemoryLedger(retention, max_bytes=max_store_bytes), Limits(**limits))
        server = await relay.serve("127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        started.append(InProcess(relay, server, f"ws://127.0.0.1:{port}"))
        return started[-1]

    yield start
    for running in started:
        running.server.close()
        await running.server.wait_closed()
        await running.relay.close()


class FakeClock:
    """Stands in for the ``time`` module inside the relay's server, budgets and memory ledger: monotonic time only
    moves when told."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return time.time()

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(relay_module, "time", fake)
    monkeypatch.setattr(ledger_module, "time", fake)
    monkeypatch.setattr(budgets, "time", fake)
    return fake


# -- 1. durable store survives SIGKILL -------------------------------------------------


async def check_resume(url: str, before: Client, room: str, name: str) -> Client:
    """Resume ``before``'s seat with after=0; its old events must come back byte for byte."""
    peer = await seated(url, room, name, token=before.token, after=0)
    assert (peer.seat, peer.token) == (before.seat, before.token)
    await peer.until_seq(peer.head)
    assert len(peer.events) == peer.head
    check_order(peer.events)
    assert peer.raw[: len(before.raw)] == before.raw
    return peer


async def test_sigkill_loses_no_event_and_seats_resume(spawn, tmp_path):
    store = str(tmp_path / "relay.db")
    first = spawn("--store", store)
    a = await seated(first.url, "alpha", "ann")
    b = await seated(first.url, "alpha", "bob")
    c = await seated(first.url, "beta", "cat")
    d = await seated(first.url, "beta", "dan")
    for i in range(50):
        await (a, b)[i % 2].send_post({"i": i})
    for i in range(6):
        await (c, d)[i % 2].send_post({"j": i})
    for peer in (a, b):
        await peer.until_seq(52)  # 2 joins + 50 posts
    for peer in (c, d):
        await peer.until_seq(8)
    # Ten more posts still in flight when the relay dies: whatever a client
    # saw of them must survive too.
    for i in range(50, 60):
        await a.send_post({"i": i})
    first.proc.kill()
    for peer in (a, b, c, d):
        assert await peer.expect_closed() == 1006  # no close frame: the relay was killed
        check_order(peer.events)
    posts = a.events[2:52]
    assert sorted(e["body"]["i"] for e in posts) == list(range(50))
    assert all(e["seat"] == e["body"]["i"] % 2 for e in posts)  # the relay names the sender
    assert [e["body"] for e in a.events[52:]] == [{"i": i} for i in range(50, len(a.events) - 2)]

    second = spawn("--store", store)
    a2 = await check_resume(second.url, a, "alpha", "ann")
    # After the events, the relay's bookkeeping: both seats were connected at the
    # crash, so each gets a leave; then a's new join.
    tail = a2.events[len(a.events):]
    lost = [e for e in tail if e["kind"] == "post"]  # persisted, never delivered
    first_lost = 50 + len(a.events) - 52
    assert [e["body"] for e in lost] == [{"i": i} for i in range(first_lost, first_lost + len(lost))]
    assert kinds(tail[len(lost):]) == [("leave", 0), ("leave", 1), ("join", 0)]
    assert all(e["body"] is None for e in tail[len(lost):])
    b2 = await check_resume(second.url, b, "alpha", "bob")
    assert b2.raw[: len(a2.raw)] == a2.raw
    assert kinds(b2.events[len(a2.events):]) == [("join", 1)]
    join_b = await a2.next_event()
    assert join_b == b2.events[-1]

    await b2.send_post({"after": "restart"})
    for peer in (a2, b2):
        event = await peer.next_event()
        assert (event["seq"], event["seat"], event["body"]) == (b2.head + 1, 1, {"after": "restart"})

    c2 = await check_resume(second.url, c, "beta", "cat")
    assert kinds(c2.events[len(c.events):]) == [("leave", 0), ("leave", 1), ("join", 0)]
    d2 = await check_resume(second.url, d, "beta", "dan")
    assert kinds(d2.events[len(c2.events):]) == [("join", 1)]
    await c2.send_post({"beta": "lives"})
    event = await d2.next_event()
    assert (event["seq"], event["seat"]) == (d2.head + 1, 0)


async def test_a_durable_relay_killed_with_watchers_counts_them_out_when_it_starts_again(tmp_path):
    """Its watchers' connections died with it: the restart appends a watch event of 0 after the seats' leaves, so
    every player's count says nobody watches, and the next watcher is the first."""
    from relay.sqlite_ledger import SQLiteLedger

    store = SQLiteLedger(tmp_path / "relay.db")
    await store.claim("watched", "ann", None, 2)
    for name in ("zed", "yan"):
        await store.watch("watched", name, 16)
    store.db.close()  # killed: no departure recorded
    again = SQLiteLedger(tmp_path / "relay.db")
    tail = [json.loads(entry.frame) for entry in await again.read("watched", 3)]
    assert [(e["kind"], e["seat"], e["body"]) for e in tail] == [("leave", 0, None), ("watch", -1, {"watching": 0})]
    assert (await again.watch("watched", "xia", 16)).watching == 1
    await again.close()


# -- 2. graceful shutdown -------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_signal_closes_clients_with_1001_and_keeps_the_ledger(spawn, tmp_path, sig):
    store = str(tmp_path / "relay.db")
    first = spawn("--store", store)
    a = await seated(first.url, "room", "ann")
    for i in range(5):
        await a.send_post({"i": i})
    await a.until_seq(6)
    # stop() waits for the exit on a thread: this loop must answer the relay's close frame meanwhile, or the
    # relay waits out its close timeout for a client that cannot reply.
    assert await asyncio.to_thread(first.stop, sig) == 128 + sig  # the shell's status for the signal: quiet
    assert await a.expect_closed() == 1001
    assert not any("Traceback" in line or "ERROR" in line for line in first.stderr), first.stderr

    second = spawn("--store", store)
    a2 = await check_resume(second.url, a, "room", "ann")
    # A clean shutdown records the leave itself; the restart adds none.
    assert kinds(a2.events[len(a.events):]) == [("leave", 0), ("join", 0)]
    assert await asyncio.to_thread(second.stop, signal.SIGTERM) == 143


# -- 3. command line ----------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "relay", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=20)


def test_port_in_use_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run_cli("--port", str(taken.getsockname()[1]))
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "already in use" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("args", [["--no-such-flag"], ["--tls-cert", "cert.pem"],
                                  ["--tls-cert", "/no/cert.pem", "--tls-key", "/no/key.pem"],
                                  ["--store", "redis://127.0.0.1:1/0"], ["--store", "redis://[bad"]])
def test_bad_flag_is_one_line_and_exit_2(args):
    """What the command prints: a flag the parser refuses, and flags only the relay's start can refuse."""
    result = run_cli(*args)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["--port", "70000"], ["--port", "-1"], ["--max-frame", "0"], ["--log-level", "LOUD"],
                                  ["--lease", "0"], ["--max-per-address", "-1"], ["--max-per-address", "many"]])
def test_a_value_the_parser_refuses_is_one_line_and_exit_2(args, capsys):
    """Refused before anything else runs (the command's own output is checked above with --no-such-flag)."""
    from relay import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("discard-relay: argument "), err


def test_help_mentions_every_flag():
    result = run_cli("--help")
    assert result.returncode == 0
    for flag in ("--host", "--port", "--max-frame", "--retention", "--store", "--max-memory", "--lease", "--tls-cert", "--tls-key",
                 "--max-connections", "--max-per-address", "--log-level"):
        assert flag in result.stdout


# -- 4. logging ----------------------------------------------------------------------


async def test_join_leave_and_refusals_are_logged_with_room_and_seat(spawn):
    relay = spawn("--log-level", "INFO")
    a = await seated(relay.url, "logged", "ann")
    await relay.log_line("join", "room=logged", "seat=0")
    await a.send({"type": "post", "body": ["not", "an", "object"]})
    await a.expect_error("bad_request")
    await relay.log_line("refused", "bad_request", "room=logged", "seat=0")
    stranger = await unseated(relay.url, "stranger")
    await stranger.send_post({"x": 1})
    await stranger.expect_error("not_joined")
    await relay.log_line("refused", "not_joined", "not joined")
    # A resume that takes the seat over logs the old connection's leave too.
    a2 = await seated(relay.url, "logged", "ann", token=a.token)
    await relay.log_line("leave", "room=logged", "seat=0")
    await relay.log_line("join", "room=logged", "seat=0", "resumed=True")
    await a2.close()
    await relay.log_line("leave", "room=logged", "seat=0")
    await stranger.close()

    mentions = [line for line in relay.stderr if "room=logged" in line]
    assert len(mentions) == 5, mentions  # join, refusal, leave + join (resume), leave
    assert sum("not_joined" in line for line in relay.stderr) == 1


# -- 5. limits ---------------------------------------------------------------------------


async def test_rate_limit_refuses_then_refills(in_process_relay, clock):
    running = await in_process_relay(burst=5, rate=0.01)
    a = await seated(running.url, "rate", "ann")  # frame 1
    for i in range(4):  # frames 2 to 5
        await a.send_post({"i": i})
    await a.send_post({"i": 4})  # frame 6: over the burst
    await a.until_seq(5)
    await a.expect_error("rate_limited")
    await a.send_post({"i": 5})  # the bucket does not refill while time stands still
    await a.expect_error("rate_limited")
    clock.advance(150)  # 1.5 / rate: one more frame, and half a token left over
    await a.send_post({"i": 6})
    event = await a.next_event()
    assert (event["seq"], event["body"]) == (6, {"i": 6})
    await a.send_post({"i": 7})
    await a.expect_error("rate_limited")
    assert len(running.relay.ledger.rooms["rate"].frames) == 6  # refused frames changed nothing


async def test_max_rooms_gives_relay_full(in_process_relay):
    running = await in_process_relay(max_rooms=1)
    await seated(running.url, "one", "ann")
    b = await unseated(running.url, "bob")
    refused = await b.try_join("two", "bob")
    assert (refused["type"], refused["code"]) == ("error", "relay_full")
    assert set(running.relay.ledger.rooms) == {"one"}
    welcome = await b.try_join("one", "bob")  # the connection is still usable
    assert (welcome["type"], welcome["seat"]) == ("welcome", 1)


async def test_max_connections_refuses_the_handshake_with_503(in_process_relay):
    running = await in_process_relay(max_connections=2)
    await seated(running.url, "r", "ann")  # a welcome: the handler is counting it
    await seated(running.url, "r", "bob")
    with pytest.raises(InvalidStatus) as refused:
        await unseated(running.url, "third")
    assert refused.value.response.status_code == 503


async def test_max_frame_gives_too_large_then_1009(in_process_relay):
    running = await in_process_relay(max_frame=1024)
    a = await seated(running.url, "big", "ann")
    b = await seated(running.url, "big", "bob")

    def post_of(size: int, char: str = "x") -> str:
        empty = json.dumps({"type": "post", "body": {"p": ""}}, ensure_ascii=False)
        pad = (size - len(empty.encode())) // len(char.encode())
        return json.dumps({"type": "post", "body": {"p": char * pad}}, ensure_ascii=False)

    exact = post_of(1024)
    assert len(exact.encode()) == 1024
    await a.send_text(exact)
    event = await a.until(lambda e: e["kind"] == "post")
    assert event["seq"] == 3
    await a.send_text(post_of(1025))
    await a.expect_error("too_large")
    wide = post_of(1027, "\N{GRINNING FACE}")  # 256 characters but 1027 bytes
    assert len(wide) < 1024 < len(wide.encode())
    await a.send_text(wide)
    await a.expect_error("too_large")
    await a.send_post({"small": True})  # still usable, and nothing was appended meanwhile
    event = await a.next_event()
    assert (event["seq"], event["body"]) == (4, {"small": True})

    await a.send_text(post_of(4 * 1024 + 1))
    assert await a.expect_closed() == 1009
    leave = await b.until(lambda e: e["kind"] == "leave")
    assert leave["seat"] == 0


# -- 6. a slow client never delays its room -----------------------------------------


async def post_noise_until_a_leave(poster: Client, seed: int) -> tuple[dict, int]:
    """Post 24 KiB of incompressible padding at a time (whether or not a connection compresses its frames, a stall
    must really fill the kernel's buffers and then the relay's), each after the one before is back in order, until
    the next event is a leave; that leave, and the number of the last post sent."""
    noise = random.Random(seed)
    for i in range(2000):
        await poster.send_post({"pad": base64.b64encode(noise.randbytes(24 << 10)).decode(), "i": i})
        event = await poster.next_event(timeout=5)
        if event["kind"] == "leave":
            return event, i
        assert (event["kind"], event["seat"], event["body"]["i"]) == ("post", poster.seat, i)
    pytest.fail("no stalled reader was dropped")


async def test_stalled_reader_is_dropped_without_delaying_the_room(in_process_relay):
    running = await in_process_relay(max_buffer=64 << 10, rate=1e6, burst=1_000_000)
    a = await seated(running.url, "slow", "ann")
    stalled = await seated(running.url, "slow", "bob")
    stalled.ws.transport.pause_reading()
    await a.until(lambda e: e["kind"] == "join" and e["seat"] == 1)
    started = time.monotonic()
    try:
        event, i = await post_noise_until_a_leave(a, seed=6)
    finally:
        stalled.ws.transport.abort()
    assert event["seat"] == 1
    assert time.monotonic() - started < 30
    room = running.relay.ledger.rooms["slow"]
    assert not room.seats[1].present and room.seats[0].present
    assert [k for k in kinds([json.loads(f) for f in room.frames]) if k[1] == 1] == [("join", 1), ("leave", 1)]
    event = await a.next_event()  # the post in flight as the leave went out
    assert (event["kind"], event["body"]["i"]) == ("post", i)

    # The room goes on, and the dropped player can take its seat back.
    back = await seated(running.url, "slow", "bob", token=stalled.token, after=room.head)
    assert back.seat == 1
    await a.send_post({"still": "here"})
    for peer in (a, back):
        event = await peer.until(lambda e: e["kind"] == "post")
        assert event["body"] == {"still": "here"}


async def test_a_resume_of_a_room_larger_than_the_write_buffer_catches_up_at_the_readers_pace(in_process_relay):
    """A room's backlog is written as the reader takes it, not queued whole: a six-player Hold'em game in MODP
    grows past --max-buffer, and a player who reconnects late must still catch up instead of being dropped."""
    running = await in_process_relay(max_buffer=2 << 20, byte_burst=64 << 20, address_byte_burst=64 << 20)
    ann = await seated(running.url, "long", "ann")
    for n in range(16):  # 12.8 MB, more than the loopback socket's buffers and the relay's write buffer together
        await ann.send_post({"n": n, "pad": "x" * 800_000})
    await ann.until(lambda e: e["kind"] == "post" and e["body"]["n"] == 15)
    bob = await seated(running.url, "long", "bob")
    late = await seated(running.url, "long", "bob", token=bob.token, after=0)
    posts = [e["body"]["n"] for e in await late.events_until(lambda e: e["kind"] == "post" and e["body"]["n"] == 15)
             if e["kind"] == "post"]
    assert posts == list(range(16))
    await ann.send_post({"live": True})
    assert (await late.until(lambda e: e["kind"] == "post"))["body"] == {"live": True}


async def test_client_dropped_during_catch_up_is_dropped_quietly(in_process_relay, caplog):
    running = await in_process_relay(max_buffer=64 << 10, rate=1e6, burst=1_000_000, byte_rate=1e9, byte_burst=1 << 30,
                                     address_byte_rate=1e9, address_byte_burst=1 << 30,
                                     drain_timeout=0.2)
    a = await seated(running.url, "deep", "ann")
    noise = random.Random(7)
    for i in range(300):  # a ledger of some 10 MB: more than the kernel buffers hold
        await a.send_post({"pad": base64.b64encode(noise.randbytes(24 << 10)).decode()})
        await a.until_seq(i + 2)  # in step: a is no slow reader itself
    late = await unseated(running.url, "bob")
    try:
        late.ws.transport.pause_reading()
        await late.send({"type": "join", "room": "deep", "name": "bob"})  # a welcome it will never read
        await a.until(lambda e: e["kind"] == "join")
        leave = await a.next_event()
        assert (leave["kind"], leave["seat"]) == ("leave", 1)
    finally:
        late.ws.transport.abort()
    # Once dropped, the relay writes nothing more to it (asyncio would warn).
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


# -- 7. retention -------------------------------------------------------------------------


async def test_rooms_left_behind_past_the_idle_budget_are_dropped_largest_first():
    """Rooms nobody is in are kept for their retention while together they hold little; past ``max_idle_bytes``
    the largest go at once, so what a client posted and left cannot hold the memory relay's RAM for ten minutes."""
    ledger = MemoryLedger(max_idle_bytes=10_000)
    seats = {}
    for room, pad in (("big", 20_000), ("small", 1_000), ("busy", 30_000)):
        seats[room] = claim = await ledger.claim(room, json.dumps(room), None, None)
        await ledger.append(room, claim.seat, claim.epoch, json.dumps({"pad": "x" * pad}))
    await ledger.release("small", seats["small"].seat, seats["small"].epoch)
    assert set(ledger.rooms) == {"big", "small", "busy"}  # only small is left behind, and it is small
    await ledger.release("big", seats["big"].seat, seats["big"].epoch)
    assert set(ledger.rooms) == {"small", "busy"}  # busy, the largest, has a player: it is never dropped
    assert ledger.stored_bytes == sum(room.bytes for room in ledger.rooms.values())


async def test_a_full_memory_store_drops_rooms_left_behind_then_refuses_the_room_past_its_share():
    """Past ``max_bytes`` of frames in all, a post first costs the rooms nobody is in (largest first), then is
    refused if its room holds more than its share; a smaller room still posts."""
    ledger = MemoryLedger(max_bytes=66_000, max_idle_bytes=66_000)
    seats = {}
    for room, pad in (("left", 15_000), ("hog", 20_000), ("game", 1_000)):
        seats[room] = claim = await ledger.claim(room, json.dumps(room), None, None)
        await ledger.append(room, claim.seat, claim.epoch, json.dumps({"pad": "x" * pad}))
    await ledger.release("left", seats["left"].seat, seats["left"].epoch)
    hog, game = seats["hog"], seats["game"]
    await ledger.append("hog", hog.seat, hog.epoch, json.dumps({"pad": "x" * 20_000}))
    assert set(ledger.rooms) == {"left", "hog", "game"}  # 62 kB in all (the rooms themselves 4 kB): within it
    await ledger.append("hog", hog.seat, hog.epoch, json.dumps({"pad": "x" * 5_000}))
    assert set(ledger.rooms) == {"hog", "game"}  # the room left behind made room
    with pytest.raises(Refused) as refused:
        await ledger.append("hog", hog.seat, hog.epoch, json.dumps({"pad": "x" * 20_000}))
    assert refused.value.code == "store_full" and "share" in refused.value.message
    await ledger.append("game", game.seat, game.epoch, json.dumps({"pad": "x" * 5_000}))  # under its share of 33 kB
    assert ledger.stored_bytes == sum(room.bytes for room in ledger.rooms.values()) <= 66_000



def test_every_size_the_relay_names_reads_as_people_read_it():
    """One helper names every size in the relay's words, in the largest unit of which there is one, to a tenth: a
    share of 64 bytes read "0.0625 KiB", a room's 1.5 KiB "1 KiB" (cut to whole KiB), 2 GiB of memory "2048 MiB"."""
    assert [amount(size) for size in (0, 1, 64, 1023, 1024, 1536, 1500, (16 << 20) - 1, 16 << 20, 2 << 30,
                                      1048524.8)] == [
        "0 bytes", "1 byte", "64 bytes", "1023 bytes", "1 KiB", "1.5 KiB", "1.5 KiB", "16 MiB", "16 MiB", "2 GiB",
        "1 MiB"]


async def test_a_tiny_share_of_the_memory_store_is_named_in_bytes():
    """A relay whose address share is 64 bytes (--max-memory's share, as a test gives it) names it so."""
    ledger = MemoryLedger(max_bytes=16 * 64)
    with pytest.raises(Refused) as refused:
        await ledger.claim("r", json.dumps("ana"), None, None, party=Party("127.0.0.1"))
    assert refused.value.message == "the relay's memory for your address's rooms is full (64 bytes)"

ELSEWHERE = "127.0.0.2"  # the attacker's address in these tests; the honest parties connect from 127.0.0.1
SHARE = 10 << 10  # an address's share of the memory store in these tests (max_bytes // 16), a /48's twice that
ONE, TWO, THREE = (Party(f"2001:db8:1:{n}::/64", "2001:db8:1::/48") for n in (2, 3, 4))  # three /64s of one /48


def rooms_looked_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """From now on, count the rooms the memory ledger looks at (each reading of a room's ``occupied``): how many
    there have been so far."""
    looked = 0
    occupied = cast(property, vars(ledger_module.MemoryRoom)["occupied"])

    def counted(room: ledger_module.MemoryRoom) -> bool:
        nonlocal looked
        looked += 1
        return bool(occupied.__get__(room))

    monkeypatch.setattr(ledger_module.MemoryRoom, "occupied", property(counted))
    return lambda: looked


class Poster:
    """A seat in each of some rooms of a memory ledger, through which any party may post."""

    def __init__(self, ledger: MemoryLedger) -> None:
        self.ledger = ledger
        self.seats: dict[str, Claim] = {}

    async def seat(self, *rooms: str) -> Poster:
        for room in rooms:
            self.seats[room] = await self.ledger.claim(room, json.dumps(room), None, None)
        return self

    async def post(self, room: str, pad: int, party: Party, post_id: str | None = None) -> int:
        claim = self.seats[room]
        return await self.ledger.append(room, claim.seat, claim.epoch, json.dumps({"pad": "x" * pad}), post_id, party)

    async def post_body(self, room: str, body: dict, party: Party, post_id: str | None = None) -> int:
        """Post ``body`` as the relay stores it (its characters as they are, not escaped)."""
        claim = self.seats[room]
        return await self.ledger.append(room, claim.seat, claim.epoch, json.dumps(body, ensure_ascii=False), post_id,
                                        party)

    async def leave(self, room: str) -> None:
        claim = self.seats[room]
        await self.ledger.release(room, claim.seat, claim.epoch)

    def check_charges(self) -> None:
        """What the ledger holds charged to each party is what its rooms hold charged to it, and they are the rooms
        it lists as the party's; the rooms it lists as idle are those nobody is in."""
        rooms: dict[str, int] = {}
        holdings: dict[str, set[str]] = {}
        for name, held in self.ledger.rooms.items():
            for key, size in held.charged.items():
                rooms[key] = rooms.get(key, 0) + size
                holdings.setdefault(key, set()).add(name)
        assert self.ledger.charged == rooms and self.ledger.holdings == holdings
        assert self.ledger.idle == {name for name, held in self.ledger.rooms.items() if not held.occupied}


async def test_a_memory_store_charges_each_post_to_its_address_and_its_48_and_refuses_past_their_share():
    """Each post kept in memory is charged to its address and its /48: one that would take the address past
    max_bytes // 16, or the /48 past twice that while another of its /64s holds posts, is refused with store_full
    naming whose share is full; a post sent again under its id costs nothing again; a room nobody is in that holds
    the party's posts is dropped before its post is refused; an IPv4 address has no /48."""
    ledger = MemoryLedger(max_bytes=16 * SHARE)
    rooms = await Poster(ledger).seat("a", "b", "c", "d")
    first = await rooms.post("a", 6_000, ONE, "p1")
    charged = ledger.charged[ONE.address]
    assert 6_000 < charged == ledger.charged[ONE.block] < 6_400  # the event's frame, its id: the body and a little more
    assert await rooms.post("a", 6_000, ONE, "p1") == first and ledger.charged[ONE.address] == charged  # again: free
    with pytest.raises(Refused) as refused:
        await rooms.post("b", 5_000, ONE)  # in another room: the address's rooms together
    assert refused.value.code == "store_full"
    assert refused.value.message == "the relay's memory for your address's rooms is full (10 KiB)"
    await rooms.post("b", 8_000, TWO)  # another /64 of the /48: its own address's share; the /48 holds 14 kB of 20
    with pytest.raises(Refused) as refused:
        await rooms.post("c", 7_000, THREE)  # within its address's share, past its /48's
    assert refused.value.message == "the relay's memory for your /48's rooms is full (20 KiB)"
    await rooms.post("c", 9_000, Party("203.0.113.7"))  # IPv4: an address, no /48
    await rooms.post("d", 100, Party("connection 7"))  # behind a proxy (--max-per-address 0): a connection
    assert set(ledger.charged) == {ONE.address, TWO.address, ONE.block, "203.0.113.7", "connection 7"}
    rooms.check_charges()

    await rooms.leave("b")  # TWO's room and the IPv4 address's: nobody is in them now
    await rooms.leave("c")
    await rooms.post("d", 7_000, THREE)  # TWO's room is dropped for the /48's share; the IPv4 address's stays
    assert set(ledger.rooms) == {"a", "c", "d"} and TWO.address not in ledger.charged
    rooms.check_charges()


async def test_a_partys_charge_is_freed_when_its_room_is_dropped_trimmed_or_expired(clock):
    """A post's charge lasts as long as its room: ``drop``, the trim of rooms left behind past ``max_idle_bytes``
    and the end of a room's retention each give it back; rooms without a party's post are charged to nobody."""
    ledger = MemoryLedger(retention=60, max_bytes=16 * SHARE, max_idle_bytes=6_000)
    rooms = await Poster(ledger).seat("dropped", "trimmed", "expired", "free")
    for room in "dropped", "trimmed", "expired":
        await rooms.post(room, 3_000, ONE)
    await rooms.post("free", 3_000, None)
    assert ledger.charged[ONE.block] > 9_000 and "free" not in {k for r in ledger.rooms.values() for k in r.charged}
    ledger.drop("dropped")
    await rooms.leave("expired")  # within max_idle_bytes: kept for its retention
    assert set(ledger.rooms) == {"trimmed", "expired", "free"}
    await rooms.leave("trimmed")  # two rooms left behind hold more than max_idle_bytes: the larger goes
    assert len(ledger.rooms) == 2 and 3_000 < ledger.charged[ONE.address] < 3_200
    clock.advance(61)
    await ledger.expire()
    assert set(ledger.rooms) == {"free"} and ledger.charged == {}
    rooms.check_charges()


@pytest.mark.parametrize("body, post_ids", [({"pad": "x" * 6_000}, False), ({"pad": "x" * 6_000 + "\U0001F600"}, False),
                                            ({}, True)], ids=["ascii", "one-emoji", "small-with-ids"])
async def test_a_partys_charge_is_what_its_posts_take_in_memory(body: dict, post_ids: bool):
    """The store counts what a post takes in the relay's memory, not its characters: a frame with one emoji takes
    4 bytes a character, and a small post's id and its entry take more than its frame (counted as characters, the
    one-emoji posts took 4.0 times their charge and the small posts under an id 2.8 times: a party's share, and
    --max-memory, were that much larger in fact)."""
    ledger = MemoryLedger(max_bytes=1 << 30)
    rooms = await Poster(ledger).seat("r")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1_000):
            await rooms.post_body("r", body, ONE, f"{n:064d}" if post_ids else None)
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.95 * taken <= ledger.charged[ONE.address] <= 1.2 * taken  # (an id's entry: its dict's mean)


async def test_a_post_into_a_full_memory_store_costs_the_relay_the_rooms_nobody_is_in_not_every_room(monkeypatch):
    """Parties at many addresses (eight /48s from a tunnel broker) fill the store with rooms they stay in: then
    every honest post that would pass max_bytes looks for rooms nobody is in to drop, among those alone. (It
    looked at every room: 716 us a post with 10,000 rooms, every room's every post, while the store stayed full.)"""
    ledger = MemoryLedger(max_bytes=16 * SHARE)
    rooms = await Poster(ledger).seat(*(f"room{n}" for n in range(40)), "left")
    await rooms.leave("left")
    for n in range(16):  # sixteen parties, each at its share: the store is full
        party = Party(f"203.0.113.{n}")
        with contextlib.suppress(Refused):
            for _ in range(20):
                await rooms.post(f"room{n}", 1_000, party)
    looked = rooms_looked_at(monkeypatch)
    assert ledger.stored_bytes + 200 > ledger.max_bytes
    await rooms.post("room39", 10, Party("198.51.100.1"))  # the honest post: the room left behind goes for it
    assert "left" not in ledger.rooms and looked() <= 1
    await rooms.post("room39", 10, Party("198.51.100.1"))
    assert looked() <= 1
    rooms.check_charges()


async def test_rooms_made_and_left_are_charged_what_they_take_in_memory():
    """A room made by a join and left costs its own objects beside its two events (1,776 bytes in all, where its
    events were 378): its maker is charged that, so that rooms made and left within a share take no more."""
    ledger = MemoryLedger(max_bytes=1 << 30)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1_000):
            claim = await ledger.claim(f"room-{n:05d}", "m" * 32, None, None, party=ONE)
            await ledger.release(f"room-{n:05d}", claim.seat, claim.epoch)
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.95 * taken <= ledger.charged[ONE.address] <= 1.2 * taken
    assert ledger.stored_bytes == sum(room.bytes for room in ledger.rooms.values()) >= 0.95 * taken


async def test_one_party_posting_through_the_wire_gets_its_share_of_the_memory_relay_and_no_more(in_process_relay):
    """The attacker, from an address of its own, posts into two rooms through the real wire: once its rooms hold
    its share of the store (max_bytes // 16) its next post gets store_full naming its address, while a post sent
    again under its id is still acknowledged and the honest room, from another address, goes on posting; once the
    attacker has left one of its rooms, that room goes to make room for its next post."""
    running = await in_process_relay(max_store_bytes=16 * SHARE)
    honest = await seated(running.url, "game", "ann")
    others = running.handler_tasks()
    hog = await seated(running.url, "hog", "mallory", source=ELSEWHERE)
    left = running.handler_tasks() - others
    other_hog = await seated(running.url, "hog2", "mallory", source=ELSEWHERE)
    pad = {"pad": "x" * 6_000}
    assert await hog.post_with_id(pad, "a") == 2
    await other_hog.send({"type": "post", "body": pad, "id": "b"})
    refused = await other_hog.expect_error("store_full")
    assert refused["message"] == "the relay's memory for your address's rooms is full (10 KiB)"
    assert await hog.post_with_id(pad, "a") == 2  # sent again: acknowledged, and it costs nothing again
    for n in range(5):
        assert (await honest.post({"n": n, "pad": "y" * 1_000}))["body"]["n"] == n
    await hog.close()
    await running.settled(left)
    assert await other_hog.post_with_id(pad, "b") == 2  # its room left behind was dropped for it
    assert running.relay.ledger.charged[ELSEWHERE] < SHARE
    await honest.close()


async def test_one_emoji_a_post_does_not_take_a_party_past_its_share_of_the_relays_memory(in_process_relay):
    """The attacker posts through the real wire, each post with one emoji, which makes the relay hold each of its
    characters in 4 bytes: it is refused store_full once its posts take its share of the relay's memory, not four
    times that (its share was counted in characters: four posts of 2 KiB went in, 33 KiB)."""
    running = await in_process_relay(max_store_bytes=16 * SHARE)
    hog = await seated(running.url, "hog", "mallory", source=ELSEWHERE)
    for n in range(5):
        await hog.send_post({"pad": "x" * 2_000 + "\U0001F600"})
    await hog.expect_error("store_full")
    held = running.relay.ledger.rooms["hog"]
    posts = [entry.frame for entry in held.entries(0) if entry.kind == "post"]
    assert sum(map(sys.getsizeof, posts)) <= running.relay.ledger.charged[ELSEWHERE] <= SHARE


async def test_taking_a_seat_again_and_again_does_not_take_a_party_past_its_share_of_the_memory_store(
        in_process_relay):
    """The attacker takes its seat back through the real wire again and again, each time from a new connection:
    each join, and the leave after it, is charged to its address, so a join past its share is refused store_full
    and its room holds no more than that. (Charged to nobody, each connection left two events behind for good:
    357 a second from one client in one process, 140 KB a second, past its share and --max-memory without end.)"""
    running = await in_process_relay(max_store_bytes=16 * SHARE)
    token = None
    for _ in range(100):
        client = await Client.open(running.url, "mallory", timeout=WAIT, source=ELSEWHERE)
        reply = await client.try_join("churn", "mallory", token, after=1 << 30)
        await client.close()
        if reply["type"] != "welcome":
            break
        token = reply["token"]
    assert reply["type"] == "error" and reply["code"] == "store_full", reply
    assert reply["message"] == "the relay's memory for your address's rooms is full (10 KiB)"
    assert running.relay.ledger.rooms["churn"].bytes <= running.relay.ledger.charged[ELSEWHERE] <= SHARE


async def test_a_join_and_a_watchers_arrival_are_charged_to_their_party_with_what_ends_them():
    """A claim's join and a watcher's arrival are charged to their party with the leave (or departure) that will
    end them, which cannot be refused then; past the share they are refused store_full, and the room being
    joined is not dropped to make room for its own join."""
    ledger = MemoryLedger(max_bytes=16 * SHARE)
    rooms = await Poster(ledger).seat("r")
    before = ledger.rooms["r"].bytes
    claim = await ledger.claim("r", "ann", None, None, party=ONE)
    charged = ledger.charged[ONE.address]
    await ledger.release("r", claim.seat, claim.epoch)
    assert ledger.charged[ONE.address] == charged >= ledger.rooms["r"].bytes - before  # its join and its leave
    before = ledger.rooms["r"].bytes
    assert (await ledger.watch("r", "wat", 8, TWO)).watching == 1
    await ledger.unwatch("r", "wat")
    assert ledger.charged[TWO.address] >= ledger.rooms["r"].bytes - before  # its arrival and its departure
    await rooms.post("r", SHARE - ledger.charged[ONE.address] - 400, ONE)  # all but some 250 bytes of its share
    await rooms.leave("r")  # the room is left behind
    with pytest.raises(Refused) as refused:
        await ledger.claim("r", "ann", claim.token, None, party=ONE)  # taking its seat back: not dropping the room for it
    assert refused.value.code == "store_full" and "r" in ledger.rooms
    with pytest.raises(Refused):
        await ledger.watch("r", "wat", 8, ONE)
    rooms.check_charges()


async def test_behind_a_proxy_each_connection_is_a_party_of_its_own_in_the_memory_store(in_process_relay):
    """With --max-per-address 0 every connection comes from the proxy's address: each is charged on its own, so
    one that has used its share does not hold back the next."""
    running = await in_process_relay(max_store_bytes=16 * SHARE, max_per_address=0)
    hog, honest = await seated(running.url, "hog", "mallory"), await seated(running.url, "game", "ann")
    pad = {"pad": "x" * 6_000}
    await hog.post_with_id(pad, "a")
    await hog.send({"type": "post", "body": pad, "id": "b"})
    assert "your address's rooms is full" in (await hog.expect_error("store_full"))["message"]
    assert await honest.post_with_id(pad, "a") == 2


async def test_a_post_past_its_partys_share_costs_the_relay_its_partys_rooms_not_every_room(in_process_relay,
                                                                                          monkeypatch):
    """The attacker, at its share, keeps posting through the real wire: each refused post looks only at the rooms
    holding its party's posts, not at every room of the relay. (It looked at every room: with 10,000 rooms a
    refused post took 12 ms of the relay's one thread, and a party's 64 connections may each have 100 refused in
    10 s before they are closed: over a minute of the relay's time, every room waiting.)"""
    running = await in_process_relay(max_store_bytes=16 * SHARE)
    others = await Poster(running.relay.ledger).seat(*(f"room{n}" for n in range(80)))  # other parties' games
    for n, room in enumerate(others.seats):
        await others.post(room, 10, Party(f"203.0.113.{n % 10}"))
    hog = await seated(running.url, "hog", "mallory", source=ELSEWHERE)
    assert await hog.post_with_id({"pad": "x" * 7_500}, "a") == 2
    looked = rooms_looked_at(monkeypatch)
    for n in range(5):
        await hog.send({"type": "post", "body": {"pad": "x" * 2_000}, "id": f"b{n}"})
        await hog.expect_error("store_full")
    assert looked() <= 5

# -- one address, many connections ------------------------------------------------------------------------------



def test_an_address_is_an_ipv4_address_or_an_ipv6_64():
    assert budgets.address_of(("203.0.113.7", 50000)) == "203.0.113.7"
    assert budgets.address_of(("::ffff:203.0.113.7", 50000, 0, 0)) == "203.0.113.7"
    assert budgets.address_of(("2001:db8:1:2:aaaa::1", 50000, 0, 0)) == "2001:db8:1:2::/64"
    assert budgets.address_of(("2001:db8:1:2:bbbb::9", 1, 0, 0)) == "2001:db8:1:2::/64"  # the same subscriber
    assert budgets.address_of(("fe80::1%eth0", 1, 0, 2)) == "fe80::/64"
    assert budgets.address_of(None) is None  # gone before its address was read: counted on its own
    assert budgets.address_of("/run/relay.sock") is None


def test_the_64s_of_one_48_share_its_budgets_and_an_ipv4_address_has_no_48():
    """A /64 is one subscriber's; a /48 is one site's, or one party's (tunnel brokers give them away): its
    65,536 /64s share the /48's budgets as well, so that a party cannot multiply its budgets without limit."""
    one, two = (budgets.address_of((f"2001:db8:1:{n:x}::1", 1, 0, 0)) for n in (2, 0xffff))
    assert (one, two) == ("2001:db8:1:2::/64", "2001:db8:1:ffff::/64")
    assert budgets.block_of(one) == budgets.block_of(two) == "2001:db8:1::/48"
    assert budgets.block_of("2001:db8:2:2::/64") == "2001:db8:2::/48"  # another site
    assert budgets.block_of("203.0.113.7") is None
    assert budgets.block_of(budgets.address_of(("::ffff:203.0.113.7", 1, 0, 0))) is None  # an IPv4 address
    assert budgets.block_of("connection 7") is None  # counted on its own


class Peer:
    """Just what the relay's process_request and handler read of a connection: its peer address, and respond."""

    def __init__(self, ip: str) -> None:
        self.remote_address = (ip, 1, 0, 0)

    def respond(self, status, text: str) -> tuple[int, str]:
        return status, text


def test_a_party_with_a_whole_48_gets_a_48s_budgets_not_one_per_64():
    """Every /64 of a /48 is an address of its own (64 connections each), but together they hold at most
    block_share times an address's connections, bytes a second and lobby pages; another /48 is not held back."""
    limits = Limits(max_per_address=2, block_share=3)
    relay = Relay(MemoryLedger(), limits)
    request = type("Request", (), {"path": "/", "headers": {"Upgrade": "websocket"}})()
    admitted, refusal = 0, None
    for n in range(100):
        peer = Peer(f"2001:db8:1:{n}::1")
        for _ in range(2):
            refusal = asyncio.run(relay.process_request(peer, request))
            if refusal is not None:
                break
            address = relay._address(peer, 0.0)
            relay._count(address, +1)
            admitted += 1
        if refusal is not None:
            break
    assert admitted == 6 and refusal == (429, "6 connections from your /48 already\n")
    assert asyncio.run(relay.process_request(Peer("2001:db8:2::1"), request)) is None  # another site
    block = relay.addresses["2001:db8:1::/48"]
    one = relay.addresses["2001:db8:1::/64"]
    assert one.block is block and block.connections == 6 and one.connections == 2
    assert block.bytes.share.rate == 3 * one.bytes.share.rate and block.pages.burst == 3 * one.pages.burst


def drain(share: budgets.FairShare, now: float = 0.0) -> list[budgets.Ticket]:
    """Every waiting frame, in the order ``share`` lets them go, the clock moved on to each one's turn."""
    order: list[budgets.Ticket] = []
    while share.waiting:
        granted, delay = share.grant(now)
        order += granted
        now += delay if share.waiting else 0
    return order


def test_a_small_frame_does_not_wait_behind_a_neighbours_big_ones():
    """Seven neighbours' frames of a whole burst wait for the budget; a small frame from another connection of the
    address goes after only its size times the eight flows waiting, long before any of theirs (in one queue it
    waited for all seven: 64 frames of 1 MiB at 2 MiB a second held an honest player's post for half a minute)."""
    share = budgets.FairShare(rate=1000.0, burst=10_000, now=0.0)
    hogs = [budgets.Flow() for _ in range(8)]
    assert share.ask(hogs[0], 10_000, 0.0) is None  # the whole burst, at once
    waiting = [share.ask(hog, 10_000, 0.0) for hog in hogs[1:]]
    honest = share.ask(budgets.Flow(), 50, 1.0)
    assert share.grant(1.0) == ([], pytest.approx(50 * 8 / 1000))
    assert share.grant(1.4) == ([honest], pytest.approx((10_000 - 1000 / 7 - 50) * 7 / 1000))
    assert drain(share, 1.4) == waiting


def test_each_waiting_flow_gets_an_equal_share_however_many_frames_it_sends():
    """A /64 with many connections waiting at its /48 (many frames of one flow) and a /64 with one: while both
    wait, each gets half the budget, in bytes, whatever the sizes of their frames."""
    share = budgets.FairShare(rate=1000.0, burst=1000, now=0.0)
    share.ask(budgets.Flow(), 1000, 0.0)  # the burst is spent: everything below waits
    many, one = budgets.Flow(), budgets.Flow()
    tickets = {id(share.ask(many, 100, 0.0)): "many" for _ in range(40)}
    tickets |= {id(share.ask(one, 400, 0.0)): "one" for _ in range(10)}
    order = [tickets[id(ticket)] for ticket in drain(share)]
    sent = {"many": 0, "one": 0}
    for who in order[:20]:  # while both still wait
        sent[who] += 100 if who == "many" else 400
    assert abs(sent["many"] - sent["one"]) <= 400
    assert order.count("many") == 40 and order.count("one") == 10  # and nothing is lost


def test_a_frame_larger_than_the_burst_costs_the_burst_and_a_closed_connections_frame_waits_no_more():
    share = budgets.FairShare(rate=1000.0, burst=1000, now=0.0)
    first = share.ask(budgets.Flow(), 5000, 0.0)
    assert first is None and share.tokens == 0  # a whole burst, not 5,000
    gone, kept = share.ask(budgets.Flow(), 10, 0.0), share.ask(budgets.Flow(), 20, 0.0)
    assert gone is not None and kept is not None
    share.withdraw(gone)
    assert drain(share) == [kept] and share.full(2.0)


def holding(address: budgets.Address, stalled: bool, size: int) -> budgets.Holding:
    return budgets.Holding(address, stalled, size, connection=None)  # type: ignore[arg-type]


def test_the_sweep_drops_a_neighbour_over_its_share_before_an_honest_resume_within_its_own():
    """Past its address's budget, the sweep drops the connections holding more than their share of it (the budget
    over the address's connections) first: a resume's catch-up pauses at half its share, so a neighbour holding
    pieces that never drain cannot get it dropped, even while it is stalled for a moment and the largest one stalled
    (the sweep once dropped stalled holdings first, largest first)."""
    limits = Limits(address_buffers=1000)
    address = budgets.Address.make("198.51.100.7", limits, 0.0)
    address.connections = 5
    pause = budgets.catch_up_pause(limits, address.connections)
    assert pause == 100  # half of 1000 / 5
    resume = holding(address, True, pause)
    neighbours = [holding(address, False, 250) for _ in range(4)]
    dropped = budgets.to_drop([resume, *neighbours], limits)
    assert dropped and resume not in dropped and sum(h.size for h in dropped) >= 100


def test_past_max_buffers_the_64s_of_one_48_give_up_together():
    """Many /64s of one /48, each within its own budget, are one party past max_buffers: the /48 holding the most
    gives up first, not another address's one larger holding."""
    limits = Limits(address_buffers=1000, max_buffers=1000)
    block = budgets.Address.make("2001:db8:1::/48", limits, 0.0, scale=4)
    sixty_fours = [budgets.Address.make(f"2001:db8:1:{n}::/64", limits, 0.0, block=block) for n in range(3)]
    other = budgets.Address.make("198.51.100.7", limits, 0.0)
    for address in [*sixty_fours, other]:
        address.connections = 1
    pieces = [holding(address, True, 200) for address in sixty_fours]
    larger = holding(other, True, 500)
    dropped = budgets.to_drop([*pieces, larger], limits)
    assert larger not in dropped and len(dropped) == 1


async def test_a_hostile_neighbour_cannot_hold_an_honest_players_frames_behind_its_own(in_process_relay,
                                                                                         eventually):
    """Through the real relay: a neighbour behind the honest player's own address keeps a frame waiting for the
    address's byte budget on each of its connections; the honest player's small post goes at once, ahead of all
    of them (in one queue in arrival order it waited for every one: 64 frames of 1 MiB at 2 MiB a second held it
    for half a minute)."""
    running = await in_process_relay(address_byte_rate=100_000, address_byte_burst=10_000)
    relay = running.relay
    honest = await seated(running.url, "game", "ann")
    hogs = [await seated(running.url, f"hog{k}", "mallory") for k in range(6)]  # the same address: 127.0.0.1
    for hog in hogs:
        await hog.send_post({"pad": "x" * 10_000})  # the first spends the burst; each other waits 0.1 s more
    await eventually(lambda: sum(c.waiting > 0 for c in relay.clients) == 5, "five hogs' frames waiting")
    assert (await honest.post({"move": 1}))["seat"] == 0
    assert sum(c.waiting > 0 for c in relay.clients) >= 3  # the neighbour's frames still wait: the move went first
    await honest.close()


async def test_one_address_holds_at_most_max_per_address_connections_and_others_still_connect(in_process_relay):
    running = await in_process_relay(max_per_address=2)
    first = await seated(running.url, "r", "ann", source=ELSEWHERE)
    handler = running.handler_tasks()
    await seated(running.url, "r", "bob", source=ELSEWHERE)
    with pytest.raises(InvalidStatus) as refused:
        await unseated(running.url, "third", source=ELSEWHERE)
    assert refused.value.response.status_code == 429
    assert b"2 connections from your address" in refused.value.response.body
    honest = await seated(running.url, "s", "cyd")  # another address is not held back
    await first.close()
    await running.settled(handler)
    await seated(running.url, "s", "dee", source=ELSEWHERE)  # one left: one may come
    await honest.close()


async def test_many_connections_of_one_address_are_paced_by_one_byte_budget(in_process_relay, monkeypatch):
    """Each connection stays within its own budget, but together they pass their address's: their frames wait (for
    their fair turns), and none is refused, the neighbour's post among them (a refused post leaves a gap in a
    seat's counters)."""
    waits: list[bool] = []
    ask = budgets.FairShare.ask

    def recorded(self, flow, size, now):
        ticket = ask(self, flow, size, now)
        waits.append(ticket is not None)
        return ticket

    monkeypatch.setattr(budgets.FairShare, "ask", recorded)
    running = await in_process_relay(address_byte_rate=1_000_000, address_byte_burst=100_000)
    honest = await seated(running.url, "game", "ann")
    hogs = [await seated(running.url, f"hog{k}", "mallory", source=ELSEWHERE) for k in range(4)]
    neighbour = await seated(running.url, "next-door", "bob", source=ELSEWHERE)
    started = time.monotonic()
    for hog in hogs:
        for n in range(2):
            await hog.send_post({"n": n, "pad": "x" * 40_000})
    assert (await neighbour.post({"pad": "z" * 40_000}))["seat"] == 0  # waited its turn, and landed
    for hog in hogs:  # every post lands, none refused
        await hog.until(lambda e: e["kind"] == "post" and e["body"]["n"] == 1)
    assert time.monotonic() - started >= (9 * 40_000 - 100_000) / 1_000_000  # no faster than the address's budget
    assert sum(waits) >= 2  # frames did wait for it
    assert (await honest.post({"pad": "y" * 40_000}))["seat"] == 0  # another address
    await honest.close()


async def test_frames_waiting_for_their_address_budget_count_as_memory_held(in_process_relay, eventually):
    """A frame that waits holds its bytes in the relay: the sweep counts it, so one address cannot park megabytes
    in waiting handlers."""
    running = await in_process_relay(address_byte_rate=1000, address_byte_burst=10_000, address_buffers=1 << 20)
    relay = running.relay
    first, *hogs = [await seated(running.url, f"hog{k}", "mallory", source=ELSEWHERE) for k in range(3)]
    assert (await first.post({"pad": "x" * 900_000}))["seat"] == 0  # a whole burst: the budget is empty now
    await hogs[0].send_post({"pad": "x" * 900_000})
    await eventually(lambda: sum(c.waiting > 0 for c in relay.clients) == 1, "the post received, waiting")
    await hogs[1].send_post({"pad": "x" * 900_000})  # after the first is in: never two on their way in together
    # (no wait for two waiting: the sweep may drop one as soon as the second is in, before a poll could see both)
    dropped = await asyncio.wait([asyncio.create_task(hog.expect_closed()) for hog in hogs],
                                 return_when=asyncio.FIRST_COMPLETED)
    assert all(task.exception() is None for task in dropped[0])
    for task in dropped[1]:
        task.cancel()


async def test_an_address_budget_outlives_its_connections_until_it_has_refilled(in_process_relay, clock,
                                                                                  eventually):
    """Closing every connection and coming back finds the budget as it was left; once it has refilled, with no
    connection left, the address is forgotten (the relay's table of addresses stays as small as its traffic)."""
    running = await in_process_relay(address_byte_rate=1000, address_byte_burst=100_000)
    relay = running.relay
    hog = await seated(running.url, "hog", "mallory", source=ELSEWHERE)
    handler = running.handler_tasks()
    await hog.post({"pad": "x" * 50_000})
    await hog.close()
    await running.settled(handler)
    assert relay.addresses[ELSEWHERE].connections == 0 and relay.addresses[ELSEWHERE].bytes.share.tokens < 50_000
    back = await seated(running.url, "hog", "mallory", token=hog.token, source=ELSEWHERE)
    assert relay.addresses[ELSEWHERE].bytes.share.tokens < 50_000  # not refilled by coming back
    handler = running.handler_tasks()
    await back.close()
    await running.settled(handler)
    clock.advance(100)  # refilled
    await eventually(lambda: ELSEWHERE not in relay.addresses, "the address forgotten")


async def test_lobby_pages_are_budgeted_per_address(in_process_relay, clock):
    """A lobby page costs the store a query: forty connections of one address asking at their frame rate took an
    honest room's p99 to 190 ms. One address gets address_list_burst pages at once, then address_list_rate a
    second over all its connections, while another address is served."""
    running = await in_process_relay(address_list_rate=2, address_list_burst=5)
    listers = [await unseated(running.url, f"lister{k}", source=ELSEWHERE) for k in range(3)]
    answers = [(await listers[n % 3].list_rooms())["type"] for n in range(6)]
    assert answers == ["rooms"] * 5 + ["error"]
    refused = await listers[0].list_rooms()
    assert refused["code"] == "rate_limited" and "lobby pages a second from your address" in refused["message"]
    assert (await (await unseated(running.url, "browser")).list_rooms())["type"] == "rooms"
    clock.advance(1)  # two more pages
    assert [(await listers[2].list_rooms())["type"] for _ in range(3)] == ["rooms", "rooms", "error"]


async def test_watchers_count_against_the_rooms_limit_and_their_addresss_budget(in_process_relay, clock):
    """A room takes ``room_watchers`` watchers at once (the next gets room_full, and one leaving makes room); one
    address gets ``address_watch_burst`` watcher joins at once, then ``address_watch_rate`` a second: each arrival
    and departure appends an event every player reads, so a stranger cannot flood a room's ledger with them."""
    running = await in_process_relay(room_watchers=2, address_watch_rate=1, address_watch_burst=4)
    ann = await seated(running.url, "watched", "ann")
    watchers = [await unseated(running.url, f"w{k}", source=ELSEWHERE) for k in range(4)]
    assert [(await w.try_watch("watched", w.label))["type"] for w in watchers[:2]] == ["welcome", "welcome"]
    full = await watchers[2].try_watch("watched", "w2")
    assert full["code"] == "room_full" and "already has 2 watchers" in full["message"]
    await watchers[0].close()
    await ann.until(lambda e: e["kind"] == "watch" and e["body"] == {"watching": 1})
    assert (await watchers[3].try_watch("watched", "w3"))["watching"] == 2
    late = await unseated(running.url, "late", source=ELSEWHERE)
    refused = await late.try_watch("watched", "late")  # the fifth join from that address: over its burst
    assert refused["code"] == "rate_limited" and "watcher joins a second from your address" in refused["message"]
    clock.advance(1)
    assert (await late.try_watch("watched", "late"))["code"] == "room_full"  # a join again, and the room's limit


async def test_the_write_buffers_of_one_address_share_one_budget(in_process_relay):
    """Two stalled readers of one address pass their address's budget (3 MiB) together while each is below its
    own limit (2 MiB): one of them is dropped, while a stalled reader of another address, holding as much, is not.
    (Without the address's budget, all three go together, at 2 MiB each.)"""
    running = await in_process_relay(max_buffer=2 << 20, address_buffers=3 << 20, sweep=0.01, rate=1e6,
                                     burst=1_000_000, byte_rate=1e12, byte_burst=1 << 40, address_byte_rate=1e12,
                                     address_byte_burst=1 << 40)
    readers = []
    for name, source in (("ann", None), ("mal", ELSEWHERE), ("lory", ELSEWHERE), ("bob", None)):
        readers.append(await unseated(running.url, name, source=source))
        await readers[-1].join("slow", name, seats=4)
    poster, *stalled, honest = readers
    for reader in stalled + [honest]:
        reader.ws.transport.pause_reading()
    await poster.until(lambda e: e["kind"] == "join" and e["seat"] == 3)
    try:
        event, _ = await post_noise_until_a_leave(poster, seed=7)
        holder = running.relay.channels["slow"].seat_holder(3)
        assert holder is not None and not holder.connection.transport.is_closing()
        queued_to_honest = holder.connection.transport.get_write_buffer_size()
    finally:
        for reader in stalled + [honest]:
            reader.ws.transport.abort()
    assert event["seat"] in (1, 2)  # one of the address's two
    assert 1 << 20 < queued_to_honest < 2 << 20  # as much as each of them had, and below its own limit


async def test_a_dropped_room_is_freed_at_once_not_at_some_later_garbage_collection(in_process_relay):
    """A room's channel, its follower and the follower's callback must not form a cycle around the room: the
    slow-readers abuse left 37 MiB of dropped rooms' frames to the cyclic collector, and the RSS up with them."""
    running = await in_process_relay()
    ann = await seated(running.url, "gone", "ann")
    await ann.post({"pad": "x" * 1000})
    room = weakref.ref(running.relay.ledger.rooms["gone"])
    handler = running.handler_tasks()
    gc.disable()
    try:
        await ann.close()
        await running.settled(handler)
        running.relay.ledger.drop("gone")
        assert room() is None
    finally:
        gc.enable()


async def test_rooms_expire_only_after_everyone_left_for_retention(in_process_relay, clock):
    running = await in_process_relay(retention=0.05)
    relay, ledger = running.relay, running.relay.ledger
    a = await seated(running.url, "kept", "ann")
    a_task = running.handler_tasks()
    b = await seated(running.url, "kept", "bob")
    await b.close()
    await a.until(lambda e: e["kind"] == "leave")

    clock.advance(3600)  # one seat connected: never expired
    await ledger.expire()
    assert "kept" in ledger.rooms
    await a.send_post({"still": "here"})
    event = await a.next_event()
    assert event["seq"] == 4

    await a.close()
    await running.settled(a_task)
    assert "kept" not in relay.channels
    await ledger.expire()  # empty, but not for long enough yet
    assert "kept" in ledger.rooms
    clock.advance(0.06)
    await ledger.expire()
    assert "kept" not in ledger.rooms

    late = await unseated(running.url, "ann")
    refused = await late.try_join("kept", "ann", token=a.token, after=0)
    assert (refused["type"], refused["code"]) == ("error", "bad_token")
    fresh = await seated(running.url, "kept", "cat")
    assert (fresh.seat, fresh.head) == (0, 1)  # a new ledger from seq 1


# -- 8. resume while the old connection is open -----------------------------------------------


async def test_resume_closes_the_old_connection_with_4000(in_process_relay):
    running = await in_process_relay()
    a = await seated(running.url, "twice", "ann")
    a_task = running.handler_tasks()
    b = await seated(running.url, "twice", "bob")
    await a.until_seq(2)

    a2 = await seated(running.url, "twice", "ann", token=a.token, after=2)
    assert a2.seat == 0
    assert await a.expect_closed() == SEAT_TAKEN_OVER
    await a2.until_seq(4)
    assert kinds(a2.events) == [("leave", 0), ("join", 0)]
    await b.until_seq(4)
    assert kinds(b.events) == [("join", 0), ("join", 1), ("leave", 0), ("join", 0)]

    # The old connection's end adds no second leave.
    await running.settled(a_task)
    await a2.send_post({"after": "resume"})
    event = await b.next_event()
    assert (event["seq"], event["seat"], event["kind"]) == (5, 0, "post")
    room = running.relay.ledger.rooms["twice"]
    assert kinds([json.loads(f) for f in room.frames]) == [("join", 0), ("join", 1), ("leave", 0), ("join", 0),
                                                         ("post", 0)]


# -- 9. several nodes on one Redis ----------------------------------------------------------------


def unique(prefix: str) -> str:
    return f"{prefix}-{random.randrange(1 << 40):x}"


def redis_client(url: str):
    import redis

    return redis.Redis.from_url(url, decode_responses=True)


async def test_join_on_one_node_and_resume_on_another(spawn, shared_redis):
    a_node, b_node = (spawn("--store", shared_redis.url) for _ in range(2))
    room = unique("two-nodes")
    a = await seated(a_node.url, room, "ann")
    b = await seated(b_node.url, room, "bob")
    await a.until_seq(2)
    await a.send_post({"from": "a"})
    await b.send_post({"from": "b"})
    await a.until_seq(4)
    await b.until_seq(4)
    assert a.raw == b.raw  # one order across the nodes

    again = await seated(b_node.url, room, "ann", token=a.token, after=2)
    assert (again.seat, again.token) == (0, a.token)
    assert await a.expect_closed() == SEAT_TAKEN_OVER  # node A closed it on seeing the newer join
    await again.until_seq(6)
    assert again.raw[:2] == a.raw[2:4] and kinds(again.events[2:]) == [("leave", 0), ("join", 0)]
    await b.until_seq(6)
    await again.send_post({"after": "resume"})
    event = await b.next_event()
    assert (event["seq"], event["seat"], event["body"]) == (7, 0, {"after": "resume"})


async def test_a_dead_nodes_seats_get_their_leave_from_another_node(spawn, shared_redis):
    doomed = spawn("--store", shared_redis.url, "--lease", "1")
    survivor = spawn("--store", shared_redis.url, "--lease", "1")
    room = unique("lease")
    a = await seated(doomed.url, room, "ann")
    b = await seated(survivor.url, room, "bob")
    doomed.kill()
    leave = await b.until(lambda e: e["kind"] == "leave")  # within a lease and a bit
    assert (leave["seq"], leave["seat"], leave["name"]) == (3, 0, "ann")
    await survivor.log_line("released the seats of dead node", f"room={room}")
    back = await seated(survivor.url, room, "ann", token=a.token, after=3)
    assert back.seat == 0
    await back.until_seq(4)
    assert kinds(back.events) == [("join", 0)]  # no second leave: the seat was free already


async def test_redis_keeps_a_room_for_its_retention_after_the_last_leave(spawn, shared_redis):
    node = spawn("--store", shared_redis.url, "--retention", "60")
    room = unique("kept")
    db = redis_client(shared_redis.url)
    keys = [f"discard:{{{room}}}:seats", f"discard:{{{room}}}:log"]
    a = await seated(node.url, room, "ann")
    assert [db.pttl(k) for k in keys] == [-1, -1]  # held: no expiry
    await a.close()
    await node.log_line("leave", f"room={room}")
    assert all(0 < db.pttl(k) <= 60_000 for k in keys)
    back = await seated(node.url, room, "ann", token=a.token)
    await back.until_seq(3)
    assert [db.pttl(k) for k in keys] == [-1, -1]  # taken again: kept again


async def http_get(host: str, port: int, path: str, tls: ssl.SSLContext | None = None) -> tuple[int, str]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=tls), WAIT)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        response = (await asyncio.wait_for(reader.read(), WAIT)).decode()
    finally:
        writer.close()
    return int(response.split()[1]), response.split("\r\n\r\n", 1)[1]


async def test_healthz_is_503_with_the_reason_while_redis_is_down(spawn, redis_server):
    node = spawn("--store", redis_server.url)
    assert await http_get(node.host, node.port, "/healthz") == (200, "OK\n")
    redis_server.stop()
    status, body = await http_get(node.host, node.port, "/healthz")
    assert status == 503 and body.startswith(f"unhealthy: redis at {redis_server.url}: "), body
    redis_server.start()
    assert await http_get(node.host, node.port, "/healthz") == (200, "OK\n")


def test_unreachable_redis_at_start_is_one_line_and_exit_2():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"redis://127.0.0.1:{closed.getsockname()[1]}/0"
        result = run_cli("--store", url)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"discard-relay: cannot use store {url}: cannot reach {url}")
    assert len(result.stderr.splitlines()) == 1, result.stderr


async def test_redis_restarted_mid_room_loses_nothing(spawn, redis_server):
    node = spawn("--store", redis_server.url)
    room = unique("restart")
    a = await seated(node.url, room, "ann")
    b = await seated(node.url, room, "bob")
    for i in range(20):
        await (a, b)[i % 2].send_post({"i": i})
    await a.until_seq(22)
    redis_server.stop()  # SIGTERM: Redis writes its append-only file out
    await a.send_post({"while": "down"})
    await a.expect_error("unavailable")  # refused, so nothing was appended for it
    assert await a.expect_closed() == 1013  # try again later
    redis_server.start()
    a2 = await seated(node.url, room, "ann", token=a.token, after=0)
    await a2.until(lambda e: e["kind"] == "join" and e["seq"] > 22)
    assert a2.raw[:22] == a.raw[:22]
    check_order(a2.events)
    assert kinds(a2.events[22:]) == [("leave", 0), ("join", 0)]
    await a2.send_post({"after": "restart"})
    await b.until_seq(25)  # b's connection, on the same node, was followed on across the restart
    assert b.raw == a2.raw + [b.raw[-1]] and b.events[-1]["body"] == {"after": "restart"}


async def test_a_claim_whose_reply_was_lost_lets_its_seat_go_and_its_join_id_takes_it_back(shared_redis):
    """One Redis: a new seat's claim runs, and its reply is lost with the connection: refused as unavailable (the node
    cannot know it ran). The node lets the seat it took go once Redis answers (a ``leave``), so a client that gives up
    leaves no seat held by nobody and the room expires; one that sends its join again under its id (1.4) gets that
    seat back, and the two-seat room takes nobody else."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from relay.ledger import Unavailable, join_token
    from relay.redis_ledger import RedisLedger, keys

    ledger, room, secret = RedisLedger(shared_redis.url), unique("orphan"), "j" * 22
    await ledger.open()
    claim = ledger._claim
    try:
        ann = await ledger.claim(room, "ann", None, 2)

        async def reply_lost(room_keys: list[str], args: list[str | int]) -> Any:
            await claim(room_keys, args)
            raise RedisConnectionError("the connection broke before the reply")

        ledger._claim = reply_lost  # type: ignore[method-assign]
        with pytest.raises(Unavailable):
            await ledger.claim(room, "bob", None, None, join_id=secret)
        ledger._claim = claim  # type: ignore[method-assign]
        await asyncio.gather(*ledger._background)  # the node's undo of the unanswered claim
        assert [(e.seat, e.kind) for e in await ledger.read(room, 0)] == [(0, "join"), (1, "join"), (1, "leave")]
        await ledger.release(room, ann.seat, ann.epoch)  # the last seat held let go: the room expires
        assert await ledger.client.pttl(keys(room)[0]) > 0
        bob = await ledger.claim(room, "bob", None, None, join_id=secret)
        assert (bob.seat, bob.token, bob.epoch) == (1, join_token(room, secret), 2)
        with pytest.raises(Refused, match="already has 2 players"):
            await ledger.claim(room, "cy", None, None, join_id="k" * 22)
    finally:
        await ledger.close()


# -- 10. TLS ------------------------------------------------------------------------------------


async def test_tls_serves_wss_and_healthz_to_clients_that_trust_its_certificate(spawn, tls_files):
    cert, key = tls_files
    node = spawn("--tls-cert", cert, "--tls-key", key)
    assert node.url.startswith("wss://127.0.0.1:")
    trusting = ssl.create_default_context(cafile=str(cert))
    assert await http_get(node.host, node.port, "/healthz", trusting) == (200, "OK\n")
    ann = await Client.open(node.url, "ann", timeout=WAIT, tls=trusting)
    await ann.join("tls", "ann")  # a welcome
    await ann.close()
    with pytest.raises(ssl.SSLCertVerificationError):  # the system's trust store alone refuses it
        await unseated(node.url, "untrusting")


@pytest.mark.parametrize("hard, warned", [(100_000, False), (1024, True)], ids=["raised", "cannot-raise"])
def test_the_open_file_limit_is_raised_toward_max_connections_or_named(monkeypatch, caplog, hard, warned):
    import resource

    from relay.cli import open_file_limit

    limits = {"soft": 256}
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limits["soft"], hard))

    def setrlimit(which, pair):
        if pair[0] > hard:
            raise ValueError("not allowed")
        limits["soft"] = pair[0]

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    with caplog.at_level(logging.WARNING, logger="discard.relay"):
        open_file_limit(5000)
    assert limits["soft"] == (5064 if not warned else 1024)
    lines = [r.getMessage() for r in caplog.records]
    assert (lines == []) if not warned else (len(lines) == 1 and "below --max-connections 5000" in lines[0])


# -- one client never disturbs the others (issue 22) --------------------------------------------------------


async def raw_websocket(url: str, source: str | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket opened by hand (from ``source``), so that the client can send frames and never read what comes
    back."""
    host, port = url.removeprefix("ws://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), local_addr=(source, 0) if source else None)
    key = base64.b64encode(bytes(16)).decode()
    writer.write(f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
    return reader, writer


def masked(opcode: int, payload: bytes) -> bytes:
    assert len(payload) < 126
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + bytes(4) + payload  # a zero mask


def text_header(size: int) -> bytes:
    """The start of a masked text frame of ``size`` bytes (a zero mask): its payload is to follow."""
    return bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big") + bytes(4)


async def test_a_flood_beyond_the_read_budget_is_dropped_and_the_honest_room_goes_on(in_process_relay, caplog):
    running = await in_process_relay(read_rate=50, read_burst=100)
    a, b = await seated(running.url, "honest", "ann"), await seated(running.url, "honest", "bob")
    _, writer = await raw_websocket(running.url)
    with caplog.at_level(logging.INFO, logger="discard.relay"):
        writer.write((masked(0x9, b"p" * 125) + masked(0x1, b"[]")) * 2000)  # pings and junk, never read
        with pytest.raises((ConnectionError, OSError)):
            for _ in range(1000):  # until the relay aborts it
                await writer.drain()
                writer.write(masked(0x9, b"p") * 100)
                await asyncio.sleep(0.01)
    await a.send_post({"still": "here"})
    message = await b.until(lambda e: e["kind"] == "post")
    assert message["body"] == {"still": "here"}
    lines = [r.getMessage() for r in caplog.records]
    assert any("beyond its budget at once" in line for line in lines)
    assert sum("refused frame" in line for line in lines) <= 5  # sampled: one client cannot fill a disk
    writer.close()
    await a.close()
    await b.close()


def frames_parsed(monkeypatch) -> list[int]:
    """Record what the relay's connections hand websockets to parse: the size of each piece of a read."""
    fed: list[int] = []
    parse = Connection.data_received

    def counting(self: Connection, data: bytes) -> None:
        fed.append(len(data))
        parse(self, data)

    monkeypatch.setattr(Connection, "data_received", counting)
    return fed


async def until_dropped(reader: asyncio.StreamReader) -> None:
    """Read what the relay sends until it ends the connection (closed or reset)."""
    with contextlib.suppress(ConnectionError):
        async with asyncio.timeout(WAIT):
            while await reader.read(1 << 16):
                pass


async def test_a_read_full_of_tiny_frames_is_dropped_one_slice_past_the_budget(in_process_relay, monkeypatch):
    """A socket read can hold tens of thousands of 8-byte frames, which would stall every room of the node while
    websockets parses them: the relay parses a read a slice at a time and drops the sender one slice past its
    budget, without parsing the rest."""
    fed = frames_parsed(monkeypatch)
    running = await in_process_relay(read_rate=50, read_burst=100)
    reader, writer = await raw_websocket(running.url)
    handshake = len(fed)
    writer.write(masked(0x1, b"[]") * 20_000)  # 160 KB of junk frames, in as few reads as the kernel makes
    await until_dropped(reader)
    writer.close()
    assert sum(fed[handshake:]) <= budgets.READ_SLICE  # one slice, 1,024 frames, then the connection went


async def test_posts_beyond_the_byte_budget_are_refused_so_one_reader_cannot_fill_the_store(in_process_relay):
    """The frame rate alone lets one client that reads its echoes append 100 MiB a second (100 posts of 1 MiB):
    bytes of posts have a budget of their own, stated in the welcome, past which a post is rate_limited."""
    running = await in_process_relay(byte_rate=1000, byte_burst=10_000)
    poster = await seated(running.url, "bytes", "ann")
    assert poster.welcome is not None and (poster.welcome["byte_rate"], poster.welcome["byte_burst"]) == (1000, 10_000)
    for n in range(20):
        await poster.send_post({"n": n, "pad": "x" * 1000})
    await poster.expect_error("rate_limited")
    [room] = running.relay.ledger.rooms.values()
    posted = [frame for frame in room.frames if '"pad"' in frame]
    assert 9 <= len(posted) <= 11 and sum(map(len, posted)) < 10_000 + 3 * 1100  # the burst, and a second's refill
    await poster.close()


async def test_a_stranger_cannot_pad_its_frames_and_the_byte_budget_counts_bytes(in_process_relay):
    """Before a join a frame needs a few hundred bytes: a padded one (a valid list with 32 KiB beside it) is
    refused unparsed, the connection closed with 1009. And the budget counts UTF-8 bytes, not characters:
    4-byte characters cost four."""
    running = await in_process_relay(byte_rate=1000, byte_burst=40_000)
    stranger = await unseated(running.url, "stranger")
    await stranger.send({"type": "list", "pad": "x" * (32 << 10)})
    assert await stranger.expect_closed() == 1009
    assert stranger.ws.close_reason.endswith(f"exceeds limit of {budgets.UNJOINED_FRAME} bytes")
    poster = await seated(running.url, "utf8", "ann")
    post = json.dumps({"type": "post", "body": {"pad": "\U0001F0A1" * 5000}}, ensure_ascii=False)
    await poster.send_text(post)  # 5,000 characters, 20,000 bytes
    await poster.send_text(post)
    await poster.expect_error("rate_limited")  # 40,000 bytes and the join's are past the burst
    await stranger.close()
    await poster.close()


async def test_unfinished_frames_of_one_address_are_bounded_and_the_largest_holder_goes(in_process_relay,
                                                                                           eventually):
    """A seated connection may send the start of a frame of up to 4 x max_frame and keep it unfinished as long as
    it likes: sixty connections of one address held 240 MiB of the relay that way. One address's
    unfinished frames together may take address_buffers; past it, the connection whose frame has not grown for
    the longest is dropped at once (at network speed they cannot wait for the sweep, which is off here), so an
    honest post from the same address still lands, and another address's unfinished frame is not touched."""
    running = await in_process_relay(address_buffers=1 << 20, sweep=3600)
    relay = running.relay
    _, elsewhere = await hold_unfinished(running.url, "127.0.0.1", "other", 900 << 10)  # another address
    holder_reader, holder = await hold_unfinished(running.url, ELSEWHERE, "hold", 900 << 10)
    await eventually(lambda: relay.addresses[ELSEWHERE].unfinished >= 900 << 10, "the holder's bytes received")
    assert relay.strangers.unfinished == 0  # seated: not among the strangers' bytes
    neighbour = await seated(running.url, "game", "ann", source=ELSEWHERE)
    assert (await neighbour.post({"pad": "y" * 600_000}))["seat"] == 0  # passing 1 MiB on the way in
    await until_dropped(holder_reader)
    assert relay.addresses[ELSEWHERE].unfinished == 0
    assert relay.addresses["127.0.0.1"].unfinished >= 900 << 10 and not elsewhere.is_closing()
    elsewhere.close()
    await neighbour.close()
    await eventually(lambda: all(a.unfinished == 0 for a in relay.addresses.values()), "the tallies back to 0")


async def test_a_post_larger_than_each_held_piece_still_lands(in_process_relay, eventually):
    """The attacker splits what it holds into pieces smaller than an honest post from its address: the pieces,
    which stopped growing, go first, not the post on its way in."""
    running = await in_process_relay(address_buffers=1 << 20, sweep=3600)
    pieces = [await hold_unfinished(running.url, ELSEWHERE, f"piece{k}", 300 << 10) for k in range(3)]
    await eventually(lambda: running.relay.addresses[ELSEWHERE].unfinished >= 900 << 10, "900 KiB received")
    neighbour = await seated(running.url, "game", "ann", source=ELSEWHERE)
    assert (await neighbour.post({"pad": "y" * 700_000}))["seat"] == 0  # 1.6 MB on the way in: two pieces go
    await until_dropped(pieces[0][0])
    await until_dropped(pieces[1][0])
    for _, writer in pieces:
        writer.close()
    await neighbour.close()


async def test_empty_fragments_count_too(in_process_relay):
    """A message of empty fragments holds no payload, but websockets keeps a frame object for each: they count
    for FRAGMENT_COST bytes each."""
    running = await in_process_relay(address_buffers=256 << 10, sweep=3600, read_rate=1e6, read_burst=1_000_000)
    reader, writer = await raw_websocket(running.url, source=ELSEWHERE)
    writer.write(masked(0x1, json.dumps({"type": "join", "room": "frag", "name": "mal"}).encode()))
    await reader.readuntil(b'"welcome"')
    writer.write(bytes([0x01, 0x80]) + bytes(4) + (bytes([0x00, 0x80]) + bytes(4)) * 1100)  # text, then 1,100 more
    await until_dropped(reader)
    writer.close()
    assert running.relay.addresses[ELSEWHERE].unfinished == 0


async def test_an_unfinished_fragmented_message_counts_as_unfinished(in_process_relay):
    """The fragments of a message are whole frames, handed on as they come: held without their last one, they
    cost as much as an unfinished frame, and count the same."""
    running = await in_process_relay(address_buffers=1 << 20, sweep=3600)
    reader, writer = await raw_websocket(running.url, source=ELSEWHERE)
    writer.write(masked(0x1, json.dumps({"type": "join", "room": "frag", "name": "mal"}).encode()))
    await reader.readuntil(b'"welcome"')
    piece = b"x" * (600 << 10)
    header = (len(piece)).to_bytes(8, "big")
    writer.write(bytes([0x01, 0x80 | 127]) + header + bytes(4) + piece)  # text, not final
    writer.write(bytes([0x00, 0x80 | 127]) + header + bytes(4) + piece)  # a continuation, not final either
    await until_dropped(reader)
    writer.close()
    assert running.relay.addresses[ELSEWHERE].unfinished == 0


async def test_frames_sent_with_the_handshake_are_within_the_same_budget(in_process_relay, monkeypatch):
    """A stranger may write its upgrade request and a flood of frames in one go: they are parsed a slice at a time
    and the connection dropped a slice past its budget, as they would be after the handshake."""
    fed = frames_parsed(monkeypatch)
    running = await in_process_relay()
    host, port = running.url.removeprefix("ws://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    request = (f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {base64.b64encode(bytes(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    writer.write(request.encode() + masked(0x1, b"[]") * 40_000)
    await until_dropped(reader)
    writer.close()
    assert sum(fed) <= len(request) + 3 * budgets.UNJOINED_SLICE


async def hold_unfinished(url: str, source: str, room: str, size: int) -> tuple[asyncio.StreamReader,
                                                                                asyncio.StreamWriter]:
    """A seated raw connection from ``source`` that has sent ``size`` bytes of a 4 MiB frame, and no more."""
    reader, writer = await raw_websocket(url, source=source)
    writer.write(masked(0x1, json.dumps({"type": "join", "room": room, "name": "mal"}).encode()))
    await reader.readuntil(b'"welcome"')
    writer.write(text_header(4 << 20) + b"x" * size)
    return reader, writer


async def test_the_sweep_counts_unfinished_frames_among_all_the_memory_connections_hold(in_process_relay, eventually):
    """Many addresses, each within its own budget, holding unfinished frames together past max_buffers: the sweep
    drops the largest, as it does with write buffers."""
    running = await in_process_relay(max_buffers=1 << 20)
    relay = running.relay
    holders = [await hold_unfinished(running.url, f"127.0.0.{2 + k}", f"hold{k}", size << 10)
               for k, size in enumerate((100, 200, 900))]  # past 1 MiB only once the last is the largest
    await until_dropped(holders[2][0])
    assert not holders[0][1].is_closing() and not holders[1][1].is_closing()
    assert sum(a.unfinished for a in relay.addresses.values()) <= 1 << 20
    for _, writer in holders:
        writer.close()


async def test_past_max_buffers_the_address_holding_the_most_gives_up_first(in_process_relay, eventually):
    """Many small holdings of one party must not make another's one larger holding the first to go: past
    max_buffers the sweep drops from the address that holds the most."""
    running = await in_process_relay(max_buffers=1200 << 10)
    other = await hold_unfinished(running.url, "127.0.0.3", "other", 500 << 10)
    await eventually(lambda: running.relay.addresses["127.0.0.3"].unfinished >= 500 << 10, "500 KiB received")
    pieces = [await hold_unfinished(running.url, ELSEWHERE, f"piece{k}", 300 << 10) for k in range(3)]
    dropped = await asyncio.wait([asyncio.create_task(until_dropped(reader)) for reader, _ in pieces],
                                 return_when=asyncio.FIRST_COMPLETED)
    assert all(task.exception() is None for task in dropped[0])  # dropped, not timed out
    assert running.relay.addresses["127.0.0.3"].unfinished >= 500 << 10  # still held: not dropped
    for _, writer in [other, *pieces]:
        writer.close()
    for task in dropped[1]:
        task.cancel()


async def test_a_stranger_flooding_before_its_join_is_dropped_within_a_few_hundred_bytes(in_process_relay, monkeypatch):
    """Before its join is answered a connection needs a frame or two: one that sends a thousand at once is dropped
    after two small slices, so reconnecting to flood costs the relay little more than the handshake."""
    fed = frames_parsed(monkeypatch)
    running = await in_process_relay()
    reader, writer = await raw_websocket(running.url)
    handshake = len(fed)
    writer.write(masked(0x1, b"[]") * 1000)
    await until_dropped(reader)
    writer.close()
    assert sum(fed[handshake:]) <= 2 * budgets.UNJOINED_SLICE


async def read_close_code(reader: asyncio.StreamReader) -> int:
    """Read the relay's frames up to its close frame; its close code."""
    while True:
        head = await reader.readexactly(2)
        size = head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(await reader.readexactly(2), "big")
        elif size == 127:
            size = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(size)
        if head[0] & 0x0F == 0x8:
            return int.from_bytes(payload[:2], "big")


async def test_a_strangers_big_frame_is_refused_from_its_header(in_process_relay, monkeypatch):
    """Before its join is answered a connection's message may have UNJOINED_FRAME bytes: websockets checks the
    length in the frame's header and closes with 1009 before reading the payload. The stranger sends the header
    of a frame of 4 MiB - 4 KiB (just under what a seated connection may send) and 100 bytes of it: the 1009
    comes all the same, so the relay never waited for the rest, and it parsed one slice of what came."""
    fed = frames_parsed(monkeypatch)
    running = await in_process_relay()
    a, b = await seated(running.url, "honest", "ann"), await seated(running.url, "honest", "bob")
    reader, writer = await raw_websocket(running.url, source=ELSEWHERE)
    handshake = len(fed)
    writer.write(text_header((4 << 20) - (4 << 10)) + b"x" * 100)
    async with asyncio.timeout(WAIT):
        assert await read_close_code(reader) == 1009
    await until_dropped(reader)  # and the relay ends the connection
    writer.close()
    assert sum(fed[handshake:]) <= budgets.UNJOINED_SLICE
    assert running.relay.strangers.unfinished == 0  # nothing of it kept
    await a.send_post({"still": "here"})
    assert (await b.until(lambda e: e["kind"] == "post"))["body"] == {"still": "here"}
    await a.close()
    await b.close()


async def test_once_seated_a_connection_may_send_frames_up_to_the_joined_limit(in_process_relay):
    """The join raises the limit to four times --max-frame from the next frame on: a post of 100 KiB (over the
    strangers' 16 KiB) right after the welcome lands, and one of 2 MiB is refused with too_large, the connection
    kept, as before. A connection whose join was refused keeps the strangers' limit."""
    running = await in_process_relay()
    a, b = await seated(running.url, "big", "ann"), await seated(running.url, "big", "bob")
    event = await a.post({"pad": "x" * (100 << 10)})
    assert (await b.until(lambda e: e["kind"] == "post")) == event
    await a.send_post({"pad": "x" * (2 << 20)})
    await a.expect_error("too_large")
    assert (await a.post({"small": True}))["body"] == {"small": True}
    refused = await unseated(running.url, "refused")
    await refused.send({"type": "join", "room": "no spaces", "name": "eve"})
    await refused.expect_error("bad_request")
    await refused.send({"type": "list", "pad": "x" * (20 << 10)})
    assert await refused.expect_closed() == 1009
    await a.close()
    await b.close()


async def test_what_all_strangers_are_receiving_is_bounded_and_the_stalest_goes(in_process_relay, eventually):
    """Strangers from many addresses, each within its own budgets, holding unfinished frames of up to 16 KiB:
    together they may hold unjoined_buffers; past it the one whose frame has not grown for the longest is
    dropped at once (the sweep is off here), and an honest join still gets its seat."""
    running = await in_process_relay(unjoined_buffers=40 << 10, sweep=3600)
    strangers = running.relay.strangers
    holders = []
    for k in range(3):
        reader, writer = await raw_websocket(running.url, source=f"127.0.0.{3 + k}")
        writer.write(text_header(16 << 10) + b"x" * (15 << 10))
        holders.append((reader, writer))
        if k < 2:  # the third passes 40 KiB
            await eventually(lambda: strangers.unfinished >= (k + 1) * (15 << 10), f"holder {k}'s bytes received")
    await until_dropped(holders[0][0])  # the first, which stopped growing first
    await eventually(lambda: strangers.unfinished >= 30 << 10, "the third holder's bytes received")
    assert strangers.unfinished <= 40 << 10 and len([c for c in strangers.receiving if c.unfinished]) == 2
    honest = await seated(running.url, "honest", "ann")
    assert (await honest.post({"pad": "y" * (20 << 10)}))["seat"] == 0
    for _, writer in holders:
        writer.close()
    await honest.close()
    await eventually(lambda: strangers.unfinished == 0 and not strangers.receiving, "the strangers' tally back to 0")


async def test_a_seated_client_may_send_a_games_burst_at_once(in_process_relay):
    """Once seated, the full burst applies: 300 posts sent at once are all read and delivered."""
    running = await in_process_relay()
    a, b = await seated(running.url, "burst", "ann"), await seated(running.url, "burst", "bob")
    for n in range(300):
        await a.send_post({"n": n})
    last = await b.until(lambda e: e["kind"] == "post" and e["body"] == {"n": 299})
    assert last["seat"] == a.seat and [e["body"]["n"] for e in b.events if e["kind"] == "post"] == list(range(300))
    await a.close()
    await b.close()


async def test_a_frame_too_large_is_not_read_on_once_the_connection_closes(in_process_relay, monkeypatch):
    """After refusing a frame over four times --max-frame (1009), the relay reads no more of it: a sender that
    goes on is held back by TCP until the close times out, instead of costing the relay a read of every byte."""
    fed = frames_parsed(monkeypatch)
    running = await in_process_relay(max_frame=1024, close_timeout=0.2)
    reader, writer = await raw_websocket(running.url)
    size = 64 << 20
    writer.write(bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big") + bytes(4))  # a 64 MiB text frame's header
    assert await reader.readexactly(1) == b"\x88"  # the relay's close frame (1009) comes at once
    handshake = sum(fed)
    writer.write(bytes(size))  # the frame's payload, more than TCP's buffers hold: the relay will not read it
    with pytest.raises(ConnectionError):
        async with asyncio.timeout(WAIT):
            await writer.drain()  # held back by TCP until the relay resets the connection at its close timeout
    writer.close()
    assert sum(fed) - handshake <= 2 * budgets.READ_SLICE


async def test_a_connection_that_keeps_sending_refused_frames_is_closed_with_1008(in_process_relay):
    running = await in_process_relay(max_refused=20)
    refused = await unseated(running.url, "refused")
    for _ in range(30):
        await refused.send_text("[]")
    assert await refused.expect_closed() == 1008  # the code of the relay's close frame
    assert refused.ws.close_reason == "too many refused frames"
    assert [frame["type"] for frame in refused.pending] == ["error"] * 21


async def test_the_sweep_drops_a_connection_whatever_filled_its_buffer(in_process_relay):
    """Pongs are written by websockets itself, past the relay's own write check: the sweep sees them too."""
    running = await in_process_relay(max_buffer=1 << 16, sweep=0.01)
    stuck = await seated(running.url, "room", "stuck")
    [client] = running.relay.clients
    transport = client.connection.transport
    transport.get_write_buffer_size = lambda: 1 << 20  # as if a ping flood's pongs had piled up
    await stuck.expect_closed()


@pytest.mark.skipif(not MemoryReturn().free_bytes(), reason="glibc's malloc only")
def test_memory_freed_after_a_burst_goes_back_to_the_system():
    """What a dropped room or buffer frees stays in glibc's heap (RSS at its peak) until it is trimmed, which the
    sweep does at most once an interval."""
    memory = MemoryReturn(threshold=8 << 20, interval=1.0)
    chunks = [bytes([n % 256]) * 100_000 for n in range(800)]  # below mmap's threshold: in the heap, one by one
    pins = chunks[1::2]  # every other one stays, so the heap cannot shrink by itself
    before = status_kib("VmRSS")
    del chunks
    assert before - status_kib("VmRSS") < 8 << 10  # freed, but kept by the allocator
    assert memory.check(now=100.0)
    assert before - status_kib("VmRSS") > 24 << 10  # most of the 40 MB is back with the system
    assert not memory.check(now=100.5) and memory.check(now=101.0) and pins


def status_kib(key: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(f"{key}:"))
