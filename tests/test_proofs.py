"""The zero-knowledge proofs of a seat's two shuffle steps (tabletop/proofs.py, protocol version 5).

Phase 1 turns the deck X into Y_t = e·X[order[t]] and is proven as a shuffle of A = Y into B = X under
k = d = e⁻¹ (B_i = k·A_σ(i), σ = order⁻¹); phase 2 turns W into Z_j = (d·e_j)·W_j and proves d_j·Z_j = d·W_j.
Completeness, soundness against a prover who lies, binding to the context, the wire form's strictness, a
property test of single changes (the proofs' test vectors are in tests/test_vectors.py). Soundness is shown on
ed25519; completeness, the wire form's element and scalar checks and the property run on secp256k1 (the default)
too. Small decks keep the file fast: one 52-card deck and two MODP tests.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from coincurve import PublicKey
from nacl import bindings

from tabletop.crypto import Group, Key
from tabletop.groups import GROUPS
from tabletop.proofs import (ProofError, RekeyProof, ShuffleProof, check_rekey, check_shuffle, prove_rekey,
                             prove_shuffle, rekey_size, shuffle_size)

ED = GROUPS["ed25519"]
SECP = GROUPS["secp256k1"]
MODP = GROUPS["modp2048"]
SEED = bytes(range(32))  # the seat's keys
SECRET = bytes(range(32, 64))  # the seat's proving secret (its nonces)
Statement = tuple[list[int], list[int], int]  # (a, b, key) of a shuffle, or (w, z, key) of a re-keying


def context(group: Group, room: str = "r") -> dict[str, Any]:
    return {"version": 5, "group": group.name, "room": room, "game": 1, "deal": 0, "seat": 0, "step": 1}


@dataclass(frozen=True)
class Step:
    """One seat's honest turn and its two proofs. Phase 1: X -> Y with Y_t = e·X[order[t]], proven as a = Y,
    b = X, k = d, σ = order⁻¹. Phase 2: W (here Y) -> Z with Z_j = (d·e_j)·W_j, D_j = d_j·G, e_j = d_j⁻¹."""

    group: Group
    context: dict[str, Any]
    x: tuple[int, ...]
    order: tuple[int, ...]
    key: Key  # the seat's e and d
    y: tuple[int, ...]
    sigma: tuple[int, ...]
    shuffle: ShuffleProof
    z: tuple[int, ...]
    d_keys: tuple[int, ...]
    keys: tuple[int, ...]  # D_j = d_j·G
    rekey: RekeyProof

    @property
    def w(self) -> tuple[int, ...]:
        return self.y

    @property
    def commitment(self) -> int:
        """F = d·G."""
        return self.group.base_power(self.key.d)

    def check_shuffle(self, a: Any = None, b: Any = None, key: int | None = None, proof: ShuffleProof | None = None,
                      ctx: dict[str, Any] | None = None) -> None:
        """check_shuffle on this step's statement and proof, any of them replaced."""
        check_shuffle(self.group, self.context if ctx is None else ctx, self.y if a is None else a,
                      self.x if b is None else b, self.commitment if key is None else key,
                      self.shuffle if proof is None else proof)

    def check_rekey(self, w: Any = None, z: Any = None, key: int | None = None, keys: Any = None,
                    proof: RekeyProof | None = None, ctx: dict[str, Any] | None = None) -> None:
        """check_rekey on this step's statement and proof, any of them replaced."""
        check_rekey(self.group, self.context if ctx is None else ctx, self.w if w is None else w,
                    self.z if z is None else z, self.commitment if key is None else key,
                    self.keys if keys is None else keys, self.rekey if proof is None else proof)


