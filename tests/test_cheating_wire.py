"""Cheats over a real relay: what the pure-core suite cannot show (transcripts, processes, silence, the relay)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.discard.game import DiscardState, Draw
from games.discard.strategy import simple
from processes import finish, run_bot
from tabletop import wire
from tabletop.ledger import Event, RelayClient
from tabletop.table import Table
from tabletop.values import Phase
from tabletop.words import clip
from test_cheating import ORDER_2, Once, draw_first, mismatch, reused_keys, shuffle_tamper


async def test_a_violation_over_the_wire_stops_with_a_transcript(players, tmp_path):
    cheat = Once(mismatch)
    pair = await players("mismatch", [simple(1), simple(2)], options={"deck": "short"}, tamper={1: cheat},
                         transcript_dir=tmp_path)
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    await asyncio.wait_for(pair.tasks[0], 5)  # run() returns by itself, without raising
    problem = honest.table.problem
    assert problem is not None and problem.startswith("bo discarded ") and "matches neither" in problem
    path = honest.transcript_path
    assert path is not None and Path(path).parent == tmp_path
    record = json.loads(Path(path).read_text())
    assert record["reason"] == problem and record["room"] == "mismatch" and record["seat"] == 0
    assert record["events"] == [e.as_json() for e in honest.events]
    assert record["events"][-1]["body"] == cheat.body  # the cheat is the last thing the honest seat saw


async def test_a_point_of_small_order_in_a_shuffle_step_stops_the_game(players):
    """On the curve, a card with only a torsion component would survive every key: refused on receipt."""
    small_order = Once(shuffle_tamper(lambda m: m["deck"].__setitem__(3, ORDER_2)))
    pair = await players("torsion", [simple(1), simple(2)], options={"deck": "short"}, tamper={1: small_order})
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    assert honest.table.problem == "bo sent a phase-1 shuffle: card 3 is not an element of the game's group"


async def test_a_shuffle_step_reordered_after_its_proof_is_named_on_receipt_and_by_the_transcript(players, tmp_path):
    """The cheater signs its phase-1 step with its cards in another order than the one proven (to deal itself
    chosen cards): the honest seat stops on that step, before any card is dealt, names it, and keeps a transcript
    in which discard-verify finds the same."""
    from games import GAMES
    from tabletop import transcript

    def reordered(m: dict) -> None:
        m["deck"][0], m["deck"][1] = m["deck"][1], m["deck"][0]

    cheat = Once(shuffle_tamper(reordered))
    pair = await players("reordered", [simple(1), simple(2)], options={"deck": "short"}, tamper={1: cheat},
                         transcript_dir=tmp_path)
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    problem = honest.table.problem
    assert problem is not None and problem.startswith("bo sent shuffle step ") and "does not hold" in problem
    assert not honest.table.play.dealt
    assert honest.transcript_path is not None
    record = json.loads(Path(honest.transcript_path).read_text())
    assert record["events"][-1]["body"] == cheat.body
    [check] = transcript.check(transcript.load(Path(honest.transcript_path)), GAMES)
    assert check.problem == problem


async def test_a_rematch_hello_reusing_game_1s_keys_stops_at_once(players, tmp_path):
    pair = await players("reuse", [simple(1), simple(2)], options={"deck": "short"},
                         tamper={1: Once(reused_keys(verify_key=True))}, transcript_dir=tmp_path)
    assert await pair.next_games() == [1, 1]
    honest = pair.seats[0]
    assert await honest.rematch() is None
    assert await asyncio.wait_for(honest.completed.get(), 30) is None  # stopped, not silent
    problem = honest.table.problem
    assert problem.startswith("bo reused a box key of game 1 in game 2's hello"), problem
    assert not honest.table.play.decks and honest.transcript_path is not None


def second_draw(same_card: bool):
    """The draw, and at once another: the first card's keys are still on their way."""

    def act(table, body):
        if body["msg"]["type"] != "draw":
            return None
        pile = table.play.state.board.draw_pile
        second = Draw(pos=pile[0] if same_card else pile[1])
        return [body, wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"] + 1,
                                second)]

    return act


@pytest.mark.parametrize("same_card", [True, False], ids=["same-card", "next-card"])
async def test_a_second_draw_while_the_first_is_shown_is_named(players, same_card):
    pair = await players(f"second-draw-{same_card}", [draw_first(1), draw_first(2)], options={"deck": "short"},
                         tamper={1: Once(second_draw(same_card))})
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    assert honest.table.problem == "bo sent 'draw' while a move was waiting for its cards"


class SlippingRelay:
    """The honest seat's relay: after some event (``slip``, from the seat's table as it stands) it slips in one
    post of its own making, and relays honestly before and after."""

    def __init__(self, client: RelayClient, table: Table) -> None:
        self.client, self.table, self.slipped = client, table, False

    def __getattr__(self, name):
        return getattr(self.client, name)

    async def events(self):
        async for item in self.client.events():
            yield item
            if not self.slipped and isinstance(item, Event) and (extra := self.slip(item)) is not None:
                self.slipped = True
                yield extra

    def slip(self, item: Event) -> Event | None:
        raise NotImplementedError


