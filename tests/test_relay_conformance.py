"""Independent conformance tests for the relay wire protocol, version 1.2 (docs/relay-protocol.md).

Written from the contract alone (docs/relay-protocol.md: version 1 and
the project's N-seat extension): a client that knows the contract and
nothing about the implementation.  The relay is started as subprocesses
(``python -m relay --port 0``) and spoken to over real sockets, once per
backend: in memory, SQLite, two nodes sharing one Redis, and two nodes on a
Redis Cluster (three masters, three replicas), where consecutive clients
(the two of every check) sit on different nodes.  The fuzzing cases and the
frame limits run against the memory relay only: they test the frame parser,
which every backend shares.

Synchronisation never relies on sleeping: every wait is for a specific frame
(with a timeout), and "nothing else arrived" is checked by posting a marker
and requiring that the very next event is that marker.  Every connection
checks, as frames arrive, that the events it receives are gapless and in
order starting right after its ``after``.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import itertools
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typing import Literal
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from conftest import RelayProcess
from relay_client import (
    TIMEOUT,
    Client,
    abort_clients_of_this_loop,
    check_error_frame,
    check_rooms_frame,
    check_welcome_shape,
    close_leftover_clients as close_leftover_clients,  # autouse
)

ROOM_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

FUZZ_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# --------------------------------------------------------------------------
# the relay under test: every backend, and two nodes sharing one Redis
# --------------------------------------------------------------------------

# Each Redis backend's checks run on one worker (xdist's loadgroup), so that its Redis, Redis Cluster and relay nodes
# start once per run rather than once per worker. One node on one Redis is left out of the run: two nodes on one Redis run the same store's scripts with each check's clients on both nodes
# (a third client shares the first one's), and tests/test_resume.py and tests/test_relay_ops.py play on one node.
BACKENDS = ["memory", "sqlite", *(pytest.param(name, marks=pytest.mark.xdist_group(name))
                                  for name in ("redis-2-nodes", "redis-cluster"))]


class Target:
    """The relay node(s) a test talks to. ``url`` takes turns between nodes, so that in two-node mode
    consecutive clients (the two of a check) sit on different nodes."""

    def __init__(self, nodes: list[RelayProcess]) -> None:
        self.nodes = nodes
        self._turn = itertools.cycle(nodes)
        self.host, self.port = nodes[0].host, nodes[0].port

    @property
    def url(self) -> str:
        return next(self._turn).url

    def alive(self) -> bool:
        return all(node.alive() for node in self.nodes)

    def log(self) -> str:
        return "".join(node.log() for node in self.nodes)

    def kill(self) -> None:
        for node in self.nodes:
            node.kill()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def start_target(backend: str, store: Path, redis_url: str, *args: Any, durable: bool = False) -> Target:
    """Start the relay(s) of ``backend`` with ``args``; ``durable`` makes a memory relay use an SQLite file. Every
    client here connects from 127.0.0.1, a whole module's worth to one relay: so each connection is its own
    address (``--max-per-address 0``), as behind a proxy; tests/test_relay_ops.py tests the per-address budgets."""
    args = ("--max-per-address", "0", *args)
    if backend == "memory" and not durable:
        stores: list[list[Any]] = [[]]
    elif backend in ("memory", "sqlite"):
        stores = [["--store", store]]
    else:
        stores = [["--store", redis_url]] * 2  # two nodes on one Redis, or on one Redis Cluster
    return Target([RelayProcess(*where, *args).start() for where in stores])


# A frame's limits (its size, what it inflates to) are the server's, checked before any ledger is touched: one backend
# tells them all.
FRAME_LIMITS = pytest.mark.parametrize("backend", ["memory"], indirect=True)


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def redis_for(backend, request) -> str:
    """The shared Redis's URL for the Redis backends (started only for them)."""
    if backend == "redis-cluster":
        return request.getfixturevalue("redis_cluster").url
    return request.getfixturevalue("shared_redis").url if backend.startswith("redis") else ""


@pytest.fixture(scope="module")
def relay(backend, redis_for, tmp_path_factory):
    r = start_target(backend, tmp_path_factory.mktemp("store") / "relay.sqlite3", redis_for)
    yield r
    alive = r.alive()
    r.stop()
    assert alive, "the shared relay died during the module" + r.log()


@pytest.fixture
async def relay_with_flags(backend, redis_for, tmp_path):
    """Start relays with special flags for one test; clients are closed before the relays stop."""
    started: list[Target] = []

    def factory(*args: Any, durable: bool = False) -> Target:
        started.append(start_target(backend, tmp_path / "relay.sqlite3", redis_for, *args, durable=durable))
        return started[-1]

    yield factory
    await abort_clients_of_this_loop()
    for r in started:
        r.stop()


def new_room(prefix: str = "r") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def marker_body() -> dict:
    return {"marker": uuid.uuid4().hex}


# --------------------------------------------------------------------------
# markers: proof that nothing else was appended
# --------------------------------------------------------------------------


async def strict_marker(poster: Client, *observers: Client) -> dict:
    """Post a marker; the very next event everywhere must be exactly it.

    This is how the tests prove that nothing else was appended in between
    (no foreign event, no event from a refused frame).
    """
    body = marker_body()
    await poster.send({"type": "post", "body": body})
    seen = []
    for c in (poster, *observers):
        ev = await c.next_event()
        assert ev["kind"] == "post" and ev["body"] == body, f"{c.label}: expected only the marker, got {ev}"
        assert ev["seat"] == poster.seat and ev["name"] == poster.name, ev
        seen.append(ev)
    assert all(e == seen[0] for e in seen), seen
    return seen[0]


def is_event(ev: dict, kind: str, seat: int, name: str | None = None) -> bool:
    return ev["kind"] == kind and ev["seat"] == seat and (name is None or ev["name"] == name)


async def alone_in_room(relay: Target, room: str | None = None) -> Client:
    """Alice, seated alone in a fresh room (or ``room``)."""
    a = await Client.open(relay.url, "A")
    await a.join(room or new_room(), "Alice")
    return a


async def seated_pair(relay: Target, room: str | None = None) -> tuple[Client, Client]:
    """Two clients in a fresh room (on two nodes, if there are two), both having consumed both join events."""
    a = await alone_in_room(relay, room)
    room = a.room
    assert room is not None
    b = await Client.open(relay.url, "B")
    await b.join(room, "Bob")
    await a.events_until(lambda e: is_event(e, "join", 1))
    await b.events_until(lambda e: is_event(e, "join", 1))
    assert a.last_seq == b.last_seq == 2
    return a, b


async def close_all(*clients: Client) -> None:
    for c in clients:
        try:
            await c.close()
        except Exception:
            pass


# --------------------------------------------------------------------------
# transport
# --------------------------------------------------------------------------


async def http_get(host: str, port: int, path: str) -> bytes:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        return await asyncio.wait_for(reader.readline(), TIMEOUT)
    finally:
        writer.close()


async def test_healthz_returns_200(relay):
    status = await http_get(relay.host, relay.port, "/healthz")
    assert re.match(rb"HTTP/1\.[01] 200\b", status), status


@pytest.mark.parametrize("path", ["/", "/some/deep/path?x=1", "/relay", "/healthz"])
async def test_any_path_is_accepted(relay, path):
    room = new_room()
    a = await Client.open(relay.url, "A", path=path)
    await a.join(room, "Alice")
    await a.next_event()
    await strict_marker(a)
    await a.close()


async def test_relay_sends_text_frames_with_json_objects(relay):
    # Client.recv_frame asserts text + JSON object for every frame; exercise all three frame types.
    a = await Client.open(relay.url, "A")
    await a.send({"type": "post", "body": {}})
    await a.expect_error("not_joined")
    await a.join(new_room(), "Alice")
    ev = await a.next_event()
    assert ev["type"] == "event"
    await a.close()


# --------------------------------------------------------------------------
# welcome, seats, tokens
# --------------------------------------------------------------------------


async def test_welcome_fields_seats_in_join_order(relay):
    room = new_room()
    a = await Client.open(relay.url, "A")
    wa = await a.join(room, "Alice")
    assert wa["type"] == "welcome" and wa["room"] == room and wa["seat"] == 0
    b = await Client.open(relay.url, "B")
    wb = await b.join(room, "Bob")
    assert wb["room"] == room and wb["seat"] == 1
    assert wa["token"] != wb["token"]
    await close_all(a, b)


async def test_welcome_head_is_rooms_last_seq(relay):
    room = new_room()
    a = await Client.open(relay.url, "A")
    wa = await a.join(room, "Alice")
    own = await a.next_event()
    assert is_event(own, "join", 0, "Alice") and own["seq"] == 1
    # head is the last seq at the moment of welcome: before or just after our own join event
    assert wa["head"] in (0, 1), wa
    for i in range(3):
        await a.post({"i": i})
    assert a.last_seq == 4
    b = await Client.open(relay.url, "B")
    wb = await b.join(room, "Bob", after=4)
    own_b = await b.next_event()
    assert is_event(own_b, "join", 1, "Bob") and own_b["seq"] == 5
    assert wb["head"] in (4, 5), wb
    await close_all(a, b)


def estimated_random_bits(tokens: list[str]) -> float:
    """Lower-bound-ish estimate of the randomness in a set of tokens.

    A position that is constant across many tokens carries no randomness; a
    position with few distinct values carries log2(distinct).  Positions with
    a good spread are credited with the full width of the alphabet.
    """
    chars = set("".join(tokens))
    # hex tokens carry 4 bits a character; anything else (base64url, ...) at most 6
    alphabet = 16 if chars <= set("0123456789abcdef") or chars <= set("0123456789ABCDEF") else 64
    n = min(len(t) for t in tokens)
    bits = 0.0
    for i in range(n):
        distinct = len({t[i] for t in tokens})
        if distinct >= alphabet / 4:
            bits += math.log2(alphabet)
        elif distinct > 1:
            bits += math.log2(distinct)
    return bits


