"""An honest engine against a cheating one, over a real relay on loopback.

Each cheater is an ordinary :class:`Session` that deviates at exactly one
point (one replaced or forged post) and is honest everywhere else. The honest
side must stop at that post with phase VIOLATION, a problem that starts with
"opponent" and names the cheat, and a transcript of the ledger; or, for a
cheat that only the end-of-game audit can see, finish the game and list it in
the verdict. Nothing may escape ``run()`` as an exception.

Ordering is deterministic: every cheat is posted on the cheater's own turn (or
while the honest player, who has no autoplay in that test, is thinking), so the
honest side cannot have moved in between. Nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from discard_tui import protocol as wire
from discard_tui.bot import simple_strategy
from discard_tui.crypto import MODP_2048, MODP_3072
from discard_tui.engine import Game, Phase, Session
from discard_tui.rules import DeckKind, matches

HONEST_SEED = bytes([1]) * 32
CHEATER_SEED = bytes([2]) * 32
WAIT = 20.0  # seconds; a short-deck game takes well under one

# RFC 2409 (IKE) group 2: a genuine 1024-bit safe prime, but not one of the game's RFC 3526 groups.
OAKLEY_1024 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
).lower()


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


@pytest.fixture
async def arena(relay_url, tmp_path, request):
    """``await arena(CheaterClass, ...)``: an honest session and a cheater playing in a fresh room."""
    matches_started: list[Match] = []
    base = re.sub(r"[^A-Za-z0-9._-]", "-", request.node.name)[:60]

    async def start(cheater_cls: type[Cheater] = Cheater, *, deck: DeckKind = DeckKind.SHORT,
                    honest_autoplay=DEFAULT, cheater_autoplay=DEFAULT, honest_seed: bytes = HONEST_SEED,
                    cheater_seed: bytes = CHEATER_SEED, cheater_seat: int = 1) -> Match:
        honest_options = {"deck": deck, "seed": honest_seed, "transcript_dir": tmp_path,
                          "autoplay": simple_strategy(1) if honest_autoplay is DEFAULT else honest_autoplay}
        cheater_options = {"deck": deck, "seed": cheater_seed, "transcript_dir": None,
                           "autoplay": simple_strategy(2) if cheater_autoplay is DEFAULT else cheater_autoplay}
        # The relay seats players in the order they join.
        order = [("honest", Session, honest_options), ("cheater", cheater_cls, cheater_options)]
        if cheater_seat == 0:
            order.reverse()
        joined = {}
        room = f"{base}-{len(matches_started)}"
        for name, cls, options in order:
            joined[name] = await cls.connect(relay_url, room, name, **options)
        match = Match(joined["honest"], joined["cheater"])
        assert match.cheater.ledger.seat == cheater_seat
        match.tasks = [asyncio.create_task(match.honest.run()), asyncio.create_task(match.cheater.run())]
        matches_started.append(match)
        return match

    yield start
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


# -- 1. a discard that does not match -------------------------------------------------------------


class MismatchDiscarder(Cheater):
    def cheat(self, message):
        table = self.game.table
        if not self.playing_move(message) or table.top is None:
            return None
        wrong = [pos for pos, card in self.hand() if not matches(card, table.top)]
        if not wrong:
            return None  # every card matches this turn: play honestly, try next turn
        return wire.Discard(pos=wrong[0], key=self.key_hex(wrong[0]))


async def test_discard_matching_neither_suit_nor_value(arena):
    match = await arena(MismatchDiscarder)
    problem = await assert_caught(match, "matches neither the suit nor the value")
    pos = match.cheater.cheat_body["msg"]["pos"]
    card = match.cheater.game.table.faces[pos]
    assert problem.startswith(f"opponent discarded {card}"), problem


async def test_mismatch_message_reads_naturally(arena):
    match = await arena(MismatchDiscarder)
    problem = await assert_caught(match, "matches neither the suit nor the value")
    card = match.cheater.game.table.faces[match.cheater.cheat_body["msg"]["pos"]]
    top = match.honest.game.table.top
    assert problem == f"opponent discarded {card}, which matches neither the suit nor the value of {top}"


# -- 2. a discard of a card not in the cheater's hand ---------------------------------------------


class StrangerDiscarder(Cheater):
    """Discards a card of the honest player's hand (a position the cheater does not hold)."""

    def cheat(self, message):
        if not self.playing_move(message):
            return None
        pos = self.game.table.hands[self.opponent][0]
        return wire.Discard(pos=pos, key=self.key_hex(pos))


