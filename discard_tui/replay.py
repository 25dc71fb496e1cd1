"""``discard-tui --replay FILE``: step through the fair games of a transcript on the game's own table.

Like a chess PGN viewer: ← and → step through the moves, Home and End jump to
the deal and the end, PageUp and PageDown go to the previous and next game.
The transcript is checked (which takes seconds) once the first frame is up, which says so meanwhile.
Only games in which ``discard-verify`` finds nothing wrong are shown (an
unfinished one as far as it goes). A replay is a watcher of a finished ledger:
the transcript's events are folded as a watcher folds them, and after each
move the same view a live watcher's table gets is kept (discard_tui/viewmodel.py
and the game's own ``view``), shown read-only by the game's own table screen.
Run from the data directory of the seat that kept the transcript (its seed is
beside it), the events are folded as that seat folded them: its own cards too. A version-3 or 4 transcript
shows its seat's cards from anywhere, from its audits (:class:`Owner`).
Names and everything else from the transcript are shown literally.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Footer, LoadingIndicator, Static

from .view import SeatView

if TYPE_CHECKING:
    from tabletop.table import Table
    from tabletop.transcript import GameCheck, Transcript

    from .table_screen import TableScreen

Games = list[tuple["GameCheck", list[SeatView[Any]]]]  # each game that checked out, and its views step by step


class Unreplayable(Exception):
    """Nothing of the transcript can be replayed: each game's check (``checks``), or why it is not a transcript."""

    def __init__(self, checks: list[GameCheck] | None = None, why: str = "") -> None:
        super().__init__(why)
        self.checks = checks


HELP = ("← → a move back or on   Home End the deal, the end   PageUp PageDown the previous or next game   "
        "q quits")


class Finished:
    """The ledger of a replay's seat: a finished one, which brings nothing more and takes no post."""

    seat: int | None = None
    token: str | None = None

    def __init__(self) -> None:
        from tabletop.ledger import Link

        self.link = Link.CONNECTED  # the views say where the replay is instead (SeatView.replay)

    async def events(self) -> AsyncIterator[object]:
        return
        yield  # an async generator that ends at once

    async def post(self, body: dict) -> bool:
        return False

    async def close(self) -> None:
        return None


class Recorder:
    """Called with the table after each event of the fold (tabletop.transcript.fold): keeps the view the game's
    screen would get (its own ``view``, as live and watching) each time the game on the table moved on."""

    def __init__(self) -> None:
        self.views: dict[int, list[SeatView[Any]]] = {}  # game number -> its views, step by step
        self._seat: Any = None  # tabletop.shell.Seat around the folded table, once it has a game
        self._view: Callable[[Any], SeatView[Any]] | None = None
        self._last: tuple[object, ...] = ()

    def __call__(self, table: Table) -> None:
        play = table.play
        if play.game is None or not (play.dealt or play.outcome is not None):
            return  # nothing on the board yet (the hellos, the shuffle)
        moved = (play.number, len(play.decks), sum(len(deck.faces) for deck in play.decks), len(play.moves),
                 len(play.choices), play.outcome is not None, table.phase)
        if moved == self._last:
            return
        self._last = moved
        if self._seat is None or self._seat.table is not table:
            from tabletop.shell import Seat

            from .config import SCREENS

            self._seat = Seat(Finished(), table, replaying=False, caught_up=True)
            self._view = SCREENS[play.game.name].ui().view
        assert self._view is not None
        self.views.setdefault(play.number, []).append(self._view(self._seat))


class Owner(Recorder):
    """:class:`Recorder` for a version-3 or 4 transcript, whose seats cannot be folded from their seed again (this
    program speaks version 5 from a seat): the transcript's owner's eyes on a watcher's fold. Each audited game
    published every seat's deck seed, so every card is known: each view shows the owner's seat with the cards that
    were shown to it by then, as its own table did. A game never audited is shown as a watcher saw it, and its hint
    says why (``SeatView.unseen``)."""

    def __init__(self, seat: int, revealed: dict[int, dict[int, int]]) -> None:
        """``revealed``: game number -> every position's card (its index in the game's faces), from the audit."""
        super().__init__()
        self.seat, self.revealed = seat, revealed

    def __call__(self, table: Table) -> None:
        play, cards = table.play, self.revealed.get(table.play.number)
        if play.state is None or cards is None:
            super().__call__(table)
            return
        state = play.state
        for pos, seats in state.seen.items():
            if self.seat in seats and pos in cards:
                state.faces.setdefault(pos, state.setup.faces[cards[pos]])
        watcher, table.me = table.me, self.seat  # the view from the owner's seat, the fold from none
        try:
            super().__call__(table)
        finally:
            table.me = watcher


def screen_for(check: GameCheck) -> type[TableScreen[Any]]:
    """The game's own table screen."""
    from .config import SCREENS

    assert check.play.game is not None
    return SCREENS[check.play.game.name].ui().screen


