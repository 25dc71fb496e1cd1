"""The computer's discard player: a random playable card (seeded), else draw."""

from __future__ import annotations

import random

from tabletop.table import Strategy, Table
from tabletop.wire import Message

from .moves import DiscardCard, Draw


def simple(seed: int | None = None) -> Strategy:
    rng = random.Random(seed)

    def choose(table: Table) -> Message | None:
        state = table.play.state
        moves = state.legal_moves(table.me) if state is not None else []
        discards = [m for m in moves if isinstance(m, DiscardCard)]
        if discards:
            return rng.choice(sorted(discards, key=lambda m: m.pos))
        return next((m for m in moves if isinstance(m, Draw)), None)

    return choose
