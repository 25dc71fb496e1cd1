"""The cheating arena: an honest engine against a cheating one, over a real relay on loopback.

Each cheater is an ordinary :class:`Session` that deviates at exactly one
point (one replaced or forged post) and is honest everywhere else. The honest
side must stop at that post with phase VIOLATION, a problem that starts with
"opponent" and names the cheat, and a transcript of the ledger; or, for a
cheat that only the end-of-game audit can see, finish the game and list it in
the verdict. Nothing may escape ``run()`` as an exception.

The ``arena`` fixture (conftest.py) starts matches; the helpers here check them.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from discard_tui import protocol as wire
from discard_tui.bot import simple_strategy
from discard_tui.engine import Game, Phase, Session
from discard_tui.rules import DeckKind

HONEST_SEED = bytes([1]) * 32
CHEATER_SEED = bytes([2]) * 32
WAIT = 20.0  # seconds; a short-deck game takes well under one

# -- the cheater -------------------------------------------------------------------------------------


class Cheater(Session):
    """An honest session that deviates once.

    :meth:`cheat` sees every message the session is about to post and may
    return a replacement message (sealed as usual) or a raw relay body (posted
    verbatim). The cheater does not run its own checks on a raw body when it
    comes back, so it does not stop itself; a replaced message is applied as
    usual (the cheater may then stop itself, which does not matter here).
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cheated = False
        self.cheat_body: dict | None = None  # the post that breaks the rules
        self.raw_body: dict | None = None
        self.sent: list[dict] = []  # every body posted, in order

    def cheat(self, message: wire.Message) -> wire.Message | dict | None:
        return None

    async def _post(self, message: wire.Message) -> None:
        if not self.cheated and (forged := self.cheat(message)) is not None:
            self.cheated = True
            if isinstance(forged, dict):
                await self._post_raw(forged)
                return
            await super()._post(forged)
            self.cheat_body = self.outbox
        else:
            await super()._post(message)
        assert self.outbox is not None
        self.sent.append(self.outbox)

    async def _post_raw(self, body: dict) -> None:
        self.cheat_body = self.raw_body = body
        self.outbox = body  # nothing else goes out after it
        self.sent.append(body)
        await self.ledger.post(body)

    async def _receive_post(self, event) -> None:
        if event.seat == self.seat and self.raw_body is not None and event.body == self.raw_body:
            return
        await super()._receive_post(event)

    # helpers for cheats

    def playing_move(self, message: wire.Message) -> bool:
        return self.phase is Phase.PLAYING and isinstance(message, (wire.Draw, wire.Discard))

    def key_hex(self, pos: int) -> str:
        return format(self.mine.card_keys[pos].d, "x")

    def seal(self, message: wire.Message, identity: Ed25519PrivateKey | None = None) -> dict:
        g = self.game
        assert self.seat is not None
        return wire.seal(identity or self.identity(g.number), self.room, self.seat, g.number,
                         g.counters[self.seat] + 1, message)


# -- the arena ---------------------------------------------------------------------------------------


@dataclass
class Match:
    honest: Session
    cheater: Cheater
    tasks: list[asyncio.Task] = field(default_factory=list)

    @property
    def honest_task(self) -> asyncio.Task:
        return self.tasks[0]


DEFAULT = object()


