"""The dialog at the end of a game: the result, the score, the audit's verdict, the transcript (and the game's own
history, Hold'em's hands) and the rematch."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label

from .table_screen import PathCopied, Rematch, SaveHistory, SaveTranscript, absence, capitalized, score_line
from .view import SeatView
from tabletop.values import Phase
from .violation_screen import COPIED_LINE, transcript_line
from .widgets import KeysFooter, PathLines, show_text
from tabletop.values import Result
from tabletop.words import result_words, verdict_words


def history_line(download: bool, copied: bool = False) -> str:
    """What introduces the hand history (Hold'em's, in the Poker Hand History format): in the terminal its path
    follows, as the transcript's."""
    if download:
        return "h downloads the hand history (PHH, a poker format)."
    return COPIED_LINE.format("Hand history") if copied else "Hand history, in PHH (h copies the path):"


class GameOverScreen(ModalScreen[None]):
    BINDINGS = [Binding("n", "rematch", "Rematch"), Binding("q", "app.quit", "Quit"),
                Binding("escape", "dismiss", "Table"), Binding("t", "download", "Transcript"),
                Binding("h", "history", "History"),
                # what is below the fold scrolls by the keys of a scrollable container, whatever has the focus; the
                # footer names them while there is something to scroll ("See the table" left them no room at 60)
                Binding("down", "scroll('down')", "Scroll", key_display="↑↓"),
                Binding("up", "scroll('up')", show=False), Binding("pagedown", "scroll('page_down')", show=False),
                Binding("pageup", "scroll('page_up')", show=False)]

    def __init__(self, view: SeatView, download: bool) -> None:
        super().__init__()
        self.view, self.download = view, download
        self.copied: set[str] = set()  # the paths copied to the clipboard: their headings say so

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover-room"), Vertical(id="gameover", classes="dialog"):
            with VerticalScroll(id="gameover-body", can_focus=False):  # scrolls if cut, above the offer, which
                # stays in sight; by the dialog's keys (focused, its own would hide them from the footer)
                yield Label("", id="result", markup=False)
                yield Label("", id="ending", markup=False)
                yield Label("", id="score", markup=False)
                yield Label("", id="verdict", markup=False)
                yield Label("", id="transcript", markup=False)
                yield PathLines(id="path")
                yield Label("", id="history", markup=False)
                yield PathLines(id="history-path")
            yield Label("", id="offer", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.update(self.view)

    def update(self, view: SeatView, now: float | None = None) -> None:
        self.view = view
        if not self.query("#result"):
            return  # not composed yet: on_mount shows it
        result = self.query_one("#result", Label)
        show_text(result, result_words(view.result, cheer=True) if view.result else "")
        show_text(self.query_one("#ending", Label), f"{capitalized(view.ending, view.names)}." if view.ending else "")
        result.set_class(view.result is Result.WIN, "win")
        show_text(self.query_one("#score", Label), score_line(view))
        show_text(self.query_one("#verdict", Label),
                  verdict_words(view.verdict, view.names, view.me) if view.verdict else "Auditing…")
        shown = view.verdict is not None and view.transcript is not None
        show_text(self.query_one("#transcript", Label),
                  transcript_line(self.download, str(view.transcript) in self.copied) if shown else "")
        path = self.query_one("#path", PathLines)
        path.command = str(view.transcript) if shown and not self.download else ""
        path.display = bool(path.command)
        history = view.history if view.verdict is not None else None
        show_text(self.query_one("#history", Label),
                  history_line(self.download, history in self.copied) if history else "")
        history_path = self.query_one("#history-path", PathLines)
        history_path.command = history if history and not self.download else ""
        history_path.display = bool(history_path.command)
        name, gone = view.opponent_name, absence(view, now)
        if view.rematch_offered:
            offer = f"{name} wants a rematch: press n to play again, q to quit."
        elif view.phase is Phase.WAITING:
            offer = f"Waiting for {name} to accept the rematch…" + (f" {gone}; q leaves." if gone else "")
        else:
            offer = "n plays again, q quits." + (f" {gone}." if gone else "")
        show_text(self.query_one("#offer", Label), offer)
        for label in self.query("#gameover Label").results(Label):
            label.display = bool(str(label.content))  # an empty line (no score yet) takes no room
        self.refresh_bindings()
        self.call_after_refresh(self.refresh_bindings)  # laid out: whether the rest scrolls

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_bindings)

    def action_scroll(self, way: str) -> None:
        """Scroll what is below the fold: ``way`` is "up", "down", "page_up" or "page_down"."""
        body = self.query_one("#gameover-body", VerticalScroll)
        {"up": body.scroll_up, "down": body.scroll_down, "page_up": body.scroll_page_up,
         "page_down": body.scroll_page_down}[way](animate=False)

    def action_rematch(self) -> None:
        self.post_message(Rematch())

    def action_download(self) -> None:
        self.post_message(SaveTranscript())

    def action_history(self) -> None:
        self.post_message(SaveHistory())

    @on(PathCopied)
    def path_copied(self, message: PathCopied) -> None:
        if message.path in {str(path) for path in (self.view.transcript, self.view.history) if path}:
            message.stop()
            self.copied.add(message.path)
            self.update(self.view)
            heading = "#history" if message.path == self.view.history else "#transcript"  # and its path, in sight
            self.query_one("#gameover-body", VerticalScroll).scroll_to_widget(self.query_one(heading), animate=False,
                                                                          top=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return True if self.view.rematch_refusal is None else None
        if action == "download":
            return True if self.view.verdict and self.view.transcript else None
        if action == "history":  # only a game that keeps a history has the key (False hides it)
            return bool(self.view.verdict and self.view.history)
        if action == "scroll":  # only while something is below the fold (False hides the key)
            return any(body.max_scroll_y > 0 for body in self.query("#gameover-body").results(VerticalScroll))
        return True