@functools.lru_cache(maxsize=None)
def honest(group: Group, size: int, order: tuple[int, ...] | None = None, room: str = "r") -> Step:
    """The honest phase-1 and phase-2 step of seat 0 on the unshuffled deck of ``size`` cards (cached: a Step is
    never changed, tests build altered copies of its pieces)."""
    order = order if order is not None else tuple(random.Random(size).sample(range(size), size))
    ctx = context(group, room)
    x = group.encoded(size)
    key = Key.derive(group, SEED, "shuffle/0")
    y = tuple(group.power(x[order[t]], key.e) for t in range(size))
    sigma = [0] * size
    for t, i in enumerate(order):
        sigma[i] = t
    shuffle = prove_shuffle(group, ctx, y, x, key.d, sigma, SECRET)
    positions = [Key.derive(group, SEED, f"card/{j}") for j in range(size)]
    z = tuple(group.power(y[j], key.d * k.e % group.q) for j, k in enumerate(positions))
    d_keys = tuple(k.d for k in positions)
    rekey = prove_rekey(group, ctx, y, z, key.d, d_keys, SECRET)
    return Step(group, ctx, x, order, key, y, tuple(sigma), shuffle, z, d_keys,
                tuple(group.base_power(dj) for dj in d_keys), rekey)


OTHER = Key.derive(ED, SEED, "other")  # a key the seat did not commit to


def swapped(items: Any, i: int = 0, j: int = 1) -> list[Any]:
    out = list(items)
    out[i], out[j] = out[j], out[i]
    return out


def spliced(items: Any, index: int, value: Any) -> list[Any]:
    out = list(items)
    out[index] = value
    return out


# -- 1. completeness ---------------------------------------------------------------------------------------------


COMPLETE = [(group, size) for group in (SECP, ED) for size in (1, 2, 5, 8)] + [(MODP, 3)]


@pytest.mark.parametrize("group, size", COMPLETE, ids=[f"{g.name}-{n}" for g, n in COMPLETE])
def test_honest_proofs_verify_and_survive_the_wire(group: Group, size: int):
    step = honest(group, size)
    step.check_shuffle()
    step.check_rekey()
    shuffle_wire, rekey_wire = step.shuffle.to_wire(group), step.rekey.to_wire(group)
    assert len(shuffle_wire) == shuffle_size(size) and len(rekey_wire) == rekey_size(size)
    assert all(isinstance(s, str) and s == s.lower() for s in shuffle_wire + rekey_wire)
    shuffle = ShuffleProof.from_wire(group, shuffle_wire, size)
    rekey = RekeyProof.from_wire(group, rekey_wire, size)
    assert (shuffle, rekey) == (step.shuffle, step.rekey)
    step.check_shuffle(proof=shuffle)
    step.check_rekey(proof=rekey)


def test_a_full_52_card_deck():
    step = honest(ED, 52)
    step.check_shuffle(proof=ShuffleProof.from_wire(ED, step.shuffle.to_wire(ED), 52))
    step.check_rekey(proof=RekeyProof.from_wire(ED, step.rekey.to_wire(ED), 52))


def test_the_identity_order_is_a_shuffle_too():
    step = honest(ED, 4, order=(0, 1, 2, 3))
    step.check_shuffle()
    step.check_rekey()


def test_proving_is_deterministic_and_the_secret_makes_the_nonces():
    step = honest(ED, 4)
    again = prove_shuffle(ED, step.context, step.y, step.x, step.key.d, step.sigma, SECRET)
    assert again == step.shuffle
    assert prove_rekey(ED, step.context, step.w, step.z, step.key.d, step.d_keys, SECRET) == step.rekey
    other = prove_shuffle(ED, step.context, step.y, step.x, step.key.d, step.sigma, bytes(32))
    assert other != step.shuffle and other.commitments != step.shuffle.commitments
    step.check_shuffle(proof=other)
    other_rekey = prove_rekey(ED, step.context, step.w, step.z, step.key.d, step.d_keys, bytes(32))
    assert other_rekey != step.rekey
    step.check_rekey(proof=other_rekey)


# -- 2. soundness: the real prover on a false statement, or an honest proof of another statement ------------------

ShuffleCheat = Callable[[Step], tuple[list[int], list[int], int, list[int]]]  # -> (a, b, k, sigma) to prove


