"""The RFC 3526 MODP groups: the order-q subgroup of a safe prime p = 2q + 1 (the only gmpy2 user).

* Nobody chooses the prime: it is RFC 3526's, derived from the digits of π.
* Card i is m_i = h_i^2 mod p, where h_i is SHAKE-256 of the card's label
  (:meth:`Group.card_label`), reduced mod p. Squares are quadratic residues,
  so every card and every encryption of one lies in the order-q subgroup: the
  Legendre symbol, which leaks one bit of every face-down card in plain SRA,
  is always 1. Hashed encodings have no multiplicative relation anyone knows
  (with m_i = (i + 2)^2, m_0 * m_1 = m_4, and such relations survive every
  shuffle step that raises all cards to one key, which reads the deal).
* An element is canonical hex without leading zeros, 1 < x < p - 1, and a
  quadratic residue; a key is sealed as p's byte length.
* 2048 bits is about 112-bit security, 3072 about 128; an exponentiation
  costs milliseconds and holds the GIL, so batches go to the process pool.
"""

from __future__ import annotations

import hashlib
import re
from functools import cached_property

import gmpy2
from gmpy2 import mpz

from .crypto import Group

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


_CANONICAL = re.compile(r"^[1-9a-f][0-9a-f]*$")


class ModpGroup(Group):
    """The quadratic residues mod a safe prime ``p``."""

    threads = False

    def __init__(self, name: str, p_hex: str) -> None:
        self.name = name
        self.p = mpz(p_hex, 16)
        self.q = int((self.p - 1) // 2)
        self.title = f"{self.p.bit_length()}-bit MODP"
        self.key_bytes = (self.p.bit_length() + 7) // 8

    def __repr__(self) -> str:
        return f"ModpGroup({self.name!r})"

    @cached_property
    def _q(self) -> mpz:
        return mpz(self.q)

    def is_element(self, x: int) -> bool:
        """1 < x < p - 1 and x is a quadratic residue (in the order-q subgroup)."""
        return 1 < x < self.p - 1 and gmpy2.legendre(x, self.p) == 1

    def element(self, text: str) -> int | None:
        if not isinstance(text, str) or len(text) > 2 * self.key_bytes or not _CANONICAL.fullmatch(text):
            return None
        x = mpz(text, 16)
        return x if self.is_element(x) else None

    def to_hex(self, x: int) -> str:
        return format(x, "x")

    generator = 4  # 2², a quadratic residue other than 1: it generates the whole order-q subgroup
    identity = 1

    def hash_to_element(self, data: bytes) -> int:
        """(SHAKE-256(data) mod p)^2 mod p; the hash has 128 bits more than p, so it is uniform enough."""
        length = (self.p.bit_length() + 128 + 7) // 8
        h = mpz(int.from_bytes(hashlib.shake_256(data).digest(length), "big")) % self.p
        return gmpy2.powmod(h, 2, self.p)

    def base_power(self, k: int) -> int:
        return gmpy2.powmod(self.generator, k, self.p)

    def power(self, x: int, k: int) -> int:
        return gmpy2.powmod(x, k, self.p)

    def multiply(self, x: int, y: int) -> int:
        return x * y % self.p

    def powers(self, bases: list[int], exponents: list[int]) -> list[int]:
        p = self.p
        return [gmpy2.powmod(b, e, p) for b, e in zip(bases, exponents)]

    def invert(self, k: int) -> int:
        return gmpy2.invert(k, self._q)


MODP_2048 = ModpGroup("modp2048", _MODP_2048)
MODP_3072 = ModpGroup("modp3072", _MODP_3072)
