"""Nobody can read or stack the deal: not the other shuffler, not the relay, not any reader of the ledger.

The attack (tests/relations.py) matches multiplicative relations among the
ciphertexts of a shuffle step against relations among the card encodings.
Each test runs it twice: against the real encodings, where it must find
nothing, and, as a control that proves the analysis and the cheater really
work, against encodings with known relations, m_i = (i + 2)^2, which the
protocol used before version 2.
"""

from __future__ import annotations

import hashlib

import gmpy2
import pytest
from arena import Cheater, honest_outcome
from relations import cross_products, name_positions, narrowed, relations

from discard_tui import protocol as wire
from discard_tui.engine import Phase
from discard_tui.rules import DeckKind
from tabletop import crypto
from tabletop.crypto import MODP_2048, MODP_3072, PlayerSecrets, decrypt, derive_bytes

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


def shuffle_decks(events) -> list[list[gmpy2.mpz]]:
    """Every shuffle step's output deck, as a reader of the ledger sees it."""
    decks = []
    for event in events:
        if event.kind == "post" and event.body["msg"]["type"] == "shuffle":
            decks.append([gmpy2.mpz(x, 16) for x in event.body["msg"]["deck"]])
    return decks


def true_cards(match) -> list[int]:
    """Card index at each final position, from both players' secrets (only a test knows both)."""
    g = match.honest.game
    honest, cheater = match.honest.mine, match.cheater.mine
    encodings = g.group.encodings(g.size)
    return [encodings[decrypt(g.group, c, honest.card_keys[pos].d, cheater.card_keys[pos].d)]
            for pos, c in enumerate(g.final_deck)]


async def read_the_ledger(arena, deck):
    """Two honest players finish a game; the analysis runs on every shuffle step in the ledger."""
    match = await arena(Cheater, deck=deck)  # a cheater that never cheats
    game = await honest_outcome(match)
    assert game is not None and game.verdict == [], match.honest.problem
    g = match.honest.game
    encodings = g.group.encoded(g.size)
    decks = shuffle_decks(match.honest.events)
    assert len(decks) == 4
    # Phase 2 does not permute, so positions named in step 2's output are final positions.
    named = name_positions(decks[1], encodings, g.group.p)
    return match, decks, encodings, named


@pytest.mark.parametrize("deck", [DeckKind.SHORT, DeckKind.FULL])
async def test_a_ledger_reader_names_no_position(arena, deck):
    match, decks, encodings, named = await read_the_ledger(arena, deck)
    p = match.honest.game.group.p
    assert named == {}
    for step, cards in enumerate(decks, 1):
        assert relations(cards, p) == [], f"step {step} keeps a relation"
        assert narrowed(cards, encodings, p) == 0, f"step {step} narrows a position down"
        assert cross_products(cards, encodings, p) == 0


@pytest.mark.parametrize("deck, at_least", [(DeckKind.SHORT, 20), (DeckKind.FULL, 33)])
async def test_control_related_encodings_give_the_deal_away(arena, related_encodings, deck, at_least):
    match, _, _, named = await read_the_ledger(arena, deck)
    truth = true_cards(match)
    assert len(named) >= at_least
    assert all(truth[pos] == card for pos, card in named.items())


class StackingShuffler(Cheater):
    """The second phase-1 shuffler: names what it can of the first one's output and deals itself the best.

    Its permutation is still a permutation of the deck it received, raised to its
    key, so the end-of-game audit cannot tell it from an honest one.
    """

    named: dict[int, int] | None = None

    def cheat(self, message):
        g = self.game
        if not (isinstance(message, wire.Shuffle) and message.phase == 1 and len(g.shuffles) == 1):
            return None
        received = g.shuffles[0]
        self.named = name_positions(received, g.group.encoded(g.size), g.group.p)
        rank = [card.rank for card in g.deck.cards]
        best = sorted(self.named, key=lambda pos: rank[self.named[pos]] in HIGH, reverse=True)
        best = [pos for pos in best if rank[self.named[pos]] in HIGH]
        order = list(self.mine.permutation())  # where the honest shuffle would put each received card
        mine = g.hand_positions(self.seat)
        for slot, source in zip(mine, best):  # swap the best cards into my hand's positions
            here = order.index(source)
            order[slot], order[here] = order[here], order[slot]
        e = self.mine.shuffle_key.e
        return wire.Shuffle(phase=1, deck=[format(gmpy2.powmod(received[i], e, g.group.p), "x") for i in order])


def cheater_shuffles_second(k: int, deck: DeckKind) -> bool:
    """With seeds (k, k + 1), does seat 0 win the coin flip, so that the cheater in seat 1 shuffles second?

    The starter is the low bit of the first byte of SHA-256(nonce of seat 0 ‖ nonce of seat 1).
    """
    nonces = [PlayerSecrets(MODP_2048, derive_bytes(bytes([k + s]) * 32, "game/1", 32), len(deck.cards)).coin_nonce
              for s in (0, 1)]
    return hashlib.sha256(nonces[0] + nonces[1]).digest()[0] & 1 == 0


async def stacked_hands(arena, until, deals: int, *, play_out: bool = False):
    """Deal ``deals`` times against the stacking shuffler; its hands and what it named each time."""
    deck = DeckKind.SHORT
    seeds = [k for k in range(1, 200, 2) if cheater_shuffles_second(k, deck)][:deals]
    results = []
    for k in seeds:
        autoplay = {} if play_out else {"honest_autoplay": None, "cheater_autoplay": None}
        match = await arena(StackingShuffler, deck=deck, honest_seed=bytes([k]) * 32,
                            cheater_seed=bytes([k + 1]) * 32, cheater_seat=1, **autoplay)
        cheater = match.cheater
        await until(lambda: cheater.phase is not Phase.SHUFFLING and cheater.game.dealt_at is not None
                    or cheater.phase is Phase.VIOLATION, "the deal", rounds=2000)
        assert cheater.cheated and cheater.named is not None
        results.append((match, [card for _, card in cheater.hand()], cheater.named))
    return results


async def test_a_second_shuffler_cannot_stack_the_deck(arena, until):
    results = await stacked_hands(arena, until, deals=12)
    assert all(named == {} for _, _, named in results)  # nothing recognised, so nothing chosen
    high = sum(card.rank in HIGH for _, hand, _ in results for card in hand)
    # 12 hands of 5 from 24 cards with 8 aces and kings: 20 expected by chance; the control gets 60.
    assert high <= 30, f"{high} aces and kings in 60 cards"


async def test_control_related_encodings_let_the_second_shuffler_stack(arena, until, related_encodings):
    results = await stacked_hands(arena, until, deals=3)
    for _, hand, named in results:
        assert len(named) >= 15
        assert all(card.rank in HIGH for card in hand), hand
    # ...and the audit calls such a game fair: only the encodings can stop it.
    [(match, _, _)] = await stacked_hands(arena, until, deals=1, play_out=True)
    game = await honest_outcome(match)
    assert game is not None and game.verdict == []
