"""The prime-order subgroup of edwards25519, through libsodium (PyNaCl): the default group.

* Order ℓ = 2^252 + 27742317777372353535851937790883648493, about 128-bit
  security; a scalar multiplication costs about 110 µs, some 30 times less
  than a 2048-bit MODP exponentiation, and releases the GIL.
* An element is the canonical 32-byte encoding of a point of the main
  subgroup (hex, 64 digits; inside the program the little-endian int).
  ``crypto_core_ed25519_is_valid_point`` rejects a non-canonical encoding, a
  point off the curve, a point of small order (the identity among them) and
  one outside the main subgroup: the analogue of MODP's residue check, so a
  card's cofactor component can leak nothing.
* Card i is ``crypto_core_ed25519_from_uniform`` (Elligator 2, cofactor
  cleared) of 32 bytes of SHAKE-256 of the card's label: nobody knows a
  discrete log between two cards, which one shuffle key would otherwise
  reveal the permutation with.
* A key is a scalar in [1, ℓ - 1], sealed as 32 big-endian bytes;
  ``crypto_scalarmult_ed25519_noclamp`` multiplies by it as it is, and
  ``crypto_core_ed25519_scalar_invert`` inverts it.
* The check costs about half a multiplication, and every seat receives
  every shuffle step: points this process has already checked or computed
  (a multiple of a checked point by a key) are remembered and pass at once.
  An encoding has one int, so a remembered int is the same canonical text.
"""

from __future__ import annotations

import hashlib
import re

from nacl import bindings

from .crypto import Group

IDENTITY = 1  # (0, 1): y = 1, little-endian
BASE = int.from_bytes(bytes.fromhex("58" + "66" * 31), "little")  # RFC 8032's base point B, a generator of ℓ


class Ed25519Group(Group):
    name = "ed25519"
    title = "edwards25519"
    q = 2**252 + 27742317777372353535851937790883648493
    key_bytes = 32
    threads = True

    def __init__(self) -> None:
        self._checked: set[int] = set()  # points of the main subgroup other than the identity

    def _remember(self, x: int) -> int:
        if len(self._checked) >= REMEMBERED:
            self._checked.clear()
        self._checked.add(x)
        return x

    def __repr__(self) -> str:
        return "Ed25519Group()"

    def element(self, text: str) -> int | None:
        if not isinstance(text, str) or not _POINT.fullmatch(text):
            return None
        point = bytes.fromhex(text)
        x = int.from_bytes(point, "little")
        if x in self._checked:
            return x
        if x == IDENTITY or not bindings.crypto_core_ed25519_is_valid_point(point):
            return None
        return self._remember(x)

    def to_hex(self, x: int) -> str:
        return x.to_bytes(32, "little").hex()

    generator = BASE
    identity = IDENTITY

    def hash_to_element(self, data: bytes) -> int:
        uniform = hashlib.shake_256(data).digest(32)
        return int.from_bytes(bindings.crypto_core_ed25519_from_uniform(uniform), "little")  # checked by encoded()

    def base_power(self, k: int) -> int:
        """k·B with libsodium's precomputed table: about a fifth of a multiplication of another point."""
        product = bindings.crypto_scalarmult_ed25519_base_noclamp(k.to_bytes(32, "little"))
        return int.from_bytes(product, "little")

    def power(self, x: int, k: int) -> int:
        """k·x; libsodium refuses (raises) a point outside the main subgroup, so the result is one of it."""
        product = bindings.crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), x.to_bytes(32, "little"))
        return self._remember(int.from_bytes(product, "little"))

    def invert(self, k: int) -> int:
        """k⁻¹ mod ℓ, in constant time (a key is a secret)."""
        return int.from_bytes(bindings.crypto_core_ed25519_scalar_invert(k.to_bytes(32, "little")), "little")

    def multiply(self, x: int, y: int) -> int:
        total = bindings.crypto_core_ed25519_add(x.to_bytes(32, "little"), y.to_bytes(32, "little"))
        return int.from_bytes(total, "little")


_POINT = re.compile(r"^[0-9a-f]{64}$")
REMEMBERED = 50_000  # about 5 MB of checked points at most
ED25519 = Ed25519Group()