class ReplayApp(App[None]):
    """The games of one transcript that checked out, each a list of views, shown on the game's table screen."""

    CSS_PATH = "app.tcss"
    CSS = """
    #checking { height: 1fr; align: center middle; }
    #checking Static { width: auto; }
    #checking LoadingIndicator { height: 1; }
    Footer FooterLabel { margin-right: 1; }  /* a group's word, apart from the next key */
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

    def __init__(self, games: Games | None = None, check: Callable[[], Games] | None = None) -> None:
        """``games`` to show, the last first; or ``check``, run on a thread once the first frame is up, which finds
        them or raises :class:`Unreplayable`."""
        super().__init__()
        self.games, self.check = games or [], check
        self.unreplayable: Unreplayable | None = None  # why the app left without a game to show
        self.table: TableScreen[Any] | None = None  # the shown game's screen, once there is one
        self.set_reactive(ReplayApp.shown, max(len(self.games) - 1, 0))

    def compose(self) -> ComposeResult:
        with Vertical(id="checking"):
            yield Static("Checking the transcript: every shuffle, deal and move…", markup=False)
            yield LoadingIndicator()
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if self.check is not None:
            self.checking()
        self.show()

    @work(thread=True, exclusive=True)
    def checking(self) -> None:
        assert self.check is not None
        try:
            games = self.check()
        except Unreplayable as why:
            self.call_from_thread(self.give_up, why)
            return
        self.call_from_thread(self.checked, games)

    def checked(self, games: Games) -> None:
        self.games = games
        self.set_reactive(ReplayApp.shown, len(games) - 1)
        self.query_one(LoadingIndicator).remove()  # under the table it would still redraw, a frame at a time
        self.show()
        self.refresh_bindings()  # the keys that step (the footer is rebuilt only now: a rebuild costs a frame)

    def give_up(self, why: Unreplayable) -> None:
        self.unreplayable = why
        self.exit(return_code=1 if why.checks is not None else 2)

    @property
    def steps(self) -> list[SeatView[Any]]:
        return self.games[self.shown][1]

    def watch_step(self) -> None:
        self.show()

    def watch_shown(self) -> None:
        self.show()

    def show(self) -> None:
        """The shown game's table at the current step, on the game's own screen (opened with the first game)."""
        if not self.games:
            return
        check, views = self.games[self.shown]
        view = dataclasses.replace(views[self.step], replay=f"step {self.step} of {len(views) - 1} · game "
                                   f"{check.number} of {self.games[-1][0].number}"
                                   + (" · unfinished" if check.unfinished is not None else ""))
        kind = screen_for(check)
        if type(self.table) is not kind:
            self.table = kind(leave_grace=float("inf"), resumes=False)
            self.table.view = view
            self.switch_screen(self.table) if len(self.screen_stack) > 1 else self.push_screen(self.table)
            self.call_after_refresh(self.opened)
        else:
            self.table.update(view)

    def opened(self) -> None:
        """The table screen is up: its first view shown (before, its widgets were not all there), its footer as
        compact as the replay's own (every key whole in 60 columns)."""
        from .widgets import KeysFooter

        if self.table is not None and self.table.view is not None:
            for footer in self.table.query(KeysFooter):
                footer.always_compact = True
                footer.fit(footer.size.width)
            self.table.update(self.table.view)

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


def views(record: Transcript, seed: bytes | None = None) -> Games:
    """The games of ``record`` that check out (every proof is verified), each with its views step by step: as a
    watcher saw them, or with the seat's own ``seed``, as that seat did (one fold: the seat's table checks as the
    observer's does). Unreplayable if none does."""
    from games import GAMES
    from tabletop import transcript

    try:
        if seed is not None and record.seat is not None and record.seat >= 0:
            mine, table = Recorder(), transcript.observer(record.room, GAMES, record.seat, seed)
            checks = transcript.check(record, GAMES, mine, table)
            if transcript.its_seed(table):
                return games_of(checks, mine)
        public = Recorder()  # no seed, or not the seat's (its fold stopped at the seat's first hello): a watcher's
        checks = transcript.check(record, GAMES, public)
        if record.seat is None or record.seat < 0:
            return games_of(checks, public)
        revealed = {check.number: check.play.revealed for check in checks
                    if check.fair and not check.play.proven and check.play.revealed}
        seen = public
        if revealed:  # version 3 or 4: its audits showed every card, the owner's too
            seen = Owner(record.seat, revealed)
            transcript.fold(record, GAMES, seen=seen)
        return [(check, steps if check.play.proven or check.number in revealed else
                 [dataclasses.replace(view, unseen=f"Replay: no seat's own cards (a version-{check.play.version} "
                                      "game, unaudited).") for view in steps])
                for check, steps in games_of(checks, seen)]
    except transcript.NotATranscript as error:
        raise Unreplayable(why=str(error)) from None


def games_of(checks: list[GameCheck], seen: Recorder) -> Games:
    """The fair games of ``checks`` with their views; Unreplayable if there is none."""
    games = [(check, seen.views[check.number]) for check in checks if check.fair and check.number in seen.views]
    if not games:
        raise Unreplayable(checks)
    return games


def replay(path: str) -> int:
    """Load, verify and show ``path``; the exit status (discard-verify's: 2 unreadable, 1 nothing verified)."""
    import sys
    from pathlib import Path

    from tabletop import transcript

    from .args import nothing_in

    try:  # quick: the checks, which take seconds, run once the app's first frame is up
        record = transcript.load(Path(path))
    except transcript.NotATranscript as error:
        print(f"discard-tui: --replay {path}: {error}", file=sys.stderr)
        return 2

    app = ReplayApp(check=lambda: views(record, transcript.seed_beside(Path(path))))
    app.run()
    if (nothing := app.unreplayable) is None:
        return app.return_code or 0
    if nothing.checks is not None:
        return nothing_in("--replay", path, "nothing to replay", nothing.checks)
    print(f"discard-tui: --replay {path}: {nothing}", file=sys.stderr)
    return 2
