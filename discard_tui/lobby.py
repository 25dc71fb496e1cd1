"""The relay's lobby seen from discard: what a public room of ours shows, and pages of the rooms waiting there.

Guarantees: a page comes from an untrusted relay, so every row is checked (the fields the protocol promises,
of the types and bounds it promises) before anything shows it; a relay that sends anything else costs one
:class:`LobbyError` line, never a crash. Rows are data: their names and texts are shown literally, never as
markup (discard_tui/lobby_screen.py). Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from tabletop.words import clip

from .config import ROOM, SCREENS, PlayConfig

PUBLIC_KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")  # a listed field's name, as the relay admits it (relay/lobby.py)

PAGE = 20  # rooms in a page of the lobby screen
ANSWER_TIMEOUT = 10.0  # seconds a relay has to answer a list
MAX_SEATS = 6


class LobbyError(Exception):
    """The lobby cannot be shown; the message says why in one line."""


@dataclass(frozen=True)
class Waiting:
    """One room waiting for players, as the relay listed it (checked)."""

    room: str
    seats: int
    names: tuple[str, ...]  # the seats taken, in seat order
    waited: int  # seconds since the room was created, when the page was read
    game: str  # "" if the room did not say
    options: dict[str, str | int | bool] = field(default_factory=dict)  # the rest of what it showed
    watching: int | None = None  # a room under way (relay 1.3): how many watch it; None for a room waiting

    @property
    def known(self) -> bool:
        """Whether this discard can play the room's game."""
        return self.game in SCREENS


@dataclass(frozen=True)
class Page:
    rooms: tuple[Waiting, ...]
    next: str | None  # the cursor of the following page, None if this one is the last


def public_fields(config: PlayConfig) -> dict[str, str | int | bool]:
    """What a room created by ``config`` shows in the lobby: its game, group and options (protocol 1.2's
    ``public``; every value within the relay's bounds, the options being those the game declares)."""
    return {"game": config.game, "group": config.group, **config.options}


def joining(base: PlayConfig, room: Waiting) -> PlayConfig:
    """The table of a listed room (its first hello decides the game; these are what the screen shows first)."""
    game = room.game if room.known else base.game
    return dataclasses.replace(base, room=room.room, game=game, seats=room.seats, options={}, public=False)


def watching(base: PlayConfig, room: Waiting) -> PlayConfig:
    """A watcher's table of a room under way (no seat: its game is the room's, as its first hello says)."""
    return dataclasses.replace(joining(base, room), watch=True, bell=False)


def parse_page(frame: object, under_way: bool = False) -> Page:
    """A ``rooms`` frame as a Page (``under_way``: of rooms under way, relay 1.3), or LobbyError if it is not what
    the protocol says."""
    if not isinstance(frame, dict) or frame.get("type") != "rooms":
        if isinstance(frame, dict) and frame.get("type") == "error":
            raise LobbyError(f"the relay refused to list its rooms: {clip(frame.get('message'), 200)}")
        raise LobbyError("the relay answered the listing with something else; is it a discard relay of 1.2 or later?")
    rows, following = frame.get("rooms"), frame.get("next")
    if not isinstance(rows, list) or len(rows) > 50 or not (following is None or isinstance(following, str)
                                                            and 0 < len(following) <= 100):
        raise LobbyError("the relay sent a malformed page of rooms")
    return Page(tuple(parse_row(row, under_way) for row in rows), following)


def _count(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def parse_row(row: Any, under_way: bool = False) -> Waiting:
    bad = LobbyError("the relay listed a malformed room")
    if not isinstance(row, dict):
        raise bad
    room, seats, taken, names, waited, public = (row.get(k) for k in ("room", "seats", "taken", "names", "waited",
                                                                      "public"))
    watchers = row.get("watching") if under_way else None
    if under_way and not _count(watchers, 0, 10**6):
        raise bad
    if not isinstance(room, str) or not ROOM.fullmatch(room) or not isinstance(seats, int) \
            or not _count(seats, 2, MAX_SEATS) or not isinstance(taken, int) \
            or not (taken == seats if under_way else _count(taken, 1, seats - 1)) or not isinstance(waited, int) \
            or not _count(waited, 0, 10**9) or not isinstance(names, list) or len(names) != taken \
            or not isinstance(public, dict) or len(public) > 8:
        raise bad
    if not all(isinstance(n, str) and 1 <= len(n) <= 32 and n.isprintable() for n in names):
        raise bad
    options: dict[str, str | int | bool] = {}
    for key, value in public.items():
        if not isinstance(key, str) or not PUBLIC_KEY.fullmatch(key) \
                or not (isinstance(value, (str, bool)) or type(value) is int):
            raise bad
        if isinstance(value, str) and (len(value) > 64 or not value.isprintable()):
            raise bad
        options[key] = value
    game = options.pop("game", "")
    return Waiting(room, seats, tuple(names), waited, game if isinstance(game, str) else "", options, watchers)


class LobbyLink:
    """One connection to the relay for reading its lobby, reconnected (to the next node) when it drops."""

    def __init__(self, relay: str) -> None:
        from tabletop.ledger import relay_urls

        try:
            self.urls = relay_urls(relay)
        except ValueError as error:
            raise LobbyError(str(error)) from None
        self.turn = 0
        self.connection: Any = None

    async def under_way(self, after: str | None, limit: int = PAGE) -> Page:
        """One page of the rooms under way (relay 1.3), to watch."""
        return await self.page(after, limit, under_way=True)

    async def page(self, after: str | None, limit: int = PAGE, under_way: bool = False) -> Page:
        """One page after the cursor ``after`` (None: the first) of the rooms waiting (``under_way``: of the rooms
        under way); LobbyError if no node answers."""
        from tabletop.ledger import TRUST, describe, ssl_context, unreachable
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConcurrencyError, ConnectionClosed, InvalidHandshake, InvalidURI

        failures = []
        for _ in range(len(self.urls)):
            url = self.urls[self.turn]
            try:
                if self.connection is None:
                    self.connection = await connect(
                        url, open_timeout=ANSWER_TIMEOUT, max_size=1 << 20, compression=None,
                        ssl=(TRUST[0] if TRUST else ssl_context()) if url.startswith("wss:") else None)
                await self.connection.send(json.dumps({"type": "list", "after": after, "limit": limit,
                                                       **({"under_way": True} if under_way else {})}))
                async with asyncio.timeout(ANSWER_TIMEOUT):
                    raw = await self.connection.recv()
            except asyncio.CancelledError:  # its answer may still come: never read it as the next page's
                connection, self.connection = self.connection, None
                if connection is not None:
                    connection.transport.abort()
                raise
            except (OSError, InvalidHandshake, InvalidURI, ConnectionClosed, ConcurrencyError, TimeoutError) as error:
                failures.append(f"{url} ({describe(error)})")
                await self.close()
                self.turn = (self.turn + 1) % len(self.urls)
                continue
            try:
                frame = json.loads(raw)
            except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
                frame = None
            return parse_page(frame, under_way)
        raise LobbyError(unreachable(failures))

    async def close(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close()