async def test_tokens_are_strings_distinct_and_have_128_random_bits(relay):
    tokens = []
    clients = []
    for _ in range(32):
        room = new_room("tok")
        for name in ("Alice", "Bob"):
            c = await Client.open(relay.url, name)
            w = await c.join(room, name)
            tokens.append(w["token"])
            clients.append(c)
    await close_all(*clients)
    assert all(isinstance(t, str) for t in tokens)
    assert len(set(tokens)) == len(tokens), "tokens repeat across joins"
    for t in tokens:
        if re.fullmatch(r"[0-9a-fA-F]+", t):
            assert len(t) >= 32, f"hex token too short for 128 bits: {t!r}"
        else:
            assert len(t) >= 22, f"token too short for 128 bits: {t!r}"
    bits = estimated_random_bits(tokens)
    assert bits >= 128, f"tokens look like they carry only ~{bits:.0f} random bits: {tokens[:4]}"


# --------------------------------------------------------------------------
# total order, sender naming
# --------------------------------------------------------------------------


async def test_total_order_seq_gapless_and_own_post_echoed(relay):
    a = await alone_in_room(relay)
    first = await a.next_event()
    assert first["seq"] == 1
    bodies = [{"n": i} for i in range(5)]
    for b in bodies:
        await a.send({"type": "post", "body": b})
    got = [await a.next_event() for _ in bodies]
    assert [e["seq"] for e in got] == [2, 3, 4, 5, 6]
    assert [e["body"] for e in got] == bodies
    assert all(e["kind"] == "post" and e["seat"] == 0 and e["name"] == "Alice" for e in got)
    await a.close()


async def test_concurrent_posters_receive_identical_sequence(relay):
    a, b = await seated_pair(relay)
    n = 50

    async def posts(c: Client, who: str) -> None:
        await asyncio.gather(*(c.send({"type": "post", "body": {"who": who, "i": i}}) for i in range(n)))

    async def read_all(c: Client) -> list[dict]:
        out: list[dict] = []
        while len([e for e in out if e["kind"] == "post"]) < 2 * n:
            out.append(await c.next_event())
        return out

    ra, rb, _, _ = await asyncio.gather(read_all(a), read_all(b), posts(a, "a"), posts(b, "b"))
    assert ra == rb, "the two connections saw different sequences"
    assert a.events == b.events
    assert [e["seq"] for e in a.events] == list(range(1, 2 * n + 3))
    assert sorted((e["body"]["who"], e["body"]["i"]) for e in ra) == sorted(
        [("a", i) for i in range(n)] + [("b", i) for i in range(n)]
    )
    for e in ra:
        seat, name = (0, "Alice") if e["body"]["who"] == "a" else (1, "Bob")
        assert (e["seat"], e["name"]) == (seat, name), e
    await close_all(a, b)


async def test_relay_stamps_sender_seat_and_name_ignoring_body(relay):
    a, b = await seated_pair(relay)
    forged = {"seat": 0, "name": "Alice", "type": "event", "seq": 999, "kind": "join", "time": 1, "body": None}
    await b.send({"type": "post", "body": forged})
    for c in (a, b):
        ev = await c.next_event()
        assert ev["kind"] == "post" and ev["seat"] == 1 and ev["name"] == "Bob", ev
        assert ev["seq"] == 3
        assert ev["body"] == forged
    # extra top-level keys on the post frame cannot forge the sender either
    await a.send({"type": "post", "body": {"x": 1}, "seat": 1, "name": "Bob"})
    for c in (a, b):
        ev = await c.next_event()
        assert ev["seat"] == 0 and ev["name"] == "Alice" and ev["body"] == {"x": 1}, ev
    await close_all(a, b)


RICH_BODY = {
    "nested": {"list": [1, 2.5, -3, None, True, False, "s", [], {}], "deep": {"a": {"b": {"c": []}}}},
    "unicode": 'héllo wörld ♠♥♦♣ 🂡 \u0000 \u001f "quoted" \\ back/slash',
    "empty": {},
    "big": 9007199254740991,
    "neg": -9007199254740991,
    "float": 1.0e-300,
    "": "empty key",
    "type": "post",
}


@pytest.mark.parametrize("body", [{}, RICH_BODY, {"k" * 50: "v" * 5000}], ids=["empty", "rich", "long"])
async def test_post_body_comes_back_unchanged(relay, body):
    a, b = await seated_pair(relay)
    await b.send({"type": "post", "body": body})
    for c in (a, b):
        ev = await c.next_event()
        assert ev["body"] == body
    await close_all(a, b)


# --------------------------------------------------------------------------
# two seats, room_full, bad_token
# --------------------------------------------------------------------------


async def test_third_join_without_token_gets_room_full(relay):
    a, b = await seated_pair(relay)
    c = await Client.open(relay.url, "C")
    reply = await c.try_join(a.room, "Carol")
    assert reply["type"] == "error" and reply["code"] == "room_full", reply
    check_error_frame(reply)
    # the refused join appended nothing
    await strict_marker(a, b)
    await close_all(a, b, c)


@pytest.mark.parametrize("token", [secrets.token_urlsafe(24), "é", "\u2603" * 40, ""], ids=["random", "accent", "snowmen", "empty"])
async def test_wrong_token_gets_bad_token(relay, token):
    a = await alone_in_room(relay)
    room = a.room
    await a.next_event()
    c = await Client.open(relay.url, "C")
    reply = await c.try_join(room, "Mallory", token=token)
    assert reply["type"] == "error" and reply["code"] == "bad_token", reply
    await strict_marker(a)
    # the free seat is still free: the next plain join gets seat 1
    b = await Client.open(relay.url, "B")
    w = await b.join(room, "Bob")
    assert w["seat"] == 1
    await close_all(a, b, c)


async def test_token_of_another_room_gets_bad_token(relay):
    other = await Client.open(relay.url, "O")
    t_other = (await other.join(new_room(), "Olga"))["token"]
    a = await alone_in_room(relay)
    room = a.room
    await a.next_event()
    c = await Client.open(relay.url, "C")
    reply = await c.try_join(room, "Mallory", token=t_other)
    assert reply["type"] == "error" and reply["code"] == "bad_token", reply
    await strict_marker(a)
    await close_all(a, c, other)


async def test_wrong_token_in_full_room_is_refused(relay):
    a, b = await seated_pair(relay)
    c = await Client.open(relay.url, "C")
    reply = await c.try_join(a.room, "Mallory", token=secrets.token_hex(16))
    assert reply["type"] == "error" and reply["code"] in ("bad_token", "room_full"), reply
    await strict_marker(a, b)
    # the seats still belong to their holders
    assert a.ws.state.name == "OPEN" and b.ws.state.name == "OPEN"
    await strict_marker(b, a)
    await close_all(a, b, c)


# --------------------------------------------------------------------------
# rooms of N seats (extension, docs/relay-protocol.md version 1.1)
# --------------------------------------------------------------------------


async def seated_room(relay: Target, seats: int) -> list[Client]:
    """A fresh room made with ``"seats": seats`` and filled; every client has consumed every join."""
    room = new_room("n")
    clients = []
    for i in range(seats):
        c = await Client.open(relay.url, f"P{i}")
        extra = {"seats": seats} if i == 0 else {}
        await c.send({"type": "join", "room": room, "name": f"P{i}", "token": None, "after": 0, **extra})
        w = await c.recv_frame()
        assert w["type"] == "welcome", w
        check_welcome_shape(w)
        assert (w["seat"], w["seats"], w["head"] >= i + 1) == (i, seats, True), w
        c.welcome, c.seat, c.name, c.room, c.last_seq = w, i, f"P{i}", room, 0
        clients.append(c)
    for c in clients:
        await c.events_until(lambda e: is_event(e, "join", seats - 1))
    return clients


async def test_welcome_says_two_seats_by_default(relay):
    a = await alone_in_room(relay)
    assert a.welcome["seats"] == 2
    b = await Client.open(relay.url, "B")
    assert (await b.join(a.room, "Bob", seats=None))["seats"] == 2
    await close_all(a, b)


@pytest.mark.parametrize("seats", [3, 6])
async def test_room_of_n_seats_seats_n_in_join_order_and_refuses_the_next(relay, seats):
    clients = await seated_room(relay, seats)
    assert all(c.events == clients[0].events for c in clients)
    assert [(e["kind"], e["seat"], e["name"]) for e in clients[0].events] == [
        ("join", i, f"P{i}") for i in range(seats)]
    late = await Client.open(relay.url, "late")
    reply = await late.try_join(clients[0].room, "Late")
    assert reply["type"] == "error" and reply["code"] == "room_full", reply
    assert await late.expect_closed() is not None
    await strict_marker(clients[-1], *clients[:-1])  # the refused join appended nothing
    await close_all(*clients, late)


async def test_n_seats_post_in_one_total_order_and_resume(relay):
    clients = await seated_room(relay, 4)
    await asyncio.gather(*(c.send({"type": "post", "body": {"from": c.seat, "i": i}})
                           for i in range(5) for c in clients))
    for c in clients:
        await c.events_until(lambda e: len([x for x in c.events if x["kind"] == "post"]) == 20)
    assert all(c.events == clients[0].events for c in clients)
    for e in clients[0].events[4:]:
        assert (e["seat"], e["name"]) == (e["body"]["from"], f"P{e['body']['from']}"), e
    # seat 2 resumes (on the other node, in two-node mode): same seat, the old connection closed
    old = clients[2]
    again = await Client.open(relay.url, "again")
    w = await again.join(old.room, "P2", token=old.welcome["token"], after=old.last_seq)
    assert (w["seat"], w["seats"]) == (2, 4)
    await old.expect_closed()
    await again.events_until(lambda e: is_event(e, "join", 2))
    clients[2] = again
    for c in (clients[0], clients[1], clients[3]):
        await c.events_until(lambda e: is_event(e, "join", 2) and e["seq"] > 4)
    await strict_marker(clients[3], *clients[:3])
    await close_all(*clients)


