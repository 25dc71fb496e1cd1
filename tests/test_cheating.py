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
import hashlib
import json
from pathlib import Path
from typing import ClassVar

import pytest
from arena import Cheater, assert_caught, draw_first, honest_outcome
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from processes import finish, run_bot

from discard_tui import protocol as wire
from discard_tui.bot import simple_strategy
from discard_tui.engine import Phase, Session
from discard_tui.rules import DeckKind, matches
from tabletop.crypto import MODP_2048, MODP_3072
from tabletop.ledger import RelayClient

# RFC 2409 (IKE) group 2: a genuine 1024-bit safe prime, but not one of the game's RFC 3526 groups.
OAKLEY_1024 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
).lower()


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
    relay._append(relay.rooms[honest.room], honest.seat, "post", forged)
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


# -- strict wire: the signature covers exactly what was received ----------------------------------------


class Recoder(Cheater):
    """Signs its message honestly, then changes how a value is written (not what it means) on the wire.

    ``recode`` is (message types to act on, field, new value or a function of the old one).
    """

    recode: ClassVar[tuple] = ((wire.Commit,), "n", None)

    def cheat(self, message):
        target, field, value = self.recode
        if not isinstance(message, target):
            return None
        if isinstance(message, (wire.Draw, wire.Discard)) and not self.playing_move(message):
            return None
        body = self.seal(message)
        body["msg"] = dict(body["msg"])
        where = body if field in ("n", "game") else body["msg"]
        where[field] = value(where[field]) if callable(value) else value
        return body


MOVES = (wire.Draw, wire.Discard)
RECODED = {  # each verified before version 2: the signature covered a coerced re-serialisation
    "float-counter": ((wire.Commit,), "n", float),
    "string-counter": ((wire.Commit,), "n", str),
    "spaced-counter": ((wire.Commit,), "n", lambda n: f" {n}"),
    "bool-game": ((wire.Commit,), "game", True),
    "string-pos": (MOVES, "pos", str),
    "float-pos": (MOVES, "pos", float),
    "bool-phase": ((wire.Shuffle,), "phase", True),
    "string-version": ((wire.Hello,), "version", str),
    "leading-zero-hex": ((wire.Shuffle,), "deck", lambda deck: ["0" + deck[0], *deck[1:]]),
    "upper-case-hex": ((wire.Shuffle,), "deck", lambda deck: [deck[0].upper(), *deck[1:]]),
    "deck-name-casing": ((wire.Hello,), "deck", str.upper),
}


@pytest.mark.parametrize("kind", list(RECODED))
async def test_a_recoded_value_is_refused(arena, kind):
    cls = type(f"Recoder_{kind}", (Recoder,), {"recode": RECODED[kind]})
    problem = await assert_caught(await arena(cls), "malformed message")
    assert RECODED[kind][1] in problem


class UnsignedReplay(Cheater):
    """Posts an unsigned move with an old counter: a forgery first, whatever the counter says."""

    def cheat(self, message):
        if not self.playing_move(message):
            return None
        return {"game": self.game.number, "n": 1, "msg": message.model_dump(mode="json"), "sig": "00" * 64}


async def test_an_unsigned_post_with_a_low_counter_is_a_forgery(arena):
    problem = await assert_caught(await arena(UnsignedReplay), "bad signature", "#1")
    assert "replayed" not in problem


HUGE = {  # what the other side sent is never echoed at length
    "counter": ((wire.Commit,), "n", 10**4000),
    "game": ((wire.Commit,), "game", 10**4000),
    "pos": (MOVES, "pos", 10**4000),
    "key": ((wire.Discard,), "key", "f" * 5000),
    "deck": ((wire.Shuffle,), "deck", ["ab"] * 10_000),
    "version": ((wire.Hello,), "version", 10**4000),
    "name": ((wire.Hello,), "name", "x" * 5000),
    "prime": ((wire.Hello,), "prime", "f" * 5000),
    "type": ((wire.Commit,), "type", "teleport" * 500),
    "name-with-newline": ((wire.Hello,), "name", "bo\nopponent resigned"),
}


@pytest.mark.parametrize("kind", list(HUGE))
async def test_a_violation_is_one_short_line(arena, kind):
    cls = type(f"Huge_{kind}", (Recoder,), {"recode": HUGE[kind]})
    problem = await assert_caught(await arena(cls), "malformed message")
    assert len(problem) <= 160 and "\n" not in problem, problem


class RelabellingDiscarder(Cheater):
    """Discards with key d * 2: with relations among encodings that turns m into another card, m^2."""

    def cheat(self, message):
        if not (self.playing_move(message) and isinstance(message, wire.Discard)):
            return None
        d = self.mine.card_keys[message.pos].d
        return wire.Discard(pos=message.pos, key=format(d * 2 % self.game.group.q, "x"))


async def test_a_relabelling_discard_key_is_named_at_once(arena):
    match = await arena(RelabellingDiscarder)
    pos = None
    problem = await assert_caught(match, "wrong key", "does not decrypt to any card")
    pos = match.cheater.cheat_body["msg"]["pos"]
    assert f"card {pos}" in problem and match.honest.game.verdict is None  # on receipt, not at the audit


class RelabellingDrawKey(Cheater):
    def cheat(self, message):
        if not isinstance(message, wire.DrawKey):
            return None
        d = self.mine.card_keys[message.pos].d
        return wire.DrawKey(pos=message.pos, key=format(d * 2 % self.game.group.q, "x"))


