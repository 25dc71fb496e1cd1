"""Nobody can read or stack the deal: not the other shufflers, not the relay, not any reader of the ledger.

The attack (tests/relations.py) matches multiplicative relations among the
ciphertexts of a shuffle step against relations among the card encodings.
Each test runs it twice: against the real encodings, where it must find
nothing, and, as a control that proves the analysis and the cheater really
work, against encodings with known relations, m_i = (i + 2)^2, which the
protocol used in version 1.
"""

from __future__ import annotations

import hashlib

import gmpy2
import pytest

from games.discard.strategy import simple
from relations import cross_products, name_positions, narrowed, relations
from room import Room
from tabletop import crypto, wire
from tabletop.crypto import MODP_2048, MODP_3072
from tabletop.deck import Shuffle
from tabletop.table import Phase, Table

# SHA-256 of the 52 encodings of card 0..51 as lower-case hex joined by commas (docs/protocol.md).
TEST_VECTORS = {
    "modp2048": "0600b8c43cd3c89911eca29c19d901cd7874ffe939cdf788c08f2cd3d0a1ab84",
    "modp3072": "7d3558b3f13453804beaec79f68a60416b44139a2069f157959712e94eab21fc",
}
HIGH = ("A", "K")


@pytest.fixture
def related_encodings(monkeypatch):
    """The encodings of protocol version 1, m_i = (i + 2)^2: full of relations (the control)."""
    monkeypatch.setattr(crypto, "card_encoding", lambda group, index: gmpy2.powmod(index + 2, 2, group.p))
    crypto._encodings.cache_clear()
    yield
    crypto._encodings.cache_clear()


@pytest.mark.parametrize("group", [MODP_2048, MODP_3072], ids=lambda g: g.name)
def test_card_encodings_are_fixed_distinct_and_unrelated(group):
    encoded = group.encoded(52)
    assert len(set(encoded)) == 52 and all(group.is_element(m) for m in encoded)
    digest = hashlib.sha256(",".join(format(m, "x") for m in encoded).encode()).hexdigest()
    assert digest == TEST_VECTORS[group.name]
    assert relations(encoded, group.p) == []  # no a*b = c, a*b = c*d, a^k = b
    assert [group.encode(i) for i in range(52)] == list(encoded)


def shuffle_decks(room: Room) -> list[list[gmpy2.mpz]]:
    """Every shuffle step's output deck, as any reader of the ledger sees it."""
    bodies = [e.body for e in room.ledger if e.kind == "post" and e.body is not None]
    return [[gmpy2.mpz(x, 16) for x in body["msg"]["deck"]] for body in bodies if body["msg"]["type"] == "shuffle"]


def true_cards(room: Room) -> list[int]:
    """Card index at each final position, from every seat's secrets (only a test knows them all)."""
    deck = room.tables[0].play.deck
    assert deck is not None
    encodings = MODP_2048.encodings(deck.size)
    faces = []
    for pos, c in enumerate(deck.final):
        exponent = 1
        for table in room.tables:
            exponent = exponent * table.secrets(1, MODP_2048).card_key(pos).d % MODP_2048.q
        faces.append(encodings[gmpy2.powmod(c, exponent, MODP_2048.p)])
    return faces


def read_the_ledger(deck: str) -> tuple[Room, list, tuple, dict]:
    """Two honest players finish a game; the analysis runs on the ledger's last phase-1 step."""
    room = Room(options={"deck": deck})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.violations == {} and room.tables[0].play.verdict == []
    played = room.tables[0].play.deck
    assert played is not None
    size = played.size
    encodings = MODP_2048.encoded(size)
    decks = shuffle_decks(room)
    assert len(decks) == 4
    # Phase 2 does not permute, so positions named in step 2's output are final positions.
    return room, decks, encodings, name_positions(decks[1], encodings, MODP_2048.p)


@pytest.mark.parametrize("deck", ["short", "full"])
def test_a_ledger_reader_names_no_position(deck):
    _, decks, encodings, named = read_the_ledger(deck)
    assert named == {}
    for step, cards in enumerate(decks, 1):
        assert relations(cards, MODP_2048.p) == [], f"step {step} keeps a relation"
        assert narrowed(cards, encodings, MODP_2048.p) == 0, f"step {step} narrows a position down"
        assert cross_products(cards, encodings, MODP_2048.p) == 0


