"""``discard-tui --replay FILE``: step through the fair games of a transcript, every card shown face up.

Like a chess PGN viewer: ← and → step through the moves, Home and End jump to
the deal and the end, PageUp and PageDown go to the previous and next game.
The transcript is checked (which takes seconds) once the first frame is up, which says so meanwhile.
Only games in which ``discard-verify`` finds nothing wrong are shown (an
unfinished one as far as it goes): the cards shown to everyone during the game
are face up (a version-4 transcript's audit opened every card), and, when the
replay runs from the data directory of the seat that kept the transcript (its
seed is beside it), that seat's own cards as well; the rest are ``?``. Names and everything else from the transcript
are shown literally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Footer, LoadingIndicator, Static

if TYPE_CHECKING:
    from tabletop.transcript import GameCheck, Step

Games = list[tuple["GameCheck", list["Step"]]]


class Unreplayable(Exception):
    """Nothing of the transcript can be replayed: each game's check (``checks``), or why it is not a transcript."""

    def __init__(self, checks: list[GameCheck] | None = None, why: str = "") -> None:
        super().__init__(why)
        self.checks = checks


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
    Footer FooterLabel { margin-right: 1; }  /* a group's word, apart from the next key */
    #checking { height: 1fr; align: center middle; }
    #checking Static { width: auto; }
    #checking LoadingIndicator { height: 1; }
    """
    MOVE, ENDS, GAME = Binding.Group("Move", compact=True), Binding.Group("Deal/End"), Binding.Group("Game")
    BINDINGS: ClassVar[list[BindingType]] = [  # in groups, each shown once: the whole footer fits 60 columns
        Binding("left", "step(-1)", "A move back", priority=True, group=MOVE),
        Binding("right", "step(1)", "A move on", priority=True, group=MOVE),
        Binding("home", "jump(0)", "The deal", priority=True, group=ENDS),
        Binding("end", "jump(-1)", "The end", priority=True, group=ENDS),
        Binding("pageup", "game(-1)", "The previous game", priority=True, group=GAME),
        Binding("pagedown", "game(1)", "The next game", priority=True, group=GAME),
        Binding("question_mark", "help", "Help"), Binding("q", "quit", "Quit"),
    ]
    step: reactive[int] = reactive(0)
    shown: reactive[int] = reactive(0)  # index in ``games``

    def __init__(self, games: Games | None = None, mine: int | None = None,
                 check: Callable[[], tuple[Games, int | None]] | None = None) -> None:
        """``games`` to show, the last first; or ``check``, run on a thread once the first frame is up, which finds
        them (and ``mine``) or raises :class:`Unreplayable`. ``mine``: the seat whose own cards are face up too
        (the replay runs from its data directory)."""
        super().__init__()
        self.games, self.mine, self.check = games or [], mine, check
        self.unreplayable: Unreplayable | None = None  # why the app left without a game to show
        self.set_reactive(ReplayApp.shown, max(len(self.games) - 1, 0))

    def compose(self) -> ComposeResult:
        with Vertical(id="checking"):
            yield Static("Checking the transcript: every shuffle, deal and move…", markup=False)
            yield LoadingIndicator()
        yield Static("", id="title", markup=False)
        yield Static("", id="caption", markup=False)
        with Horizontal(id="body"):
            yield Static("", id="table", markup=False)
            with VerticalScroll(id="moves"):
                yield Static("", id="move-list", markup=False)
        yield Footer(compact=True, show_command_palette=False)  # every key in 80 columns (Ctrl+P still opens it)

    def on_mount(self) -> None:
        if self.check is not None:
            self.checking()
        self.show()

    @work(thread=True, exclusive=True)
    def checking(self) -> None:
        assert self.check is not None
        try:
            games, mine = self.check()
        except Unreplayable as why:
            self.call_from_thread(self.give_up, why)
            return
        self.call_from_thread(self.checked, games, mine)

    def checked(self, games: Games, mine: int | None) -> None:
        self.games, self.mine = games, mine
        self.set_reactive(ReplayApp.shown, len(games) - 1)
        self.show()
        self.refresh_bindings()

    def give_up(self, why: Unreplayable) -> None:
        self.unreplayable = why
        self.exit(return_code=1 if why.checks is not None else 2)

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
        for part in self.query("#title, #caption, #body"):
            part.display = bool(self.games)
        self.query_one("#checking").display = not self.games
        if not self.games:
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
        if action in ("step", "jump", "game") and not self.games:
            return False  # still checking
        if action == "game":
            return True if len(self.games) > 1 else None
        return True


def replay(path: str) -> int:
    """Load, verify and show ``path``; the exit status (discard-verify's: 2 unreadable, 1 nothing verified)."""
    import sys
    from pathlib import Path

    from games import GAMES
    from tabletop import transcript

    from .args import nothing_in

    try:  # quick: the checks, which take seconds, run once the app's first frame is up
        record = transcript.load(Path(path))
    except transcript.NotATranscript as error:
        print(f"discard-tui: --replay {path}: {error}", file=sys.stderr)
        return 2

    def check() -> tuple[Games, int | None]:
        """The games that check out (every proof is verified), on the app's thread."""
        try:
            checks = transcript.check(record, GAMES)
        except transcript.NotATranscript as error:
            raise Unreplayable(why=str(error)) from None
        seed = transcript.seed_beside(Path(path))  # run from the seat's own data directory: its cards too
        own = transcript.own_faces(record, GAMES, seed) if seed is not None else {}
        games = [(check, steps) for check in checks if (steps := transcript.replay(check, own.get(check.number)))]
        if not games:
            raise Unreplayable(checks)
        return games, record.seat if own else None

    app = ReplayApp(check=check)
    app.run()
    if (nothing := app.unreplayable) is None:
        return app.return_code or 0
    if nothing.checks is not None:
        return nothing_in("--replay", path, "nothing to replay", nothing.checks)
    print(f"discard-tui: --replay {path}: {nothing}", file=sys.stderr)
    return 2
