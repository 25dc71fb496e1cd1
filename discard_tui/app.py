"""The Textual app: renders the view of a session's seat and sends the player's intents to it.

Each game brings its own table screen, view and moves (a ``GameUI``); a
``Session`` (discard_tui/session.py) does everything that is not on a screen:
the embedded relay, the computer players, my seat, auto-play, saved seats.
The app does the rest: connecting, problems, violations, the game-over dialog,
help, quitting (each of those screens is in its own module: connecting_screen.py,
problem_screen.py, violation_screen.py, game_over_screen.py, quit_screen.py).

The session runs in a worker on the app's event loop; exponentiations run on
worker threads (or, for a MODP group, in a process pool), so the screen never
waits for crypto. The table, crypto and network modules are imported on a
thread once the first frame is up: the app itself imports only Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import signal
import sys
import time
import traceback
from pathlib import Path
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import WorkerFailed

from .attention import RESTORE_TITLE, SAVE_TITLE, TurnBell, osc_title, terminal_title, turn_words
from .config import SCREENS, PlayConfig, fresh_room
from .quit_screen import ConfirmQuit
from .connecting_screen import ConnectingScreen
from .game_over_screen import GameOverScreen
from .prefs import Kept, load
from .problem_screen import CANNOT_PLAY, BackToLobby, NewRoom, ProblemScreen, WatchInstead
from .profile import Profile
from .table_screen import (LeaveTable, PathCopied, SaveHistory, SaveTranscript, SeatChanged, SeatRequest, TableScreen,
                           ToggleAutoplay, help_page, relay_gone_for)
from .view import SeatView
from tabletop.values import Phase
from .violation_screen import ViolationScreen
from .widgets import HelpScreen

if TYPE_CHECKING:
    from textual.drivers.web_driver import WebDriver

    from tabletop.shell import Seat

    from .session import Session


def load_engine(game: str) -> None:
    """Import the table, the rules of ``game``, the saves and the view model (on a thread: they take a while)."""
    import tabletop.shell  # noqa: F401
    from games import GAMES

    from . import saves, viewmodel  # noqa: F401

    assert GAMES[game]


COPIED = "Copied to the clipboard (OSC 52: your terminal must allow it); the path is also shown above."


class DiscardApp(App[None]):
    """discard in the terminal (or a browser, through discard-web).

    ``profile`` says who plays and where their files go; with ``pick`` the
    start screen lets them choose the name, the game and the opponent first.
    """

    CSS_PATH = "app.tcss"
    TITLE = "discard"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "interrupt", show=False, priority=True, system=True),
    ]

    view: reactive[SeatView | None] = reactive(None, always_update=False)

    def __init__(self, config: PlayConfig, profile: Profile, pick: bool = False, kept: Kept | None = None) -> None:
        super().__init__()
        self.config, self.profile, self.pick = config, profile, pick
        self.kept = kept if kept is not None else load(profile.config_dir)  # the preferences (discard_tui/prefs.py)
        self.ui = SCREENS[config.game].ui()  # the game's screen, view and moves
        self.title = self.ui.title
        self.session: Session | None = None  # everything but the screen: relay, seats, saves
        self.lobby: PlayConfig | None = None  # the lobby's settings, while the table was chosen in it
        self._over_shown = 0  # the game whose game-over dialog was shown
        self._view_due = False  # a SeatChanged message is on its way
        self.turn_bell = TurnBell()

    @property
    def seat(self) -> Seat | None:
        """My seat, once taken."""
        return self.session.seat if self.session is not None else None

    @property
    def computers(self) -> list[Seat]:
        """The computer players' seats (against the computer)."""
        return self.session.computers if self.session is not None else []

    # -- an unexpected error ----------------------------------------------------------

    crash: str | None = None  # one line about an unexpected error; its traceback is in a file
    cannot_play: str | None = None  # why the player left from a "Cannot play" screen (status CANNOT_PLAY)
    left_transcript: str | None = None  # the game so far, written as the player left a relay out of reach

    def _handle_exception(self, error: Exception) -> None:
        """Textual's hook for an unhandled error (private: it has no public one).

        The traceback goes to a file in the data directory (a browser visitor's
        goes with them: to stderr, the server's log, instead) and the terminal
        gets one line (``crash``) instead of a screenful; the exit code is 1.
        """
        self.crash = crash_report(error, None if self.profile.browser else self.profile.crashes_dir)
        super()._handle_exception(error)
        self._exit_renderables.clear()

    # -- start-up ------------------------------------------------------------------

    def on_mount(self) -> None:
        if self._driver is not None and not self.is_headless:
            self._driver.write(SAVE_TITLE)  # put back on leaving (on_unmount)
            self.show_terminal_title()
        if not self.is_headless:  # SIGINT from outside the keyboard, and SIGTERM (kill): as Ctrl-C
            for number in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError):  # no such handlers on Windows' loop
                    asyncio.get_running_loop().add_signal_handler(number, self.stopped, number)
        self.set_interval(1.0, self._tick)
        if (theme := self.kept.prefs.theme) in self.available_themes:
            self.theme = theme
        if self.kept.problem:
            self.notify(self.kept.problem, title="Preferences", severity="warning", markup=False, timeout=10)
        if self.pick:
            self.show_start()
        else:
            self.begin(self.config)

    def show_start(self) -> None:
        from .start import StartScreen  # its widgets are imported only when it is shown (start-up time)

        start = StartScreen(self.config, self.profile)
        self.push_screen(start, self.started)
        start.call_after_refresh(self.tell_browser, ready=True)  # its fields are up, the name has the focus
        self.call_after_refresh(self.preload)

    @work(thread=True, exclusive=True, group="preload")
    def preload(self) -> None:
        """While the player chooses (on the start screen, in the lobby), import the table, the crypto and the
        rules, so that the table opens as soon as a game is chosen (``play`` would wait for them)."""
        load_engine(self.config.game)

    def started(self, config: PlayConfig | None) -> None:
        """The start screen's choice: the computer's think time chosen there is kept for next time."""
        if config is not None:
            self.keep(think=config.think_time)
        self.begin(config)

    def new_table(self) -> TableScreen:
        """The table screen of the game being played."""
        return self.ui.screen(self.config.leave_grace, resumes=self.profile.resumes,
                              computers=self.config.against_computer)

    def begin(self, config: PlayConfig | None, lobby: PlayConfig | None = None) -> None:
        """Sit down at the table ``config`` describes; on a relay with no room named, pick one in its lobby first.
        None: the player left the lobby (back to the start screen, if they came from it). ``lobby``: the lobby's
        settings, when the table was chosen there."""
        if config is None:
            self.show_start() if self.pick else self.exit()
            return
        self.config, self.lobby = config, lobby
        self.keep(name=config.name, game=config.game)  # the name and the game played last, for next time
        if config.relay and not config.room:
            self.show_lobby(config)
            return
        self.ui = SCREENS[config.game].ui()
        self.title = self.ui.title
        self.push_screen(self.new_table())
        self.push_screen(ConnectingScreen(self.where()))
        self.play()

    def show_lobby(self, config: PlayConfig, tried: PlayConfig | None = None) -> None:
        """The rooms on ``config.relay``, to choose a table in (``tried``: the one chosen last, which could not be
        opened)."""
        from . import saves
        from .lobby_screen import LobbyScreen  # imported only when it is shown (start-up time)

        games = self.profile.games_dir
        saved = saves.returnable(games, config.relay) if config.relay and self.profile.resumes else []
        self.push_screen(LobbyScreen(config, saved=saved, games=games, tried=tried),
                         functools.partial(self.begin, lobby=config))
        self.call_after_refresh(self.preload)

    @on(BackToLobby)
    @work(exclusive=True, group="game")
    async def back_to_lobby(self) -> None:
        """From a table chosen in the lobby that could not be opened: the lobby again, with what was chosen there
        (a room created there is offered again by its c)."""
        if self.lobby is None:
            return
        if self.session is not None:
            await self.session.close()
            self.session = None
        while len(self.screen_stack) > 1:  # the problem, and the table under it
            self.pop_screen()
        tried, self.config = self.config, self.lobby  # no table now: leaving from the lobby names none
        self.show_lobby(self.lobby, tried=tried)

    def keep(self, **changes: object) -> None:
        """Keep preferences for next time; one line if they cannot be written (the game goes on)."""
        if (problem := self.kept.change(**changes)) is not None:
            self.notify(problem, title="Preferences", severity="warning", markup=False)

    def watch_theme(self, theme: str) -> None:
        self.keep(theme=theme)  # chosen in the command palette

    def where(self) -> str:
        c = self.config
        if c.against_computer:
            return f"Playing the computer on {'the server' if self.profile.browser else 'this machine'}."
        return f"{'Watching, on relay' if c.watch else 'Relay'} {c.relay or 'hosted here'} · room {c.room}"

    def action_retry(self) -> None:
        """Try again (r on a problem): the last attempt's view goes with it, else the clock's next tick, seeing it
        under the connecting screen, showed its failure again over the table the new attempt opens."""
        self.view = None
        self.pop_screen()
        self.push_screen(ConnectingScreen(self.where()))
        self.play()

    @on(NewRoom)
    def new_room(self) -> None:
        """From a full room: another, freshly named, on the same relay for the same game and players."""
        self.config = dataclasses.replace(self.config, room=fresh_room("table"))
        self.action_retry()

    @work(exclusive=True, group="game")
    async def play(self) -> None:
        """Start a session (the relay and the computers if needed, my seat taken or taken back) and run it."""
        # The first frame first (the table's imports take a while), waited for here: a worker started only after the
        # refresh could start once Textual had cancelled its workers on the way out (Ctrl-C at the first frame), and
        # go on against the screens being taken apart (a crash: status 1, not 130).
        refreshed = asyncio.Event()
        self.call_after_refresh(refreshed.set)
        await refreshed.wait()
        await asyncio.to_thread(load_engine, self.config.game)
        from tabletop.ledger import RelayError, RoomFull, StoreFull

        from .session import Session

        if self.session is not None:  # a retry: let go of the last attempt first
            await self.session.close()
        self.session = session = Session(self.config, self.profile)
        back = ", b goes back to the lobby" if self.lobby is not None else ""  # if the table cannot be opened
        try:
            url = await session.open_relay()
            if session.invites and isinstance(self.screen, ConnectingScreen):
                self.screen.invites, self.screen.note = session.invites, session.invite_note
                await self.screen.recompose()
                self.screen.call_after_refresh(self.screen.refresh_bindings)  # the new footer's keys
            resumed = await session.sit_down(url)
        except RoomFull as error:
            if self.config.watch:  # as many watchers as the room takes: only this room's game is to watch
                self.switch_to_problem(str(error), f"r tries again{back}, q quits." if back else None, lobby=True)
            else:  # every seat taken, the game under way: another room, or watch this one's game
                self.switch_to_problem(str(error), f"The room is full: c creates a new room for {self.ui.title}, "
                                       f"w watches its game (read-only), r tries this one again{back}, q quits.",
                                       new_room=True, watch=True, lobby=True)
            return
        except StoreFull:  # the relay's own words name its memory, not what to do: r keeps every choice made
            self.switch_to_problem(STORE_FULL, f"r tries again{back}, q quits.", lobby=True)
            return
        except (RelayError, OSError) as error:
            self.switch_to_problem(relay_problem(self.config.relay, str(error)),
                                   f"r tries again{back}, q quits." if back else None, lobby=True)
            return
        if resumed:
            self.notify(f"Back in room {self.config.room}: your game goes on where it stopped.", title="Resumed",
                        markup=False)
        assert session.seat is not None
        session.seat.subscribe(self._seat_moved)
        self.seat_changed()
        await session.run()

    def switch_to_problem(self, problem: str, retry: str | None = None, new_room: bool = False,
                          watch: bool = False, transcript: str | None = None, lobby: bool = False) -> None:
        """``new_room``: c offers another room (a full one); ``watch``: w watches this room's game (relay 1.3);
        ``transcript``: the game so far is kept there; ``lobby``: b goes back to the lobby, if the table was chosen
        there."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.push_screen(ProblemScreen(problem, retry, new_room, watch, transcript, self.profile.browser,
                                       lobby and self.lobby is not None))

    @on(WatchInstead)
    def watch_instead(self) -> None:
        """The room is full: watch its game from no seat instead (the problem screen's w)."""
        self.config = dataclasses.replace(self.config, watch=True, bell=False, public=False)
        self.action_retry()

    # -- the seat's view -------------------------------------------------------------

    def _seat_moved(self) -> None:
        """The seat's observer: only a message, so the screen updates in the app's own time.

        One message at a time: while one waits, later changes are in the view it builds. A fast game
        (auto-play) then cannot flood the queue, and keys never wait behind a backlog of updates.
        """
        if not self._view_due:
            self._view_due = True
            self.post_message(SeatChanged())

    @on(SeatChanged)
    def seat_changed(self) -> None:
        """The seat's state moved on (told by message: no screen code runs inside the table's own calls)."""
        self._view_due = False
        session = self.session
        if session is None or session.seat is None:
            return
        if session.follow():  # the room plays another game, or for other players (its first hello decides)
            self.config = session.config  # its screen; the table screen under the connecting one goes with it
            self.ui = SCREENS[self.config.game].ui()
            self.title = self.ui.title
        self.view = self.ui.view(session.seat)

    def _tick(self) -> None:
        """Once a second: the times the status bar and the game-over dialog show."""
        table, view = self.table, self.view
        if not self.is_running:  # shutting down: the screens are being taken apart
            return
        if view is not None and (table is None or isinstance(self.screen, ConnectingScreen)):
            self.watch_view(None, view)  # a screen the player opened went, and nothing has moved since
        elif view is not None and table is not None and table.view is not None:
            table.update(view)
            if isinstance(self.screen, GameOverScreen):
                self.screen.update(view)

    @property
    def table(self) -> TableScreen | None:
        """The table screen of the game being played; None while only another game's is up (see follow_room)."""
        return next((s for s in self.screen_stack if isinstance(s, self.ui.screen)), None)

    def watch_view(self, old: SeatView | None, view: SeatView | None) -> None:
        if view is None or not self.screen_stack:
            return
        if isinstance(self.screen, ConnectingScreen):
            if view.replaying and not view.stopped:  # a resumed room: show only the game being played
                self.screen.waiting(f"Catching up with room {self.config.room}…")
                return
            if view.phase is Phase.WAITING and view.number == 1 and view.failure is None:
                self.screen.show_room(view)
                return
            if (table := self.table) is not None:  # the table under it shows the game whole first: its log and its
                table.update(view)  # keys follow the board by a moment, and a frame of "Your turn" over an empty log
                table.settle()  # would show before them
            self.pop_screen()
        if isinstance(self.screen, TableScreen) and not isinstance(self.screen, self.ui.screen):  # see follow_room
            self.switch_screen(self.new_table())
        table = self.table
        if table is None:
            return  # another game's table under a screen the player opened (help): replaced once it is on top
        table.update(view)
        self.attend(view, table.headline(view))
        if view.phase is Phase.VIOLATION and not isinstance(self.screen, ViolationScreen):
            self.push_screen(ViolationScreen(view.problem or "a violation", view.transcript, self.profile.browser))
        elif view.failure is not None:
            if not isinstance(self.screen, ProblemScreen):
                self.show_failure(view)
        elif view.verdict is not None and view.phase in (Phase.OVER, Phase.WAITING) and \
                self._over_shown < view.number and not view.watcher:  # a watcher reads the ending on the table
            self._over_shown = view.number
            self.call_after_refresh(self.show_game_over)  # the table's last frame first
        if isinstance(self.screen, GameOverScreen):
            if view.in_game:
                self.pop_screen()
            else:
                self.screen.update(view)

    def show_game_over(self) -> None:
        if self.view is not None and not self.view.in_game:
            self.push_screen(GameOverScreen(self.view, self.profile.browser))

    def show_failure(self, view: SeatView) -> None:
        """The relay cannot be used; if it forgot our seat, the saved one is useless: say what r does. A game
        under way stopped with it: its transcript so far is shown (the seat wrote it; for a lost room, the only
        record of the game left)."""
        if view.seat_lost:
            if self.session is not None:
                self.session.forget_room(drop=False)  # the relay lost the ledger; nothing of ours is left in it
            self.switch_to_problem(
                f"The relay lost this game: it no longer knows room {self.config.room} "
                "(it was restarted without --store, or the room expired).",
                "Press r to start a new game in the same room, or q to quit.", transcript=view.transcript)
        elif view.store_full:  # the relay's own words name its memory, not what to do; the seat is still ours
            self.switch_to_problem(STORE_FULL, "r tries again: your seat is kept. q quits.", transcript=view.transcript)
        else:
            self.switch_to_problem(view.failure or "the relay connection was lost", transcript=view.transcript)

    # -- attention: the terminal's title and bell (discard_tui/attention.py) --------------------------

    def attend(self, view: SeatView, headline: str) -> None:
        """Whose turn it is in the sub-title (and so in the terminal's title); the bell when my turn comes after a
        wait, if people elsewhere play (never the computer) and ``--no-bell`` did not silence it."""
        self.sub_title = turn_words(headline, view.my_turn)
        if self.turn_bell.due(view) and self.config.bell and not self.config.against_computer:
            self.bell()

    def watch_title(self) -> None:
        self.show_terminal_title()

    def watch_sub_title(self) -> None:
        self.show_terminal_title()

    def show_terminal_title(self) -> None:
        """The terminal's title, or in a browser its tab's."""
        text = terminal_title(self.title, self.sub_title)
        if self._driver is not None and self._driver.is_web:
            self.tell_browser(title="".join(c for c in text if c.isprintable()))
        elif self._driver is not None and not self.is_headless:  # the driver, as App.copy_to_clipboard writes it
            self._driver.write(osc_title(text))

    def tell_browser(self, **news: object) -> None:
        """In a browser, tell discard-web's page (discard_tui/web.py): ``ready=True`` (keys reach the app from now
        on: its first screen is up), ``title``."""
        if self._driver is not None and self._driver.is_web:  # textual-serve's driver, which has write_meta
            cast("WebDriver", self._driver).write_meta({"type": "discard", **news})

    # -- intents -----------------------------------------------------------------------

    @on(LeaveTable)
    def leave(self) -> None:
        self.keep_the_game_so_far()
        self.exit()  # mid-game the seat is kept: the same command comes back

    def keep_the_game_so_far(self) -> None:
        """Leaving a game under way while the relay is out of reach (stopped for good, maybe, and then the
        transcript is the only record of the game): the seat writes the transcript so far, which the shell names
        on the way out."""
        view, seat = self.view, self.seat
        if seat is not None and view is not None and view.in_game and relay_gone_for(view) is not None:
            seat.give_up(0)  # the relay's silence, in words, is the transcript's reason
            self.left_transcript = str(seat.transcript_path) if seat.transcript_path else None

    @on(ToggleAutoplay)
    def toggle_autoplay(self) -> None:
        self.set_autoplay(self.session is not None and self.session.autoplaying is None)

    @on(SaveTranscript)
    def save_transcript(self) -> None:
        self.download_transcript()

    @on(PathCopied)
    def path_copied(self) -> None:
        """A path was copied from a screen that does not show it."""
        self.notify(COPIED, markup=False)

    @on(SaveHistory)
    def save_history(self) -> None:
        if self.view is not None and self.view.history:
            self.deliver(Path(self.view.history), "application/toml")

    @on(SeatRequest)
    def seat_request(self, message: SeatRequest) -> None:
        self._ask_table(message)

    def set_autoplay(self, on: bool) -> None:
        """Let the game's computer strategy play my seat to the end of this game (``a``), or stop it."""
        if self.session is not None and self.session.set_autoplay(on):
            self.seat_changed()
            if on:
                self._pump()

    @work(group="intents")
    async def _pump(self) -> None:
        if self.session is not None:
            await self.session.pump()

    def download_transcript(self) -> None:
        """Offer the transcript to a browser visitor as a download; in a terminal, copy its path."""
        if self.view is not None and self.view.transcript:
            self.deliver(Path(self.view.transcript), "application/json")

    def deliver(self, path: Path, mime_type: str) -> None:
        """Offer ``path`` to a browser visitor as a download; in a terminal, copy its path (OSC 52, which works over
        SSH too)."""
        if not self.profile.browser:
            self.copy_to_clipboard(str(path))  # nothing says whether the terminal took it: say what was done, in the
            self.screen.post_message(PathCopied(str(path)))  # dialog that shows the path, not a toast over it
            return
        downloads = self.profile.data_dir / "downloads"  # where a terminal would put it; a browser ignores it
        downloads.mkdir(parents=True, exist_ok=True)
        self.deliver_text(path.open(encoding="utf-8"), save_directory=downloads, save_filename=path.name,
                          mime_type=mime_type)  # text: Textual saves binaries in text mode

    @work(group="intents")
    async def _ask_table(self, request: SeatRequest) -> None:
        """Make a move, a choice or a rematch on my seat; if the table refuses it (the game moved on since the
        screen offered it), say why."""
        seat = self.seat
        if seat is None:
            return
        reason = await request.ask(seat)
        if reason is not None and self.table is not None:
            self.table.notice(reason)

    # -- app-wide keys ---------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            view = self.view
            self.push_screen(HelpScreen(help_page(self.ui.rules, self.ui.keys, view.safety if view else None,
                                                  len(view.names) if view else self.config.seats,
                                                  watcher=view.watcher if view else self.config.watch)))

    def action_interrupt(self) -> None:
        """Ctrl-C: leave at once, like an interrupted program (status 130); the seat is kept."""
        self.stopped(signal.SIGINT)

    def stopped(self, number: int) -> None:
        """Leave at once as a program stopped by signal ``number`` (status 128 + number: 130 for SIGINT, 143 for
        SIGTERM), the way every exit goes: the terminal is put back and the way back to the seat is printed.
        Called on the app's loop (asyncio's signal handlers run there, not inside the signal)."""
        self.exit(return_code=128 + number)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's palette, with Quit saying what it does here: mid-game it asks first."""
        for command in super().get_system_commands(screen):
            if command.title == "Quit":
                command = SystemCommand("Quit", "Leave the game (mid-game, asks first and keeps your seat)",
                                        self.action_quit)
            yield command

    async def action_quit(self) -> None:
        """q, Ctrl+Q and the command palette's Quit (Textual's own action, asked first here)."""
        self.quit_game()

    @work(exclusive=True, group="quit")
    async def quit_game(self) -> None:
        """Mid-game, ask first and keep the seat; a finished game, or a room where none started, is forgotten."""
        if isinstance(self.screen, ProblemScreen):  # no game could be played: a script must not read success
            kept = self.screen.transcript  # the game so far, whose path goes with the screen
            self.cannot_play = self.screen.problem + (f" (transcript: {kept})" if kept else "")
            self.exit(return_code=CANNOT_PLAY)
            return
        if self.config.watch:  # nothing to keep or lose
            self.exit()
            return
        view = self.view
        if view is not None and view.in_game:
            if not await self.push_screen_wait(ConfirmQuit(self.profile.resumes, out=view.out)):
                return
            self.keep_the_game_so_far()
        elif self.seat is not None and not self.others_wait() and (view is None or view.failure is None and view.phase in (
                Phase.OVER, Phase.VIOLATION, Phase.WAITING)):  # no view yet: still connecting
            assert self.session is not None
            self.session.forget_room()  # only a room this run sat down in: another copy may be playing this one
        self.exit()

    def others_wait(self) -> bool:
        """Others sit in the waiting room of the first game: my seat is kept for them (the same command comes back)."""
        view = self.view
        return view is not None and view.phase is Phase.WAITING and view.number == 1 and \
            any(view.present[seat] for seat in view.others)

    @property
    def waiting_invite(self) -> str | None:
        """The command a friend types to join, while the room waits for players before its first game."""
        view, session = self.view, self.session
        if view is None or session is None or not session.invites:
            return None
        return session.invites[0] if view.phase is Phase.WAITING and view.number == 1 else None

    async def on_unmount(self) -> None:
        if self._driver is not None and not self.is_headless:
            self._driver.write(RESTORE_TITLE)
        if self.session is not None:
            await self.session.close()


STORE_FULL = "The relay is full for now (no memory left for your rooms): try again later, or play on another " \
             "relay with --relay URL."


def relay_problem(url: str | None, problem: str) -> str:
    """A relay problem in words; wss:// to a relay that speaks plain ws:// fails in TLS, which says little."""
    if url and url.startswith("wss://") and problem.startswith("cannot reach the relay"):
        return (f"{problem}. If that relay has no TLS (discard-relay itself has none), "
                f"use ws://{url.removeprefix('wss://')}")
    return problem


def crash_report(error: BaseException, directory: Path | None) -> str:
    """Keep ``error``'s traceback in ``directory`` (None: on stderr); one line that says what and where."""
    if isinstance(error, WorkerFailed):  # a worker's own error says more than the wrapper
        error = error.error
    what = (str(error).splitlines() or [""])[0][:200]
    line = f"crashed ({type(error).__name__}{': ' + what if what else ''})"
    details = "".join(traceback.format_exception(error))
    if directory is None:
        print(details, file=sys.__stderr__, end="")
        return line
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / time.strftime("crash-%Y%m%d-%H%M%S.txt")
        path.write_text(details)
    except OSError:
        return line
    return f"{line}; the details are in {path}"
