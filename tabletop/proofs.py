"""Zero-knowledge proofs of the two shuffle steps (protocol version 5), non-interactive by Fiat–Shamir.

Pure functions of their arguments: nothing here knows the network, the ledger or a table; the shell runs
them on a worker (threads for secp256k1 and ed25519, whose arithmetic releases the GIL; the process pool for
MODP).

**Phase 1: an exponentiation shuffle.** A seat with key e (d = e⁻¹) turns the deck X into
Y_t = e·X_order[t] and commits to d as F = d·G. Read backwards, X_i = d·Y_σ(i) with σ = order⁻¹: a
shuffle of Y under the one key d that F commits to. :func:`prove_shuffle` proves exactly that with the
commitment-consistent proof of a shuffle of Wikström (ACISP 2009) and Terelius–Wikström (AFRICACRYPT
2010), in the form of Haenni, Locher, Koenig and Dubuis's pseudo-code (FC 2017, Algorithms 8.4–8.5),
its re-encryption equation replaced by the linear relation Σ u'_i·B_i = k·Σ u_j·A_j of an
exponentiation shuffle. Statement, assumptions and cost: docs/protocol.md, "Proofs".

**Phase 2: a re-keying.** The same seat turns W into Z_j = (d·e_j)·W_j and commits to every d_j as
D_j = d_j·G. :func:`prove_rekey` proves, for every j, knowledge of d_j and d with D_j = d_j·G,
F = d·G and d_j·Z_j = d·W_j: a Chaum–Pedersen-style sigma protocol (Chaum and Pedersen, CRYPTO 1992)
for n equalities of discrete logs sharing the witness d.

**Fiat–Shamir.** Every challenge hashes the whole statement (protocol version, group, room, game, deal,
seat, step, both decks, every key commitment) and every first message: a proof copied from another step,
deal, game or room fails (Bernhard, Pereira and Warinschi, ASIACRYPT 2012). Challenges are 128-bit.

**Randomness.** A prover's nonces are derived from a secret of its own and the digest of the statement
(as RFC 6979 derives ECDSA's), so a restarted seat that proves the same step again sends the same proof,
and no nonce ever serves two statements.

**Wire form.** A proof is a flat list of lower-case hex strings: elements in the group's canonical form,
then scalars (0 <= s < q, no leading zeros), in the order of :class:`ShuffleProof` and
:class:`RekeyProof`; the lengths follow from the deck size.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .crypto import Group, scaled
from .wire import canonical

DOMAIN = "discard/v5"
CHALLENGE_BITS = 128
Context = Mapping[str, Any]  # what a step's proof is bound to besides its decks: version, group, room, game, …


class ProofError(Exception):
    """A proof that does not hold, or is not one; the message says what, in a few words."""


# -- generators and hashing -------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def generators(group: Group, count: int) -> tuple[int, tuple[int, ...]]:
    """H and h_1 … h_count: elements hashed from fixed labels, independent of G and of each other (nobody knows
    a discrete log between any two of them), for the Pedersen commitments of the shuffle proof."""
    label = f"{DOMAIN}/generator/{group.name}/".encode()
    h = group.hash_to_element(label + b"H")
    hs = tuple(group.hash_to_element(label + str(i).encode()) for i in range(count))
    if len({h, *hs, group.generator, group.identity}) != count + 3:
        raise AssertionError(f"the proof generators of {group.name} are not distinct")
    return h, hs


def _digest(record: Any) -> bytes:
    return hashlib.sha512(canonical(record)).digest()


def _hexes(group: Group, elements: Sequence[int]) -> list[str]:
    return [group.to_hex(x) for x in elements]


def _challenges(seed: bytes, label: str, count: int) -> list[int]:
    """``count`` challenges of CHALLENGE_BITS bits each, read from SHAKE-256 of ``seed`` and ``label``."""
    size = CHALLENGE_BITS // 8
    stream = hashlib.shake_256(seed + b"/" + label.encode()).digest(size * count)
    return [int.from_bytes(stream[i * size:(i + 1) * size], "big") for i in range(count)]


def _nonces(group: Group, secret: bytes, statement: bytes, witness: bytes, label: str, count: int) -> list[int]:
    """``count`` secret scalars mod q, from the prover's secret, the statement's digest and the witness's (so that
    two proofs of one statement with different witnesses never share a nonce, as RFC 6979 and EdDSA hash the
    private key); 128 bits more than q, so the reduction is uniform for all practical purposes."""
    size = (group.q.bit_length() + 128 + 7) // 8
    record = len(secret).to_bytes(2, "big") + secret + statement + witness + label.encode()
    stream = hashlib.shake_256(b"discard/v5/nonce/" + record).digest(size * count)
    return [int.from_bytes(stream[i * size:(i + 1) * size], "big") % group.q for i in range(count)]


def statement_digest(group: Group, context: Context, kind: str, record: Mapping[str, Any]) -> bytes:
    """The digest every challenge of one proof starts from: the domain, the kind of proof, the group, the
    context and the statement itself (decks and key commitments, as their wire hex)."""
    return _digest({"domain": f"{DOMAIN}/{kind}", "group": group.name, "context": dict(context), **record})


def _check_points(group: Group, points: Sequence[int]) -> None:
    """Every point of a statement is an element of the group other than the identity (the callers parse them so;
    a caller that did not must not get a proof that holds for every deck, as F = D_j = identity would give)."""
    if any(x == group.identity or group.element(group.to_hex(x)) != x for x in points):
        raise ProofError("its statement holds a point that is not an element of the group")


# -- phase 1: the exponentiation shuffle ----------------------------------------------------------------


@dataclass(frozen=True)
class ShuffleProof:
    """Proof that B_i = k·A_σ(i) for all i, for some permutation σ and the k with K = k·G.

    ``commitments``: c_1 … c_n, a Pedersen commitment to σ's permutation matrix, column by column;
    ``chain``: ĉ_1 … ĉ_n, the commitment chain that proves Π u'_i = Π u_i; then the challenge and the
    responses s_1 … s_4, ŝ_1 … ŝ_n, s'_1 … s'_n.
    """

    commitments: tuple[int, ...]
    chain: tuple[int, ...]
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def to_wire(self, group: Group) -> list[str]:
        scalars = [self.challenge, self.s1, self.s2, self.s3, self.s4, *self.s_hat, *self.s_prime]
        return [*_hexes(group, self.commitments), *_hexes(group, self.chain), *(format(s, "x") for s in scalars)]

    @classmethod
    def from_wire(cls, group: Group, items: Sequence[str], size: int) -> ShuffleProof:
        """Parse and validate; ProofError if the list is not a proof for ``size`` cards."""
        elements, scalars = _split(group, items, 2 * size, shuffle_size(size) - 2 * size)
        if scalars[0] >> CHALLENGE_BITS:
            raise ProofError(f"its challenge has more than {CHALLENGE_BITS} bits")
        return cls(tuple(elements[:size]), tuple(elements[size:]), scalars[0], scalars[1], scalars[2], scalars[3],
                   scalars[4], tuple(scalars[5:5 + size]), tuple(scalars[5 + size:]))


def shuffle_size(size: int) -> int:
    """How many hex strings a phase-1 proof for ``size`` cards has."""
    return 4 * size + 5


def _split(group: Group, items: Sequence[str], elements: int, scalars: int) -> tuple[list[int], list[int]]:
    if len(items) != elements + scalars:
        raise ProofError(f"it has {len(items)} parts instead of {elements + scalars}")
    points = []
    for i, text in enumerate(items[:elements]):
        x = group.element(text)
        if x is None:
            raise ProofError(f"its part {i + 1} is not an element of the group")
        points.append(x)
    values = []
    for i, text in enumerate(items[elements:], elements):
        s = group.scalar_from_hex(text)
        if s is None:
            raise ProofError(f"its part {i + 1} is not a scalar below the group's order")
        values.append(s)
    return points, values


def _shuffle_statement(group: Group, context: Context, a: Sequence[int], b: Sequence[int], key: int) -> bytes:
    return statement_digest(group, context, "shuffle", {"a": _hexes(group, a), "b": _hexes(group, b),
                                                        "key": group.to_hex(key)})


def _shuffle_challenge(group: Group, statement: bytes, commitments: Sequence[int], chain: Sequence[int],
                       t: Sequence[int], t_hat: Sequence[int]) -> int:
    record = {"statement": statement.hex(), "commitments": _hexes(group, commitments), "chain": _hexes(group, chain),
              "t": _hexes(group, t), "t_hat": _hexes(group, t_hat)}
    return _challenges(_digest(record), "c", 1)[0]


def _permutation_challenges(group: Group, statement: bytes, commitments: Sequence[int]) -> list[int]:
    seed = _digest({"statement": statement.hex(), "commitments": _hexes(group, commitments)})
    return _challenges(seed, "u", len(commitments))


def prove_shuffle(group: Group, context: Context, a: Sequence[int], b: Sequence[int], k: int, sigma: Sequence[int],
                  secret: bytes) -> ShuffleProof:
    """Prove B_i = k·A_σ(i) (all i) and K = k·G, knowing k and σ."""
    n, q, g = len(a), group.q, group.generator
    big_h, hs = generators(group, n)
    key = group.base_power(k)
    statement = _shuffle_statement(group, context, a, b, key)
    witness = _digest([format(k, "x"), list(sigma)])
    r = _nonces(group, secret, statement, witness, "r", n)
    r_hat = _nonces(group, secret, statement, witness, "r_hat", n)
    w1, w2, w3, w4 = _nonces(group, secret, statement, witness, "w", 4)
    w_hat = _nonces(group, secret, statement, witness, "w_hat", n)
    w_prime = _nonces(group, secret, statement, witness, "w_prime", n)
    # c_σ(i) = r_σ(i)·G + h_i: column σ(i) of the matrix holds a 1 in row i
    inverse = [0] * n
    for i, j in enumerate(sigma):
        inverse[j] = i
    commitments = [group.add(group.base_power(r[j]), hs[inverse[j]]) for j in range(n)]
    u = _permutation_challenges(group, statement, commitments)
    u_prime = [u[sigma[i]] for i in range(n)]
    # ĉ_i = r̂_i·G + u'_i·ĉ_(i-1), ĉ_0 = H, unrolled so that each is one multiplication of H and one of G:
    # ĉ_i = P_i·H + R_i·G with P_i = Π_(m<=i) u'_m and R_i = r̂_i + u'_i·R_(i-1)
    products, sums, chain_h, chain_g = 1, 0, [], []
    for i in range(n):
        products = products * u_prime[i] % q
        sums = (r_hat[i] + u_prime[i] * sums) % q
        chain_h.append(products)
        chain_g.append(sums)
    r_bar = sum(r) % q
    r_chain = sums  # R_n = Σ r̂_i·Π_(m>i) u'_m
    r_tilde = sum(rj * uj for rj, uj in zip(r, u)) % q
    # one batch: the chain (P_i·H + R_i·G), Σ u_j·A_j, Σ ω'_i·h_i and Σ ω'_i·B_i
    terms = scaled(group, [big_h] * n + [g] * n + list(a) + list(hs) + list(b),
                    chain_h + chain_g + list(u) + w_prime + w_prime)
    chain = [group.add(terms[i], terms[n + i]) for i in range(n)]
    a_bar = group.total(terms[2 * n:3 * n])
    previous = [big_h, *chain[:-1]]
    last = scaled(group, [g, g, g, a_bar, g, *([g] * n), *previous], [w1, w2, w3, -w4, w4, *w_hat, *w_prime])
    t = [last[0], last[1], group.add(last[2], group.total(terms[3 * n:4 * n])),
         group.add(group.total(terms[4 * n:5 * n]), last[3]), last[4]]
    t_hat = [group.add(last[5 + i], last[5 + n + i]) for i in range(n)]
    c = _shuffle_challenge(group, statement, commitments, chain, t, t_hat)
    return ShuffleProof(
        tuple(commitments), tuple(chain), c,
        (w1 - c * r_bar) % q, (w2 - c * r_chain) % q, (w3 - c * r_tilde) % q, (w4 - c * k) % q,
        tuple((w_hat[i] - c * r_hat[i]) % q for i in range(n)),
        tuple((w_prime[i] - c * u_prime[i]) % q for i in range(n)))


def check_shuffle(group: Group, context: Context, a: Sequence[int], b: Sequence[int], key: int,
                  proof: ShuffleProof) -> None:
    """ProofError unless ``proof`` shows B_i = k·A_σ(i) for some permutation σ and the k of K = ``key`` = k·G."""
    n, q, g = len(a), group.q, group.generator
    if not n or any(len(part) != n for part in (b, proof.commitments, proof.chain, proof.s_hat, proof.s_prime)):
        raise ProofError("its lengths do not match the deck's")
    _check_points(group, [*a, *b, key])
    big_h, hs = generators(group, n)
    statement = _shuffle_statement(group, context, a, b, key)
    u = _permutation_challenges(group, statement, proof.commitments)
    c = proof.challenge
    u_product = 1
    for uj in u:
        u_product = u_product * uj % q
    previous = [big_h, *proof.chain[:-1]]
    # one batch of every multiplication that needs no sum: Σ u_j·c_j, Σ u_j·A_j, Σ s'_i·h_i, Σ s'_i·B_i and
    # the t̂_i's three terms; then the few that multiply those sums
    terms = scaled(group, [*proof.commitments, *a, *hs, *b, *([g] * n), *previous, *proof.chain],
                    [*u, *u, *proof.s_prime, *proof.s_prime, *proof.s_hat, *proof.s_prime, *([c] * n)])
    c_tilde, a_bar = group.total(terms[:n]), group.total(terms[n:2 * n])
    t_hat = [group.total([terms[4 * n + i], terms[5 * n + i], terms[6 * n + i]]) for i in range(n)]
    c_bar = group.add(group.total(list(proof.commitments)), group.scale(group.total(list(hs)), -1))
    c_hat = group.add(proof.chain[-1], group.scale(big_h, -u_product))
    last = scaled(group, [g, c_bar, g, c_hat, g, c_tilde, a_bar, g, key],
                   [proof.s1, c, proof.s2, c, proof.s3, c, -proof.s4, proof.s4, c])
    t = [group.add(last[0], last[1]), group.add(last[2], last[3]),
         group.total([last[4], group.total(terms[2 * n:3 * n]), last[5]]),
         group.add(group.total(terms[3 * n:4 * n]), last[6]), group.add(last[7], last[8])]
    if _shuffle_challenge(group, statement, proof.commitments, proof.chain, t, t_hat) != c:
        raise ProofError("its equations do not hold")


# -- phase 2: the re-keying -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RekeyProof:
    """Proof that d_j·Z_j = d·W_j with D_j = d_j·G and F = d·G, for every position j: the challenge, then s for
    d and s_1 … s_n for the d_j."""

    challenge: int
    s: int
    s_keys: tuple[int, ...]

    def to_wire(self, group: Group) -> list[str]:
        return [format(x, "x") for x in (self.challenge, self.s, *self.s_keys)]

    @classmethod
    def from_wire(cls, group: Group, items: Sequence[str], size: int) -> RekeyProof:
        _, scalars = _split(group, items, 0, rekey_size(size))
        if scalars[0] >> CHALLENGE_BITS:
            raise ProofError(f"its challenge has more than {CHALLENGE_BITS} bits")
        return cls(scalars[0], scalars[1], tuple(scalars[2:]))


def rekey_size(size: int) -> int:
    """How many hex strings a phase-2 proof for ``size`` cards has."""
    return size + 2


def _rekey_statement(group: Group, context: Context, w: Sequence[int], z: Sequence[int], key: int,
                     keys: Sequence[int]) -> bytes:
    return statement_digest(group, context, "rekey", {"w": _hexes(group, w), "z": _hexes(group, z),
                                                      "key": group.to_hex(key), "keys": _hexes(group, keys)})


def _rekey_challenge(group: Group, statement: bytes, t0: int, t1: Sequence[int], t2: Sequence[int]) -> int:
    record = {"statement": statement.hex(), "t0": group.to_hex(t0), "t1": _hexes(group, t1), "t2": _hexes(group, t2)}
    return _challenges(_digest(record), "c", 1)[0]


def prove_rekey(group: Group, context: Context, w: Sequence[int], z: Sequence[int], d: int, d_keys: Sequence[int],
                secret: bytes) -> RekeyProof:
    """Prove d_j·Z_j = d·W_j for every j, with F = d·G and D_j = d_j·G, knowing d and every d_j."""
    n, q, g = len(w), group.q, group.generator
    key = group.base_power(d)
    keys = [group.base_power(dj) for dj in d_keys]
    statement = _rekey_statement(group, context, w, z, key, keys)
    witness = _digest([format(d, "x"), [format(dj, "x") for dj in d_keys]])
    (omega,) = _nonces(group, secret, statement, witness, "omega", 1)
    omegas = _nonces(group, secret, statement, witness, "omegas", n)
    terms = scaled(group, [g, *([g] * n), *z, *w], [omega, *omegas, *omegas, *([-omega] * n)])
    t0, t1 = terms[0], terms[1:1 + n]
    t2 = [group.add(terms[1 + n + j], terms[1 + 2 * n + j]) for j in range(n)]
    c = _rekey_challenge(group, statement, t0, t1, t2)
    return RekeyProof(c, (omega - c * d) % q, tuple((omegas[j] - c * d_keys[j]) % q for j in range(n)))


def check_rekey(group: Group, context: Context, w: Sequence[int], z: Sequence[int], key: int, keys: Sequence[int],
                proof: RekeyProof) -> None:
    """ProofError unless ``proof`` shows d_j·Z_j = d·W_j for every j, with F = ``key`` = d·G and D_j = ``keys[j]``."""
    n, g, c = len(w), group.generator, proof.challenge
    if not n or len(z) != n or len(keys) != n or len(proof.s_keys) != n:
        raise ProofError("its lengths do not match the deck's")
    _check_points(group, [*w, *z, key, *keys])
    statement = _rekey_statement(group, context, w, z, key, keys)
    terms = scaled(group, [g, key, *([g] * n), *keys, *z, *w],
                    [proof.s, c, *proof.s_keys, *([c] * n), *proof.s_keys, *([-proof.s] * n)])
    t0 = group.add(terms[0], terms[1])
    t1 = [group.add(terms[2 + j], terms[2 + n + j]) for j in range(n)]
    t2 = [group.add(terms[2 + 2 * n + j], terms[2 + 3 * n + j]) for j in range(n)]
    if _rekey_challenge(group, statement, t0, t1, t2) != c:
        raise ProofError("its equations do not hold")