async def test_a_watcher_reads_the_whole_ledger_live_cannot_post_and_every_seat_sees_one_count(relay):
    """1.3: a watcher's join takes no seat; it gets the ledger from its ``after`` and then live events; its arrival
    and its departure are ``watch`` events (seat -1, the room's watchers now), at one seq for everyone; its post is
    refused with ``read_only`` and appends nothing; a room that does not exist has nothing to watch."""
    a, b = await seated_pair(relay)
    first = await a.post({"before": "watching"})
    w = await Client.open(relay.url, "W")
    welcome = await w.try_watch(a.room, "Wanda")
    assert (welcome["seats"], welcome["watching"]) == (2, 1)
    await w.until_seq(welcome["head"])
    arrival = w.events[-1]
    assert [e["kind"] for e in w.events] == ["join", "join", "post", "watch"] and w.events[2] == first
    assert (arrival["seat"], arrival["name"], arrival["body"], arrival["seq"]) == (-1, "Wanda", {"watching": 1},
                                                                                   welcome["head"])
    for player in (a, b):
        assert await player.until(lambda e: e["kind"] == "watch") == arrival
    await w.send_post({"from": "a watcher"})
    refused = await w.expect_error("read_only")
    assert "watcher cannot post" in refused["message"]
    again = await w.ask({"type": "join", "room": a.room, "name": "Wanda", "watch": True}, "welcome")
    assert (again["code"], again["message"]) == ("already_joined", f"this connection already watches room {a.room}")
    await strict_marker(b, a, w)  # nothing was appended, and the watcher follows live
    nowhere = await Client.open(relay.url, "N")
    assert (await nowhere.try_watch(new_room(), "Nobody"))["code"] == "not_found"
    seated = await Client.open(relay.url, "S")
    assert (await seated.ask({"type": "join", "room": a.room, "name": "S", "token": a.token, "watch": True},
                             "welcome"))["code"] == "bad_request"  # a watcher holds no seat: no token
    await w.close()
    for player in (a, b):
        left = await player.until(lambda e: e["kind"] == "watch")
        assert (left["seat"], left["name"], left["body"]) == (-1, "Wanda", {"watching": 0})
    await close_all(a, b, seated)


@pytest.mark.parametrize("later", [2, 5])
async def test_later_join_with_other_seats_is_refused_and_changes_nothing(relay, later):
    clients = await seated_room(relay, 3)
    c = await Client.open(relay.url, "C")
    room = clients[0].room
    await c.send({"type": "join", "room": room, "name": "Zed", "token": None, "after": 0, "seats": later})
    await c.expect_error("bad_request")
    await c.send({"type": "join", "room": room, "name": "Zed", "token": clients[1].welcome["token"], "after": 0,
                  "seats": later})
    await c.expect_error("bad_request")
    await strict_marker(clients[0], *clients[1:])
    w = await c.join(room, "Zed", token=clients[1].welcome["token"], after=0, seats=3)  # the right size is fine
    assert (w["seat"], w["seats"]) == (1, 3)
    await close_all(*clients, c)


@pytest.mark.parametrize("seats", [0, 1, 7, -2, 100, "3", 2.5, 3.0, True, [3], {"n": 3}], ids=repr)
async def test_bad_request_seats_out_of_range_or_not_a_whole_number(relay, seats):
    room = new_room()
    c = await Client.open(relay.url, "C")
    await c.send({"type": "join", "room": room, "name": "Zed", "token": None, "after": 0, "seats": seats})
    await c.expect_error("bad_request")
    w = await c.join(room, "Zed")  # nothing was created: the room is new, with two seats
    assert (w["seat"], w["seats"]) == (0, 2)
    assert (await c.next_event())["seq"] == 1
    await c.close()


# --------------------------------------------------------------------------
# the lobby: public rooms listed (extension, docs/relay-protocol.md version 1.2)
# --------------------------------------------------------------------------

LOBBY_POLLS = 500  # list requests while waiting for a change the test cannot be told about (a leave)


def public_of(label: str) -> dict:
    return {"game": "cabo", "deck": "short", "rounds": 3, "fast": False, "note": label}


async def lobby(lister: Client, limit: int = 50, under_way: bool = False) -> dict[str, dict]:
    """Every listed room (``under_way``: every room under way), paging through the whole lobby (other tests' public
    rooms included)."""
    rows: dict[str, dict] = {}
    after = None
    for _ in range(1000):
        page = await lister.list_rooms(after, limit, under_way)
        assert page["type"] == "rooms", page
        assert len(page["rooms"]) <= limit, page
        for row in page["rooms"]:
            assert row["room"] not in rows, f"room listed twice across pages: {row}"
            rows[row["room"]] = row
        after = page["next"]
        if after is None:
            return rows
    pytest.fail("the lobby never ended")


async def lobby_until(lister: Client, room: str, condition: Callable[[dict | None], bool]) -> dict | None:
    """Poll the lobby until ``room``'s row (None: not listed) meets ``condition``: for a leave, which the relay
    records after the connection has closed (a bounded number of requests, within the rate limit)."""
    row = None
    for _ in range(LOBBY_POLLS):
        row = (await lobby(lister)).get(room)
        if condition(row):
            return row
        await asyncio.sleep(0.02)
    pytest.fail(f"room {room} never reached the expected listing; last seen: {row}")


async def public_room(relay: Target, seats: int = 3, name: str = "Alice") -> tuple[Client, dict]:
    """``name`` alone in a new room of ``seats`` seats, created public."""
    a = await Client.open(relay.url, "A")
    room = new_room("pub")
    public = public_of(room)
    await a.join(room, name, seats=seats, public=public)
    await a.events_until(lambda e: is_event(e, "join", 0))
    return a, public


async def test_public_room_is_listed_with_only_what_it_chose_to_show(relay):
    a, public = await public_room(relay)
    await a.post({"secret": "a post is never listed"})
    lister = await Client.open(relay.url, "L")
    await lister.send({"type": "list"})
    raw = await asyncio.wait_for(lister.ws.recv(), TIMEOUT)
    assert a.welcome is not None and a.welcome["token"] not in raw and "secret" not in raw, raw
    check_rooms_frame(json.loads(raw))
    row = (await lobby(lister))[a.room]
    assert row["seats"] == 3 and row["taken"] == 1 and row["names"] == ["Alice"], row
    assert row["public"] == public, row
    assert 0 <= row["waited"] < 60, row
    await close_all(a, lister)


async def test_a_public_room_under_way_is_listed_for_watchers_with_how_many_watch(relay):
    """1.3: ``"under_way": true`` lists the public rooms whose every seat is taken and one held, instead of the open
    ones, each with its watchers; a room is in one list or the other."""
    a, public = await public_room(relay, seats=2)
    lister = await Client.open(relay.url, "L")
    assert a.room not in await lobby(lister, under_way=True)  # still waiting for a player: in the lobby
    b = await Client.open(relay.url, "B")
    await b.join(a.room, "Bob")
    assert a.room not in await lobby(lister)
    row = (await lobby(lister, under_way=True))[a.room]
    assert (row["taken"], row["names"], row["public"], row["watching"]) == (2, ["Alice", "Bob"], public, 0), row
    w = await Client.open(relay.url, "W")
    await w.try_watch(a.room, "Wanda")
    assert (await lobby(lister, under_way=True))[a.room]["watching"] == 1
    await close_all(a, b, w, lister)


async def test_private_room_is_not_listed(relay):
    a = await alone_in_room(relay)
    b = await Client.open(relay.url, "B")
    await b.join(a.room, "Bob", seats=2)
    lister = await Client.open(relay.url, "L")
    assert a.room not in await lobby(lister)
    await close_all(a, b, lister)


async def test_listed_room_shows_each_seat_taken_and_goes_when_full(relay):
    a, _ = await public_room(relay, seats=3)
    b = await Client.open(relay.url, "B")
    await b.join(a.room, "Bob")  # no "public": the room's listing stays as its creator set it
    lister = await Client.open(relay.url, "L")
    row = (await lobby(lister))[a.room]
    assert row["taken"] == 2 and row["names"] == ["Alice", "Bob"], row
    c = await Client.open(relay.url, "C")
    await c.join(a.room, "Cy", public={"game": "war"})  # a later join's "public" changes nothing
    assert a.room not in await lobby(lister), "a full room is still listed"
    await close_all(a, b, c, lister)


async def test_listed_room_goes_when_everyone_left_and_comes_back_with_its_player(relay):
    a, public = await public_room(relay, seats=2)
    token = a.welcome["token"] if a.welcome else None
    lister = await Client.open(relay.url, "L")
    assert a.room in await lobby(lister)
    await a.close()
    await lobby_until(lister, a.room, lambda row: row is None)
    again = await Client.open(relay.url, "A2")
    await again.join(a.room, "Alice", token)
    row = (await lobby(lister))[a.room]
    assert row["taken"] == 1 and row["public"] == public, row
    await close_all(again, lister)


async def test_lobby_pages_are_bounded_and_follow_one_another(relay):
    made = [await public_room(relay, seats=2) for _ in range(5)]
    lister = await Client.open(relay.url, "L")
    seen: list[str] = []
    after = None
    while True:
        page = await lister.list_rooms(after, limit=2)
        assert len(page["rooms"]) <= 2, page
        seen += [row["room"] for row in page["rooms"]]
        if page["next"] is None:
            break
        assert page["rooms"], "a page with a next cursor but no room"
        after = page["next"]
    mine = [a.room for a, _ in made]
    assert [room for room in seen if room in mine] == mine, "pages are not in the order the rooms were listed"
    assert len(seen) == len(set(seen)), seen
    default = await lister.list_rooms()
    assert len(default["rooms"]) <= 20, default
    await close_all(lister, *(a for a, _ in made))


async def test_a_joined_connection_may_list_too(relay):
    a, _ = await public_room(relay)
    assert a.room in await lobby(a)
    await strict_marker(a)
    await close_all(a)


BAD_PUBLIC = [
    {}, [], "cabo", 3, True,
    {f"k{i}": 1 for i in range(9)},
    {"": 1}, {"k" * 33: 1}, {"bad key": 1}, {"é": 1},
    {"game": "x" * 65}, {"game": "tab\there"}, {"game": "nul\x00"},
    {"game": None}, {"game": 1.5}, {"game": 2**53 + 1}, {"game": [1]}, {"game": {"nested": 1}},
]


