"""Every group a room may play in, by the id its first hello announces; secp256k1 is the default."""

from __future__ import annotations

from .crypto import Group
from .ed25519 import ED25519
from .modp import MODP_2048, MODP_3072
from .secp256k1 import SECP256K1

GROUPS: dict[str, Group] = {g.name: g for g in (SECP256K1, ED25519, MODP_2048, MODP_3072)}
DEFAULT_GROUP = SECP256K1


def group_of_prime(p_hex: str) -> Group | None:
    """The MODP group whose prime a version-3 hello sent, or None."""
    return next((g for g in (MODP_2048, MODP_3072) if format(g.p, "x") == p_hex), None)