async def test_discard_of_a_card_not_in_hand(arena):
    match = await arena(StrangerDiscarder)
    problem = await assert_caught(match, "not in their hand")
    pos = match.cheater.cheat_body["msg"]["pos"]
    assert f"card {pos}" in problem


# -- 3. a draw that is not from the top of the draw pile ----------------------------------------------


class DeepDrawer(Cheater):
    def cheat(self, message):
        pile = self.game.table.draw_pile if self.game.table else []
        if not self.playing_move(message) or len(pile) < 2:
            return None
        return wire.Draw(pos=pile[-1])


async def test_draw_not_from_the_top(arena):
    match = await arena(DeepDrawer)
    problem = await assert_caught(match, "top of the draw pile")
    top = match.honest.game.table.draw_pile[0]
    asked = match.cheater.cheat_body["msg"]["pos"]
    assert f"card {asked}" in problem and f"card {top}" in problem


# -- 4. a wrong key ---------------------------------------------------------------------------------


class WrongKeyDiscarder(Cheater):
    """Discards a legal card but reveals a key that is valid in the group and wrong for the card."""

    def cheat(self, message):
        if not (self.playing_move(message) and isinstance(message, wire.Discard)):
            return None
        bogus = 0x1234567890ABCDEF1234567890ABCDEF % MODP_2048.q
        return wire.Discard(pos=message.pos, key=format(bogus, "x"))


async def test_wrong_key_revealed(arena):
    match = await arena(WrongKeyDiscarder)
    problem = await assert_caught(match, "wrong key", "does not decrypt")
    pos = match.cheater.cheat_body["msg"]["pos"]
    assert f"card {pos}" in problem
    assert pos not in match.honest.game.table.faces  # the honest side learnt nothing from it


class WrongDrawKey(Cheater):
    """When the honest player draws, answers with someone else's key."""

    def cheat(self, message):
        if not isinstance(message, wire.DrawKey):
            return None
        return wire.DrawKey(pos=message.pos, key=self.key_hex((message.pos + 1) % self.game.size))


async def test_wrong_key_for_a_draw(arena):
    # The honest player always draws first, so the cheater must answer a draw.
    match = await arena(WrongDrawKey, honest_autoplay=draw_first(1))
    await assert_caught(match, "wrong key", "does not decrypt")


# -- 5. a duplicated card in a shuffle step ------------------------------------------------------


class DuplicatingShuffler(Cheater):
    def cheat(self, message):
        if not isinstance(message, wire.Shuffle):
            return None
        deck = list(message.deck)
        deck[1] = deck[0]
        return wire.Shuffle(phase=message.phase, deck=deck)


async def test_duplicated_card_in_shuffle(arena):
    match = await arena(DuplicatingShuffler)
    await assert_caught(match, "duplicated card")
    assert match.honest.game.table is None  # stopped before any dealing


async def test_crypto_violation_reads_naturally(arena):
    match = await arena(DuplicatingShuffler)
    problem = await assert_caught(match, "duplicated card")
    assert not problem.startswith("opponent opponent"), problem


# -- 6. a move out of turn -------------------------------------------------------------------------


class OutOfTurnDrawer(Cheater):
    """Asks to draw as soon as it is the honest player's turn."""

    async def _pump_locked(self) -> None:
        g, table = self.game, self.game.table
        if (not self.cheated and self.caught_up and self.outbox is None and self.phase is Phase.PLAYING
                and table is not None and table.turn == self.opponent and g.pending_draw is None
                and table.draw_pile):
            self.cheated = True
            await Session._post(self, wire.Draw(pos=table.draw_pile[0]))
            self.cheat_body = self.outbox
            return
        await super()._pump_locked()