@pytest.mark.parametrize("public", BAD_PUBLIC, ids=repr)
async def test_bad_request_malformed_public_creates_nothing(relay, public):
    c = await Client.open(relay.url, "C")
    room = new_room("pub")
    reply = await c.try_join(room, "Alice", public=public)
    assert reply["type"] == "error" and reply["code"] == "bad_request", reply
    lister = await Client.open(relay.url, "L")
    assert room not in await lobby(lister)
    w = await c.join(room, "Alice")  # the refused join took no seat and made no room
    assert w["seat"] == 0 and w["head"] == 1, w
    await close_all(c, lister)


@pytest.mark.parametrize("public", [{"g": ""}, {"k" * 32: "v" * 64, "n": -(2**53), "b": True},
                                   {f"k{i}": "\u2603" * 64 for i in range(8)}], ids=["empty", "edges", "max"])
async def test_public_edges_are_accepted_and_shown_as_given(relay, public):
    c = await Client.open(relay.url, "C")
    room = new_room("pub")
    await c.join(room, "Alice", public=public)
    lister = await Client.open(relay.url, "L")
    assert (await lobby(lister))[room]["public"] == public
    await close_all(c, lister)


@pytest.mark.parametrize("frame", [
    {"type": "list", "limit": 0}, {"type": "list", "limit": 51}, {"type": "list", "limit": "5"},
    {"type": "list", "limit": 2.5}, {"type": "list", "limit": True},
    {"type": "list", "after": 5}, {"type": "list", "after": ""}, {"type": "list", "after": "x" * 200},
    {"type": "list", "after": "not a cursor"}, {"type": "list", "after": ["0000000000000:r"]},
], ids=repr)
async def test_bad_request_malformed_list_and_the_connection_stays(relay, frame):
    c = await alone_in_room(relay)
    await c.next_event()
    await c.send(frame)
    await c.expect_error("bad_request")
    await strict_marker(c)
    await close_all(c)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the file store's own: memory keeps nothing,
async def test_a_store_keeps_the_listing_across_sigkill(backend, relay_with_flags):  # Redis keeps it as any key
    r1 = relay_with_flags(durable=True)
    a, public = await public_room(r1, seats=2)
    token = a.welcome["token"] if a.welcome else None
    r1.kill()
    r2 = relay_with_flags(durable=True)
    again = await Client.open(r2.url, "A2")
    await again.join(a.room, "Alice", token=token)
    lister = await Client.open(r2.url, "L")
    row = (await lobby(lister))[a.room]
    assert row["public"] == public and row["names"] == ["Alice"], row
    await close_all(again, lister)


async def test_a_cursor_past_every_room_gives_an_empty_last_page(relay):
    lister = await Client.open(relay.url, "L")
    page = await lister.list_rooms("9999999999999:zzz")
    assert page == {"type": "rooms", "rooms": [], "next": None}
    await close_all(lister)


# --------------------------------------------------------------------------
# catch-up
# --------------------------------------------------------------------------


@pytest.mark.parametrize("after", [0, 1, 5, 11])
async def test_catch_up_sends_exactly_events_after_n_oldest_first(relay, after):
    a = await alone_in_room(relay)
    room = a.room
    for i in range(10):
        await a.post({"i": i})
    assert a.last_seq == 11
    b = await Client.open(relay.url, "B")
    w = await b.join(room, "Bob", after=after)
    assert w["head"] in (11, 12)
    evs = await b.events_until(lambda e: is_event(e, "join", 1, "Bob"))
    # Client checks the first event is after+1 and that they are consecutive
    assert [e["seq"] for e in evs] == list(range(after + 1, 13))
    assert evs[:-1] == a.events[after:11]
    assert await a.next_event() == evs[-1]
    # then live events
    live = await strict_marker(a, b)
    assert live["seq"] == 13
    await close_all(a, b)


async def test_catch_up_after_defaults_to_zero(relay):
    a = await alone_in_room(relay)
    room = a.room
    await a.post({"i": 0})
    b = await Client.open(relay.url, "B")
    await b.join(room, "Bob", send_after=False)
    evs = await b.events_until(lambda e: is_event(e, "join", 1))
    assert [e["seq"] for e in evs] == [1, 2, 3]
    assert evs[:2] == a.events[:2]
    await close_all(a, b)


async def test_negative_after_is_refused_or_replays_everything(relay):
    # seq > -1 is every event; a relay may also call -1 malformed.  Either way no
    # event may be skipped or the connection dropped.
    a = await alone_in_room(relay)
    room = a.room
    for i in range(3):
        await a.post({"i": i})
    b = await Client.open(relay.url, "B")
    reply = await b.try_join(room, "Bob", after=-1)
    if reply["type"] == "error":
        assert reply["code"] == "bad_request", reply
        await b.join(room, "Bob")
    else:
        b.last_seq = 0  # seq > -1 starts at seq 1
    evs = await b.events_until(lambda e: is_event(e, "join", 1))
    assert [e["seq"] for e in evs] == [1, 2, 3, 4, 5]
    await close_all(a, b)


async def test_catch_up_boundary_no_gap_no_repeat_while_posting(relay):
    a = await alone_in_room(relay)
    room = a.room
    for i in range(30):
        await a.post({"old": i})
    b = await Client.open(relay.url, "B")

    async def a_side() -> None:
        for i in range(60):
            await a.send({"type": "post", "body": {"live": i}})

    await asyncio.gather(a_side(), b.join(room, "Bob", after=10))
    fin = marker_body()
    await a.send({"type": "post", "body": fin})
    await a.events_until(lambda e: e["body"] == fin)
    await b.events_until(lambda e: e["body"] == fin)
    # b: gapless from 11 (checked on arrival) and identical to a's view
    assert b.events[0]["seq"] == 11
    assert b.events == a.events[10:]
    posts = [e["body"]["live"] for e in b.events if e["kind"] == "post" and "live" in e["body"]]
    assert posts == list(range(60))
    assert sum(1 for e in b.events if is_event(e, "join", 1, "Bob")) == 1
    await close_all(a, b)


# --------------------------------------------------------------------------
# resume
# --------------------------------------------------------------------------


async def test_resume_gives_same_seat_and_closes_old_connection(relay):
    a, b = await seated_pair(relay)
    await a.post({"before": 1})
    await b.events_until(lambda e: e["body"] == {"before": 1})
    token = a.welcome["token"]
    a2 = await Client.open(relay.url, "A2")
    w = await a2.join(a.room, "Alice", token=token, after=a.last_seq)
    assert w["seat"] == 0
    await a.expect_closed()
    # the new connection sees (optionally a leave of the old one, then) its join
    evs = await a2.events_until(lambda e: is_event(e, "join", 0))
    assert all(is_event(e, "leave", 0) for e in evs[:-1]), evs
    assert evs[-1]["name"] == "Alice"
    bevs = await b.events_until(lambda e: is_event(e, "join", 0))
    assert bevs == evs
    # the seat is held by the new connection: it posts as seat 0, and no late
    # leave of the old connection is appended after the new join
    ev = await strict_marker(a2, b)
    assert ev["seat"] == 0
    await close_all(a2, b)


@pytest.mark.parametrize("k", [0, 2, 4])
async def test_resume_with_after_k_replays_exactly_later_events(relay, k):
    a, b = await seated_pair(relay)
    for i in range(3):
        await a.post({"i": i})
    await b.events_until(lambda e: e["body"] == {"i": 2})
    history = list(b.events)  # seq 1..5
    b2 = await Client.open(relay.url, "B2")
    w = await b2.join(b.room, "Bob", token=b.welcome["token"], after=k)
    assert w["seat"] == 1
    await b.expect_closed()
    evs = await b2.events_until(lambda e: is_event(e, "join", 1) and e["seq"] > 5)
    assert evs[0]["seq"] == k + 1
    assert evs[: 5 - k] == history[k:5]
    # after the replay: possibly the old connection's leave, then the new join
    assert all(is_event(e, "leave", 1) for e in evs[5 - k : -1]), evs
    aevs = await a.events_until(lambda e: is_event(e, "join", 1) and e["seq"] > 5)
    assert aevs == evs[5 - k :]
    await strict_marker(b2, a)
    await close_all(a, b2)


async def test_resume_after_disconnect_gives_same_seat(relay):
    a, b = await seated_pair(relay)
    await b.close()
    leave = await a.next_event()
    assert is_event(leave, "leave", 1, "Bob") and leave["body"] is None
    b2 = await Client.open(relay.url, "B2")
    w = await b2.join(a.room, "Bob", token=b.welcome["token"], after=a.last_seq)
    assert w["seat"] == 1
    join = await a.next_event()
    assert is_event(join, "join", 1, "Bob") and join["body"] is None
    assert await b2.next_event() == join
    await strict_marker(b2, a)
    await close_all(a, b2)


async def test_resume_token_of_seat0_after_both_left(relay):
    a, b = await seated_pair(relay)
    await b.close()
    await a.events_until(lambda e: is_event(e, "leave", 1))
    await a.close()
    a2 = await Client.open(relay.url, "A2")
    w = await a2.join(a.room, "Alice", token=a.welcome["token"])
    assert w["seat"] == 0
    evs = await a2.events_until(lambda e: is_event(e, "join", 0) and e["seq"] > 2)
    assert evs[:3] == a.events[:3]
    assert [(e["kind"], e["seat"]) for e in evs[3:]] == [("leave", 0), ("join", 0)]
    await a2.close()


# -- exactly-once joins (1.4): a join sent again under its id takes its seat back --------------------------------


def join_id() -> str:
    """A join's id as a client must draw it: a secret (whoever sends it again takes the seat)."""
    return secrets.token_urlsafe(24)


def seats_and_kinds(events: list[dict]) -> list[tuple[str, int]]:
    return [(e["kind"], e["seat"]) for e in events]