def _fresh_card(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return spliced(s.y, 1, ED.encode(999)), list(s.x), s.key.d, list(s.sigma)


def _duplicated_card(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return spliced(s.y, 1, s.y[0]), list(s.x), s.key.d, list(s.sigma)


def _one_card_under_another_key(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return spliced(s.y, 1, ED.power(s.x[s.order[1]], OTHER.e)), list(s.x), s.key.d, list(s.sigma)


def _another_order_than_proven(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return swapped(s.y), list(s.x), s.key.d, list(s.sigma)  # a true shuffle, proven with the wrong σ


def _another_input(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.y), spliced(s.x, 2, ED.encode(998)), s.key.d, list(s.sigma)


def _another_input_order(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.y), swapped(s.x, 0, 3), s.key.d, list(s.sigma)


def _every_card_under_another_key(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.y), list(s.x), OTHER.d, list(s.sigma)  # F commits to a d that Y was not made with


def _a_map_that_is_not_a_permutation(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    # B_i = k·A_σ(i) holds for σ = (0, 2, 2, 3, 4), but no permutation makes it hold
    a = list(s.y)
    b = [ED.power(a[j], s.key.d) for j in (0, 2, 2, 3, 4)]
    return a, b, s.key.d, [0, 2, 2, 3, 4]


SHUFFLE_CHEATS: list[ShuffleCheat] = [
    _fresh_card, _duplicated_card, _one_card_under_another_key, _another_order_than_proven, _another_input,
    _another_input_order, _every_card_under_another_key, _a_map_that_is_not_a_permutation]


@pytest.mark.parametrize("cheat", SHUFFLE_CHEATS, ids=lambda f: f.__name__.strip("_"))
def test_a_false_shuffle_proven_by_the_real_prover_is_rejected(cheat: ShuffleCheat):
    s = honest(ED, 5)
    a, b, k, sigma = cheat(s)
    proof = prove_shuffle(ED, s.context, a, b, k, sigma, SECRET)
    with pytest.raises(ProofError):
        check_shuffle(ED, s.context, a, b, ED.base_power(k), proof)
    with pytest.raises(ProofError):  # nor does it pass against the key the seat committed to
        check_shuffle(ED, s.context, a, b, s.commitment, proof)


SHUFFLE_CHANGES: dict[str, Callable[[Step], Statement]] = {
    "output card replaced": lambda s: (spliced(s.y, 1, ED.encode(999)), list(s.x), s.commitment),
    "output card duplicated": lambda s: (spliced(s.y, 1, s.y[0]), list(s.x), s.commitment),
    "output card under another key": lambda s: (spliced(s.y, 1, ED.power(s.x[s.order[1]], OTHER.e)), list(s.x),
                                                s.commitment),
    "output reordered": lambda s: (swapped(s.y), list(s.x), s.commitment),
    "another input": lambda s: (list(s.y), spliced(s.x, 0, ED.encode(998)), s.commitment),
    "input reordered": lambda s: (list(s.y), swapped(s.x), s.commitment),
    "another key": lambda s: (list(s.y), list(s.x), ED.base_power(OTHER.d)),
    "the key's inverse": lambda s: (list(s.y), list(s.x), ED.base_power(s.key.e)),
    "input and output exchanged": lambda s: (list(s.x), list(s.y), s.commitment),
    "a card dropped": lambda s: (list(s.y[:-1]), list(s.x[:-1]), s.commitment),
}


@pytest.mark.parametrize("change", list(SHUFFLE_CHANGES), ids=list(SHUFFLE_CHANGES))
def test_an_honest_shuffle_proof_of_another_statement_is_rejected(change: str):
    s = honest(ED, 5)
    a, b, key = SHUFFLE_CHANGES[change](s)
    with pytest.raises(ProofError):
        s.check_shuffle(a=a, b=b, key=key)


RekeyCheat = Callable[[Step], tuple[list[int], list[int], int, list[int]]]  # -> (w, z, d, d_keys) to prove


def _position_under_another_key(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    z = spliced(s.z, 1, ED.power(s.w[1], s.key.d * OTHER.e % ED.q))
    return list(s.w), z, s.key.d, list(s.d_keys)


def _commitments_swapped(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.w), list(s.z), s.key.d, swapped(s.d_keys, 1, 2)


def _positions_swapped(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.w), swapped(s.z, 1, 2), s.key.d, list(s.d_keys)


def _fresh_position(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.w), spliced(s.z, 0, ED.encode(999)), s.key.d, list(s.d_keys)


def _another_seat_key(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    return list(s.w), list(s.z), OTHER.d, list(s.d_keys)  # Z made with d, F commits to another


def _without_the_seat_key(s: Step) -> tuple[list[int], list[int], int, list[int]]:
    z = [ED.power(wj, ED.invert(dj)) for wj, dj in zip(s.w, s.d_keys)]  # Z_j = e_j·W_j: d forgotten
    return list(s.w), z, s.key.d, list(s.d_keys)


REKEY_CHEATS: list[RekeyCheat] = [_position_under_another_key, _commitments_swapped, _positions_swapped,
                                  _fresh_position, _another_seat_key, _without_the_seat_key]


@pytest.mark.parametrize("cheat", REKEY_CHEATS, ids=lambda f: f.__name__.strip("_"))
def test_a_false_rekeying_proven_by_the_real_prover_is_rejected(cheat: RekeyCheat):
    s = honest(ED, 5)
    w, z, d, d_keys = cheat(s)
    proof = prove_rekey(ED, s.context, w, z, d, d_keys, SECRET)
    keys = [ED.base_power(dj) for dj in d_keys]
    with pytest.raises(ProofError):
        check_rekey(ED, s.context, w, z, ED.base_power(d), keys, proof)


REKEY_CHANGES: dict[str, Callable[[Step], tuple[list[int], list[int], int, list[int]]]] = {
    "input card replaced": lambda s: (spliced(s.w, 1, ED.encode(999)), list(s.z), s.commitment, list(s.keys)),
    "output card replaced": lambda s: (list(s.w), spliced(s.z, 1, ED.encode(999)), s.commitment, list(s.keys)),
    "output positions swapped": lambda s: (list(s.w), swapped(s.z), s.commitment, list(s.keys)),
    "input positions swapped": lambda s: (swapped(s.w), list(s.z), s.commitment, list(s.keys)),
    "position commitments swapped": lambda s: (list(s.w), list(s.z), s.commitment, swapped(s.keys, 2, 4)),
    "a position's commitment replaced": lambda s: (list(s.w), list(s.z), s.commitment,
                                                   spliced(s.keys, 3, ED.base_power(OTHER.d))),
    "another seat key": lambda s: (list(s.w), list(s.z), ED.base_power(OTHER.d), list(s.keys)),
    "seat key and a position's swapped": lambda s: (list(s.w), list(s.z), s.keys[0],
                                                    spliced(s.keys, 0, s.commitment)),
    "input and output exchanged": lambda s: (list(s.z), list(s.w), s.commitment, list(s.keys)),
}


@pytest.mark.parametrize("change", list(REKEY_CHANGES), ids=list(REKEY_CHANGES))
def test_an_honest_rekey_proof_of_another_statement_is_rejected(change: str):
    s = honest(ED, 5)
    w, z, key, keys = REKEY_CHANGES[change](s)
    with pytest.raises(ProofError):
        s.check_rekey(w=w, z=z, key=key, keys=keys)


def test_the_shortened_statement_of_a_rekeying_is_rejected():
    s = honest(ED, 5)
    for w, z, keys in [(s.w[:-1], s.z, s.keys), (s.w, s.z[:-1], s.keys), (s.w, s.z, s.keys[:-1]),
                       (s.w[:-1], s.z[:-1], s.keys[:-1])]:
        with pytest.raises(ProofError):
            s.check_rekey(w=w, z=z, keys=keys)


def test_a_modp_shuffle_with_a_fresh_card_is_rejected():
    s = honest(MODP, 3)
    a = spliced(s.y, 1, MODP.encode(999))
    with pytest.raises(ProofError):
        check_shuffle(MODP, s.context, a, s.x, s.commitment, prove_shuffle(MODP, s.context, a, s.x, s.key.d,
                                                                            s.sigma, SECRET))
    with pytest.raises(ProofError):
        s.check_rekey(z=spliced(s.z, 2, MODP.encode(999)))


# -- 3. binding to the context -----------------------------------------------------------------------------------

CONTEXT_CHANGES = {"version": 4, "group": "modp2048", "room": "s", "game": 2, "deal": 1, "seat": 1, "step": 2}


@pytest.mark.parametrize("field", [*CONTEXT_CHANGES, "missing", "extra"])
def test_a_proof_copied_to_another_context_is_rejected(field: str):
    s = honest(ED, 3)
    if field == "missing":
        ctx = {k: v for k, v in s.context.items() if k != "step"}
    elif field == "extra":
        ctx = {**s.context, "hand": 1}
    else:
        ctx = {**s.context, field: CONTEXT_CHANGES[field]}
    assert ctx != s.context
    with pytest.raises(ProofError):
        s.check_shuffle(ctx=ctx)
    with pytest.raises(ProofError):
        s.check_rekey(ctx=ctx)


def test_a_proof_of_one_step_is_not_one_of_another_even_with_its_decks():
    """The phase-2 statement of a deck that happens to be its own phase-1 statement's decks still differs."""
    s = honest(ED, 3)
    with pytest.raises(ProofError):
        s.check_rekey(w=s.x, z=s.y, keys=[s.commitment] * 3)


# -- 4. the wire form: only canonical proofs parse ------------------------------------------------------------------

N = 3  # the wire tests' deck
SHUFFLE_ELEMENTS = {"commitment": 0, "last commitment": N - 1, "chain": N, "last chain": 2 * N - 1}
SHUFFLE_SCALARS = {"challenge": 2 * N, "s1": 2 * N + 1, "s4": 2 * N + 4, "s_hat": 2 * N + 5, "last s_prime": 4 * N + 4}
REKEY_SCALARS = {"challenge": 0, "s": 1, "last s_key": N + 1}


def _mixed_order_point() -> str:
    """A canonical point on the curve but outside the prime-order subgroup: a card plus a point of order 8."""
    small = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    return bindings.crypto_core_ed25519_add(ED.encode(1).to_bytes(32, "little"), small).hex()


def _misspelt(valid: str) -> dict[str, str]:
    """A valid element's text, changed so that it is no longer the canonical text of any."""
    return {"upper case": valid.upper(), "too short": valid[:-2], "too long": valid + "00", "odd length": valid[:-1],
            "empty": "", "not hex": "z" * len(valid), "0x prefix": "0x" + valid[2:], "leading space": " " + valid[1:],
            "trailing newline": valid + "\n"}


VALID_POINT = ED.to_hex(ED.encode(5))
BAD_ED_ELEMENTS = {
    "identity": ED.to_hex(ED.identity),
    "order 4": "00" * 32,
    "order 8": "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "another order 8": "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "order 2": "ec" + "ff" * 30 + "7f",
    "y = p": "ed" + "ff" * 30 + "7f",
    "y = p + 1": "ee" + "ff" * 30 + "7f",
    "identity with the sign bit": "01" + "00" * 30 + "80",
    "off the curve": "02" + "00" * 31,
    "mixed order": _mixed_order_point(),
    **_misspelt(VALID_POINT),
}
SECP_P = 2**256 - 2**32 - 977  # secp256k1's field prime
SECP_POINT = SECP.to_hex(SECP.encode(5))
SECP_XY = PublicKey(bytes.fromhex(SECP_POINT)).format(compressed=False)[1:].hex()  # x and y, uncompressed
SECP_OFF_CURVE = next(x for x in range(1, 100) if pow(x**3 + 7, (SECP_P - 1) // 2, SECP_P) != 1)
BAD_SECP_ELEMENTS = {
    "identity": SECP.to_hex(SECP.identity),  # 33 zero bytes: the point at infinity has no encoding
    "uncompressed": "04" + SECP_XY,
    "hybrid": f"0{int(SECP_POINT[1]) + 4}" + SECP_XY,  # 06 or 07 with y's parity: libsecp256k1 parses it
    "prefix 04 with x only": "04" + SECP_POINT[2:],
    "prefix 00": "00" + SECP_POINT[2:],
    "prefix 01": "01" + SECP_POINT[2:],
    "x = p": "02" + format(SECP_P, "064x"),
    "x = p + 1": "02" + format(SECP_P + 1, "064x"),  # not reduced: x = 1 is a point's
    "x = 2^256 - 1": "03" + "ff" * 32,
    "x = 0": "02" + "00" * 32,  # 0³ + 7 is not a square mod p
    "off the curve": "02" + format(SECP_OFF_CURVE, "064x"),
    **_misspelt(SECP_POINT),
}
BAD_ELEMENTS = {ED: BAD_ED_ELEMENTS, SECP: BAD_SECP_ELEMENTS}
BAD_ELEMENT_CASES = [(group, bad) for group, table in BAD_ELEMENTS.items() for bad in table]
WIRE_GROUPS = pytest.mark.parametrize("group", [SECP, ED], ids=["secp256k1", "ed25519"])


def _bad_scalars(group: Group) -> dict[str, str]:
    q = group.q
    return {
        "q": format(q, "x"),
        "q + 1": format(q + 1, "x"),
        "q - 1 in upper case": format(q - 1, "x").upper(),
        "2^bits(q)": format(2 ** q.bit_length(), "x"),
        "a leading zero": "01",
        "zero written twice": "00",
        "a leading zero before a letter": "0a",
        "upper case": "A",
        "empty": "",
        "negative": "-1",
        "0x prefix": "0x1",
        "a leading space": " 1",
        "a trailing space": "1 ",
        "underscore": "1_0",
        "not hex": "g",
        "much too long": "1" * 2000,
    }


def _rejected(parse: Callable[[], object]) -> None:
    with pytest.raises(ProofError):
        parse()


@pytest.mark.parametrize("where", list(SHUFFLE_ELEMENTS))
@pytest.mark.parametrize("group, bad", BAD_ELEMENT_CASES, ids=[f"{g.name}-{bad}" for g, bad in BAD_ELEMENT_CASES])
def test_a_shuffle_proof_with_a_bad_element_does_not_parse(group: Group, bad: str, where: str):
    wire = honest(group, N).shuffle.to_wire(group)
    _rejected(lambda: ShuffleProof.from_wire(group, spliced(wire, SHUFFLE_ELEMENTS[where], BAD_ELEMENTS[group][bad]),
                                             N))


def test_the_bad_secp256k1_elements_are_near_misses():
    """What the bad elements above are one step from is a point: x = 1 reduced, and the uncompressed and hybrid
    forms, which libsecp256k1 parses (only the canonical compressed form is an element); so is 03 for 02."""
    assert SECP.element("02" + format(1, "064x")) is not None
    for form in ("uncompressed", "hybrid"):
        text = BAD_SECP_ELEMENTS[form]
        assert PublicKey(bytes.fromhex(text)).format().hex() == SECP_POINT and SECP.element(text) is None
    negated = ("03" if SECP_POINT[1] == "2" else "02") + SECP_POINT[2:]
    assert SECP.element(negated) == SECP.scale(SECP.encode(5), -1)


@WIRE_GROUPS
@pytest.mark.parametrize("bad", list(_bad_scalars(ED)))
def test_a_proof_with_a_bad_scalar_does_not_parse(group: Group, bad: str):
    text = _bad_scalars(group)[bad]
    step = honest(group, N)
    shuffle, rekey = step.shuffle.to_wire(group), step.rekey.to_wire(group)
    for index in SHUFFLE_SCALARS.values():
        _rejected(lambda: ShuffleProof.from_wire(group, spliced(shuffle, index, text), N))
    for index in REKEY_SCALARS.values():
        _rejected(lambda: RekeyProof.from_wire(group, spliced(rekey, index, text), N))


@WIRE_GROUPS
def test_a_challenge_of_more_than_128_bits_does_not_parse_but_one_of_128_does(group: Group):
    step = honest(group, N)
    shuffle, rekey = step.shuffle.to_wire(group), step.rekey.to_wire(group)
    for bits in (129, 200, 252):
        text = format(2 ** (bits - 1) + 1, "x")
        _rejected(lambda: ShuffleProof.from_wire(group, spliced(shuffle, 2 * N, text), N))
        _rejected(lambda: RekeyProof.from_wire(group, spliced(rekey, 0, text), N))
    widest = format(2**128 - 1, "x")
    assert ShuffleProof.from_wire(group, spliced(shuffle, 2 * N, widest), N).challenge == 2**128 - 1
    assert RekeyProof.from_wire(group, spliced(rekey, 0, widest), N).challenge == 2**128 - 1
    # a scalar at a response's place may be as wide as q allows, and zero
    assert ShuffleProof.from_wire(group, spliced(shuffle, 2 * N + 1, format(group.q - 1, "x")), N).s1 == group.q - 1
    assert RekeyProof.from_wire(group, spliced(rekey, 1, "0"), N).s == 0


def test_a_proof_of_the_wrong_length_does_not_parse():
    step = honest(ED, N)
    shuffle, rekey = step.shuffle.to_wire(ED), step.rekey.to_wire(ED)
    for wire in (shuffle[:-1], shuffle[1:], shuffle + ["1"], [VALID_POINT, *shuffle], [], shuffle * 2):
        _rejected(lambda: ShuffleProof.from_wire(ED, wire, N))
    for other in (N - 1, N + 1, 0):
        _rejected(lambda: ShuffleProof.from_wire(ED, shuffle, other))
    for wire in (rekey[:-1], rekey[1:], rekey + ["1"], [], rekey * 2):
        _rejected(lambda: RekeyProof.from_wire(ED, wire, N))
    for other in (N - 1, N + 1, 0):
        _rejected(lambda: RekeyProof.from_wire(ED, rekey, other))
    # elements and scalars in each other's places
    _rejected(lambda: ShuffleProof.from_wire(ED, spliced(shuffle, 0, "1"), N))
    _rejected(lambda: ShuffleProof.from_wire(ED, spliced(shuffle, 2 * N + 1, VALID_POINT), N))
    _rejected(lambda: RekeyProof.from_wire(ED, spliced(rekey, 1, VALID_POINT), N))


def test_a_proof_for_a_smaller_deck_does_not_check_against_a_larger_one():
    small, large = honest(ED, 3), honest(ED, 4)
    with pytest.raises(ProofError):
        large.check_shuffle(proof=small.shuffle)
    with pytest.raises(ProofError):
        large.check_rekey(proof=small.rekey)
    with pytest.raises(ProofError):
        small.check_shuffle(proof=large.shuffle)


def test_modp_proofs_accept_only_canonical_residues_and_scalars():
    step = honest(MODP, N)
    shuffle, rekey = step.shuffle.to_wire(MODP), step.rekey.to_wire(MODP)
    p, valid = int(MODP.p), MODP.to_hex(step.y[0])
    bad_elements = {
        "identity": MODP.to_hex(MODP.identity), "zero": "0", "p - 1": format(p - 1, "x"), "p": format(p, "x"),
        "p + 4": format(p + 4, "x"), "a non-residue": format(p - 4, "x"), "a leading zero": "0" + valid,
        "upper case": valid.upper(), "too long": "1" + "0" * (2 * MODP.key_bytes), "empty": "",
    }
    assert MODP.element(format(p - 4, "x")) is None and MODP.element(valid) == step.y[0]
    for text in bad_elements.values():
        for index in (0, N):
            _rejected(lambda: ShuffleProof.from_wire(MODP, spliced(shuffle, index, text), N))
    for text in _bad_scalars(MODP).values():
        _rejected(lambda: ShuffleProof.from_wire(MODP, spliced(shuffle, 2 * N + 2, text), N))
        _rejected(lambda: RekeyProof.from_wire(MODP, spliced(rekey, 1, text), N))
    _rejected(lambda: ShuffleProof.from_wire(MODP, spliced(shuffle, 2 * N, format(2**128, "x")), N))
    _rejected(lambda: ShuffleProof.from_wire(MODP, shuffle[:-1], N))


# -- what the first tests of proofs.py found: non-canonical text, non-strings, responses of another length -----


def test_a_scalar_with_a_trailing_newline_does_not_parse():
    wire = honest(ED, N).rekey.to_wire(ED)
    _rejected(lambda: RekeyProof.from_wire(ED, spliced(wire, 1, wire[1] + "\n"), N))


def test_a_modp_element_with_a_trailing_newline_does_not_parse():
    short = format(MODP.base_power(100), "x")  # 4^100: an element short enough for a newline to fit the length
    wire = honest(MODP, N).shuffle.to_wire(MODP)
    _rejected(lambda: ShuffleProof.from_wire(MODP, spliced(wire, 0, short + "\n"), N))


def test_a_part_that_is_not_a_string_does_not_parse():
    wire = honest(ED, N).rekey.to_wire(ED)
    _rejected(lambda: RekeyProof.from_wire(ED, spliced(wire, 1, 5), N))


@pytest.mark.parametrize("field, change", [
    ("s_hat", 1), ("s_prime", 1), ("s_hat", -1), ("s_prime", -1)],
    ids=["s_hat-extra", "s_prime-extra", "s_hat-missing", "s_prime-missing"])
def test_a_shuffle_proof_object_with_responses_for_another_deck_size_is_rejected(field: str, change: int):
    step = honest(ED, N)
    responses = getattr(step.shuffle, field)
    changed = responses + (1,) if change > 0 else responses[:-1]
    with pytest.raises(ProofError):
        step.check_shuffle(proof=replace(step.shuffle, **{field: changed}))


def test_a_bogus_proof_for_no_cards_is_rejected():
    step = honest(ED, N)
    proof = prove_shuffle(ED, step.context, [], [], step.key.d, [], SECRET)
    with pytest.raises(ProofError):
        check_shuffle(ED, step.context, [], [], step.commitment, replace(proof, challenge=proof.challenge ^ 1))


# -- 5. property: any single change to a valid proof or its statement is rejected ----------------------------------

PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
challenges = st.integers(0, 2**128 - 1)


def elements(group: Group) -> st.SearchStrategy[int]:
    return st.binary(min_size=32, max_size=32).map(lambda data: group.hash_to_element(b"test/" + data))


def one_change(data: st.DataObject, pieces: dict[str, Any], element: st.SearchStrategy[int]) -> dict[str, Any]:
    """One piece of a statement (the key, or one element of a deck) replaced by another element: as keyword
    arguments for a Step's check."""
    target = data.draw(st.sampled_from(sorted(pieces)), "target")
    piece = pieces[target]
    if isinstance(piece, int):
        value = data.draw(element, "key")
        assume(value != piece)
        return {target: value}
    index, value = data.draw(st.integers(0, len(piece) - 1), "index"), data.draw(element, "element")
    assume(value != piece[index])
    return {target: spliced(piece, index, value)}


@WIRE_GROUPS
@PROPERTY
@given(data=st.data())
def test_any_single_change_to_a_shuffle_proof_or_its_statement_is_rejected(group: Group, data: st.DataObject):
    s = honest(group, 4)
    wire = s.shuffle.to_wire(group)
    known = [*s.x, *s.y, *s.shuffle.commitments, *s.shuffle.chain, s.commitment]  # elements already in play
    element = st.one_of(elements(group), st.sampled_from(known))
    if data.draw(st.booleans(), "the proof"):
        index = data.draw(st.integers(0, len(wire) - 1), "index")
        if index < 8:
            text = group.to_hex(data.draw(element, "element"))
        else:
            kind = challenges if index == 8 else st.integers(0, group.q - 1)
            text = format(data.draw(st.one_of(kind, st.sampled_from(s.shuffle.s_prime)), "scalar"), "x")
        assume(text != wire[index])
        proof = ShuffleProof.from_wire(group, spliced(wire, index, text), 4)
        with pytest.raises(ProofError):
            s.check_shuffle(proof=proof)
    else:
        change = one_change(data, {"a": s.y, "b": s.x, "key": s.commitment}, element)
        with pytest.raises(ProofError):
            s.check_shuffle(**change)


@WIRE_GROUPS
@PROPERTY
@given(data=st.data())
def test_any_single_change_to_a_rekey_proof_or_its_statement_is_rejected(group: Group, data: st.DataObject):
    s = honest(group, 4)
    wire = s.rekey.to_wire(group)
    element = st.one_of(elements(group), st.sampled_from([*s.w, *s.z, *s.keys, s.commitment]))
    if data.draw(st.booleans(), "the proof"):
        index = data.draw(st.integers(0, len(wire) - 1), "index")
        kind = challenges if index == 0 else st.one_of(st.integers(0, group.q - 1), st.sampled_from(s.rekey.s_keys))
        text = format(data.draw(kind, "scalar"), "x")
        assume(text != wire[index])
        proof = RekeyProof.from_wire(group, spliced(wire, index, text), 4)
        with pytest.raises(ProofError):
            s.check_rekey(proof=proof)
    else:
        change = one_change(data, {"w": s.w, "z": s.z, "key": s.commitment, "keys": s.keys}, element)
        with pytest.raises(ProofError):
            s.check_rekey(**change)