async def test_a_relabelling_draw_key_is_named_at_once(arena):
    match = await arena(RelabellingDrawKey, honest_autoplay=draw_first(1))
    await assert_caught(match, "wrong key", "does not decrypt to any card")


# -- deck and group are the room's: the first hello of game 1 decides them ------------------------------


class OtherDeckSecond(Cheater):
    """Waits for the honest hello (short deck), then answers asking for the full deck."""

    async def _owed(self):
        message = await super()._owed()
        if isinstance(message, wire.Hello) and self.opponent not in self.game.hellos:
            return None
        return message

    def cheat(self, message):
        return message.model_copy(update={"deck": DeckKind.FULL}) if isinstance(message, wire.Hello) else None


async def test_a_second_hello_with_another_deck(arena):
    await assert_caught(await arena(OtherDeckSecond), "asked for the full deck",
                        "the first hello of this game chose the short deck")


class RematchChanger(Cheater):
    """Plays game 1 honestly, then opens game 2 with another deck or group."""

    change: ClassVar[dict] = {}

    def cheat(self, message):
        if isinstance(message, wire.Hello) and self.game.verdict is not None:
            return message.model_copy(update=self.change)
        return None


@pytest.mark.parametrize("change, fragments", [
    ({"deck": DeckKind.FULL}, ("asked for the full deck", "game 1 chose the short deck")),
    ({"prime": format(MODP_3072.p, "x")}, ("3072-bit group", "game 1 chose the 2048-bit")),
], ids=["deck", "group"])
async def test_a_rematch_keeps_deck_and_group(arena, until, change, fragments):
    match = await arena(type("RematchChangerFixed", (RematchChanger,), {"change": change}))
    first = await honest_outcome(match)
    assert first is not None and first.verdict == []
    await until(lambda: match.cheater.phase is Phase.OVER, "the cheater's audit")
    assert await match.cheater.rematch() is None
    await assert_caught(match, *fragments)


async def test_the_starter_follows_the_documented_coin_flip(arena):
    """An independent client computes the starter from the ledger: SHA-256(nonce0 ‖ nonce1)[0] & 1."""
    match = await arena()
    game = await honest_outcome(match)
    assert game is not None
    posts = [(e.seat, e.body["msg"]) for e in match.honest.events if e.kind == "post"]
    nonces = {seat: bytes.fromhex(msg["nonce"]) for seat, msg in posts if msg["type"] == "reveal"}
    starter = hashlib.sha256(nonces[0] + nonces[1]).digest()[0] & 1
    assert game.starter == starter
    deals = {seat: [k["pos"] for k in msg["keys"]] for seat, msg in posts if msg["type"] == "deal"}
    assert deals[1 - starter] == [0, 1, 2, 3, 4] and deals[starter] == [5, 6, 7, 8, 9]


# -- silent opponents: only a move the protocol owes counts ---------------------------------------------


class Staller(Cheater):
    """Plays until it owes ``stall``, then never sends it; meanwhile it keeps joining and leaving."""

    stall: ClassVar[type] = wire.Keys

    async def _owed(self):
        message = await super()._owed()
        if isinstance(message, self.stall) and (self.stall is not MOVES or self.phase is Phase.PLAYING):
            return None
        return message

    def _autoplay_due(self) -> bool:
        return self.stall is not MOVES and super()._autoplay_due()


@pytest.mark.parametrize("stall, owed", [
    (wire.Keys, "never sent their keys for the audit: the game cannot be verified"),
    (MOVES, "never made their move"),
], ids=["keys", "move"])
async def test_a_bot_gives_up_on_a_staller_that_keeps_reconnecting(relay_url, until, stall, owed):
    room = f"stall-{owed.split()[-1]}"
    cheater = await type("StallerFixed", (Staller,), {"stall": stall}).connect(
        relay_url, room, "staller", deck=DeckKind.SHORT, seed=bytes([2]) * 32, autoplay=simple_strategy(2))
    victim = run_bot(relay_url, room, "--name", "victim", "--deck", "short", "--timeout", "1.5", "--seed", "1")
    task = asyncio.create_task(cheater.run())
    try:
        await until(lambda: cheater.awaiting() is None and cheater.phase in (Phase.PLAYING, Phase.AUDITING)
                    and cheater.caught_up and cheater.outbox is None
                    and (stall is wire.Keys) is (cheater.phase is Phase.AUDITING), "the stall", rounds=3000)
        while victim.poll() is None:  # join and leave over and over: no progress, so no excuse
            churn = RelayClient(relay_url, room, "staller", token=cheater.ledger.token)
            await churn.open()
            await churn.close()
            await asyncio.sleep(0.2)
        code, _, err = await finish(victim)
        assert code == 1
        [line] = err.splitlines()
        assert line.startswith(f"discard-bot: staller {owed} (silent for 1.5 s); transcript: "), line
        transcript = Path(line.split("transcript: ")[1].split(";")[0])
        assert json.loads(transcript.read_text())["reason"].startswith(f"staller {owed}")
    finally:
        if victim.poll() is None:
            victim.kill()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await cheater.ledger.close()


# -- the honest side itself ------------------------------------------------------------------------


async def test_transcript_path_is_reported(arena, tmp_path):
    match = await arena(EarlyClaimant)
    await assert_caught(match)
    path = match.honest.transcript_path
    assert path is not None and Path(path).parent == tmp_path
    assert list(tmp_path.glob("*.json")) == [Path(path)]
    assert match.honest.view().transcript == str(path)