async def test_draw_out_of_turn(arena):
    # The honest player is a person thinking about their move (no autoplay), so the cheater's
    # draw certainly lands in the ledger during their turn.
    match = await arena(OutOfTurnDrawer, honest_autoplay=None)
    await assert_caught(match, "out of turn", "draw")


# -- 7. a forged signature --------------------------------------------------------------------------


class Forger(Cheater):
    how = "flip"

    def cheat(self, message):
        if not self.playing_move(message):
            return None
        if self.how == "other_key":
            return self.seal(message, Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32))
        body = self.seal(message)
        if self.how == "flip":
            sig = bytearray.fromhex(body["sig"])
            sig[5] ^= 0x10
            body["sig"] = sig.hex()
        else:  # "altered": the signed move, then a different card on the wire
            body["msg"] = dict(body["msg"], pos=(body["msg"]["pos"] + 1) % self.game.size)
        return body


@pytest.mark.parametrize("how", ["flip", "other_key", "altered"])
async def test_forged_signature(arena, how):
    cls = type(f"Forger_{how}", (Forger,), {"how": how})
    match = await arena(cls)
    problem = await assert_caught(match, "bad signature")
    n = match.cheater.cheat_body["n"]
    assert f"#{n}" in problem


# An Ed25519 verify key of small order: with the neutral point as the key, (R = neutral, S = 0) is a valid
# signature of every message, so anyone (the relay, say) can post in that player's name and the
# transcript proves nothing about who sent what.
NEUTRAL_POINT_KEY = "01" + "00" * 31
ANY_MESSAGE_SIG = "01" + "00" * 63


class WeakKeyPlayer(Cheater):
    """Plays honestly, but announces the neutral point as its verify key and signs with the universal forgery."""

    async def _post(self, message):
        g = self.game
        assert self.seat is not None
        if isinstance(message, wire.Hello):
            message = message.model_copy(update={"verify_key": NEUTRAL_POINT_KEY})
        body = {"game": g.number, "n": g.counters[self.seat] + 1, "msg": message.model_dump(mode="json"),
                "sig": ANY_MESSAGE_SIG}
        if isinstance(message, wire.Hello):
            self.cheated, self.cheat_body = True, body
        self.outbox = body
        self.sent.append(body)
        await self.ledger.post(body)


async def test_weak_verify_key(arena):
    any_envelope = wire.parse({"game": 1, "n": 9, "msg": {"type": "cant_move"}, "sig": ANY_MESSAGE_SIG})
    weak = Ed25519PublicKey.from_public_bytes(bytes.fromhex(NEUTRAL_POINT_KEY))
    assert wire.verify(weak, "any-room", 1, any_envelope)  # under this key the forgery works...
    assert wire.public_key(NEUTRAL_POINT_KEY) is None  # ...so the engine refuses the key
    match = await arena(WeakKeyPlayer)
    await assert_caught(match, "key")


# -- 8. a replayed message --------------------------------------------------------------------------


