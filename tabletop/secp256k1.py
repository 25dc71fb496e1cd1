"""The curve secp256k1, through libsecp256k1 (coincurve): the default group.

* Prime order n = 2^256 - 432420386565659656852420866394968145599 (cofactor 1), about 128-bit security, like
  edwards25519's subgroup. Its arithmetic is Bitcoin Core's libsecp256k1, constant time, shipped inside the
  coincurve wheel (so nothing is installed beside Python), and its calls release the GIL.
* Why it is the default (docs/protocol.md, "Why this group"): a group of prime order needs no subgroup check. A
  point is checked by parsing it (about 7 µs, against libsodium's 45 µs subgroup check of an edwards25519 point)
  and a multiplication costs about half of libsodium's edwards25519 one, which checks its input again. Proofs
  multiply and check thousands of points per deal, so every deal costs about half as much.
* An element is the 33-byte compressed SEC 1 encoding of a point other than the point at infinity (hex, 66
  digits; inside the program the big-endian int). It is canonical when it parses (prefix 02 or 03, x below the
  field prime, on the curve) and formats back to the same bytes.
* Card i, and each proof generator, is the point with x = SHAKE-256(label, counter) and even y for the first
  counter that gives a point (try and increment): nobody knows a discrete log between two of them.
* A key is a scalar in [1, n - 1], sealed as 32 big-endian bytes; libsecp256k1 multiplies by it as it is.
* The point at infinity is the identity; it is never an element on the wire and has the int 0 here.
"""

from __future__ import annotations

import hashlib
import re

from coincurve import PublicKey

from .crypto import Group

N = 2**256 - 432420386565659656852420866394968145599
IDENTITY = 0  # the point at infinity: no encoding has the int 0
BASE = int.from_bytes(bytes.fromhex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"), "big")
_POINT = re.compile(r"^0[23][0-9a-f]{64}$")


class Secp256k1Group(Group):
    name = "secp256k1"
    title = "secp256k1"
    q = N
    key_bytes = 32
    threads = True

    def __repr__(self) -> str:
        return "Secp256k1Group()"

    def element(self, text: str) -> int | None:
        if not isinstance(text, str) or not _POINT.fullmatch(text):
            return None
        encoded = bytes.fromhex(text)
        try:
            canonical = PublicKey(encoded).format(compressed=True)
        except ValueError:
            return None
        return int.from_bytes(encoded, "big") if canonical == encoded else None

    def to_hex(self, x: int) -> str:
        return x.to_bytes(33, "big").hex()

    generator = BASE
    identity = IDENTITY

    def hash_to_element(self, data: bytes) -> int:
        for counter in range(1000):  # each try succeeds about half the time
            x = hashlib.shake_256(data + b"/" + str(counter).encode()).digest(32)
            try:
                return int.from_bytes(PublicKey(b"\x02" + x).format(compressed=True), "big")
            except ValueError:
                continue
        raise AssertionError("no point in 1000 tries")  # 2^-1000: never

    def base_power(self, k: int) -> int:
        """k·G with libsecp256k1's precomputed table: about half a multiplication of another point."""
        return _int(PublicKey.from_secret(k.to_bytes(32, "big")))

    def power(self, x: int, k: int) -> int:
        return _int(_point(x).multiply(k.to_bytes(32, "big")))

    def multiply(self, x: int, y: int) -> int:
        """x + y for two points (add() takes the identity)."""
        return _sum([_point(x), _point(y)])

    def total(self, elements: list[int]) -> int:
        """The sum of ``elements`` in one call of libsecp256k1 (each parsed once, not once per addition)."""
        return _sum([_point(x) for x in elements if x != IDENTITY])


def _sum(points: list[PublicKey]) -> int:
    """The sum of parsed points. Only the sum is caught: a value that is no point raised already, when parsed,
    rather than being taken for the point at infinity."""
    if not points:
        return IDENTITY
    try:
        return _int(PublicKey.combine_keys(points))
    except ValueError:  # libsecp256k1 refuses a sum that is the point at infinity
        return IDENTITY


def _point(x: int) -> PublicKey:
    return PublicKey(x.to_bytes(33, "big"))


def _int(point: PublicKey) -> int:
    return int.from_bytes(point.format(compressed=True), "big")


SECP256K1 = Secp256k1Group()
