"""The one websocket client the tests speak the relay protocol with (docs/relay-protocol.md).

A spec-only client: it knows the contract and nothing about the implementation, and it checks every
frame as it arrives (text, strict JSON, the shape of its type; events gapless from the join's ``after``;
``posted`` acknowledgements well formed).  So any test that talks to a relay through it also checks what
the relay sent.  Test modules that use it import ``close_leftover_clients`` too: an autouse fixture that
aborts, at teardown, the clients a failing test left open.
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
import time
from typing import Any, Callable

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

TIMEOUT = 5.0  # seconds a client waits for any one frame, unless told otherwise
MAX_SEATS = 6


OPEN_CLIENTS: list[tuple[asyncio.AbstractEventLoop, "Client"]] = []


@pytest.fixture(autouse=True)
async def close_leftover_clients():
    """Close, at teardown, clients a failing test left open (keeps the relay idle)."""
    yield
    await abort_clients_of_this_loop()


async def abort_clients_of_this_loop() -> None:
    loop = asyncio.get_running_loop()
    mine = [c for lp, c in OPEN_CLIENTS if lp is loop]
    OPEN_CLIENTS[:] = [(lp, c) for lp, c in OPEN_CLIENTS if lp is not loop and not lp.is_closed()]
    for c in mine:
        if c.ws.state.name != "CLOSED":
            c.ws.transport.abort()
    await asyncio.sleep(0)  # let the aborted transports close their sockets


class Client:
    """A spec-only client that validates every frame as it arrives.

    Events are checked on arrival: well-formed, and ``seq`` exactly one more
    than the previous event on this connection (the first one is
    ``after + 1``).  Frames read while looking for something else are kept
    in ``pending`` so nothing is lost.
    """

    def __init__(self, ws: Any, label: str) -> None:
        self.ws = ws
        self.label = label
        self.pending: collections.deque[dict] = collections.deque()
        self.events: list[dict] = []
        self.acks: list[dict] = []  # "posted" frames (1.1): acknowledgements of posts sent with an id
        self.last_seq: int | None = None
        self.welcome: dict | None = None
        self.seat: int | None = None
        self.name: str | None = None
        self.room: str | None = None

    @classmethod
    async def open(cls, url: str, label: str = "?", path: str = "/", compression: str | None = None) -> "Client":
        ws = await connect(
            url + path,
            max_size=None,
            max_queue=None,
            open_timeout=TIMEOUT,
            close_timeout=2,
            ping_interval=None,
            compression=compression,
            proxy=None,
        )
        client = cls(ws, label)
        OPEN_CLIENTS.append((asyncio.get_running_loop(), client))
        return client

    # -- sending --------------------------------------------------------

    async def send(self, obj: Any) -> None:
        await self.ws.send(json.dumps(obj))

    async def send_text(self, text: str) -> None:
        await self.ws.send(text)

    async def send_bytes(self, data: bytes) -> None:
        await self.ws.send(data)

    # -- receiving ------------------------------------------------------

    async def recv_frame(self, timeout: float = TIMEOUT) -> dict:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(raw, str), f"{self.label}: relay sent a binary frame: {raw!r:.200}"
        frame = strict_json(raw)
        assert isinstance(frame, dict), f"{self.label}: frame is not a JSON object: {raw:.200}"
        kind = frame.get("type")
        if kind == "event":
            self._check_event(frame)
        elif kind == "error":
            check_error_frame(frame)
        elif kind == "posted":
            assert set(frame) == {"type", "id", "seq"} and isinstance(frame["id"], str), frame
            assert isinstance(frame["seq"], int) and not isinstance(frame["seq"], bool), frame
            self.acks.append(frame)
        elif kind != "welcome":
            pytest.fail(f"{self.label}: unknown frame type from relay: {raw:.200}")
        return frame

    def _check_event(self, ev: dict) -> None:
        assert self.last_seq is not None, f"{self.label}: event before welcome: {ev}"
        check_event_shape(ev)
        assert ev["seq"] == self.last_seq + 1, f"{self.label}: expected seq {self.last_seq + 1}, got {ev['seq']} ({ev})"
        self.last_seq = ev["seq"]
        self.events.append(ev)

    async def _next(self) -> dict:
        if self.pending:
            return self.pending.popleft()
        return await self.recv_frame()

    async def next_event(self) -> dict:
        frame = await self._next()
        assert frame["type"] == "event", f"{self.label}: expected an event, got {frame}"
        return frame

    async def events_until(self, pred: Callable[[dict], bool]) -> list[dict]:
        """Events up to and including the first that satisfies ``pred``."""
        out = []
        while True:
            ev = await self.next_event()
            out.append(ev)
            if pred(ev):
                return out

    async def expect_error(self, code: str | set[str]) -> dict:
        """Read until an error frame arrives (buffering events) and check its code."""
        codes = {code} if isinstance(code, str) else set(code)
        skipped: list[dict] = []
        while True:
            frame = await self.recv_frame()
            if frame["type"] == "error":
                self.pending.extend(skipped)
                assert frame["code"] in codes, f"{self.label}: expected error {codes}, got {frame}"
                return frame
            assert frame["type"] == "event", f"{self.label}: expected error {codes}, got {frame}"
            skipped.append(frame)

    async def expect_closed(self, timeout: float = TIMEOUT) -> int | None:
        """Drain until the relay closes the connection; return the close code."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"{self.label}: connection was not closed within {timeout}s")
                try:
                    self.pending.append(await self.recv_frame(timeout=left))
                except asyncio.TimeoutError:
                    pytest.fail(f"{self.label}: connection was not closed within {timeout}s")
        except ConnectionClosed:
            pass
        return self.ws.close_code

    # -- protocol actions ------------------------------------------------

    async def try_join(
        self,
        room: str,
        name: str,
        token: str | None = None,
        after: int | None = 0,
        *,
        send_after: bool = True,
        seats: int | None = None,
    ) -> dict:
        """Send a join (with ``"seats"`` if given); return the welcome or error frame."""
        frame: dict[str, Any] = {"type": "join", "room": room, "name": name, "token": token}
        if send_after:
            frame["after"] = after
        if seats is not None:
            frame["seats"] = seats
        await self.send(frame)
        while True:
            reply = await self.recv_frame()
            if reply["type"] == "welcome":
                check_welcome_shape(reply)
                assert self.welcome is None, f"{self.label}: second welcome on one connection"
                assert reply["room"] == room, reply
                self.welcome = reply
                self.seat = reply["seat"]
                self.name = name
                self.room = room
                self.last_seq = after if send_after else 0
                return reply
            if reply["type"] == "error":
                return reply
            self.pending.append(reply)  # events of an earlier room (already joined)

    async def join(self, room: str, name: str, token: str | None = None, after: int | None = 0, **kw: Any) -> dict:
        reply = await self.try_join(room, name, token, after, **kw)
        assert reply["type"] == "welcome", f"{self.label}: join refused: {reply}"
        return reply

    async def post(self, body: dict) -> dict:
        """Post and wait for our own event (other events may come first)."""
        await self.send({"type": "post", "body": body})
        evs = await self.events_until(lambda e: e["kind"] == "post" and e["seat"] == self.seat and e["body"] == body)
        return evs[-1]

    async def close(self) -> None:
        await self.ws.close()

    async def post_with_id(self, body: dict, post_id: str) -> int:
        """Post under ``post_id`` and wait for its acknowledgement; the seq it names (events are kept)."""
        known = len(self.acks)
        await self.send({"type": "post", "body": body, "id": post_id})
        while len(self.acks) == known:
            frame = await self.recv_frame()
            if frame["type"] == "event":
                self.pending.append(frame)
        ack = self.acks[known]
        assert ack["id"] == post_id, ack
        return ack["seq"]



