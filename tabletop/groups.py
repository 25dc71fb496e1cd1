"""Every group a room may play in, by the id its first hello announces; ed25519 is the default."""

from __future__ import annotations

from .crypto import Group
from .ed25519 import ED25519
from .modp import MODP_2048, MODP_3072

GROUPS: dict[str, Group] = {g.name: g for g in (ED25519, MODP_2048, MODP_3072)}
DEFAULT_GROUP = ED25519


def group_of_prime(p_hex: str) -> Group | None:
    """The MODP group whose prime a version-3 hello sent, or None."""
    return next((g for g in (MODP_2048, MODP_3072) if format(g.p, "x") == p_hex), None)
