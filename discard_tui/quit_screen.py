"""The question before leaving in the middle of a game."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("y", "dismiss(True)", "Quit"), Binding("n,escape", "dismiss(False)", "Keep playing")]

    def __init__(self, resumes: bool) -> None:
        super().__init__()
        self.resumes = resumes

    def compose(self) -> ComposeResult:
        kept = ("Your seat is kept: the same command brings you back to this game." if self.resumes
                else "Nothing is kept: this game ends for you.")
        with Vertical(classes="dialog"):
            yield Label("[b]Quit in the middle of a game?[/b]")
            yield Label(f"{kept} y quits, n keeps playing.", markup=False)
        yield Footer()
