"""SRA in every group: commutativity, round trips, encoding, validation, keys; then each group's own checks."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import gmpy2
import pytest
from coincurve import PrivateKey
from gmpy2 import mpz
from nacl import bindings

from tabletop.crypto import CryptoViolation, Group, Key, powers
from tabletop.deck import Deck, Secrets, Shuffle
from tabletop.ed25519 import ED25519
from tabletop.groups import DEFAULT_GROUP, GROUPS
from tabletop.modp import MODP_2048, MODP_3072
from tabletop.secp256k1 import SECP256K1

SEED = bytes(range(32))


def test_secp256k1_is_the_default_and_every_group_has_its_own_id():
    assert DEFAULT_GROUP is SECP256K1
    assert all(g.name == name for name, g in GROUPS.items())


def test_keys_invert_mod_q(group: Group):
    for label in ("a", "b", "c"):
        key = Key.derive(group, SEED, label)
        assert 2 <= key.e < group.q and key.e * key.d % group.q == 1
    assert Key.derive(group, SEED, "a").e != Key.derive(group, SEED, "b").e


def test_round_trip_and_commutativity(group: Group):
    a, b = Key.derive(group, SEED, "alice"), Key.derive(group, SEED, "bob")
    m = group.encode(17)
    ab = group.power(group.power(m, a.e), b.e)
    assert ab == group.power(group.power(m, b.e), a.e)
    assert group.decrypt(ab, a.d, b.d) == m
    assert group.decrypt(group.decrypt(ab, b.d), a.d) == m


def test_encodings_are_distinct_elements_that_survive_the_wire(group: Group):
    encodings = group.encodings(52)
    assert len(encodings) == 52
    assert all(group.from_hex(group.to_hex(x), "card") == x for x in encodings)


def shuffle_steps(g: Group, size: int, seats: int = 2) -> tuple[list[list], list[Secrets]]:
    """Every step of an honest shuffle among ``seats`` players, computed in-process."""
    secrets = [Secrets(g, bytes([k + 1]) * 32) for k in range(seats)]
    deck = Deck("room", 1, g, g.encoded(size), tuple(range(seats)), 0, secrets[0], {})
    steps = [list(g.encoded(size))]
    for step in range(2 * seats):
        deck.me, deck.secrets = deck.step_owner(step), secrets[deck.step_owner(step)]
        message = deck.shuffle_job().compute_here()
        assert isinstance(message, Shuffle)
        deck.steps.append(g.validate_deck(message.deck, size, "step"))
        steps.append(deck.steps[-1])
    return steps, secrets


@pytest.mark.parametrize("g, seats, size", [(SECP256K1, 2, 24), (SECP256K1, 3, 24), (ED25519, 2, 24),
                                           (ED25519, 3, 24), (MODP_2048, 2, 8), (MODP_2048, 3, 8), (MODP_3072, 2, 4)],
                         ids=["2-secp256k1", "3-secp256k1", "2-ed25519", "3-ed25519", "2-modp2048", "3-modp2048",
                              "2-modp3072"])
def test_the_shuffle_decrypts_to_a_permutation(g: Group, seats: int, size: int):
    """Every group; three shufflers on each curve and in MODP (3072 bits runs the code 2048 does, slower). Every
    step is proven, so MODP's decks are small."""
    steps, secrets = shuffle_steps(g, size, seats)
    final = steps[-1]
    faces = [g.decrypt(c, *(s.card_key(i).d for s in secrets)) for i, c in enumerate(final)]
    assert sorted(g.encodings(size)[f] for f in faces) == list(range(size))
    assert faces != steps[0]  # shuffled


def test_permutation_is_deterministic_per_seed():
    a1, a2 = Secrets(DEFAULT_GROUP, SEED), Secrets(DEFAULT_GROUP, SEED)
    assert a1.permutation(52) == a2.permutation(52)
    assert sorted(a1.permutation(52)) == list(range(52))
    assert Secrets(DEFAULT_GROUP, b"x" * 32).permutation(52) != a1.permutation(52)


def test_deck_validation(group: Group):
    deck = [group.to_hex(group.encode(i)) for i in range(24)]
    assert len(group.validate_deck(deck, 24, "deck")) == 24
    with pytest.raises(CryptoViolation, match="has 23 cards instead of 24"):
        group.validate_deck(deck[:23], 24, "deck")
    with pytest.raises(CryptoViolation, match="duplicated card"):
        group.validate_deck(deck[:23] + deck[:1], 24, "deck")


