"""SRA in the RFC 3526 groups: commutativity, round trips, encoding, validation, keys."""

import gmpy2
import pytest
from gmpy2 import mpz

from tabletop.crypto import MODP_2048, MODP_3072, CryptoViolation, Key, decrypt, group_for_prime, powmod_many
from tabletop.deck import Deck, Secrets, Shuffle

SEED = bytes(range(32))


def rfc3526_prime(bits: int, addend: int) -> mpz:
    """p = 2^bits - 2^(bits-64) - 1 + 2^64 * (floor(2^(bits-130) * pi) + addend), as RFC 3526 defines it."""
    context = gmpy2.get_context().copy()
    context.precision = bits + 200
    with context:
        floor_pi = int(gmpy2.floor(gmpy2.const_pi() * mpz(2) ** (bits - 130)))
    return mpz(2**bits - 2 ** (bits - 64) - 1 + 2**64 * (floor_pi + addend))


def test_hard_coded_primes_are_rfc_3526():
    assert MODP_2048.p == rfc3526_prime(2048, 124476)
    assert MODP_3072.p == rfc3526_prime(3072, 1690314)
    for group in (MODP_2048, MODP_3072):
        assert gmpy2.is_prime(group.q) and group.p == 2 * group.q + 1


def test_group_lookup_rejects_other_primes():
    assert group_for_prime(format(MODP_2048.p, "x")) is MODP_2048
    assert group_for_prime(format(gmpy2.next_prime(MODP_2048.p), "x")) is None
    assert group_for_prime("not hex") is None


def test_keys_invert_mod_q():
    for label in ("a", "b", "c"):
        key = Key.derive(MODP_2048, SEED, label)
        assert 2 <= key.e < MODP_2048.q and key.e * key.d % MODP_2048.q == 1
    assert Key.derive(MODP_2048, SEED, "a").e != Key.derive(MODP_2048, SEED, "b").e


def test_round_trip_and_commutativity():
    g = MODP_2048
    a, b = Key.derive(g, SEED, "alice"), Key.derive(g, SEED, "bob")
    m = g.encode(17)
    ab = gmpy2.powmod(gmpy2.powmod(m, a.e, g.p), b.e, g.p)
    ba = gmpy2.powmod(gmpy2.powmod(m, b.e, g.p), a.e, g.p)
    assert ab == ba
    assert decrypt(g, ab, a.d, b.d) == m
    assert decrypt(g, decrypt(g, ab, b.d), a.d) == m


def test_encoding_is_distinct_quadratic_residues():
    g = MODP_2048
    encodings = g.encodings(52)
    assert len(encodings) == 52
    assert all(g.is_element(x) for x in encodings)


def shuffle_steps(size: int, seats: int = 2) -> tuple[list[list], list[Secrets]]:
    """Every step of an honest shuffle among ``seats`` players, computed in-process."""
    g = MODP_2048
    secrets = [Secrets(g, bytes([k + 1]) * 32) for k in range(seats)]
    deck = Deck("room", 1, g, g.encoded(size), tuple(range(seats)), 0, secrets[0], {})
    steps = [list(g.encoded(size))]
    for step in range(2 * seats):
        deck.me, deck.secrets = deck.step_owner(step), secrets[deck.step_owner(step)]
        job = deck.shuffle_job()
        message = job.finish([gmpy2.powmod(b, e, g.p) for b, e in zip(job.bases, job.exponents)])
        assert isinstance(message, Shuffle)
        deck.steps.append([mpz(x, 16) for x in message.deck])
        steps.append(deck.steps[-1])
    return steps, secrets


def test_legendre_symbol_tells_nothing():
    """Lipton's attack: plain SRA leaks each card's quadratic residuosity. Ours are all residues."""
    steps, _ = shuffle_steps(52)
    for stage in steps:
        assert {gmpy2.legendre(x, MODP_2048.p) for x in stage} == {1}


@pytest.mark.parametrize("seats", [2, 3])
def test_the_shuffle_decrypts_to_a_permutation(seats):
    g = MODP_2048
    steps, secrets = shuffle_steps(24, seats)
    final = steps[-1]
    faces = [decrypt(g, c, *(s.card_key(i).d for s in secrets)) for i, c in enumerate(final)]
    assert sorted(g.encodings(24)[f] for f in faces) == list(range(24))
    assert faces != steps[0]  # shuffled


def test_permutation_is_deterministic_per_seed():
    a1, a2 = Secrets(MODP_2048, SEED), Secrets(MODP_2048, SEED)
    assert a1.permutation(52) == a2.permutation(52)
    assert sorted(a1.permutation(52)) == list(range(52))
    assert Secrets(MODP_2048, b"x" * 32).permutation(52) != a1.permutation(52)


@pytest.mark.parametrize("value, problem", [
    ("1", "not an element"),
    (format(MODP_2048.p - 1, "x"), "not an element"),
    (format(MODP_2048.p + 4, "x"), "not an element"),
    ("zz", "not a hexadecimal number"),
])
def test_element_validation(value, problem):
    with pytest.raises(CryptoViolation, match=problem):
        MODP_2048.from_hex(value, "card")


def test_non_residue_is_rejected():
    non_residue = next(x for x in range(2, 100) if gmpy2.legendre(x, MODP_2048.p) == -1)
    with pytest.raises(CryptoViolation, match="not an element"):
        MODP_2048.from_hex(format(non_residue, "x"), "card")


def test_deck_validation():
    g = MODP_2048
    deck = [format(g.encode(i), "x") for i in range(24)]
    assert len(g.validate_deck(deck, 24, "deck")) == 24
    with pytest.raises(CryptoViolation, match="has 23 cards instead of 24"):
        g.validate_deck(deck[:23], 24, "deck")
    with pytest.raises(CryptoViolation, match="duplicated card"):
        g.validate_deck(deck[:23] + deck[:1], 24, "deck")


def test_key_validation():
    with pytest.raises(CryptoViolation, match="not a valid key"):
        MODP_2048.exponent_from_hex(format(MODP_2048.q, "x"), "key")
    with pytest.raises(CryptoViolation, match="not a valid key"):
        MODP_2048.exponent_from_hex("0", "key")


async def test_pool_matches_inline():
    g = MODP_2048
    bases = [g.encode(i) for i in range(10)]
    exps = [mpz(3 + i) for i in range(10)]
    assert await powmod_many(bases, exps, g.p) == [gmpy2.powmod(b, e, g.p) for b, e in zip(bases, exps)]
