"""Commutative (SRA / Pohlig-Hellman) encryption in a fixed safe-prime group.

* The group is an RFC 3526 MODP safe prime p = 2q + 1; nobody chooses it.
* Card i is m_i = h_i^2 mod p, where h_i is SHAKE-256 of a fixed domain
  string and i, reduced mod p. Squares are quadratic residues, so every card
  and every encryption of one lies in the order-q subgroup: the Legendre
  symbol, which leaks one bit of every face-down card in plain SRA, is
  always 1. Hashed encodings have no multiplicative relation anyone knows
  (with m_i = (i + 2)^2, m_0 * m_1 = m_4, and such relations survive every
  shuffle step that raises all cards to one key, which reads the deal).
* A key is a random e in [2, q - 1] (q is prime, so gcd(e, q) = 1) with
  d = e^-1 mod q. No prime search.
* All of a player's secrets for one game derive from a 32-byte seed with
  SHAKE-256, so saving the seed saves the game.
* Batches of exponentiations run in a process pool: gmpy2 holds the GIL, and
  a 52-card shuffle step is 52 powmods of ~3 ms each.

Nothing here knows about cards' ranks, the network or the game's rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import gmpy2
from gmpy2 import mpz

_MODP_2048 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF"
)
_MODP_3072 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF"
)


class CryptoViolation(Exception):
    """Data from the other player that breaks the protocol's crypto rules."""


@dataclass(frozen=True)
class Group:
    """A safe-prime group p = 2q + 1; we work in its order-q subgroup."""

    name: str
    p: mpz

    @cached_property
    def q(self) -> mpz:
        return (self.p - 1) // 2

    @cached_property
    def byte_length(self) -> int:
        return (self.p.bit_length() + 7) // 8

    def is_element(self, x: mpz) -> bool:
        """1 < x < p - 1 and x is a quadratic residue (in the order-q subgroup)."""
        return 1 < x < self.p - 1 and gmpy2.legendre(x, self.p) == 1

    def encode(self, index: int) -> mpz:
        """The group element for card ``index`` of the unshuffled deck (see :func:`card_encoding`)."""
        return card_encoding(self, index)

    def encoded(self, count: int) -> tuple[mpz, ...]:
        """The elements for cards 0 .. count - 1, in deck order."""
        return _encodings(self, count)

    def encodings(self, count: int) -> dict[mpz, int]:
        """Element -> card index, for recognising a decrypted card."""
        return {m: i for i, m in enumerate(self.encoded(count))}

    def to_hex(self, x: mpz) -> str:
        return format(x, "x")

    def from_hex(self, text: str, what: str) -> mpz:
        """Parse and validate a group element sent by the other player."""
        try:
            x = mpz(text, 16)
        except ValueError:
            raise CryptoViolation(f"{what} is not a hexadecimal number") from None
        if not self.is_element(x):
            raise CryptoViolation(f"{what} is not an element of the game's group")
        return x

    def exponent_from_hex(self, text: str, what: str) -> mpz:
        """Parse and validate a key (an exponent in [1, q - 1])."""
        try:
            k = mpz(text, 16)
        except ValueError:
            raise CryptoViolation(f"{what} is not a hexadecimal number") from None
        if not 1 <= k < self.q:
            raise CryptoViolation(f"{what} is not a valid key for the game's group")
        return k

    def validate_deck(self, values: list[str], size: int, what: str) -> list[mpz]:
        """A shuffled deck from the other player: exact length, valid elements, no duplicates."""
        if len(values) != size:
            raise CryptoViolation(f"{what} has {len(values)} cards instead of {size}")
        deck = [self.from_hex(v, f"{what}: card {i}") for i, v in enumerate(values)]
        if len(set(deck)) != size:
            raise CryptoViolation(f"{what} contains a duplicated card")
        return deck


ENCODING_DOMAIN = b"discard/v2/card"


def card_encoding(group: Group, index: int) -> mpz:
    """m_i = (SHAKE-256(domain ‖ group ‖ index) mod p)^2 mod p, fixed by the protocol version.

    The hash has 128 bits more than p, so h_i is uniform enough in [0, p);
    squaring puts it in the order-q subgroup. Nobody knows a discrete-log
    relation between two hashed elements, so raising every card to one key
    keeps no structure that could name a card.
    """
    label = ENCODING_DOMAIN + b"/" + group.name.encode() + b"/" + str(index).encode()
    length = (group.p.bit_length() + 128 + 7) // 8
    h = mpz(int.from_bytes(hashlib.shake_256(label).digest(length), "big")) % group.p
    return gmpy2.powmod(h, 2, group.p)