def test_key_validation(group: Group):
    for bad in (format(group.q, "x"), "0", "zz"):
        with pytest.raises(CryptoViolation, match="not a valid key|not a hexadecimal"):
            group.exponent_from_hex(bad, "key")
    assert group.exponent_from_hex(format(group.q - 1, "x"), "key") == group.q - 1


async def test_the_workers_match_inline(group: Group):
    bases = [group.encode(i) for i in range(10)]
    exps = [3 + i for i in range(10)]
    assert await powers(group, bases, exps) == group.powers(bases, exps)


# -- MODP: the RFC 3526 primes and the residue check --------------------------------------------------------


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


def test_legendre_symbol_tells_nothing():
    """Lipton's attack: plain SRA leaks each card's quadratic residuosity. Ours are all residues."""
    steps, _ = shuffle_steps(MODP_2048, 8)  # every element of every step; the deck's size changes nothing
    for stage in steps:
        assert {gmpy2.legendre(x, MODP_2048.p) for x in stage} == {1}


NON_RESIDUE = next(x for x in range(2, 100) if gmpy2.legendre(x, MODP_2048.p) == -1)


@pytest.mark.parametrize("value", [
    "1",  # the identity
    format(MODP_2048.p - 1, "x"),  # order 2
    format(MODP_2048.p + 4, "x"),  # not reduced
    format(NON_RESIDUE, "x"),  # outside the order-q subgroup
    "0" + MODP_2048.to_hex(MODP_2048.encode(0)),  # a leading zero: not canonical
    "zz",
], ids=["identity", "order-2", "unreduced", "non-residue", "leading-zero", "not-hex"])
def test_modp_elements_are_checked(value):
    with pytest.raises(CryptoViolation, match="not an element"):
        MODP_2048.from_hex(value, "card")


# -- ed25519: libsodium's point checks ------------------------------------------------------------------------

ORDER_2 = "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"  # small-order points of edwards25519
ORDER_8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"


def torsioned() -> str:
    """A card plus a point of order 2: on the curve and of large order, but outside the main subgroup."""
    card = ED25519.encode(0).to_bytes(32, "little")
    return bindings.crypto_core_ed25519_add(card, bytes.fromhex(ORDER_2)).hex()


@pytest.mark.parametrize("value", [
    "01" + "00" * 31,  # the identity
    ORDER_2,
    ORDER_8,
    "ee" + "ff" * 30 + "7f",  # y = p + 1: a non-canonical encoding
    "02" + "00" * 31,  # y = 2 is on no point of the curve
    torsioned(),
    ED25519.to_hex(ED25519.encode(0)).upper(),  # hex is lower-case
    ED25519.to_hex(ED25519.encode(0))[:62],  # 31 bytes
    "zz" * 32,
], ids=["identity", "order-2", "order-8", "non-canonical", "off-curve", "torsioned", "upper-case", "short",
        "not-hex"])
def test_ed25519_points_are_checked(value):
    with pytest.raises(CryptoViolation, match="not an element"):
        ED25519.from_hex(value, "card")


def test_ed25519_multiplies_by_the_scalar_as_it_is():
    """noclamp: k·P for every k < ℓ, so that keys compose mod ℓ (a clamped multiply would not invert)."""
    card, k = ED25519.encode(5), ED25519.q - 2
    assert ED25519.power(ED25519.power(card, k), ED25519.invert(k)) == card


def test_the_card_encodings_are_checked_even_on_the_curve(monkeypatch):
    """The self-check of the encodings runs libsodium's point check: a bad hash-to-curve would be caught, not
    remembered as checked."""
    from tabletop import crypto
    from tabletop.ed25519 import Ed25519Group

    order_8 = int.from_bytes(bytes.fromhex(ORDER_8), "little")
    monkeypatch.setattr(Ed25519Group, "encode", lambda self, index: order_8 if index == 3 else ED25519.q + index)
    crypto._encodings.cache_clear()
    try:
        with pytest.raises(AssertionError, match="not 5 distinct group elements"):
            Ed25519Group().encoded(5)
    finally:
        crypto._encodings.cache_clear()


def test_a_pool_shut_down_before_prepare_started_it_is_not_started():
    """prepare() starts the pool on a thread; a shutdown_pool() that comes first (the player quit) wins."""
    import threading

    from tabletop import crypto

    crypto.shutdown_pool()
    try:
        with crypto._pool_lock:  # the thread waits for the lock, as it would behind a shutdown in progress
            crypto.prepare(MODP_2048)
            crypto.shutdown_pool()
        for thread in [t for t in threading.enumerate() if t.name == "discard-pool-start"]:
            thread.join(30)
        assert crypto._pool is None and not crypto._started
    finally:
        crypto.start_pool()  # the session's pool (tests/conftest.py), as the other tests expect it


