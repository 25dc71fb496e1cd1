"""The computer's war player: there is nothing to choose, so it turns whenever it is its turn."""

from __future__ import annotations

from tabletop.table import Strategy, Table
from tabletop.wire import Message


def turn(seed: int | None = None) -> Strategy:
    """Turn whenever the game waits on this seat (``seed`` is accepted like every game's, and unused)."""

    def choose(table: Table) -> Message | None:
        state = table.play.state
        moves = state.legal_moves(table.me) if state is not None else []
        return moves[0] if moves else None

    return choose