class ForgingRelay(SlippingRelay):
    """Once it is the seat's turn, a post stamped with the seat's own number."""

    def slip(self, item: Event) -> Event | None:
        table = self.table
        if not table.view().my_turn:
            return None
        p = table.play
        assert isinstance(p.state, DiscardState)
        forged = wire.seal(Ed25519PrivateKey.generate(), table.room, table.me, p.number, p.counters[table.me] + 1,
                           Draw(pos=p.state.board.draw_pile[0]))
        return Event(item.seq + 1, table.me, table.wish.name, "post", forged, item.time)


async def test_the_relay_forging_a_post_in_my_seat(players, tmp_path):
    pair = await players("forged", [None, simple(2)], options={"deck": "short"}, wrap={0: ForgingRelay},
                         transcript_dir=tmp_path)
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    assert honest.table.problem.startswith("the relay forged a message in your seat"), honest.table.problem
    assert honest.transcript_path is not None


class GuestRelay(SlippingRelay):
    """Once the seat has said hello, a hello of the relay's own in seat -1 (a watcher's number), which would take
    the game's last place."""

    def slip(self, item: Event) -> Event | None:
        if item.seat != self.table.me or item.kind != "post":
            return None
        relay, p = Ed25519PrivateKey.generate(), self.table.play
        assert p.game is not None and p.group is not None
        hello = wire.Hello(version=wire.PROTOCOL_VERSION, name="relay", verify_key=wire.public_hex(relay),
                           box_key="09" * 32, game=p.game.name,  # never looked at: its seat is refused first
                           seats=p.seats, group=p.group.name, options={})
        return Event(item.seq + 1, -1, "relay", "post", wire.seal(relay, self.table.room, -1, 1, 1, hello), item.time)


async def test_a_relay_seating_a_guest_of_its_own_is_named_and_the_transcript_says_so(players, tmp_path):
    from games import GAMES
    from tabletop import transcript

    pair = await players("guest", [None, simple(2)], options={"deck": "short"}, wrap={0: GuestRelay},
                         transcript_dir=tmp_path)
    honest = pair.seats[0]
    assert await asyncio.wait_for(honest.completed.get(), 30) is None
    assert honest.table.problem == "the relay let seat -1 post in a game of 2 seats"
    assert honest.transcript_path is not None
    [check] = transcript.check(transcript.load(Path(honest.transcript_path)), GAMES)
    assert check.problem == honest.table.problem


class AlteringLink:
    """A man in the middle between the relay and one seat: it alters the other seat's first move on the way."""

    def __init__(self, client: RelayClient, table: Table) -> None:
        self.client, self.table, self.done = client, table, False

    def __getattr__(self, name):
        return getattr(self.client, name)

    async def events(self):
        async for item in self.client.events():
            if not self.done and isinstance(item, Event) and item.seat != self.table.me and item.body \
                    and item.body["msg"]["type"] in ("draw", "discard"):
                self.done = True
                body = dict(item.body, msg=dict(item.body["msg"], pos=item.body["msg"]["pos"] + 1))
                item = Event(item.seq, item.seat, item.name, item.kind, body, item.time)
            yield item


async def test_a_seat_that_stops_tells_the_others_why_at_once(players):
    """Only ana sees the altered post, so only ana's table can stop; bo learns why from ana's signed notice
    instead of waiting for her until its timeout."""
    pair = await players("altered", [simple(1), simple(2)], options={"deck": "short"}, wrap={0: AlteringLink})
    ana, bo = pair.seats
    assert await asyncio.wait_for(ana.completed.get(), 30) is None
    assert "has a bad signature: it was forged or altered" in ana.table.problem
    assert await asyncio.wait_for(bo.completed.get(), 30) is None
    assert bo.table.problem == f"ana stopped the game, saying: {clip(ana.table.problem, 120)}"


class Staller:
    """Plays until it owes ``what``, then withholds it (a tamper that swallows the post)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __call__(self, table, body):
        if self.what == "keys" and table.phase is Phase.DEALING and body["msg"]["type"] == "share":
            return []
        if self.what == "move" and table.phase is Phase.PLAYING and body["msg"]["type"] in ("draw", "discard"):
            return []
        return None


@pytest.mark.parametrize("what, owed", [
    ("keys", "never sent the keys to your hand"),
    ("move", "never made their move"),
])
async def test_a_bot_gives_up_on_a_staller_that_keeps_reconnecting(players, relay_url, eventually, what, owed):
    room = f"stall-{what}"
    pair = await players(room, [simple(2)], options={"deck": "short"}, tamper={0: Staller(what)}, seats=2)
    victim = run_bot(relay_url, room, "--name", "victim", "--deck", "short", "--timeout", "1.5", "--seed", "1")
    staller = pair.seats[0]
    try:
        stalled = {"keys": ("share",), "move": ("draw", "discard")}[what]
        await eventually(lambda: staller.outbox is not None and staller.outbox["msg"]["type"] in stalled,
                    "the stall", rounds=3000)
        while victim.poll() is None:  # join and leave over and over: no progress, so no excuse
            churn = RelayClient(relay_url, room, "staller", token=staller.ledger.token)
            await churn.open()
            await churn.close()
            await asyncio.sleep(0.2)
        code, _, err = await finish(victim)
        assert code == 1
        [line] = err.splitlines()
        assert line.startswith(f"discard-bot: ana {owed} (silent for 1.5 s); transcript: "), line
        transcript = Path(line.split("transcript: ")[1].split(";")[0])
        assert json.loads(transcript.read_text())["reason"].startswith(f"ana {owed}")
    finally:
        if victim.poll() is None:
            victim.kill()

