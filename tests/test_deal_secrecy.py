"""Nobody can read or stack the deal: not the other shufflers, not the relay, not any reader of the ledger.

The attack (tests/relations.py) matches relations under the group's operation
among the ciphertexts of a shuffle step against relations among the card
encodings. Each test runs it in every group, twice: against the real
encodings, where it must find nothing, and, as a control that proves the
analysis and the cheater really work, against encodings with known relations:
m_i = (i + 2)^2 mod p, which the protocol used in version 1, and on the curve
m_i = (i + 2)·B, cards whose discrete logs everybody knows.
"""

from __future__ import annotations

import hashlib

import gmpy2
import pytest

from games.discard.strategy import simple
from relations import cross_products, name_positions, narrowed, relations
from room import Room
from tabletop import crypto, wire
from tabletop.crypto import Group
from tabletop.deck import prove_phase1
from tabletop.ed25519 import Ed25519Group
from tabletop.secp256k1 import Secp256k1Group
from tabletop.groups import DEFAULT_GROUP, GROUPS
from tabletop.modp import ModpGroup
from tabletop.table import Table
from tabletop.values import Phase

# SHA-256 of the 52 encodings of card 0..51 as lower-case hex joined by commas (docs/protocol.md).
TEST_VECTORS = {
    "secp256k1": "c612c1a06f5793e320b2a9eac52f153532722b8eaf5eb93836296483f267c6bf",
    "ed25519": "30e551de1a012aed66b073ebb0682a04105576cb500831f520f404cb6d2f39b0",
    "modp2048": "0600b8c43cd3c89911eca29c19d901cd7874ffe939cdf788c08f2cd3d0a1ab84",
    "modp3072": "7d3558b3f13453804beaec79f68a60416b44139a2069f157959712e94eab21fc",
}
HIGH = ("A", "K")
# Whole games, eight deals each: the curve only. The attack is the same in every group (it matches the relations a
# ledger reader finds, and READ below reads a MODP ledger); eight proven MODP deals would cost half a minute.
PLAYED = pytest.mark.parametrize("group", [DEFAULT_GROUP], ids=[DEFAULT_GROUP.name])
# Ledgers read: both decks on the curve, the short one in MODP. Each group and each deck is read, and what the
# analysis finds is the group's: the relations among all 52 encodings of every group are looked for above, and a
# shuffle step keeps the relations of its input whatever the deck's size. A full MODP game costs 3 s, its control 3.
READ = pytest.mark.parametrize("deck, group", [("short", DEFAULT_GROUP), ("full", DEFAULT_GROUP),
                                               ("short", GROUPS["modp2048"])],
                               ids=[f"short-{DEFAULT_GROUP.name}", f"full-{DEFAULT_GROUP.name}", "short-modp2048"])
AT_LEAST = {"short": 20, "full": 33}  # positions the control must name


def related(group: Group, index: int) -> int:
    """A card encoding with known relations: the control."""
    if isinstance(group, ModpGroup):
        return gmpy2.powmod(index + 2, 2, group.p)
    return group.base_power(index + 2)  # (i + 2)·G: a sum of two is often a third


@pytest.fixture
def related_encodings(monkeypatch):
    """Encodings full of relations in every group (the control)."""
    for kind in (ModpGroup, Ed25519Group, Secp256k1Group):
        monkeypatch.setattr(kind, "encode", related)
    crypto._encodings.cache_clear()
    yield
    crypto._encodings.cache_clear()


def test_card_encodings_are_fixed_distinct_and_unrelated(group):
    encoded = group.encoded(52)
    assert len(set(encoded)) == 52 and all(group.element(group.to_hex(m)) == m for m in encoded)
    digest = hashlib.sha256(",".join(group.to_hex(m) for m in encoded).encode()).hexdigest()
    assert digest == TEST_VECTORS[group.name]
    assert relations(encoded, group) == []  # no a*b = c, a*b = c*d, a^k = b
    assert [group.encode(i) for i in range(52)] == list(encoded)


def shuffle_decks(room: Room) -> list[list[int]]:
    """Every shuffle step's output deck, as any reader of the ledger sees it."""
    bodies = [e.body for e in room.ledger if e.kind == "post" and e.body is not None]
    return [[room.group.from_hex(x, "card") for x in body["msg"]["deck"]]
            for body in bodies if body["msg"]["type"] == "shuffle"]


def true_cards(room: Room) -> list[int]:
    """Card index at each final position, from every seat's secrets (only a test knows them all)."""
    deck, group = room.tables[0].play.deck, room.group
    assert deck is not None
    encodings = group.encodings(deck.size)
    return [encodings[group.decrypt(c, *(table.secrets(1, group).card_key(pos).d for table in room.tables))]
            for pos, c in enumerate(deck.final)]


