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
import re
import ssl
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

    def __init__(self, ws: Any, label: str, timeout: float = TIMEOUT) -> None:
        self.ws = ws
        self.label = label
        self.timeout = timeout  # how long to wait for any one frame (and for the close, or an ``until``)
        self.pending: collections.deque[dict] = collections.deque()
        self.events: list[dict] = []
        self.raw: list[str] = []  # every event frame, exactly as received: for byte-for-byte comparisons
        self.acks: list[dict] = []  # "posted" frames (1.1): acknowledgements of posts sent with an id
        self.last_seq: int | None = None
        self.welcome: dict | None = None
        self.seat: int | None = None
        self.name: str | None = None
        self.room: str | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        label: str = "?",
        path: str = "/",
        compression: str | None = None,
        *,
        timeout: float = TIMEOUT,
        tls: ssl.SSLContext | None = None,
        source: str | None = None,
    ) -> "Client":
        """Connect (to a ``wss://`` URL with ``tls``, else the system's trust store; from the local address
        ``source``, such as 127.0.0.2, to be another party to the relay); nothing is sent yet."""
        options: dict[str, Any] = {} if tls is None else {"ssl": tls}  # ssl=None would mean no TLS, even for wss://
        if source is not None:
            options["local_addr"] = (source, 0)
        ws = await connect(
            url + path,
            max_size=None,
            max_queue=None,
            open_timeout=timeout,
            close_timeout=2,
            ping_interval=None,
            compression=compression,
            proxy=None,
            **options,
        )
        client = cls(ws, label, timeout)
        OPEN_CLIENTS.append((asyncio.get_running_loop(), client))
        return client

    @classmethod
    async def seated(
        cls, url: str, room: str, name: str, token: str | None = None, after: int = 0, *, timeout: float = TIMEOUT,
        source: str | None = None,
    ) -> "Client":
        """Connect (from ``source``) and join (or resume, with ``token``): a client in its seat, labelled with its
        name."""
        client = await cls.open(url, name, timeout=timeout, source=source)
        await client.join(room, name, token, after)
        return client

    @property
    def token(self) -> str:
        assert self.welcome is not None, f"{self.label}: not seated"
        return self.welcome["token"]

    @property
    def head(self) -> int:
        """The room's last seq when the relay welcomed us."""
        assert self.welcome is not None, f"{self.label}: not seated"
        return self.welcome["head"]

    # -- sending --------------------------------------------------------

    async def send(self, obj: Any) -> None:
        await self.ws.send(json.dumps(obj))

    async def send_text(self, text: str) -> None:
        await self.ws.send(text)

    async def send_bytes(self, data: bytes) -> None:
        await self.ws.send(data)

    # -- receiving ------------------------------------------------------

    async def recv_frame(self, timeout: float | None = None) -> dict:
        async with asyncio.timeout(timeout or self.timeout):  # (not wait_for: a player task's cancel must stop it)
            raw = await self.ws.recv()
        assert isinstance(raw, str), f"{self.label}: relay sent a binary frame: {raw!r:.200}"
        frame = strict_json(raw)
        assert isinstance(frame, dict), f"{self.label}: frame is not a JSON object: {raw:.200}"
        kind = frame.get("type")
        if kind == "event":
            self._check_event(frame)
            self.raw.append(raw)
        elif kind == "error":
            check_error_frame(frame)
        elif kind == "posted":
            assert set(frame) == {"type", "id", "seq"} and isinstance(frame["id"], str), frame
            assert isinstance(frame["seq"], int) and not isinstance(frame["seq"], bool), frame
            self.acks.append(frame)
        elif kind == "rooms":
            check_rooms_frame(frame)
        elif kind != "welcome":
            pytest.fail(f"{self.label}: unknown frame type from relay: {raw:.200}")
        return frame

    def _check_event(self, ev: dict) -> None:
        assert self.last_seq is not None, f"{self.label}: event before welcome: {ev}"
        check_event_shape(ev)
        assert ev["seq"] == self.last_seq + 1, f"{self.label}: expected seq {self.last_seq + 1}, got {ev['seq']} ({ev})"
        self.last_seq = ev["seq"]
        self.events.append(ev)

    async def _next(self, timeout: float | None = None) -> dict:
        if self.pending:
            return self.pending.popleft()
        return await self.recv_frame(timeout)

    async def next_event(self, timeout: float | None = None) -> dict:
        frame = await self._next(timeout)
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

    async def until(self, pred: Callable[[dict], bool], timeout: float | None = None) -> dict:
        """The first event that satisfies ``pred``, within ``timeout`` in all (the ones before it are read past)."""
        async with asyncio.timeout(timeout or self.timeout):
            return (await self.events_until(pred))[-1]

    async def until_seq(self, seq: int) -> None:
        """Read events until event ``seq`` has arrived (at once if it has already)."""
        assert self.last_seq is not None, f"{self.label}: not seated"
        if self.last_seq < seq:
            await self.events_until(lambda e: e["seq"] >= seq)

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

    async def expect_closed(self, timeout: float | None = None) -> int | None:
        """Drain until the relay closes the connection (or goes away); return the close code."""
        timeout = timeout or self.timeout
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
        public: Any = None,
        join_id: str | None = None,
    ) -> dict:
        """Send a join (with ``"seats"``, ``"public"`` and its ``"id"`` (1.4) if given); return the welcome or error
        frame."""
        frame: dict[str, Any] = {"type": "join", "room": room, "name": name, "token": token}
        if join_id is not None:
            frame["id"] = join_id
        if send_after:
            frame["after"] = after
        if seats is not None:
            frame["seats"] = seats
        if public is not None:
            frame["public"] = public
        reply = await self.ask(frame, "welcome")
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

    async def try_watch(self, room: str, name: str, after: int = 0) -> dict:
        """Send a watcher's join (1.3); return the welcome or error frame."""
        reply = await self.ask({"type": "join", "room": room, "name": name, "watch": True, "after": after}, "welcome")
        if reply["type"] == "welcome":
            assert set(reply) >= {"type", "room", "seat", "token", "head", "seats", "watch", "watching", "watchers"}
            assert (reply["seat"], reply["token"], reply["watch"], reply["room"]) == (None, None, True, room), reply
            assert 1 <= reply["watching"] <= reply["watchers"], reply
            self.welcome, self.seat, self.name, self.room, self.last_seq = reply, -1, name, room, after
        return reply

    async def join(self, room: str, name: str, token: str | None = None, after: int | None = 0, **kw: Any) -> dict:
        reply = await self.try_join(room, name, token, after, **kw)
        assert reply["type"] == "welcome", f"{self.label}: join refused: {reply}"
        return reply

    async def list_rooms(self, after: str | None = None, limit: int | None = None, under_way: bool = False) -> dict:
        """Ask for one page of the lobby (1.2), or of the rooms under way (1.3); the ``rooms`` frame, or the error
        (events read meanwhile are kept)."""
        frame: dict[str, Any] = {"type": "list", **({"under_way": True} if under_way else {})}
        if after is not None:
            frame["after"] = after
        if limit is not None:
            frame["limit"] = limit
        return await self.ask(frame, "rooms")

    async def ask(self, frame: dict, answer: str) -> dict:
        """Send ``frame``; the next frame of type ``answer``, or the error (the frames read meanwhile, events of an
        earlier room, are kept in ``pending``)."""
        await self.send(frame)
        while True:
            reply = await self.recv_frame()
            if reply["type"] in (answer, "error"):
                return reply
            self.pending.append(reply)

    async def send_post(self, body: dict) -> None:
        """Post without waiting for anything."""
        await self.send({"type": "post", "body": body})

    async def post(self, body: dict) -> dict:
        """Post and wait for our own event (other events may come first)."""
        await self.send_post(body)
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