def arena_starter(relay_url, tmp_path, request, matches_started):
    """``await start(CheaterClass, ...)``: an honest session and a cheater playing in a fresh room."""
    base = re.sub(r"[^A-Za-z0-9._-]", "-", request.node.name)[:60]

    async def start(cheater_cls: type[Cheater] = Cheater, *, deck: DeckKind = DeckKind.SHORT,
                    honest_autoplay=DEFAULT, cheater_autoplay=DEFAULT, honest_seed: bytes = HONEST_SEED,
                    cheater_seed: bytes = CHEATER_SEED, cheater_seat: int = 1) -> Match:
        honest_options = {"deck": deck, "seed": honest_seed, "transcript_dir": tmp_path,
                          "autoplay": simple_strategy(1) if honest_autoplay is DEFAULT else honest_autoplay}
        cheater_options = {"deck": deck, "seed": cheater_seed, "transcript_dir": None,
                           "autoplay": simple_strategy(2) if cheater_autoplay is DEFAULT else cheater_autoplay}
        # The relay seats players in the order they join.
        order: list[tuple[str, type[Session], dict]] = [("honest", Session, honest_options),
                                                        ("cheater", cheater_cls, cheater_options)]
        if cheater_seat == 0:
            order.reverse()
        joined = {}
        room = f"{base}-{len(matches_started)}"
        for name, cls, options in order:
            joined[name] = await cls.connect(relay_url, room, name, **options)
        cheater = joined["cheater"]
        assert isinstance(cheater, Cheater)
        match = Match(joined["honest"], cheater)
        assert match.cheater.ledger.seat == cheater_seat
        match.tasks = [asyncio.create_task(match.honest.run()), asyncio.create_task(match.cheater.run())]
        matches_started.append(match)
        return match

    return start


async def stop(matches_started: list[Match]) -> None:
    for match in matches_started:
        for task in match.tasks:
            task.cancel()
        await asyncio.gather(*match.tasks, return_exceptions=True)
        for session in (match.honest, match.cheater):
            await session.ledger.close()


async def honest_outcome(match: Match) -> Game | None:
    """What the honest side put on ``completed`` first; fails if its run() raised or it went quiet."""
    getter = asyncio.ensure_future(match.honest.completed.get())
    done, _ = await asyncio.wait({getter, match.honest_task}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
    if getter not in done:
        getter.cancel()
        task = match.honest_task
        if task.done():
            raise AssertionError(f"the honest run() ended early: {task.exception()!r}")
        raise AssertionError(f"the honest side neither finished nor stopped; phase {match.honest.phase}, "
                             f"log {match.honest.log[-5:]}")
    return getter.result()


async def assert_caught(match: Match, *fragments: str) -> str:
    """The honest side stopped at the cheat, named it, wrote a transcript, and run() returned cleanly."""
    honest = match.honest
    assert await honest_outcome(match) is None, f"the game finished: {honest.log[-5:]}"
    assert honest.phase is Phase.VIOLATION, (honest.phase, honest.problem)
    problem = honest.problem
    assert problem is not None
    assert problem.startswith("opponent"), problem
    for fragment in fragments:
        assert fragment in problem, f"{fragment!r} not in {problem!r}"
    # run() returns by itself once it stops, without raising
    await asyncio.wait_for(asyncio.shield(match.honest_task), 5)
    assert match.honest_task.exception() is None
    assert_transcript(match, problem)
    assert honest.log[-1] == f"stopped: {problem}"
    view = honest.view()
    assert view.phase is Phase.VIOLATION and view.problem == problem
    return problem


def assert_transcript(match: Match, problem: str) -> None:
    honest = match.honest
    path = honest.transcript_path
    assert path is not None, "no transcript written"
    path = Path(path)
    tmp = honest.transcript_dir
    assert tmp is not None and path.is_file() and path.parent == tmp
    assert honest.view().transcript == str(path)
    record = json.loads(path.read_text())
    assert record["reason"] == problem
    assert record["room"] == honest.room and record["seat"] == honest.seat
    events = record["events"]
    assert events == [e.as_json() for e in honest.events]
    kinds = {e["kind"] for e in events}
    assert {"join", "post"} <= kinds
    assert sum(e["kind"] == "post" for e in events) >= 2
    # The cheat is the last thing the honest side saw, posted by the cheater's seat.
    assert events[-1]["kind"] == "post" and events[-1]["seat"] == match.cheater.seat
    assert match.cheater.cheat_body is not None
    assert events[-1]["body"] == match.cheater.cheat_body


def draw_first(seed: int):
    """Draw while the draw pile lasts, then discard a random playable card (seeded)."""
    fallback = simple_strategy(seed)

    def choose(session: Session) -> int | None:
        assert session.game.table is not None
        return None if session.game.table.draw_pile else fallback(session)

    return choose