class Replayer(Cheater):
    """On its second move, posts its first move again, byte for byte."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_move: dict | None = None

    def cheat(self, message):
        if not self.playing_move(message):
            return None
        if self.first_move is None:
            return None
        return dict(self.first_move)

    async def _post(self, message):
        await super()._post(message)
        if self.first_move is None and self.phase is Phase.PLAYING and self.outbox is not None \
                and self.outbox["msg"]["type"] in ("draw", "discard"):
            self.first_move = self.outbox


async def test_replayed_message(arena):
    match = await arena(Replayer)
    problem = await assert_caught(match, "replayed")
    body = match.cheater.cheat_body
    assert body == match.cheater.first_move and body in match.cheater.sent[:-1]
    assert f"#{body['n']}" in problem


class HelloReplayer(Cheater):
    """Says hello again (its own first post, verbatim) instead of shuffling."""

    def cheat(self, message):
        if not isinstance(message, wire.Shuffle):
            return None
        return dict(self.sent[0])


async def test_replayed_hello(arena):
    match = await arena(HelloReplayer)
    await assert_caught(match, "replayed", "#1")


# -- 9. a non-standard group --------------------------------------------------------------------------


class OddGroup(Cheater):
    prime = OAKLEY_1024

    def cheat(self, message):
        if not isinstance(message, wire.Hello):
            return None
        return message.model_copy(update={"prime": self.prime})


@pytest.mark.parametrize("prime", [OAKLEY_1024, "17", format(MODP_2048.p + 2, "x")],
                         ids=["rfc2409-1024", "toy-23", "modp2048-plus-2"])
@pytest.mark.parametrize("cheater_seat", [0, 1], ids=["cheater-opens", "cheater-joins"])
async def test_non_standard_group(arena, prime, cheater_seat):
    cls = type("OddGroupFixed", (OddGroup,), {"prime": prime})
    match = await arena(cls, cheater_seat=cheater_seat)
    await assert_caught(match, "non-standard group")
    assert match.honest.game.group == MODP_2048


class OtherStandardGroup(Cheater):
    """Waits for the honest hello (2048-bit), then answers with the other RFC 3526 group."""

    async def _owed(self):
        message = await super()._owed()
        if isinstance(message, wire.Hello) and self.opponent not in self.game.hellos:
            return None  # hello second, so that the honest hello decides the game
        return message

    def cheat(self, message):
        if not isinstance(message, wire.Hello):
            return None
        return message.model_copy(update={"prime": format(MODP_3072.p, "x")})


async def test_second_hello_with_the_other_standard_group(arena):
    match = await arena(OtherStandardGroup, cheater_seat=1)
    await assert_caught(match, "3072-bit group", "2048-bit")
    assert match.honest.game.group == MODP_2048


async def test_relay_forging_a_post_in_my_seat(arena, relay_server, until):
    """A relay stamps a post with my seat: my own engine must not take it for mine."""
    relay, _ = relay_server
    match = await arena(honest_autoplay=None)  # the honest player waits for a move nobody makes
    honest = match.honest
    await until(lambda: honest.phase is Phase.PLAYING and honest.game.table.turn == honest.seat
                and honest.outbox is None, "the honest player's turn", rounds=2000)
    g = honest.game
    forged = wire.seal(Ed25519PrivateKey.generate(), honest.room, honest.seat, g.number,
                       g.counters[honest.seat] + 1, wire.Draw(pos=g.table.draw_pile[0]))
    ledger = relay.ledger
    epoch = ledger.rooms[honest.room].seats[honest.seat].epoch
    await ledger.append(honest.room, honest.seat, epoch, json.dumps(forged))
    assert await honest_outcome(match) is None
    assert honest.phase is Phase.VIOLATION
    assert honest.problem.startswith("the relay forged a message in your seat"), honest.problem
    assert honest.transcript_path is not None


# -- 10. false can't-move claims ---------------------------------------------------------------------


class FalseClaimant(Cheater):
    """Draws while it can; once the pile is empty, claims it cannot move although a card matches."""

    empty_discard_pile = False  # claim when the discard pile is empty too (then any card matches)
    claimed_with: list | None = None

    async def _owed(self):
        message = await super()._owed()
        g, table = self.game, self.game.table
        if (message is None and not self.cheated and self.phase is Phase.PLAYING and table is not None
                and table.turn == self.seat and g.pending_draw is None and not table.draw_pile
                and (table.top is None) is self.empty_discard_pile and table.playable(self.seat)):
            self.claimed_with = [table.faces[p] for p in table.playable(self.seat)]
            return wire.CantMove()
        return message

    def cheat(self, message):
        return message if isinstance(message, wire.CantMove) and self.claimed_with else None


async def test_false_cant_move_claim_is_caught_by_the_audit(arena):
    match = await arena(FalseClaimant, honest_autoplay=draw_first(1), cheater_autoplay=draw_first(2))
    honest, cheater = match.honest, match.cheater
    game = await honest_outcome(match)
    assert game is not None, honest.problem
    assert cheater.cheated, "the cheater never got a chance to lie; pick other seeds"
    assert honest.phase is Phase.OVER
    assert game.moves[-1].kind == "cant_move" and game.moves[-1].seat == cheater.seat
    assert game.table.winner == honest.seat and honest.view().result == "win"
    assert game.verdict, "the audit found nothing"
    [finding] = game.verdict
    assert finding.startswith("opponent claimed they could not move, but held "), finding
    held = finding.removeprefix("opponent claimed they could not move, but held ").split(",")[0]
    assert held in {str(c) for c in cheater.claimed_with}, (held, cheater.claimed_with)
    assert f"which could go on {game.table.top}" in finding
    assert honest.view().verdict == "violation: " + finding
    assert not match.honest_task.done()  # still running, ready for a rematch


async def test_failed_audit_keeps_the_evidence(arena):
    match = await arena(FalseClaimant, honest_autoplay=draw_first(1), cheater_autoplay=draw_first(2))
    game = await honest_outcome(match)
    assert game is not None and game.verdict
    assert match.honest.transcript_path is not None and Path(match.honest.transcript_path).is_file()
    assert match.honest.problem is not None and "could not move" in match.honest.problem


class EmptyPileClaimant(FalseClaimant):
    empty_discard_pile = True


async def test_cant_move_claim_on_an_empty_discard_pile(arena):
    # With these seeds the cheater (seat 0) starts; after 14 draws the piles are empty on its turn.
    match = await arena(EmptyPileClaimant, cheater_seat=0, honest_autoplay=draw_first(1),
                        cheater_autoplay=draw_first(2))
    problem = await assert_caught(match, "cannot move")
    assert "None" not in problem


class EarlyClaimant(Cheater):
    def cheat(self, message):
        return wire.CantMove() if self.playing_move(message) else None


async def test_cant_move_claim_with_cards_left_to_draw(arena):
    match = await arena(EarlyClaimant)
    problem = await assert_caught(match, "cards left to draw")
    assert f"{len(match.honest.game.table.draw_pile)} cards left" in problem


# -- malformed posts --------------------------------------------------------------------------------


class Garbler(Cheater):
    body: ClassVar[dict] = {}

    def cheat(self, message):
        if not isinstance(message, wire.Commit):
            return None
        body = json.loads(json.dumps(self.body))
        body.setdefault("game", 1)
        body.setdefault("n", self.game.counters[self.seat] + 1)
        return body


MALFORMED = {
    "null-game": {"game": None},
    "not-an-envelope": {"hello": "world"},
    "unknown-type": {"msg": {"type": "teleport", "pos": 3}, "sig": "00" * 64},
    "no-signature": {"msg": {"type": "commit", "digest": "ab" * 32}},
    "extra-field": {"msg": {"type": "commit", "digest": "ab" * 32}, "sig": "00" * 64, "note": "trust me"},
    "bad-digest": {"msg": {"type": "commit", "digest": "not hex"}, "sig": "00" * 64},
    "counter-zero": {"n": 0, "msg": {"type": "commit", "digest": "ab" * 32}, "sig": "00" * 64},
}


@pytest.mark.parametrize("kind", list(MALFORMED))
async def test_malformed_message(arena, kind):
    cls = type(f"Garbler_{kind}", (Garbler,), {"body": MALFORMED[kind]})
    match = await arena(cls)
    await assert_caught(match, "malformed")


# -- the honest side itself ------------------------------------------------------------------------


async def test_transcript_path_is_reported(arena, tmp_path):
    match = await arena(EarlyClaimant)
    await assert_caught(match)
    path = match.honest.transcript_path
    assert path is not None and Path(path).parent == tmp_path
    assert list(tmp_path.glob("*.json")) == [Path(path)]
    assert match.honest.view().transcript == str(path)
