"""What calls the player back to a terminal they looked away from: its title says whose turn it is, and the bell
rings when their turn comes after the others kept them waiting.

Textual shows ``App.title`` and ``sub_title`` only in its Header widget, which the table has no room for; the app
writes them to the terminal's title itself (OSC 2, as Textual writes the clipboard with OSC 52), and puts the
terminal's own title back on leaving (XTerm's title stack, which terminals without one ignore).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .view import SeatView

BELL_AFTER = 3.0  # seconds the others must have kept me waiting for my turn to ring the bell
SAVE_TITLE = "\x1b[22;0t"  # push the terminal's title (and icon name) on its stack
RESTORE_TITLE = "\x1b[23;0t"  # pop it back


def turn_words(headline: str, my_turn: bool) -> str:
    """The app's sub-title: whose turn it is, marked when it is mine ("▶ Your turn", "bo's turn")."""
    return f"▶ {headline}" if my_turn else headline


def terminal_title(title: str, sub_title: str) -> str:
    """The terminal's title: what is going on first, which a tab cut short still shows ("▶ Your turn · cabo")."""
    return f"{sub_title} · {title}" if sub_title else title


def osc_title(text: str) -> str:
    """The escape sequence that sets the terminal's title to ``text``; a name from another player cannot end
    it early or slip in a sequence of its own (control characters are dropped)."""
    return f"\x1b]2;{''.join(c for c in text if c.isprintable())}\x07"


class TurnBell:
    """When to ring the bell: my turn has come, and the others took at least :data:`BELL_AFTER` seconds to give
    it (a quick answer, or rock-paper-scissors' throws at once, does not ring). Moves replayed to catch up with
    a room are not a turn coming."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.waiting_since: float | None = None  # when the others' turn began, while it lasts
        self.mine = False  # my turn has come and lasts

    def due(self, view: SeatView) -> bool:
        """Whether ``view``, the seat's view now, brings my turn after a long enough wait."""
        now = self.clock()
        if not (view.my_turn and view.playing and not view.replaying):
            self.mine = False
            if self.waiting_since is None:
                self.waiting_since = now
            return False
        if self.mine:
            return False  # the same turn, a step on (cabo: a card drawn, then placed)
        self.mine = True
        since, self.waiting_since = self.waiting_since, None
        return since is not None and now - since >= BELL_AFTER