# -- secp256k1: libsecp256k1's parse is the element check ----------------------------------------------------------

SECP_P = 2**256 - 2**32 - 977  # the field prime
SECP_CARD = SECP256K1.to_hex(SECP256K1.encode(0))


def secp_x(x: int, prefix: str = "02") -> str:
    """The compressed encoding with this x, written out whether or not it is a point (x may be p or more)."""
    return prefix + x.to_bytes(32, "big").hex()


def on_secp256k1(x: int) -> bool:
    return pow((x**3 + 7) % SECP_P, (SECP_P - 1) // 2, SECP_P) == 1


@dataclass(frozen=True)
class SecpPoint:
    """Affine secp256k1 in plain Python, slow and obviously right: a reference for libsecp256k1's results."""

    x: int
    y: int

    @classmethod
    def of(cls, element: int) -> SecpPoint:
        encoded = element.to_bytes(33, "big")
        x = int.from_bytes(encoded[1:], "big")
        y = pow((x**3 + 7) % SECP_P, (SECP_P + 1) // 4, SECP_P)  # p = 3 mod 4
        return cls(x, y if y % 2 == encoded[0] - 2 else SECP_P - y)

    def element(self) -> int:
        return int.from_bytes(bytes([2 + self.y % 2]) + self.x.to_bytes(32, "big"), "big")

    def uncompressed(self) -> bytes:
        return self.x.to_bytes(32, "big") + self.y.to_bytes(32, "big")

    def __add__(self, other: SecpPoint | None) -> SecpPoint | None:
        if other is None:
            return self
        if self.x == other.x and (self.y + other.y) % SECP_P == 0:
            return None  # the point at infinity
        if self == other:
            slope = 3 * self.x * self.x * pow(2 * self.y, -1, SECP_P)
        else:
            slope = (other.y - self.y) * pow(other.x - self.x, -1, SECP_P)
        x = (slope * slope - self.x - other.x) % SECP_P
        return SecpPoint(x, (slope * (self.x - x) - self.y) % SECP_P)

    def times(self, k: int) -> SecpPoint | None:
        result: SecpPoint | None = None
        addend: SecpPoint | None = self
        while k:
            assert addend is not None  # 2^i·P, never infinity: the order is a large prime
            if k & 1:
                result = addend + result
            addend = addend + addend
            k >>= 1
        return result


OFF_CURVE_X = next(x for x in range(1, 100) if not on_secp256k1(x))
ON_CURVE_X = next(x for x in range(1, 100) if on_secp256k1(x))  # x = 1: 1 + 7 = 8 is a square mod p


@pytest.mark.parametrize("value", [
    SECP256K1.to_hex(SECP256K1.identity),  # 33 zero bytes: the identity has no encoding
    "04" + SecpPoint.of(SECP256K1.encode(0)).uncompressed().hex(),  # uncompressed SEC 1: a point, but not canonical
    "06" + SecpPoint.of(SECP256K1.encode(0)).uncompressed().hex(),  # hybrid SEC 1, which libsecp256k1 also parses
    "00" + SECP_CARD[2:],
    "01" + SECP_CARD[2:],
    "05" + SECP_CARD[2:],
    secp_x(SECP_P),  # x = p: not reduced
    secp_x(SECP_P + ON_CURVE_X),  # x = p + 1 would be the point with x = 1 if it were reduced
    secp_x(2**256 - 1, "03"),
    secp_x(0),  # 0³ + 7 is not a square: no point has x = 0
    secp_x(OFF_CURVE_X),
    SECP_CARD.upper(),
    SECP_CARD[:2] + SECP_CARD[2:].upper(),
    SECP_CARD[:-2],  # 32 bytes
    SECP_CARD + "00",  # 34 bytes
    SECP_CARD[:-1],
    SECP_CARD + "\n",
    "zz" * 33,
    "",
], ids=["identity", "uncompressed", "hybrid", "prefix-00", "prefix-01", "prefix-05", "x=p", "x=p+1", "x=2^256-1",
        "x=0", "off-curve", "upper-case", "upper-case-x", "32-bytes", "34-bytes", "odd-length", "newline", "not-hex",
        "empty"])
def test_secp256k1_points_are_checked(value):
    with pytest.raises(CryptoViolation, match="not an element"):
        SECP256K1.from_hex(value, "card")


def test_secp256k1_accepts_both_parities_of_a_point_and_the_point_with_x_1():
    """The prefixes 02 and 03 of one x are a point and its negation, both elements; the encoding is unique."""
    card = SECP256K1.encode(0)
    negated = SECP256K1.scale(card, -1)
    assert SECP_CARD.startswith("02") and SECP256K1.to_hex(negated) == "03" + SECP_CARD[2:]
    assert SECP256K1.from_hex("03" + SECP_CARD[2:], "card") == negated
    assert SECP256K1.from_hex(secp_x(ON_CURVE_X), "card") == int(secp_x(ON_CURVE_X), 16)


def test_secp256k1_arithmetic_is_the_curve_s():
    """power, base_power and multiply against plain-Python affine arithmetic and coincurve's other paths (its
    secret-key arithmetic); add(x, -x) is the identity and add(x, x) doubles."""
    card, other = SECP256K1.encode(0), SECP256K1.encode(1)
    g = SecpPoint.of(SECP256K1.generator)
    assert (g.x, g.y) == (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
                          0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)
    assert SecpPoint.of(card).times(SECP256K1.q) is None and g.times(SECP256K1.q) is None
    for k in (1, 2, 3, 2**128 + 1, SECP256K1.q - 1, Key.derive(SECP256K1, SEED, "a").e):
        assert SECP256K1.power(card, k) == SecpPoint.of(card).times(k).element()
        assert SECP256K1.base_power(k) == g.times(k).element() == SECP256K1.power(SECP256K1.generator, k)
        assert SECP256K1.base_power(k) == int.from_bytes(PrivateKey.from_int(k).public_key.format(), "big")
    assert SECP256K1.multiply(card, other) == (SecpPoint.of(card) + SecpPoint.of(other)).element()
    assert SECP256K1.add(card, card) == SecpPoint.of(card).times(2).element() == SECP256K1.power(card, 2)
    assert SECP256K1.add(card, SECP256K1.scale(card, -1)) == SECP256K1.identity
    assert SECP256K1.multiply(card, SECP256K1.power(card, SECP256K1.q - 1)) == SECP256K1.identity
    assert SECP256K1.add(SECP256K1.identity, card) == card == SECP256K1.add(card, SECP256K1.identity)
    assert SECP256K1.scale(card, SECP256K1.q) == SECP256K1.identity == SECP256K1.scale(SECP256K1.identity, 5)
    assert SECP256K1.scale(card, SECP256K1.q + 2) == SECP256K1.power(card, 2)


def test_secp256k1_multiplication_refuses_a_scalar_out_of_range():
    """libsecp256k1 gets k as it is, never reduced: coincurve refuses 0 and n or more (scale() reduces first)."""
    card = SECP256K1.encode(0)
    for k in (0, SECP256K1.q, SECP256K1.q + 1):
        with pytest.raises(ValueError):
            SECP256K1.power(card, k)
        with pytest.raises(ValueError):
            SECP256K1.base_power(k)
    with pytest.raises(OverflowError):
        SECP256K1.power(card, 2**256)


def test_secp256k1_hashes_to_the_first_even_point():
    """Card 0 is 02 ‖ x for the first counter whose x = SHAKE-256(label ‖ "/" ‖ counter) is the x of a point."""
    label = SECP256K1.card_label(0)
    xs = [hashlib.shake_256(label + b"/" + str(c).encode()).digest(32) for c in range(20)]
    first = next(c for c, x in enumerate(xs) if int.from_bytes(x, "big") < SECP_P
                 and on_secp256k1(int.from_bytes(x, "big")))
    assert SECP_CARD == "02" + xs[first].hex()


def test_secp256k1_multiply_takes_only_a_cancelling_sum_for_the_identity():
    """libsecp256k1 refuses a sum that is the point at infinity, and only that is the identity: a value that is
    no point (the identity's 0 among them, which add() keeps from multiply) raises, rather than being summed as
    the point at infinity."""
    card = SECP256K1.encode(0)
    assert SECP256K1.multiply(card, SECP256K1.scale(card, -1)) == SECP256K1.identity
    for x in (SECP256K1.identity, int(secp_x(OFF_CURVE_X), 16)):
        with pytest.raises(ValueError):
            SECP256K1.multiply(x, card)
        with pytest.raises(ValueError):
            SECP256K1.multiply(card, x)


def test_a_sum_of_many_points_is_the_sum_added_one_at_a_time(group: Group):
    """A group may sum many points at once (secp256k1: one call of libsecp256k1): the same as adding them in turn,
    the identity skipped, a sum that cancels the identity."""
    points = [group.encode(i) for i in range(7)]
    one_at_a_time = group.identity
    for x in points:
        one_at_a_time = group.add(one_at_a_time, x)
    assert group.total(points) == group.total([group.identity, *points, group.identity]) == one_at_a_time
    assert group.total([points[0], group.scale(points[0], -1)]) == group.identity
    assert group.total([]) == group.identity and group.total(points[:1]) == points[0]
