"""Seats playing over a real relay on loopback, in this process: one way to start them, one way to stop them.

A seat may post through a :class:`TamperingLedger`, which hands every outgoing
body to a ``tamper`` function first (tests/room.py has the same hook for the
pure core): a cheater over the wire is an honest seat whose posts are
rewritten, never a table whose private methods are overridden.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from games import GAMES
from tabletop.groups import DEFAULT_GROUP
from tabletop.ledger import Event, Link, RelayClient
from tabletop.shell import Seat
from tabletop.table import Strategy, Table, Wish

Tamper = Callable[[Table, dict], "dict | list[dict] | None"]


class TamperingLedger:
    """A relay client whose outgoing posts go through ``tamper(table, body)`` first."""

    def __init__(self, client: RelayClient, tamper: Tamper, table: Table) -> None:
        self.client, self.tamper, self.table = client, tamper, table
        self.sent: list[dict] = []

    @property
    def seat(self) -> int | None:
        return self.client.seat

    @property
    def token(self) -> str | None:
        return self.client.token

    @property
    def link(self) -> Link:
        return self.client.link

    def events(self) -> AsyncIterator[Event | object]:
        return self.client.events()

    async def post(self, body: dict) -> bool:
        changed = self.tamper(self.table, body)
        bodies = [body] if changed is None else [changed] if isinstance(changed, dict) else changed
        ok = True
        for each in bodies:
            self.sent.append(each)
            ok = await self.client.post(each) and ok
        return ok

    async def close(self) -> None:
        await self.client.close()


@dataclass
class Players:
    seats: list[Seat]
    tasks: list[asyncio.Task] = field(default_factory=list)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for seat in self.seats:
            await seat.ledger.close()

    async def next_games(self, timeout: float = 30) -> list[int | None]:
        async with asyncio.timeout(timeout):
            return await asyncio.gather(*(s.completed.get() for s in self.seats))


Wrap = Callable[[RelayClient, Table], object]  # a ledger around the seat's relay client


async def start_players(url: str, room: str, strategies: list[Strategy | None], *, game: str = "discard",
                        options: dict | None = None, tamper: dict[int, Tamper] | None = None,
                        wrap: dict[int, Wrap] | None = None, transcript_dir: Path | None = None,
                        think_time: float = 0.0, seats: int | None = None,
                        clock: Callable[[], float] | None = None) -> Players:
    """Seat ``len(strategies)`` players in ``room`` in order (seat k gets seed bytes([k + 1]) * 32), and run them.

    ``tamper`` rewrites a seat's posts; ``wrap`` puts any other ledger around a seat's relay client; ``seats``
    leaves room for players started elsewhere (a bot process, say); ``clock`` is every seat's own (a test's, which it
    advances with its relay's).
    """
    names = ["ana", "bo", "cy", "di", "ed", "flo"]
    started = []
    for k, strategy in enumerate(strategies):
        wish = Wish(names[k], game, seats or len(strategies), dict(options or {}), DEFAULT_GROUP)
        client = RelayClient(url, room, wish.name, seats=wish.seats)
        await client.open()
        assert client.seat == k
        table = Table(room, k, bytes([k + 1]) * 32, GAMES, wish, follow=k > 0)
        ledger: object = client
        if tamper and k in tamper:
            ledger = TamperingLedger(client, tamper[k], table)
        if wrap and k in wrap:
            ledger = wrap[k](client, table)
        seat = Seat(ledger, table, autoplay=strategy, think_time=think_time,  # type: ignore[arg-type]
                    transcript_dir=transcript_dir)
        if clock is not None:
            seat.clock = clock
        client.on_link = seat.link_changed
        started.append(seat)
    players = Players(started)
    players.tasks = [asyncio.create_task(s.run()) for s in started]
    return players
