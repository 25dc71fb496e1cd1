"""Every group a room may play in, by the id its first hello announces; ed25519 is the default."""

from __future__ import annotations

from .crypto import Group
from .ed25519 import ED25519
from .modp import MODP_2048, MODP_3072

GROUPS: dict[str, Group] = {g.name: g for g in (ED25519, MODP_2048, MODP_3072)}
DEFAULT_GROUP = ED25519