@pytest.mark.parametrize("deck, at_least", [("short", 20), ("full", 33)])
def test_control_related_encodings_give_the_deal_away(related_encodings, deck, at_least):
    room, _, _, named = read_the_ledger(deck)
    truth = true_cards(room)
    assert len(named) >= at_least
    assert all(truth[pos] == card for pos, card in named.items())


class StackingShuffler:
    """A tamper for the second phase-1 shuffler: it names what it can of the first step's output and deals
    itself the best cards. Its step is still a permutation of what it received, raised to its key; only
    the audit, which re-derives each seat's permutation from the deck seed its hello committed to, can tell
    it from an honest one."""

    def __init__(self) -> None:
        self.named: dict[int, int] | None = None

    def __call__(self, table: Table, body: dict) -> dict | None:
        p = table.play
        deck = p.deck
        if body["msg"]["type"] != "shuffle" or deck is None or len(deck.steps) != 1:
            return None
        assert p.state is not None and p.starter is not None
        received, size = deck.steps[0], deck.size
        self.named = name_positions(received, MODP_2048.encoded(size), MODP_2048.p)
        rank = [card.rank for card in p.state.setup.faces]
        best = [pos for pos in self.named if rank[self.named[pos]] in HIGH]
        secrets = table.secrets(p.number, MODP_2048)
        order = secrets.permutation(size)  # output j is input order[j]
        k = (table.me - p.starter) % p.seats
        for slot, source in zip(range(5 * k, 5 * k + 5), best):  # my hand's positions get the best cards
            here = order.index(source)
            order[slot], order[here] = order[here], order[slot]
        e = secrets.shuffle_key(0).e
        stacked = Shuffle(phase=1, deck=[format(gmpy2.powmod(received[i], e, MODP_2048.p), "x") for i in order])
        return wire.seal(table.identity(1), table.room, table.me, 1, body["n"], stacked)


def stacked_deals(deals: int, *, play_out: bool = False) -> list[tuple[Room, StackingShuffler, list]]:
    """Deal ``deals`` times against the stacking shuffler in seat 1, with seeds where it shuffles second."""
    results: list[tuple[Room, StackingShuffler, list]] = []
    for k in range(1, 400, 2):
        if len(results) == deals:
            break
        room = Room(options={"deck": "short"}, seeds=[bytes([k]) * 32, bytes([k + 1]) * 32])
        cheater = StackingShuffler()
        room.tamper = {1: cheater}
        if play_out:
            room.strategies = {0: simple(1), 1: simple(2)}
        room.run(until=lambda: room.tables[1].phase is not Phase.SHUFFLING and room.tables[1].play.starter is not None
                 and room.tables[1].play.dealt)
        if room.tables[1].play.starter != 0:
            continue  # seat 1 shuffled first here: nothing to stack
        assert room.violations == {}, room.violations
        state = room.tables[1].play.state
        assert state is not None
        hand = [card for _, card in state.view(1).hand]
        results.append((room, cheater, hand))
    return results


def test_a_second_shuffler_cannot_stack_the_deck():
    results = stacked_deals(8)
    assert all(cheater.named == {} for _, cheater, _ in results)  # nothing recognised, so nothing chosen
    high = sum(card.rank in HIGH for _, _, hand in results for card in hand)
    # 8 hands of 5 from 24 cards with 8 aces and kings: 13.3 expected by chance; the control gets 40.
    assert high <= 22, f"{high} aces and kings in 40 cards"


def test_control_related_encodings_let_the_second_shuffler_stack(related_encodings):
    for _, cheater, hand in stacked_deals(3):
        assert len(cheater.named) >= 15
        assert all(card.rank in HIGH for card in hand), hand
    # The game plays on with the stacked hands; only the audit at its end names the cheat.
    [(room, _, _)] = stacked_deals(1, play_out=True)
    room.run()
    assert room.violations == {}
    assert room.tables[0].play.verdict == ["bo's phase-1 shuffle is not the one their seed makes"]
