"""The ledger client against servers that are not a well-behaved discard relay."""

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosedError

from relay_client import Client
from relay_client import close_leftover_clients as close_leftover_clients  # autouse
from tabletop import ledger
from tabletop.ledger import FIRST_DELAY, Link, RelayClient, RelayError


async def scripted_server(replies):
    """A websocket server that answers the join with ``replies`` (raw text frames)."""

    async def handler(connection):
        await connection.recv()
        for reply in replies:
            await connection.send(reply)
        await connection.wait_closed()

    return await serve(handler, "127.0.0.1", 0)


@asynccontextmanager
async def scripted_client(replies) -> AsyncIterator[RelayClient]:
    """A client (not yet open) of a :func:`scripted_server` sending ``replies``; both closed afterwards."""
    server = await scripted_server(replies)
    client = RelayClient(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", "r", "a")
    try:
        yield client
    finally:
        await client.close()
        server.close()


WELCOME = json.dumps({"type": "welcome", "room": "r", "seat": 0, "token": "t" * 32, "head": 1})


def event(seq):
    return json.dumps({"type": "event", "seq": seq, "seat": 0, "name": "a", "kind": "join", "body": None,
                       "time": 0})


@pytest.mark.parametrize("replies, reason", [
    (["not json at all"], "not a discard relay frame"),
    (['{"type": "join", "room": "r"}'], r"is not a discard relay \(its welcome has no 'seat'\)"),
    (["[1, 2, 3]"], "not a discard relay frame"),
])
async def test_a_server_that_is_no_relay_is_named_at_once(replies, reason):
    async with scripted_client(replies) as client:
        with pytest.raises(RelayError, match=reason):
            await client.open()


async def test_a_relay_that_skips_an_event_is_caught():
    async with scripted_client([WELCOME, event(1), event(3)]) as client:
        await client.open()
        with pytest.raises(RelayError, match="skipped events: #3 came after #1"):
            async for _ in client.events():
                pass


@pytest.mark.parametrize("change", [{"time": float("nan")}, {"time": "0"}, {"seat": "0"}, {"seat": -2},
                                    {"seat": 6}, {"kind": "watch"}, {"body": {"game": 1}}],
                         ids=["nan-time", "text-time", "text-seat", "seat-minus-2", "seat-6", "watch-in-a-seat",
                              "join-with-a-body"])
async def test_a_relay_that_sends_a_malformed_event_is_named(change):
    """Every field of an event has its type and range: a made-up seat would seat a party of the relay's own, a time
    that is no number would stop the table's clock with an error instead of a finding."""
    frame = json.loads(event(1)) | change
    async with scripted_client([WELCOME, json.dumps(frame)]) as client:
        await client.open()
        with pytest.raises(RelayError, match="the relay sent a malformed event"):
            async for _ in client.events():
                pass


def dead_url():
    with socket.socket() as s:  # bound, never listening: connections are refused
        s.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{s.getsockname()[1]}"


async def test_the_next_relay_is_used_when_one_is_unreachable(relay_url):
    client = RelayClient(f"{dead_url()},{relay_url}", "r", "a")
    try:
        await client.open()
        assert (client.url, client.seat) == (relay_url, 0)
    finally:
        await client.close()


async def test_every_unreachable_relay_is_named():
    first, second = dead_url(), dead_url()
    client = RelayClient(f"{first}, {second}", "r", "a")
    with pytest.raises(RelayError, match=f"cannot reach any relay: {first} .*; {second} "):
        await client.open()


async def test_backoff_starts_afresh_once_a_session_is_back(eventually):
    """A relay that seats us and then drops the connection: each reconnect waits the first delay again."""
    connections = []

    async def handler(connection):
        connections.append(connection)
        await connection.recv()
        await connection.send(json.dumps({"type": "welcome", "room": "r", "seat": 0, "token": "t" * 32, "head": 0}))
        # No close frame: a lost connection, not a clean close. A FIN, not a reset: a reset could reach the
        # client before it has read the welcome, and the kernel drops what it had not read.
        connection.transport.close()

    server = await serve(handler, "127.0.0.1", 0)
    client = RelayClient(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", "r", "a")
    # A bound of its own inside pytest-timeout's: a hang fails with the traceback of the await that hung rather than
    # the event loop's select. (It was close(), on a client a lost cancel kept reconnecting: see the next test.)
    async with asyncio.timeout(45):
        try:
            await client.open()
            # Ends early, with the reason, if the client's loop stops (a silent stop once timed this test out).
            await eventually(lambda: len(connections) >= 5 or client._task.done(), "four reconnects")
            if client._task.done():
                reason = client._task.exception() or (client._queue.get_nowait() if client._queue.qsize() else None)
                raise AssertionError(f"after {len(connections)} connections the client stopped reconnecting: "
                                     f"{reason!r}")
            assert client._delay <= 2 * FIRST_DELAY  # reset at each welcome, doubled once after the loss
        finally:
            await client.close()
            server.close()


async def test_a_close_as_the_welcome_arrives_ends_the_client(monkeypatch):
    """close() in the moment a reconnect's welcome has arrived and not yet been read: the client stops there. (On
    Python 3.11 asyncio.wait_for dropped that cancel: the client read the welcome, lost the link, reconnected and
    so on for ever, and close() never returned: the rare hang of the test above.)"""
    welcome, waiting = asyncio.get_running_loop().create_future(), asyncio.Event()
    replies = [asyncio.get_running_loop().create_future(), welcome]  # the first session's welcome, then the second's
    replies[0].set_result(WELCOME)

    class Connection:
        """A relay that seats us and then loses the connection."""

        def __init__(self, reply):
            self.reply = reply

        async def send(self, frame):
            pass

        async def recv(self):
            if self.reply is welcome:
                waiting.set()
            return await self.reply

        def __aiter__(self):
            return self

        async def __anext__(self):
            raise ConnectionClosedError(None, None)

    @contextlib.asynccontextmanager
    async def connect(url, **options):
        yield Connection(replies.pop(0))  # a third connection (IndexError) is a reconnect after close()

    monkeypatch.setattr(ledger, "connect", connect)
    client = RelayClient("ws://relay.test", "r", "a")
    await client.open()
    await waiting.wait()  # the second connection waits for its welcome
    welcome.set_result(WELCOME)
    await client.close()  # in the same moment: the welcome is there, not yet read
    assert client._task is not None and client._task.cancelled(), f"the client went on after close(): {client._task}"
    assert client.link is Link.CLOSED


async def test_a_join_whose_answer_was_lost_is_sent_again_under_its_id_until_we_have_a_token():
    """Relay 1.4: the first join's connection breaks unanswered, the second is refused ``unavailable`` (each may have
    taken a seat): both are sent again under the same secret id, so the relay answers with the seat they took; once a
    welcome has given us a token, we resume with it and send no id."""
    joins: list[dict] = []
    fourth = asyncio.Event()

    async def handler(connection):
        joins.append(json.loads(await connection.recv()))
        if len(joins) == 2:
            await connection.send(json.dumps({"type": "error", "code": "unavailable", "message": "store away"}))
        elif len(joins) >= 3:
            await connection.send(WELCOME)
        if len(joins) == 4:
            fourth.set()
            await connection.wait_closed()
        connection.transport.close()  # the first: its answer lost; the third: a lost link after the welcome

    server = await serve(handler, "127.0.0.1", 0)
    client = RelayClient(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", "r", "a")
    try:
        await client.open()
        await asyncio.wait_for(fourth.wait(), 10)
    finally:
        await client.close()
        server.close()
    first_id = joins[0]["id"]
    assert len(first_id) >= 22 and all((j["token"], j["id"]) == (None, first_id) for j in joins[:3]), joins
    assert joins[3]["token"] == "t" * 32 and "id" not in joins[3], joins[3]
    assert RelayClient("ws://relay.test", "r", "a").join_id != first_id  # drawn afresh for every client


async def test_a_relay_without_its_store_sends_us_to_the_next(relay_url):
    unserved = await scripted_server([json.dumps({"type": "error", "code": "unavailable",
                                                  "message": "the relay's store is unavailable"})])
    client = RelayClient(f"ws://127.0.0.1:{unserved.sockets[0].getsockname()[1]},{relay_url}", "r", "a")
    try:
        await client.open()
        assert client.url == relay_url
    finally:
        await client.close()
        unserved.close()


@pytest.mark.parametrize("limits, pad, posts", [
    ({"rate": 20, "burst": 3}, "", 12),  # frames: a burst of 3, 20 a second
    ({"byte_rate": 50_000, "byte_burst": 12_000}, "x" * 5_000, 10),  # bytes (1.2): 12,000 at once, 50,000 a second
], ids=["frames", "bytes"])
async def test_posts_keep_to_the_limits_the_relay_states_so_none_is_refused(relay_server, limits, pad, posts):
    """A relay with tight limits: a raw client sending its posts at once is refused, ours sends them in a row and
    every one lands, in order (a refused post would leave a gap in its counters)."""
    from relay.server import Limits

    relay, url = relay_server
    relay.limits = Limits(**limits)
    raw = await Client.open(url, "raw")
    await raw.join("raw", "a")
    for n in range(posts):
        await raw.send_post({"n": n, "pad": pad})
    replies = [await raw.recv_frame() for _ in range(posts + 1)]  # the join event, then one reply per post
    assert any(r.get("code") == "rate_limited" for r in replies)
    await raw.close()

    client = RelayClient(url, "paced", "a")
    try:
        await client.open()
        assert all([await client.post({"n": n, "pad": pad}) for n in range(posts)])
        bodies = []
        async for event in client.events():
            if getattr(event, "kind", None) == "post":
                bodies.append(event.body["n"])
                if len(bodies) == posts:
                    break
        assert bodies == list(range(posts))
    finally:
        await client.close()