async def test_a_join_whose_answer_was_lost_is_taken_back_under_its_id_and_the_room_still_seats_a_second(relay):
    """The orphan seat: a join ran but its answer never served the client (its connection dropped: the relay cannot
    tell that from a welcome never read). Sent again under its id, on this node or the other, it gets the first one's
    seat and token and a new epoch, appending what a resume does; the two-seat room still seats its second player,
    then nobody."""
    room, secret = new_room(), join_id()
    lost = await Client.open(relay.url, "lost")
    first = await lost.join(room, "Ann", join_id=secret)
    lost.ws.transport.abort()
    a = await Client.open(relay.url, "A")
    again = await a.join(room, "Ann", join_id=secret)
    assert (again["seat"], again["token"], again["id"]) == (0, first["token"], secret), again
    assert first["id"] == secret  # 1.4: the welcome says the relay took the id into account
    assert seats_and_kinds(await a.events_until(lambda e: e["seq"] >= 3)) == [("join", 0), ("leave", 0), ("join", 0)]
    b = await Client.open(relay.url, "B")
    assert (await b.join(room, "Bob", after=3))["seat"] == 1
    for seated in (a, b):
        await seated.events_until(lambda e: is_event(e, "join", 1))
    late = await Client.open(relay.url, "late")
    assert (await late.try_join(room, "Cy", join_id=join_id()))["code"] == "room_full"
    await strict_marker(a, b)  # nothing else was appended: one seat each
    await close_all(a, b, late)


async def test_a_join_sent_again_under_its_id_is_a_resume_of_that_seat(relay):
    """Twice under one id, the first connection still open: the second takes the seat over (the first is closed, 4000),
    with the same token, which resumes it as any token does; an id with a token, or in a watcher's join, is refused."""
    room, secret = new_room(), join_id()
    a = await Client.open(relay.url, "A")
    first = await a.join(room, "Ann", join_id=secret)
    a2 = await Client.open(relay.url, "A2")
    second = await a2.join(room, "Ann", join_id=secret, after=1)
    assert (second["seat"], second["token"]) == (0, first["token"])
    assert await a.expect_closed() == 4000
    assert seats_and_kinds(await a2.events_until(lambda e: e["kind"] == "join")) == [("leave", 0), ("join", 0)]
    for frame in ({"token": first["token"], "id": secret}, {"watch": True, "id": secret}):
        odd = await Client.open(relay.url, "odd")
        await odd.send({"type": "join", "room": room, "name": "Ann", **frame})
        await odd.expect_error("bad_request")
        await odd.close()
    a3 = await Client.open(relay.url, "A3")
    assert (await a3.join(room, "Ann", token=first["token"], after=3))["seat"] == 0
    await a2.expect_closed()
    assert seats_and_kinds(await a3.events_until(lambda e: e["kind"] == "join")) == [("leave", 0), ("join", 0)]
    await strict_marker(a3)
    await a3.close()


async def test_a_join_id_of_another_room_is_unrelated(relay):
    secret = join_id()
    a, c = await Client.open(relay.url, "A"), await Client.open(relay.url, "C")
    here, there = await a.join(new_room(), "Ann", join_id=secret), await c.join(new_room(), "Ann", join_id=secret)
    assert (here["seat"], there["seat"]) == (0, 0) and here["token"] != there["token"]
    b = await Client.open(relay.url, "B")
    assert (await b.join(a.room, "Bob", join_id=join_id()))["seat"] == 1  # a's room still had its second seat
    await close_all(a, b, c)


@pytest.mark.parametrize("bad", ["x" * 21, "x" * 65, "a b" * 8, "é" * 22, "", 7, ["x" * 22]], ids=repr)
async def test_a_bad_join_id_is_refused_and_takes_nothing(relay, bad):
    room = new_room()
    c = await Client.open(relay.url, "C")
    await c.send({"type": "join", "room": room, "name": "Zed", "id": bad})
    assert "\n" not in (await c.expect_error("bad_request"))["message"]
    assert (await c.join(room, "Zed"))["seat"] == 0 and (await c.next_event())["seq"] == 1  # nothing was created
    await c.close()


# --------------------------------------------------------------------------
# membership
# --------------------------------------------------------------------------


async def test_join_event_on_taking_a_seat(relay):
    a = await alone_in_room(relay)
    room = a.room
    ev = await a.next_event()
    assert ev["type"] == "event" and ev["kind"] == "join" and ev["seat"] == 0 and ev["name"] == "Alice"
    assert ev["body"] is None and ev["seq"] == 1
    b = await Client.open(relay.url, "B")
    await b.join(room, "Bob")
    ev_a = await a.next_event()
    assert ev_a["kind"] == "join" and ev_a["seat"] == 1 and ev_a["name"] == "Bob" and ev_a["body"] is None
    assert ev_a["seq"] == 2
    await close_all(a, b)


async def test_leave_event_on_clean_close(relay):
    a, b = await seated_pair(relay)
    await b.close()
    ev = await a.next_event()
    assert ev["kind"] == "leave" and ev["seat"] == 1 and ev["name"] == "Bob" and ev["body"] is None
    assert ev["seq"] == 3
    await a.close()


async def test_leave_event_on_dropped_connection(relay):
    a, b = await seated_pair(relay)
    b.ws.transport.abort()  # no close handshake: the TCP connection just dies
    ev = await a.next_event()
    assert ev["kind"] == "leave" and ev["seat"] == 1 and ev["body"] is None
    await a.close()


async def test_membership_events_are_ordered_with_posts(relay):
    a, b = await seated_pair(relay)
    await b.post({"p": 1})
    await a.events_until(lambda e: e["body"] == {"p": 1})
    await b.close()
    leave = await a.next_event()
    assert is_event(leave, "leave", 1)
    await a.post({"p": 2})
    await a.post({"p": 3})
    b2 = await Client.open(relay.url, "B2")
    await b2.join(a.room, "Bob", token=b.welcome["token"])
    await b2.events_until(lambda e: is_event(e, "join", 1) and e["seq"] > 2)
    await a.events_until(lambda e: is_event(e, "join", 1))
    seen = [(e["kind"], e["seat"], e["body"]) for e in a.events]
    assert seen == [
        ("join", 0, None),
        ("join", 1, None),
        ("post", 1, {"p": 1}),
        ("leave", 1, None),
        ("post", 0, {"p": 2}),
        ("post", 0, {"p": 3}),
        ("join", 1, None),
    ]
    assert b2.events == a.events
    await close_all(a, b2)


# --------------------------------------------------------------------------
# retention and durability
# --------------------------------------------------------------------------


async def test_room_outlives_its_seats_by_default(relay):
    a, b = await seated_pair(relay)
    await a.post({"keep": "me"})
    await b.close()
    await a.events_until(lambda e: is_event(e, "leave", 1))
    await a.close()
    b2 = await Client.open(relay.url, "B2")
    w = await b2.join(a.room, "Bob", token=b.welcome["token"])
    assert w["seat"] == 1
    evs = await b2.events_until(lambda e: is_event(e, "join", 1) and e["seq"] > 2)
    assert evs[:4] == a.events[:4]
    await b2.close()


async def test_short_retention_room_still_there_right_after_seats_left(relay_with_flags):
    r = relay_with_flags("--retention", 1)
    a, b = await seated_pair(r)
    await a.post({"keep": "me"})
    await b.close()
    await a.events_until(lambda e: is_event(e, "leave", 1))
    await a.close()
    # immediately (well within the retention): catch-up still works
    a2 = await Client.open(r.url, "A2")
    w = await a2.join(a.room, "Alice", token=a.welcome["token"], after=0)
    assert w["seat"] == 0
    evs = await a2.events_until(lambda e: is_event(e, "join", 0) and e["seq"] > 2)
    assert evs[:4] == a.events[:4]
    await a2.close()


async def test_store_keeps_every_event_and_token_across_sigkill(relay_with_flags):
    r1 = relay_with_flags(durable=True)
    a, b = await seated_pair(r1)
    for i in range(5):
        ev = await a.post({"a": i})
        assert await b.next_event() == ev
        ev = await b.post({"b": i, "nested": {"x": [1, "two", None]}})
        assert await a.next_event() == ev
    last = await strict_marker(a, b)
    history = list(a.events)
    assert history == b.events and history[-1] == last
    token_a, token_b = a.welcome["token"], b.welcome["token"]
    r1.kill()

    r2 = relay_with_flags(durable=True)
    a2 = await Client.open(r2.url, "A2")
    w = await a2.join(a.room, "Alice", token=token_a, after=0)
    assert w["seat"] == 0
    assert w["head"] >= len(history)
    evs = await a2.events_until(lambda e: is_event(e, "join", 0) and e["seq"] > len(history))
    assert evs[: len(history)] == history, "ledger changed across the restart"
    # the only additions may be leaves of the connections lost with the old process
    assert all(e["kind"] == "leave" for e in evs[len(history) : -1]), evs[len(history) :]
    b2 = await Client.open(r2.url, "B2")
    w = await b2.join(a.room, "Bob", token=token_b, after=a2.last_seq)
    assert w["seat"] == 1
    # a relay that learns of the lost connection only now records its leave before the join
    evs = await b2.events_until(lambda e: is_event(e, "join", 1, "Bob"))
    assert all(is_event(e, "leave", 1) for e in evs[:-1]), evs
    assert await a2.events_until(lambda e: is_event(e, "join", 1)) == evs
    await strict_marker(a2, b2)
    await close_all(a2, b2)


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


async def assert_still_usable(c: Client) -> None:
    """An unjoined connection can still join a fresh room and post."""
    await c.join(new_room(), "Ok")
    ev = await c.next_event()
    assert ev["seq"] == 1 and ev["kind"] == "join"
    await strict_marker(c)


@pytest.mark.parametrize("text", ["", "hello", "{", '{"type": "join"', "{'type': 'post'}", "nul\x00l", "[1,"], ids=repr)
async def test_bad_request_not_json(relay, text):
    c = await Client.open(relay.url, "C")
    await c.send_text(text)
    await c.expect_error("bad_request")
    await assert_still_usable(c)
    await c.close()


@pytest.mark.parametrize("text", ['{"type": "join", "type": "post", "body": {}}',
                                  '{"type": "join", "room": "dup", "name": "a", "name": "b"}'], ids=["type", "name"])
