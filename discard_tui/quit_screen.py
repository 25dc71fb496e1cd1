"""The question before leaving in the middle of a game."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from .widgets import KeysFooter


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("y", "dismiss(True)", "Quit"), Binding("n,escape", "dismiss(False)", "Keep playing")]

    def __init__(self, resumes: bool, out: bool = False) -> None:
        """``resumes``: the seat is kept for the same command; ``out``: the seat is out of the game under way (no
        chips), so leaving holds nobody up and loses nothing."""
        super().__init__()
        self.resumes = resumes
        self.out = out

    def compose(self) -> ComposeResult:
        if self.out:
            title = "Leave the table?"
            said = "You are out of this game: it goes on without you, and nobody waits for you." + (
                " The same command brings you back to watch it." if self.resumes else "")
        else:
            title = "Quit in the middle of a game?"
            said = ("Your seat is kept: the same command brings you back to this game." if self.resumes
                    else "Nothing is kept: this game ends for you.")
        with Vertical(classes="dialog"):
            yield Label(f"[b]{title}[/b]")
            yield Label(f"{said} y {'leaves, n stays' if self.out else 'quits, n keeps playing'}.", markup=False)
        yield KeysFooter()