@functools.lru_cache(maxsize=16)
def _encodings(group: Group, count: int) -> tuple[mpz, ...]:
    encoded = tuple(card_encoding(group, i) for i in range(count))
    if len(set(encoded)) != count or not all(group.is_element(m) for m in encoded):
        raise AssertionError(f"card encodings of {group.name} are not {count} distinct group elements")
    return encoded


MODP_2048 = Group("modp2048", mpz(_MODP_2048, 16))
MODP_3072 = Group("modp3072", mpz(_MODP_3072, 16))
GROUPS = {g.name: g for g in (MODP_2048, MODP_3072)}


def group_for_prime(p_hex: str) -> Group | None:
    """The standard group whose prime this is, or None for anything else."""
    try:
        p = mpz(p_hex, 16)
    except ValueError:
        return None
    return next((g for g in GROUPS.values() if g.p == p), None)


def derive_bytes(seed: bytes, label: str, length: int) -> bytes:
    return hashlib.shake_256(b"discard/v1/" + seed + b"/" + label.encode()).digest(length)


def derive_below(seed: bytes, label: str, bound: int) -> int:
    """A uniform-enough integer in [0, bound): 128 extra bits make the bias negligible."""
    length = (bound.bit_length() + 128 + 7) // 8
    return int.from_bytes(derive_bytes(seed, label, length), "big") % bound


@dataclass
class Key:
    e: mpz
    d: mpz

    @classmethod
    def derive(cls, group: Group, seed: bytes, label: str) -> Key:
        e = mpz(derive_below(seed, label, int(group.q) - 2) + 2)
        return cls(e, gmpy2.invert(e, group.q))


def decrypt(group: Group, value: mpz, *keys: mpz) -> mpz:
    """Remove several decryption keys with one exponentiation."""
    exponent = mpz(1)
    for d in keys:
        exponent = exponent * d % group.q
    return gmpy2.powmod(value, exponent, group.p)


# -- the process pool ----------------------------------------------------------

_pool: ProcessPoolExecutor | None = None
WORKERS = max(1, min(2, os.cpu_count() or 1))


def _powmod_chunk(bases: list[mpz], exponents: list[mpz], p: mpz) -> list[mpz]:
    return [gmpy2.powmod(b, e, p) for b, e in zip(bases, exponents)]


def _exit_with_parent() -> None:
    """Worker start-up: leave when the game's process dies, even by SIGKILL.

    Pool workers otherwise outlive a killed parent (each holds its own queue's
    write end, so it never sees EOF), and keep the forkserver alive with them.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the game's to handle, not a worker's
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_when_ready, args=(parent.sentinel,), daemon=True).start()


def _exit_when_ready(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


_pool_lock = threading.RLock()  # a pool is never shut down while another thread starts it


def pool() -> ProcessPoolExecutor:
    """The shared worker pool (started on first use; forkserver is safe beside threads)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("forkserver"),
                                        initializer=_exit_with_parent)
        return _pool


def start_pool() -> None:
    """Start every worker now, so the first shuffle does not pay for it.

    multiprocessing hands its helper processes ``sys.stderr.fileno()``; a
    full-screen app that captures stderr makes that -1, so the real stderr
    stands in while the processes start.
    """
    one = mpz(1)
    with _pool_lock, real_stderr():
        for future in [pool().submit(_powmod_chunk, [one], [one], mpz(7)) for _ in range(WORKERS)]:
            future.result()


@contextlib.contextmanager
def real_stderr() -> Iterator[None]:
    """The process's own stderr while helper processes start, if an app has captured sys.stderr.

    Only a swapped stream is put back: another thread may have replaced it since.
    """
    captured = sys.stderr
    swapped = not _has_fileno(captured)
    if swapped:
        sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        if swapped:
            sys.stderr = captured


def _has_fileno(stream: object) -> bool:
    try:
        return stream.fileno() >= 0  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


async def warm_up() -> None:
    """:func:`start_pool` without blocking the event loop."""
    await asyncio.get_running_loop().run_in_executor(None, start_pool)


async def powmod_many(bases: list[mpz], exponents: list[mpz], p: mpz) -> list[mpz]:
    """[b^e mod p] computed in the pool, split evenly across its workers."""
    if len(bases) <= 4:
        return _powmod_chunk(bases, exponents, p)
    loop = asyncio.get_running_loop()
    size = -(-len(bases) // WORKERS)
    chunks = [
        loop.run_in_executor(pool(), _powmod_chunk, bases[i : i + size], exponents[i : i + size], p)
        for i in range(0, len(bases), size)
    ]
    return [x for chunk in await asyncio.gather(*chunks) for x in chunk]


def shutdown_pool() -> None:
    """Stop the workers; one being started on another thread is started first, then stopped."""
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(cancel_futures=True)
            _pool = None