async def test_bad_request_a_key_twice_in_one_object(relay, text):
    """Readers disagree on which of two equal keys counts (the last, the first, both): refused, not guessed."""
    c = await Client.open(relay.url, "C")
    await c.send_text(text)
    error = await c.expect_error("bad_request")
    assert "repeats the key" in error["message"]
    await assert_still_usable(c)
    await c.close()


async def test_a_key_twice_inside_a_post_body_is_refused_and_appends_nothing(relay):
    c = await Client.open(relay.url, "C")
    await c.join(new_room(), "Dee")
    assert (await c.next_event())["seq"] == 1
    await c.send_text('{"type": "post", "body": {"n": 1, "n": 2}}')
    await c.expect_error("bad_request")
    await strict_marker(c)  # nothing was appended before the marker
    await c.close()


# -- exactly once (1.1): a post with an id lands once -------------------------------------------------


async def test_a_post_sent_twice_under_one_id_lands_once(relay):
    c = await Client.open(relay.url, "C")
    await c.join(new_room(), "Ann")
    assert (await c.next_event())["kind"] == "join"
    first = await c.post_with_id({"move": 1}, "p-1")
    assert await c.post_with_id({"move": 1}, "p-1") == first  # acknowledged with the first one's seq
    event = await c.next_event()
    assert (event["seq"], event["body"], event["id"]) == (first, {"move": 1}, "p-1")
    await strict_marker(c)  # and nothing else was appended
    await c.close()


async def test_a_post_sent_again_after_a_reconnect_lands_once(relay):
    """The failover case: the first connection's post landed but its acknowledgement was lost; the seat resumes
    (in two-node mode on the other node) and sends it again."""
    room = new_room()
    c = await Client.open(relay.url, "C")
    welcome = await c.join(room, "Ann")
    seq = await c.post_with_id({"move": 1}, "lost-ack")
    c.ws.transport.abort()
    again = await Client.open(relay.url, "C2")
    await again.join(room, "Ann", token=welcome["token"], after=seq - 1)
    assert await again.post_with_id({"move": 1}, "lost-ack") == seq
    kinds = [(e["seq"], e["kind"]) for e in await again.events_until(lambda e: e["kind"] == "join")]
    assert kinds[0] == (seq, "post") and all(kind != "post" for _, kind in kinds[1:])
    await strict_marker(again)
    await again.close()


async def test_ids_are_per_seat_and_a_bad_id_is_refused(relay):
    room = new_room()
    a, b = await Client.open(relay.url, "A"), await Client.open(relay.url, "B")
    await a.join(room, "Ann")
    await b.join(room, "Bob")
    assert await a.post_with_id({"from": "a"}, "same") != await b.post_with_id({"from": "b"}, "same")
    for bad in ["", "x" * 65, "a b", 7, "é"]:
        await a.send({"type": "post", "body": {}, "id": bad})
        await a.expect_error("bad_request")
    await a.close()
    await b.close()


@pytest.mark.parametrize("value", [[], [{"type": "post", "body": {}}], 1, "post", None, True, 2.5], ids=repr)
async def test_bad_request_json_not_an_object(relay, value):
    c = await Client.open(relay.url, "C")
    await c.send(value)
    await c.expect_error("bad_request")
    await assert_still_usable(c)
    await c.close()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "hello"},
        {"type": "JOIN", "room": "x", "name": "y"},
        {"type": "welcome", "room": "x", "seat": 0, "token": "t", "head": 0},
        {"type": "event", "seq": 1, "seat": 0, "name": "n", "kind": "post", "body": {}, "time": 0},
        {"type": "error", "code": "room_full", "message": "m"},
        {"type": 5},
        {"type": None},
        {},
        {"room": "x", "name": "y"},
    ],
    ids=repr,
)
async def test_bad_request_unknown_or_missing_type(relay, frame):
    c = await Client.open(relay.url, "C")
    await c.send(frame)
    await c.expect_error("bad_request")
    await assert_still_usable(c)
    await c.close()


@pytest.mark.parametrize("missing", ["room", "name"])
async def test_bad_request_join_missing_field(relay, missing):
    room = new_room()
    frame = {"type": "join", "room": room, "name": "Zed", "token": None, "after": 0}
    del frame[missing]
    c = await Client.open(relay.url, "C")
    await c.send(frame)
    await c.expect_error("bad_request")
    # nothing was created: the room's first join is still seat 0 with seq 1
    w = await c.join(room, "Zed")
    assert w["seat"] == 0
    assert (await c.next_event())["seq"] == 1
    await c.close()


BAD_ROOMS = [
    "",
    ".",
    "..",
    "...",
    "a" * 65,
    "a b",
    "a/b",
    "a:b",
    "café",
    "ｒｏｏｍ",
    "١٢٣",
    "room\n",
    "\nroom",
    "room\x00",
    "a+b",
    "a*",
    "ä",
]


@pytest.mark.parametrize("room", BAD_ROOMS, ids=repr)
async def test_bad_request_malformed_room(relay, room):
    c = await Client.open(relay.url, "C")
    reply = await c.try_join(room, "Zed")
    assert reply["type"] == "error" and reply["code"] == "bad_request", reply
    check_error_frame(reply)
    await assert_still_usable(c)
    await c.close()


@pytest.mark.parametrize("room", ["x", "A" * 64, ROOM_CHARS[:64], "._-", "0"], ids=repr)
async def test_valid_room_edges_are_accepted(relay, room):
    # unique per test run so as not to collide with other tests
    if len(room) < 64:
        room = room + "-" + uuid.uuid4().hex[:8]
    else:
        room = uuid.uuid4().hex[:8] + room[8:]
    assert len(room) <= 64
    c = await Client.open(relay.url, "C")
    w = await c.join(room, "Zed")
    assert w["room"] == room
    await c.close()


