"""The computer's rock-paper-scissors player: a seeded random throw (no throw is better than another)."""

from __future__ import annotations

import random

from tabletop.table import Needs, Strategy, Table


def random_throws(seed: int | None = None) -> Strategy:
    rng = random.Random(seed)

    def choose(table: Table) -> str | None:
        """A throw when the table waits for mine (one draw of the generator per throw), else nothing."""
        state = table.play.state
        choice = state.choice() if state is not None else None
        if choice is None or not isinstance(table.owed(), Needs):
            return None
        return rng.choice(choice.allowed)

    return choose
