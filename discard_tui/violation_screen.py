"""The dialog when a player broke the rules or the protocol, and the line that introduces a transcript."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Label

from .table_screen import PathCopied, SaveTranscript
from .widgets import KeysFooter, PathLines


class KeepsTranscript(Screen[None]):
    """A screen where a game stopped, that says where its transcript is kept (``transcript``; None: nowhere): in a
    terminal its path, which its ``t`` copies; in a browser (``download``) its ``t`` downloads the file."""

    transcript: str | None = None
    download: bool = False

    def stopped(self, title: str, problem: str) -> ComposeResult:
        """The dialog's head: its title, why the game stopped (shown literally), and where the transcript is."""
        yield Label(f"[b]{title}[/b]")
        yield Label(problem, id="problem", markup=False)
        yield from self.transcript_lines()

    def transcript_lines(self) -> ComposeResult:
        """The line that introduces the transcript, and in a terminal its path."""
        if self.transcript:
            yield Label(transcript_line(self.download), id="transcript", markup=False)
            if not self.download:
                yield PathLines(self.transcript, id="path")

    def action_download(self) -> None:
        self.post_message(SaveTranscript())

    @on(PathCopied)
    def copied(self, message: PathCopied) -> None:
        if message.path == self.transcript:
            message.stop()
            self.query_one("#transcript", Label).update(transcript_line(self.download, copied=True))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "download" or self.transcript is not None


class ViolationScreen(ModalScreen[None], KeepsTranscript):
    """The opponent broke the rules or the protocol: name it and point at the transcript."""

    BINDINGS = [Binding("q,escape", "app.quit", "Quit"), Binding("t", "download", "Transcript")]

    def __init__(self, problem: str, transcript: str | None, download: bool) -> None:
        super().__init__()
        self.problem, self.transcript, self.download = problem, transcript, download

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield from self.stopped("Game stopped: the rules were broken", self.problem)
        yield KeysFooter()


def transcript_line(download: bool, copied: bool = False) -> str:
    """What introduces the transcript: in the terminal its path follows (a ``PathLines``, whole, to select; t copies
    it, and then this says so, where a toast would cover the dialog); in a browser the server's paths mean nothing,
    so t downloads the file."""
    if download:
        return "t downloads the transcript of every message."
    return COPIED_LINE.format("Transcript") if copied else "Transcript, for discard-verify (t copies the path):"


COPIED_LINE = "{}: copied if the terminal allows OSC 52:"  # at most 52 columns: one line at 60, beside a scrollbar