BAD_NAMES = ["", "n" * 33, "a\x00", "\x07bell", "line\nbreak", "tab\there", "del\x7f", "esc\x1b[31m", "name\n"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
async def test_bad_request_malformed_name(relay, name):
    c = await Client.open(relay.url, "C")
    room = new_room()
    reply = await c.try_join(room, name)
    assert reply["type"] == "error" and reply["code"] == "bad_request", reply
    await c.join(room, "Zed")
    assert (await c.next_event())["seq"] == 1
    await c.close()


@pytest.mark.parametrize("name", ["n", "n" * 32, "Ann Lee", "x!@#$%^&*()_+{}|:<>?~"], ids=repr)
async def test_valid_name_edges_are_accepted(relay, name):
    c = await Client.open(relay.url, "C")
    await c.join(new_room(), name)
    ev = await c.next_event()
    assert ev["name"] == name
    await c.close()


@pytest.mark.parametrize(
    "field,value",
    [
        ("room", 5),
        ("room", None),
        ("room", ["r"]),
        ("name", 5),
        ("name", None),
        ("name", {"n": 1}),
        ("token", 123),
        ("token", ["t"]),
        ("token", {}),
        ("after", "3"),
        ("after", [3]),
        ("after", {"n": 3}),
        ("after", 0.5),
        ("after", True),
    ],
    ids=lambda v: repr(v),
)
async def test_bad_request_join_field_of_wrong_type(relay, field, value):
    room = new_room()
    frame = {"type": "join", "room": room, "name": "Zed", "token": None, "after": 0}
    frame[field] = value
    c = await Client.open(relay.url, "C")
    await c.send(frame)
    await c.expect_error("bad_request")
    w = await c.join(room, "Zed")
    assert w["seat"] == 0
    assert (await c.next_event())["seq"] == 1
    await c.close()


@pytest.mark.parametrize("body", [None, [], [1, 2], "text", 5, 1.5, True], ids=repr)
async def test_bad_request_post_body_not_an_object(relay, body):
    a, b = await seated_pair(relay)
    await a.send({"type": "post", "body": body})
    await a.expect_error("bad_request")
    ev = await strict_marker(a, b)
    assert ev["seq"] == 3
    await close_all(a, b)


async def test_bad_request_post_missing_body(relay):
    a, b = await seated_pair(relay)
    await a.send({"type": "post"})
    await a.expect_error("bad_request")
    ev = await strict_marker(a, b)
    assert ev["seq"] == 3
    await close_all(a, b)


async def test_not_joined_post_before_join(relay):
    c = await Client.open(relay.url, "C")
    await c.send({"type": "post", "body": {"early": True}})
    err = await c.expect_error("not_joined")
    check_error_frame(err)
    room = new_room()
    await c.join(room, "Zed")
    ev = await c.next_event()
    assert ev["seq"] == 1 and ev["kind"] == "join"  # the refused post left no trace
    await strict_marker(c)
    await c.close()


async def test_already_joined_same_room(relay):
    a, b = await seated_pair(relay)
    reply = await a.try_join(a.room, "Alice")
    assert reply["type"] == "error" and reply["code"] == "already_joined", reply
    reply = await a.try_join(a.room, "Other", token=a.welcome["token"])
    assert reply["type"] == "error" and reply["code"] == "already_joined", reply
    ev = await strict_marker(a, b)
    assert ev["seq"] == 3
    await close_all(a, b)


async def test_already_joined_other_room_changes_nothing_there(relay):
    a, b = await seated_pair(relay)
    other = new_room()
    reply = await a.try_join(other, "Alice")
    assert reply["type"] == "error" and reply["code"] == "already_joined", reply
    await strict_marker(a, b)
    c = await Client.open(relay.url, "C")
    w = await c.join(other, "Carol")
    assert w["seat"] == 0
    ev = await c.next_event()
    assert ev["seq"] == 1 and is_event(ev, "join", 0, "Carol")
    await close_all(a, b, c)


async def check_too_large(big: Client, observer: Client, payload: str) -> None:
    """Send an oversize frame from ``big``; it must be refused without touching the ledger."""
    await big.send_text(payload)
    closed_code = None
    try:
        await big.expect_error("too_large")
    except ConnectionClosed:
        closed_code = big.ws.close_code
        assert closed_code == 1009, f"oversize frame closed the connection with {closed_code}, not 1009"
    if closed_code is None:
        # connection kept open and usable; ledger unchanged
        ev = await strict_marker(big, observer)
        assert ev["seq"] == 3
    else:
        ev = await observer.next_event()
        assert big.seat is not None
        assert is_event(ev, "leave", big.seat), f"only the leave of the closed connection may follow: {ev}"
        await strict_marker(observer)


async def test_too_large_over_default_1mib(relay):
    a, b = await seated_pair(relay)
    payload = json.dumps({"type": "post", "body": {"pad": "x" * (1024 * 1024 + 64)}})
    await check_too_large(a, b, payload)
    await close_all(a, b)


async def test_just_under_default_1mib_is_accepted(relay):
    a, b = await seated_pair(relay)
    body = {"pad": "y" * (1024 * 1024 - 200)}
    assert len(json.dumps({"type": "post", "body": body})) < 1024 * 1024
    ev = await a.post(body)
    assert ev["seq"] == 3
    assert (await b.next_event()) == ev
    await close_all(a, b)


@FRAME_LIMITS
async def test_too_large_over_configured_max_frame(relay_with_flags):
    r = relay_with_flags("--max-frame", 1024)
    a, b = await seated_pair(r)
    ok_body = {"pad": "z" * 900}
    assert len(json.dumps({"type": "post", "body": ok_body})) < 1024
    ev = await a.post(ok_body)
    assert ev["seq"] == 3
    assert await b.next_event() == ev
    payload = json.dumps({"type": "post", "body": {"pad": "z" * 2000}})
    big, observer = a, b
    await big.send_text(payload)
    try:
        await big.expect_error("too_large")
        ev = await strict_marker(big, observer)
        assert ev["seq"] == 4
    except ConnectionClosed:
        assert big.ws.close_code == 1009, big.ws.close_code
        ev = await observer.next_event()
        assert is_event(ev, "leave", 0) and ev["seq"] == 4
    await close_all(a, b)


def post_frame_of_size(n: int) -> str:
    empty = json.dumps({"type": "post", "body": {"p": ""}})
    text = json.dumps({"type": "post", "body": {"p": "s" * (n - len(empty))}})
    assert len(text.encode()) == n
    return text


@FRAME_LIMITS
async def test_max_frame_boundary_exact_size_accepted_one_byte_more_refused(relay_with_flags):
    r = relay_with_flags("--max-frame", 2048)
    a, b = await seated_pair(r)
    await a.send_text(post_frame_of_size(2048))
    ev = await a.next_event()
    assert ev["seq"] == 3 and len(ev["body"]["p"]) > 2000
    assert await b.next_event() == ev
    await a.send_text(post_frame_of_size(2049))
    try:
        await a.expect_error("too_large")
        ev = await strict_marker(a, b)
        assert ev["seq"] == 4
    except ConnectionClosed:
        assert a.ws.close_code == 1009, a.ws.close_code
        ev = await b.next_event()
        assert is_event(ev, "leave", 0) and ev["seq"] == 4
    await close_all(a, b)


async def test_rate_limited_posts_are_refused_without_changing_ledger(relay_with_flags):
    r = relay_with_flags("--rate", 5, "--burst", 5)
    a, b = await seated_pair(r)
    n = 20
    for i in range(n):
        await a.send({"type": "post", "body": {"i": i}})
    accepted: list[dict] = []
    limited = 0
    while len(accepted) + limited < n:
        frame = await a.recv_frame()
        if frame["type"] == "error":
            assert frame["code"] == "rate_limited", frame
            limited += 1
        else:
            assert frame["type"] == "event" and frame["kind"] == "post" and frame["seat"] == 0, frame
            accepted.append(frame)
    assert limited >= 1, "20 posts at once with --rate 5 --burst 5 were all accepted"
    assert accepted, "no post accepted at all"
    # the other seat saw exactly the accepted posts, at the same seqs
    got_b = [await b.next_event() for _ in accepted]
    assert got_b == accepted
    assert [e["seq"] for e in accepted] == list(range(3, 3 + len(accepted)))
    # the refused posts left no trace: the next event anywhere is b's marker
    await strict_marker(b, a)
    # a's connection stayed open; once the rate allows it, a can post again
    deadline = time.monotonic() + 10
    while True:
        body = marker_body()
        await a.send({"type": "post", "body": body})
        frame = await a.recv_frame()
        if frame["type"] == "event":
            assert frame["body"] == body and frame["seat"] == 0
            assert await b.next_event() == frame
            break
        assert frame["code"] == "rate_limited", frame
        assert time.monotonic() < deadline, "still rate limited after 10 s at --rate 5"
        await asyncio.sleep(0.25)  # back off so the bucket can refill (not used for ordering)
    await close_all(a, b)


@pytest.mark.parametrize(
    "frame,code",
    [
        ("not json", "bad_request"),
        ([1, 2], "bad_request"),
        ({"type": "nope"}, "bad_request"),
        ({"type": "post", "body": "x"}, "bad_request"),
        ({"type": "post"}, "bad_request"),
        ({"type": "join", "room": "x", "name": "y", "token": None, "after": 0}, "already_joined"),
    ],
    ids=repr,
)
async def test_error_frames_have_human_message_and_keep_connection_open(relay, frame, code):
    a, b = await seated_pair(relay)
    if isinstance(frame, str):
        await a.send_text(frame)
    else:
        await a.send(frame)
    err = await a.expect_error(code)
    assert isinstance(err["message"], str) and len(err["message"].strip()) >= 3, err
    assert a.ws.state.name == "OPEN"
    await strict_marker(a, b)
    await close_all(a, b)


async def test_barrage_of_refused_frames_changes_nothing_in_any_ledger(relay):
    a, b = await seated_pair(relay)
    other = new_room()
    frames: list[tuple[Any, str]] = [
        ("}{", "bad_request"),
        ([], "bad_request"),
        ({"type": "hello"}, "bad_request"),
        ({"type": "post", "body": [1]}, "bad_request"),
        ({"type": "post", "body": None}, "bad_request"),
        ({"type": "join", "room": a.room, "name": "Alice", "token": None, "after": 0}, "already_joined"),
        ({"type": "join", "room": other, "name": "Alice", "token": None, "after": 0}, "already_joined"),
    ]
    for frame, _ in frames:
        if isinstance(frame, str):
            await a.send_text(frame)
        else:
            await a.send(frame)
    for _, code in frames:
        await a.expect_error(code)
    ev = await strict_marker(b, a)
    assert ev["seq"] == 3
    c = await Client.open(relay.url, "C")
    await c.join(other, "Carol")
    assert (await c.next_event())["seq"] == 1
    await close_all(a, b, c)


@FRAME_LIMITS
async def test_compressed_huge_message_does_not_stop_relay(relay):
    """A tiny compressed frame that inflates to 20 MiB must not take the relay down."""
    room = new_room()
    a = await Client.open(relay.url, "A", compression="deflate")
    await a.join(room, "Alice")
    await a.next_event()
    v0, v1 = await seated_pair(relay)
    try:  # the relay may close with 1009, and reset a sender that goes on sending what it will not read
        await a.send_text(json.dumps({"type": "post", "body": {"pad": "0" * (20 * 1024 * 1024)}}))
        frame = await a.recv_frame(timeout=20)
        assert frame["type"] in ("error", "event"), frame
    except (ConnectionClosed, ConnectionError):
        pass
    assert relay.alive()
    await strict_marker(v0, v1)
    c = await Client.open(relay.url, "C")
    await assert_still_usable(c)
    await close_all(a, v0, v1, c)


# --------------------------------------------------------------------------
# odd but valid (or almost valid) JSON: refused cleanly or relayed intact
# --------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
async def test_bad_request_for_nan_and_infinity_literals(relay, literal):
    a, b = await seated_pair(relay)
    await a.send_text('{"type": "post", "body": {"x": %s}}' % literal)
    await a.expect_error("bad_request")
    ev = await strict_marker(a, b)
    assert ev["seq"] == 3
    await close_all(a, b)


async def test_number_beyond_double_range_is_not_relayed_as_infinity(relay):
    a, b = await seated_pair(relay)
    await a.send_text('{"type": "post", "body": {"x": 1e400}}')
    # either refused, or relayed as valid JSON (Client parses strictly)
    frame = await a.recv_frame()
    if frame["type"] == "error":
        assert frame["code"] == "bad_request", frame
        await strict_marker(a, b)
    else:
        assert frame["kind"] == "post" and frame["seat"] == 0
        assert await b.next_event() == frame
    await close_all(a, b)


async def test_lone_surrogate_escape_in_body_is_refused_or_relayed(relay):
    r = relay
    a, b = await seated_pair(r)
    body_text = '{"type": "post", "body": {"s": "\\ud800"}}'
    assert "\\ud800" in body_text and "\ud800" not in body_text  # the escape, not the character
    await a.send_text(body_text)
    frame = await a.recv_frame()
    if frame["type"] == "error":
        assert frame["code"] == "bad_request", frame
        last = await strict_marker(a, b)
        assert last["seq"] == 3
    else:
        assert frame["kind"] == "post" and frame["body"] == {"s": "\ud800"}
        assert await b.next_event() == frame  # Client checks b's seq is gapless
        await strict_marker(a, b)
    # the room's history can still be caught up from the start
    await b.close()
    await a.events_until(lambda e: is_event(e, "leave", 1))
    b2 = await Client.open(r.url, "B2")
    await b2.join(a.room, "Bob", token=b.welcome["token"], after=0)
    await b2.events_until(lambda e: is_event(e, "join", 1) and e["seq"] > 2)
    await close_all(a, b2)


class deep_recursion:
    """Let this (client) process parse deeply nested JSON echoes."""

    def __enter__(self) -> None:
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, 20000))

    def __exit__(self, *exc: Any) -> None:
        sys.setrecursionlimit(self.old)


@pytest.mark.parametrize("depth", [1000, 5000])
async def test_deeply_nested_body_is_refused_or_relayed_and_connection_kept(relay, depth):
    a, b = await seated_pair(relay)
    nested = "[" * depth + "]" * depth
    await a.send_text('{"type": "post", "body": {"a": %s}}' % nested)
    with deep_recursion():
        frame = await a.recv_frame()
        if frame["type"] == "error":
            assert frame["code"] in ("bad_request", "too_large"), frame
            ev = await strict_marker(a, b)
            assert ev["seq"] == 3
        else:
            assert frame["kind"] == "post" and frame["seq"] == 3
            assert await b.next_event() == frame
            await strict_marker(a, b)
    await close_all(a, b)


