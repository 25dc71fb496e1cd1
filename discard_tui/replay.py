"""``discard-tui --replay FILE``: step through the fair games of a transcript, every card shown face up.

Like a chess PGN viewer: ← and → step through the moves, Home and End jump to
the deal and the end, PageUp and PageDown go to the previous and next game.
Only games in which ``discard-verify`` finds nothing wrong are shown (an
unfinished one as far as it goes): the cards shown to everyone during the game
are face up (a version-4 transcript's audit opened every card), and, when the
replay runs from the data directory of the seat that kept the transcript (its
seed is beside it), that seat's own cards as well; the rest are ``?``. Names and everything else from the transcript
are shown literally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Footer, Static

if TYPE_CHECKING:
    from tabletop.transcript import GameCheck, Step

HELP = ("← → a move back or on   Home End the deal, the end   PageUp PageDown the previous or next game   "
        "q quits")


class ReplayApp(App[None]):
    """The games of one transcript that checked out, each a list of steps."""

    CSS = """
    #title { height: 1; padding: 0 1; text-style: bold; }
    #caption { height: 1; padding: 0 1; }
    #body { height: 1fr; }
    #table { width: 3fr; min-width: 30; padding: 1 1; }
    #moves { width: 2fr; max-width: 44; border-left: vkey $foreground 30%; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Back", priority=True), Binding("right", "step(1)", "On", priority=True),
        Binding("home", "jump(0)", "Deal", priority=True), Binding("end", "jump(-1)", "End", priority=True),
        Binding("pageup", "game(-1)", "Prev game", priority=True),  # short: the whole footer fits 80 columns
        Binding("pagedown", "game(1)", "Next game", priority=True),
        Binding("question_mark", "help", "Help"), Binding("q", "quit", "Quit"),
    ]
    step: reactive[int] = reactive(0)
    shown: reactive[int] = reactive(0)  # index in ``games``

    def __init__(self, games: list[tuple[GameCheck, list[Step]]], mine: int | None = None) -> None:
        """``mine``: the seat whose own cards are face up too (the replay runs from its data directory)."""
        super().__init__()
        self.games, self.mine = games, mine
        self.set_reactive(ReplayApp.shown, len(games) - 1)

    def compose(self) -> ComposeResult:
        yield Static("", id="title", markup=False)
        yield Static("", id="caption", markup=False)
        with Horizontal(id="body"):
            yield Static("", id="table", markup=False)
            with VerticalScroll(id="moves"):
                yield Static("", id="move-list", markup=False)
        yield Footer(compact=True, show_command_palette=False)  # every key in 80 columns (Ctrl+P still opens it)

    def on_mount(self) -> None:
        self.show()

    @property
    def steps(self) -> list[Step]:
        return self.games[self.shown][1]

    def watch_step(self) -> None:
        self.show()

    def watch_shown(self) -> None:
        self.show()

    def show(self) -> None:
        if not self.query("#table"):  # not composed yet: on_mount shows it
            return
        check, steps = self.games[self.shown]
        step = steps[self.step]
        self.query_one("#title", Static).update(
            f"Game {check.number} of {self.games[-1][0].number}: {check.title}, {' vs '.join(check.names)}"
            f" · step {self.step} of {len(steps) - 1}"
            + (f" · {check.names[self.mine]}'s cards face up" if self.mine is not None else "")
            + (" · unfinished" if check.unfinished is not None else ""))
        self.query_one("#caption", Static).update(step.caption)
        self.query_one("#table", Static).update("\n".join(step.lines))
        moves = Text()
        for k, each in enumerate(steps):
            current = k == self.step
            moves.append(f"{'▶' if current else ' '}{k:>3}. {each.caption}\n", style="reverse" if current else "")
        self.query_one("#move-list", Static).update(moves)
        scroll = self.query_one("#moves", VerticalScroll)
        scroll.scroll_to(y=max(0, self.step - scroll.size.height // 2), animate=False)

    def action_step(self, by: int) -> None:
        self.step = min(max(self.step + by, 0), len(self.steps) - 1)

    def action_jump(self, to: int) -> None:
        self.step = to % len(self.steps)

    def action_game(self, by: int) -> None:
        shown = min(max(self.shown + by, 0), len(self.games) - 1)
        if shown != self.shown:
            self.step = 0
            self.shown = shown

    def action_help(self) -> None:
        self.notify(HELP, title="Replay", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "game":
            return True if len(self.games) > 1 else None
        return True


def replay(path: str) -> int:
    """Load, verify and show ``path``; the exit status (discard-verify's: 2 unreadable, 1 nothing verified)."""
    from pathlib import Path

    from games import GAMES
    from tabletop import transcript

    from .args import checked_transcript, nothing_in

    checked = checked_transcript("--replay", path)
    if checked is None:
        return 2
    record, checks = checked
    seed = transcript.seed_beside(Path(path))  # run from the seat's own data directory: its cards too
    own = transcript.own_faces(record, GAMES, seed) if seed is not None else {}
    games = [(check, steps) for check in checks if (steps := transcript.replay(check, own.get(check.number)))]
    if not games:
        return nothing_in("--replay", path, "nothing to replay", checks)
    ReplayApp(games, mine=record.seat if own else None).run()
    return 0
