"""The game cannot go on: why, and what r does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label

CANNOT_PLAY = 3  # the exit status after a "Cannot play" screen (relay unreachable, room full, game lost)


class ProblemScreen(Screen[None]):
    """The game cannot go on (relay unreachable, seat lost); say why and what r does. Leaving from here exits with
    ``CANNOT_PLAY``, the problem left on the terminal (``DiscardApp.cannot_play``)."""

    BINDINGS = [Binding("r", "app.retry", "Retry"), Binding("q,escape", "app.quit", "Quit")]

    def __init__(self, problem: str, retry: str = "Press r to try again or q to quit.") -> None:
        super().__init__()
        self.problem, self.retry = problem, retry

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Label("[b]Cannot play[/b]")
            yield Label(self.problem, id="problem", markup=False)
            yield Label(self.retry, id="retry", markup=False)
        yield Footer()