# --------------------------------------------------------------------------
# hypothesis: hostile input never stops the relay nor disturbs another room
# --------------------------------------------------------------------------

FUZZ_MAX_FRAME = 4096


class FuzzEnv:
    """A relay, a private event loop and a victim room that lives across examples."""

    def __init__(self) -> None:
        self.relay = Target([RelayProcess("--max-frame", FUZZ_MAX_FRAME, "--rate", 1000000, "--burst", 1000000).start()])
        self.loop = asyncio.new_event_loop()
        self.v0, self.v1 = self.run(seated_pair(self.relay, new_room("victim")))
        self.v0.label, self.v1.label = "victim0", "victim1"
        self.examples = 0

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, 30))

    async def check_victims(self) -> None:
        """The victim room saw nothing foreign and is still gapless."""
        assert self.relay.alive(), "relay died" + self.relay.log()
        poster, observer = (self.v0, self.v1) if self.examples % 2 else (self.v1, self.v0)
        ev = await strict_marker(poster, observer)
        assert all(e["name"] in ("Alice", "Bob") for e in self.v0.events)
        assert ev["seq"] == self.v0.last_seq == self.v1.last_seq
        self.examples += 1

    def close(self) -> None:
        self.run(close_all(self.v0, self.v1))
        self.loop.close()
        alive = self.relay.alive()
        self.relay.stop()
        assert alive, "relay died during fuzzing" + self.relay.log()


@pytest.fixture(scope="module")
def fuzz():
    env = FuzzEnv()
    yield env
    env.close()


def is_valid_frame_shape(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in ("join", "post", "list")


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda ch: st.lists(ch, max_size=5) | st.dictionaries(st.text(max_size=10), ch, max_size=5),
    max_leaves=15,
)
SURROGATES: tuple[Literal["Cs"]] = ("Cs",)  # hypothesis types Unicode categories as literals
CONTROLS: tuple[Literal["Cc"]] = ("Cc",)
safe_text = st.text(alphabet=st.characters(blacklist_categories=SURROGATES), max_size=200)


async def fuzz_joined_client(env: FuzzEnv) -> Client:
    c = await Client.open(env.relay.url, "fuzzer")
    await c.join(new_room("fz"), "fuzzer")
    ev = await c.next_event()
    assert ev["seq"] == 1
    return c


@FUZZ_SETTINGS
@given(frames=st.lists(safe_text, min_size=1, max_size=8), joined=st.booleans())
def test_fuzz_garbage_text_frames(fuzz, frames, joined):
    for f in frames:
        try:
            assume(not is_valid_frame_shape(json.loads(f)))
        except ValueError:
            pass

    async def example() -> None:
        c = await fuzz_joined_client(fuzz) if joined else await Client.open(fuzz.relay.url, "fuzzer")
        for f in frames:
            await c.send_text(f)
        for _ in frames:
            await c.expect_error("bad_request")
        if joined:
            ev = await strict_marker(c)
            assert ev["seq"] == 2
        else:
            await assert_still_usable(c)
        await c.close()
        await fuzz.check_victims()

    fuzz.run(example())


@FUZZ_SETTINGS
@given(
    values=st.lists(json_values | st.dictionaries(st.just("type"), json_values, min_size=1), min_size=1, max_size=8),
    joined=st.booleans(),
)
def test_fuzz_random_json_values(fuzz, values, joined):
    assume(not any(is_valid_frame_shape(v) for v in values))

    async def example() -> None:
        c = await fuzz_joined_client(fuzz) if joined else await Client.open(fuzz.relay.url, "fuzzer")
        for v in values:
            await c.send_text(json.dumps(v, ensure_ascii=False))
        for _ in values:
            await c.expect_error("bad_request")
        if joined:
            ev = await strict_marker(c)
            assert ev["seq"] == 2
        else:
            await assert_still_usable(c)
        await c.close()
        await fuzz.check_victims()

    fuzz.run(example())


non_string = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(json_scalars, max_size=3)
    | st.dictionaries(st.text(max_size=5), json_scalars, max_size=3)
)
bad_room_values = (
    non_string
    | st.sampled_from(BAD_ROOMS)
    | st.text(min_size=65, max_size=80, alphabet=ROOM_CHARS)
    | st.text(min_size=1, max_size=10).filter(lambda s: not re.fullmatch(r"[A-Za-z0-9._-]+", s))
)
bad_name_values = (
    non_string
    | st.sampled_from(BAD_NAMES)
    | st.text(min_size=33, max_size=40, alphabet="abc")
    | st.tuples(st.text(max_size=5), st.characters(categories=CONTROLS), st.text(max_size=5))
    .map("".join)
    .filter(lambda s: len(s) <= 32)
)
bad_token_types = (
    st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(json_scalars, max_size=3)
    | st.dictionaries(st.text(max_size=5), json_scalars, max_size=3)
)
bad_after_values = (
    st.text(max_size=5)
    | st.booleans()
    | st.lists(st.integers(0, 5), max_size=3)
    | st.dictionaries(st.text(max_size=5), json_scalars, max_size=3)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f != int(f))
)
bad_bodies = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.lists(json_scalars, max_size=3)
)

join_mutations = st.one_of(
    st.tuples(st.just("room"), bad_room_values),
    st.tuples(st.just("name"), bad_name_values),
    st.tuples(st.just("token"), bad_token_types),
    st.tuples(st.just("after"), bad_after_values),
    st.tuples(st.just("drop"), st.sampled_from(["room", "name", "type"])),
)
post_mutations = st.one_of(st.tuples(st.just("body"), bad_bodies), st.tuples(st.just("drop"), st.just("body")))


@FUZZ_SETTINGS
@given(
    join_muts=st.lists(join_mutations, min_size=1, max_size=4),
    post_muts=st.lists(post_mutations, min_size=1, max_size=4),
)
def test_fuzz_wrong_field_types(fuzz, join_muts, post_muts):
    async def example() -> None:
        c = await Client.open(fuzz.relay.url, "fuzzer")
        room = new_room("fz")
        for field, value in join_muts:
            frame: dict[str, Any] = {"type": "join", "room": room, "name": "fuzzer", "token": None, "after": 0}
            if field == "drop":
                del frame[value]
            else:
                frame[field] = value
            await c.send(frame)
            await c.expect_error("bad_request")
        # none of the refused joins touched the room
        w = await c.join(room, "fuzzer")
        assert w["seat"] == 0
        assert (await c.next_event())["seq"] == 1
        for field, value in post_muts:
            frame = {"type": "post", "body": {}}
            if field == "drop":
                del frame["body"]
            else:
                frame["body"] = value
            await c.send(frame)
            await c.expect_error("bad_request")
        ev = await strict_marker(c)
        assert ev["seq"] == 2
        await c.close()
        await fuzz.check_victims()

    fuzz.run(example())


hostile_items = st.one_of(
    st.tuples(st.just("binary"), st.binary(max_size=300)),
    st.tuples(st.just("binary"), safe_text.map(lambda s: json.dumps({"type": "post", "body": {"s": s}}).encode())),
    st.tuples(st.just("big"), st.integers(FUZZ_MAX_FRAME + 1, 4 * FUZZ_MAX_FRAME)),
    st.tuples(st.just("text"), safe_text),
)


@FUZZ_SETTINGS
@given(items=st.lists(hostile_items, min_size=1, max_size=6))
def test_fuzz_binary_and_big_frames(fuzz, items):
    async def example() -> None:
        c = await fuzz_joined_client(fuzz)
        for kind, data in items:
            if kind == "binary":
                await c.send_bytes(data)
            elif kind == "big":
                await c.send_text(json.dumps({"type": "post", "body": {"pad": "b" * data}}))
            else:
                try:
                    if is_valid_frame_shape(json.loads(data)):
                        continue
                except ValueError:
                    pass
                await c.send_text(data)
            # synchronise with a probe that has its own error code: a second join
            try:
                await c.send({"type": "join", "room": c.room, "name": "fuzzer", "token": None, "after": 0})
                before = []
                while True:
                    frame = await c.recv_frame()
                    assert frame["type"] == "error", f"hostile {kind} frame produced {frame}"
                    if frame["code"] == "already_joined":
                        break
                    before.append(frame["code"])
                if kind == "text":
                    assert before == ["bad_request"], before
                elif kind == "big":
                    assert before == ["too_large"], before
                else:
                    assert len(before) <= 1, before
            except ConnectionClosed:
                if kind == "big":
                    assert c.ws.close_code == 1009, c.ws.close_code
                elif kind == "text":
                    pytest.fail(f"relay closed the connection after a text frame: {data!r}")
                c = await fuzz_joined_client(fuzz)
        ev = await strict_marker(c)
        assert ev["seq"] == 2, "a refused frame changed the ledger"
        await c.close()
        await fuzz.check_victims()

    fuzz.run(example())


json_objects = st.dictionaries(
    st.text(alphabet=st.characters(blacklist_categories=SURROGATES), max_size=10), json_values, max_size=6
)


@FUZZ_SETTINGS
@given(body=json_objects, ascii_only=st.booleans())
def test_fuzz_body_roundtrip(fuzz, body, ascii_only):
    text = json.dumps({"type": "post", "body": body}, ensure_ascii=ascii_only)
    assume(len(text.encode()) < FUZZ_MAX_FRAME - 200)

    async def example() -> None:
        await fuzz.v0.send_text(text)
        for c in (fuzz.v0, fuzz.v1):
            ev = await c.next_event()
            assert ev["kind"] == "post" and ev["seat"] == 0 and ev["name"] == "Alice"
            assert ev["body"] == body
            assert json.dumps(ev["body"], sort_keys=True) == json.dumps(body, sort_keys=True)
        await fuzz.check_victims()

    fuzz.run(example())