ROW_KEYS = {"room", "seats", "taken", "names", "waited", "public"}


def check_rooms_frame(frame: dict) -> None:
    """A lobby page (1.2): rows of exactly the listed fields, a few of them, and a cursor or null."""
    assert set(frame) == {"type", "rooms", "next"}, frame
    assert frame["next"] is None or (isinstance(frame["next"], str) and frame["next"]), frame
    assert isinstance(frame["rooms"], list) and len(frame["rooms"]) <= 50, frame
    for row in frame["rooms"]:
        under_way = "watching" in row  # 1.3: a room under way, every seat taken, and how many watch it
        assert set(row) == ROW_KEYS | ({"watching"} if under_way else set()), row
        assert not under_way or (type(row["watching"]) is int and row["watching"] >= 0), row
        assert isinstance(row["room"], str) and re.fullmatch(r"[A-Za-z0-9._-]{1,64}", row["room"]), row
        assert row["seats"] in range(2, MAX_SEATS + 1) and not isinstance(row["seats"], bool), row
        assert (row["taken"] == row["seats"] if under_way else row["taken"] in range(1, row["seats"])), row
        assert not isinstance(row["taken"], bool), row
        assert isinstance(row["names"], list) and len(row["names"]) == row["taken"], row
        assert all(isinstance(n, str) and 1 <= len(n) <= 32 for n in row["names"]), row
        assert isinstance(row["waited"], int) and not isinstance(row["waited"], bool) and row["waited"] >= 0, row
        assert isinstance(row["public"], dict) and 1 <= len(row["public"]) <= 8, row


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
    assert ev["kind"] in ("join", "leave", "post", "watch"), ev
    if ev["kind"] == "watch":  # 1.3: a watcher came or went; seat -1, and the room's watchers now
        assert ev["seat"] == -1 and isinstance(ev["name"], str) and set(ev["body"]) == {"watching"}, ev
        assert type(ev["body"]["watching"]) is int and ev["body"]["watching"] >= 0, ev
        return check_time(ev)
    assert ev["seat"] in range(MAX_SEATS) and not isinstance(ev["seat"], bool), ev
    assert isinstance(ev["name"], str) and ev["name"], ev
    if ev["kind"] == "post":
        assert isinstance(ev["body"], dict), ev
    else:
        assert ev["body"] is None, ev
    check_time(ev)


def check_time(ev: dict) -> None:
    t = ev["time"]
    assert isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t), ev
    assert abs(t - time.time()) < 3600, f"time is not the relay's current Unix time in seconds: {ev}"

