"""The ledger client against servers that are not a well-behaved discard relay."""

import json

import pytest
from websockets.asyncio.server import serve

from tabletop.ledger import RelayClient, RelayError


async def scripted_server(replies):
    """A websocket server that answers the join with ``replies`` (raw text frames)."""

    async def handler(connection):
        await connection.recv()
        for reply in replies:
            await connection.send(reply)
        await connection.wait_closed()

    return await serve(handler, "127.0.0.1", 0)


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
    server = await scripted_server(replies)
    port = server.sockets[0].getsockname()[1]
    client = RelayClient(f"ws://127.0.0.1:{port}", "r", "a")
    try:
        with pytest.raises(RelayError, match=reason):
            await client.open()
    finally:
        await client.close()
        server.close()


async def test_a_relay_that_skips_an_event_is_caught():
    server = await scripted_server([WELCOME, event(1), event(3)])
    port = server.sockets[0].getsockname()[1]
    client = RelayClient(f"ws://127.0.0.1:{port}", "r", "a")
    try:
        await client.open()
        with pytest.raises(RelayError, match="skipped events: #3 came after #1"):
            async for _ in client.events():
                pass
    finally:
        await client.close()
        server.close()