def _reject_constant(name: str) -> Any:
    raise ValueError(f"relay sent {name}, which is not JSON")


def strict_json(raw: str) -> Any:
    """Parse like a strict JSON client: NaN / Infinity / -Infinity are not JSON."""
    return json.loads(raw, parse_constant=_reject_constant)


def check_error_frame(frame: dict) -> None:
    assert set(frame) >= {"type", "code", "message"}, frame
    assert isinstance(frame["code"], str) and frame["code"], frame
    assert isinstance(frame["message"], str) and frame["message"].strip(), f"error without a human message: {frame}"


def check_welcome_shape(w: dict) -> None:
    assert set(w) >= {"type", "room", "seat", "token", "head", "seats"}, w
    assert w["seats"] in range(2, MAX_SEATS + 1) and not isinstance(w["seats"], bool), w
    assert w["seat"] in range(w["seats"]) and not isinstance(w["seat"], bool), w
    assert isinstance(w["token"], str) and w["token"], w
    assert isinstance(w["head"], int) and not isinstance(w["head"], bool) and w["head"] >= 0, w


def check_event_shape(ev: dict) -> None:
    assert set(ev) >= {"type", "seq", "seat", "name", "kind", "body", "time"}, ev
    assert set(ev) <= {"type", "seq", "seat", "name", "kind", "body", "time", "id"}, ev
    assert "id" not in ev or (ev["kind"] == "post" and isinstance(ev["id"], str)), ev
    assert isinstance(ev["seq"], int) and not isinstance(ev["seq"], bool) and ev["seq"] >= 1, ev
    assert ev["seat"] in range(MAX_SEATS) and not isinstance(ev["seat"], bool), ev
    assert isinstance(ev["name"], str) and ev["name"], ev
    assert ev["kind"] in ("join", "leave", "post"), ev
    if ev["kind"] == "post":
        assert isinstance(ev["body"], dict), ev
    else:
        assert ev["body"] is None, ev
    t = ev["time"]
    assert isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t), ev
    assert abs(t - time.time()) < 3600, f"time is not the relay's current Unix time in seconds: {ev}"