def read_the_ledger(deck: str, group: Group) -> tuple[Room, list, tuple, dict]:
    """Two honest players finish a game; the analysis runs on the ledger's last phase-1 step."""
    room = Room(options={"deck": deck}, group=group)
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.violations == {} and room.tables[0].play.verdict == []
    played = room.tables[0].play.deck
    assert played is not None
    size = played.size
    encodings = group.encoded(size)
    decks = shuffle_decks(room)
    assert len(decks) == 4
    # Phase 2 does not permute, so positions named in step 2's output are final positions.
    return room, decks, encodings, name_positions(decks[1], encodings, group)


@READ
def test_a_ledger_reader_names_no_position(deck, group):
    _, decks, encodings, named = read_the_ledger(deck, group)
    assert named == {}
    for step, cards in enumerate(decks, 1):
        assert relations(cards, group) == [], f"step {step} keeps a relation"
        assert narrowed(cards, encodings, group) == 0, f"step {step} narrows a position down"
        assert cross_products(cards, encodings, group) == 0


@READ
def test_control_related_encodings_give_the_deal_away(related_encodings, deck, group):
    room, _, _, named = read_the_ledger(deck, group)
    truth = true_cards(room)
    assert len(named) >= AT_LEAST[deck]
    assert all(truth[pos] == card for pos, card in named.items())


class StackingShuffler:
    """A tamper for the second phase-1 shuffler: it names what it can of the first step's output and deals
    itself the best cards. Its step is still a permutation of what it received, raised to its key, and it
    proves it so: which permutation is the shuffler's own choice, and nothing (not the proof, not an audit)
    can tell a chosen one from a random one. What keeps the choice blind is encodings without relations."""

    def __init__(self) -> None:
        self.named: dict[int, int] | None = None

    def __call__(self, table: Table, body: dict) -> dict | None:
        p = table.play
        deck = p.deck
        if body["msg"]["type"] != "shuffle" or deck is None or len(deck.steps) != 1:
            return None
        assert p.state is not None and p.starter is not None and p.group is not None
        received, size = deck.steps[0], deck.size
        self.named = name_positions(received, p.group.encoded(size), p.group)
        rank = [card.rank for card in p.state.setup.faces]
        best = [pos for pos in self.named if rank[self.named[pos]] in HIGH]
        secrets = table.secrets(p.number, p.group)
        order = secrets.permutation(size)  # output j is input order[j]
        k = (table.me - p.starter) % p.seats
        for slot, source in zip(range(5 * k, 5 * k + 5), best):  # my hand's positions get the best cards
            here = order.index(source)
            order[slot], order[here] = order[here], order[slot]
        stacked = prove_phase1(p.group, deck.context(1), received, secrets.shuffle_key(0), order, bytes(32))
        return wire.seal(table.identity(1), table.room, table.me, 1, body["n"], stacked)


def stacked_deals(deals: int, group: Group, *, play_out: bool = False) -> list[tuple[Room, StackingShuffler, list]]:
    """Deal ``deals`` times against the stacking shuffler in seat 1, with seeds where it shuffles second."""
    results: list[tuple[Room, StackingShuffler, list]] = []
    for k in range(1, 400, 2):
        if len(results) == deals:
            break
        room = Room(options={"deck": "short"}, group=group, seeds=[bytes([k]) * 32, bytes([k + 1]) * 32])
        cheater = StackingShuffler()
        room.tamper = {1: cheater}
        if play_out:
            room.strategies = {0: simple(1), 1: simple(2)}
        room.run(until=lambda: room.tables[1].play.starter is not None)  # the draw for who starts, before shuffling
        if room.tables[1].play.starter != 0:
            continue  # seat 1 would shuffle first here: nothing to stack
        room.run(until=lambda: room.tables[1].phase is not Phase.SHUFFLING and room.tables[1].play.dealt)
        assert room.violations == {}, room.violations
        state = room.tables[1].play.state
        assert state is not None
        hand = [card for _, card in state.view(1).hand]
        results.append((room, cheater, hand))
    return results


@PLAYED
def test_a_second_shuffler_cannot_stack_the_deck(group):
    results = stacked_deals(8, group)
    assert all(cheater.named == {} for _, cheater, _ in results)  # nothing recognised, so nothing chosen
    high = sum(card.rank in HIGH for _, _, hand in results for card in hand)
    # 8 hands of 5 from 24 cards with 8 aces and kings: 13.3 expected by chance; the control gets 40.
    assert high <= 22, f"{high} aces and kings in 40 cards"


@PLAYED
def test_control_related_encodings_let_the_second_shuffler_stack(related_encodings, group):
    for _, cheater, hand in stacked_deals(3, group):
        assert len(cheater.named) >= 15
        assert all(card.rank in HIGH for card in hand), hand
    # The game plays on with the stacked hands, and nothing names it: the step is a proven permutation.
    [(room, _, _)] = stacked_deals(1, group, play_out=True)
    room.run()
    assert room.violations == {}
    assert room.tables[0].play.verdict == []
