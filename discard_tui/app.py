"""The Textual app: watches the seat's ``GameView`` and sends the player's intents.

The table, the embedded relay and the computer opponent run in a worker on
the app's event loop; exponentiations run in a process pool, so the screen
never waits for crypto. The table, crypto and network modules are imported on
a thread once the first frame is up: the app itself imports only Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import signal
import sqlite3
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

try:  # POSIX; on Windows two copies are not kept apart
    import fcntl
except ImportError:
    fcntl = None  # type: ignore[assignment]

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Label, LoadingIndicator, ProgressBar, RichLog, Static
from textual.worker import WorkerFailed

from .config import PlayConfig
from .paths import data_dir, transcripts_dir
from .view import GameView, Phase
from .widgets import (LARGE_SCREEN, MIN_SCREEN, CardWidget, DiscardPile, DrawPile, HandView, OpponentHand,
                      StatusBar, plural)

if TYPE_CHECKING:
    from relay.server import Relay
    from websockets.asyncio.server import Server

    from tabletop.shell import Seat

IN_GAME = (Phase.FLIPPING, Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING, Phase.AUDITING)
ENGINE_MODULES = ("tabletop.shell", "games", "games.discard.rules", "discard_tui.saves", "discard_tui.viewmodel")


class SeatChanged(Message):
    """The seat took in a ledger event, changed its link, or finished an audit."""


class Intent(Message):
    """The player asks for a move, a rematch or to leave; the app checks it with the table."""

    def __init__(self, action: str, index: int | None = None) -> None:
        super().__init__()
        self.action, self.index = action, index


def help_text(safety: str | None) -> Content:
    """The rules, the keys and the cues, and the safety number of the game on the table."""
    return Content.from_markup("""\
[b]Discard[/b]: get rid of all your cards first. On your turn,
[b]discard[/b] a card matching the [b]suit[/b] or the [b]value[/b] of the top of
the discard pile (anything goes on an empty pile), or [b]draw[/b].
Either ends your turn. If you can do neither, you lose.

[b]Keys[/b]   ← → h l choose   Enter Space discard   d draw
       n rematch   x leave (when offered)   Tab the log   q quit
[b]Mouse[/b]  click a card to discard it, the draw pile to draw.
[b]Cues[/b]   playable: a double frame ╔╗ (as a chip: underlined);
       the chosen card is lifted (as a chip: reversed).

[b]Safety number[/b]  $safety
Read it to your opponent: if yours differ, the relay has put
you in different games and plays each of you itself.

[dim]Escape closes this help.[/dim]""", safety=safety or "(once both players have said hello)")


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, safety: str | None) -> None:
        super().__init__()
        self.safety = safety

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Static(help_text(self.safety))
        yield Footer()


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("y", "dismiss(True)", "Quit"), Binding("n,escape", "dismiss(False)", "Keep playing")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]Quit in the middle of a game?[/b]")
            yield Label("Your seat is kept: the same command brings you back to this game. "
                        "y quits, n keeps playing.")
        yield Footer()


class ConnectingScreen(Screen[None]):
    """Before the first game: where we are and who we wait for."""

    BINDINGS = [Binding("escape", "app.quit", "Cancel")]

    def __init__(self, where: str, invites: list[str] | None = None) -> None:
        super().__init__()
        self.where, self.invites = where, invites or []

    def compose(self) -> ComposeResult:
        with Vertical(id="connecting", classes="dialog"):
            yield Label(self.where, id="where", markup=False)
            if self.invites:
                yield Label("Your friend types:", classes="dim")
                yield Label(Content.from_markup("[b]$invite[/b]", invite=self.invites[0]), id="invite")
                if len(self.invites) > 1:
                    yield Label("or, from another network this machine is on:", classes="dim")
                    yield Label("\n".join(self.invites[1:]), id="other-invites", markup=False)
            yield Label("Connecting…", id="waiting", markup=False)
            yield LoadingIndicator()
            yield Label("Escape cancels.", classes="dim")
        yield Footer()

    def waiting(self, text: str) -> None:
        self.query_one("#waiting", Label).update(text)


class ProblemScreen(Screen[None]):
    """The game cannot go on (relay unreachable, seat lost); say why and what r does."""

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


class ViolationScreen(ModalScreen[None]):
    """The opponent broke the rules or the protocol: name it and point at the transcript."""

    BINDINGS = [Binding("q,escape", "app.quit", "Quit")]

    def __init__(self, problem: str, transcript: str | None) -> None:
        super().__init__()
        self.problem, self.transcript = problem, transcript

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Label("[b]Game stopped: the rules were broken[/b]")
            yield Label(self.problem, id="problem", markup=False)
            if self.transcript:
                yield Label(f"Transcript of every message: {self.transcript}", id="transcript", markup=False)
        yield Footer()


class GameOverScreen(ModalScreen[None]):
    BINDINGS = [Binding("n", "rematch", "Rematch"), Binding("q", "app.quit", "Quit"),
                Binding("escape", "dismiss", "See the table")]

    def __init__(self, view: GameView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover", classes="dialog"):
            yield Label("", id="result", markup=False)
            yield Label("", id="score", markup=False)
            yield Label("", id="verdict", markup=False)
            yield Label("", id="offer", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.update(self.view)

    def update(self, view: GameView, now: float | None = None) -> None:
        self.view = view
        if not self.query("#result"):
            return  # not composed yet: on_mount shows it
        result = self.query_one("#result", Label)
        result.update("You win!" if view.result == "win" else "You lose")
        result.set_class(view.result == "win", "win")
        self.query_one("#score", Label).update(score_line(view))
        verdict = f"Audit: {view.verdict}" if view.verdict else "Auditing…"
        if view.transcript and view.verdict and not view.verdict.startswith("fair"):
            verdict += f"\nTranscript of every message: {view.transcript}"
        self.query_one("#verdict", Label).update(verdict)
        name, gone = view.opponent_name, absence(view, now)
        if view.rematch_offered:
            offer = f"{name} wants a rematch: press n to play again, q to quit."
        elif view.phase is Phase.WAITING:
            offer = f"Waiting for {name} to accept the rematch…" + (f" {gone}; q leaves." if gone else "")
        else:
            offer = "n plays again (the loser starts), q quits." + (f" {gone}." if gone else "")
        self.query_one("#offer", Label).update(offer)
        self.refresh_bindings()

    def action_rematch(self) -> None:
        self.post_message(Intent("rematch"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return True if self.view.rematch_refusal is None else None
        return True


class MoveLog(RichLog):
    """The moves so far, newest at the bottom; Tab focuses it to scroll by keyboard; it rewraps on resize."""

    lines_shown: tuple[str, ...] = ()

    def show(self, lines: tuple[str, ...]) -> None:
        for line in lines[len(self.lines_shown):]:
            self.write(line)
        self.lines_shown = lines

    def on_resize(self, event: events.Resize) -> None:
        lines, self.lines_shown = self.lines_shown, ()
        self.clear()
        self.show(lines)


class TableScreen(Screen[None]):
    """The table: the status bar, opponent's hand, the piles, my hand; the safety number and the log."""

    BINDINGS = [
        Binding("left,h", "move(-1)", "Left", show=False),
        Binding("right,l", "move(1)", "Right", show=False),
        Binding("enter,space", "discard", "Discard"),
        Binding("d", "draw", "Draw"),
        Binding("n", "rematch", "Rematch"),
        Binding("x", "leave", "Leave"),
        # The same keys while the move is not allowed (greyed out above): say why instead of doing nothing.
        Binding("enter,space", "refuse('discard')", show=False),
        Binding("d", "refuse('draw')", show=False),
        Binding("n", "refuse('rematch')", show=False),
    ]

    view: GameView | None = None

    def __init__(self, leave_grace: float) -> None:
        super().__init__()
        self.leave_grace = leave_grace

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="table"):
            with Vertical(id="play"):
                yield Label("Opponent", id="opponent-label", classes="label", markup=False)
                yield OpponentHand(id="opponent")
                yield Static(classes="spacer")
                with Horizontal(id="middle"):
                    yield DrawPile(id="draw")
                    yield DiscardPile(id="discard")
                    with Vertical(id="progress-box"):
                        yield Label("", id="progress-label", markup=False)
                        yield ProgressBar(total=6, show_eta=False, id="progress")
                yield Static(classes="spacer")
                yield Label("Your hand", id="hand-label", classes="label", markup=False)
                yield HandView(id="hand")
            with Vertical(id="side"):
                yield Static("", id="safety", markup=False)
                yield MoveLog(id="log", wrap=True, min_width=10, max_lines=500)
        yield Static("", id="too-small", markup=False)
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        """Large cards when the terminal has room; a plain request when it is too small for the table."""
        width, height = event.size
        large = width >= LARGE_SCREEN[0] and height >= LARGE_SCREEN[1]
        self.set_class(large, "-large")
        for widget in self.query(CardWidget):
            widget.large = large
        self.set_class(height < MIN_SCREEN[1] + 2, "-short")  # no room to spare between the rows of cards
        small = width < MIN_SCREEN[0] or height < MIN_SCREEN[1]
        self.set_class(small, "-too-small")
        self.query_one("#too-small", Static).update(
            f"Make the terminal at least {MIN_SCREEN[0]}×{MIN_SCREEN[1]} to see the table (it is {width}×{height})."
            "\n\nq quits; the game waits for you.")

    def on_mount(self) -> None:
        self.query_one(HandView).focus()
        if self.view is not None:
            self.update(self.view)

    def update(self, view: GameView, now: float | None = None, wall: float | None = None) -> None:
        """Show ``view``; before the widgets exist (a fast resume), keep it for when they do."""
        old, self.view = self.view, view
        if not self.is_mounted:
            return
        status = self.query_one(StatusBar)
        if old is None or (old.moves, old.phase, old.game) != (view.moves, view.phase, view.game):
            status.notice = ""  # a refusal stands until something happens
        status.match = f"{score_line(view)} · game {view.game}"
        status.link = link_text(view, now, wall)
        status.headline, status.my_turn = headline(view), view.my_turn
        status.event = capitalized(view.last_move or "")
        status.hint = trouble(view, self.leave_grace, now, wall) or hint(view) or note(view)
        self.query_one("#opponent-label", Label).update(f"{view.opponent_name}: {plural(view.opponent_hand, 'card')}")
        self.query_one(OpponentHand).count = view.opponent_hand
        self.query_one(DrawPile).count = view.draw_pile
        discard = self.query_one(DiscardPile)
        discard.top, discard.count = view.discard_top, view.discard_count
        hand = self.query_one(HandView)
        hand.cards, hand.playable, hand.my_turn = view.hand, view.playable, view.my_turn
        self.query_one("#hand-label", Label).update(f"Your hand: {plural(len(view.hand), 'card')}")
        box = self.query_one("#progress-box")
        box.display = view.progress is not None
        if view.progress is not None:
            label, done, total = view.progress
            self.query_one("#progress-label", Label).update(label)
            self.query_one(ProgressBar).update(progress=done, total=total)
        groups = (view.safety or "").split()
        self.query_one("#safety", Static).update(
            "Safety number\n" + (" ".join(groups[:3]) + "\n" + " ".join(groups[3:]) if groups else "…"))
        self.query_one(MoveLog).show(view.log)
        self.refresh_bindings()

    def notice(self, text: str) -> None:
        if self.is_mounted:
            self.query_one(StatusBar).notice = text

    def action_move(self, step: int) -> None:
        hand = self.query_one(HandView)
        hand.cursor = hand.cursor + step

    def action_discard(self) -> None:
        self.post_message(Intent("discard", self.query_one(HandView).cursor))

    def action_draw(self) -> None:
        self.post_message(Intent("draw"))

    def action_rematch(self) -> None:
        self.post_message(Intent("rematch"))

    def action_leave(self) -> None:
        self.post_message(Intent("leave"))

    def action_refuse(self, action: str) -> None:
        if self.view is not None:
            self.notice(refusal(self.view, action, self.query_one(HandView).cursor) or "")

    @on(HandView.CardChosen)
    def card_clicked(self, message: HandView.CardChosen) -> None:
        self.post_message(Intent("discard", message.index))

    @on(DrawPile.Pressed)
    def draw_clicked(self) -> None:
        self.post_message(Intent("draw"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action in ("discard", "draw", "rematch"):
            return True if view is not None and refusal(view, action) is None else None
        if action == "refuse":
            return view is not None and refusal(view, str(parameters[0])) is not None
        if action == "leave":
            return view is not None and can_leave(view, self.leave_grace)
        return True


# -- what the status bar and the dialogs say: pure functions of a GameView ------------------------------


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def score_line(view: GameView) -> str:
    mine, theirs = view.score
    return f"{view.my_name} {mine} – {theirs} {view.opponent_name}"


def ago(seconds: float) -> str:
    """ "just now", "40 s ago", "2 min ago", "3 h ago"."""
    if seconds < 10:
        return "just now"
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


def absence(view: GameView, now: float | None = None) -> str | None:
    """ "bo left 2 min ago" while the opponent is away from the room (``now``: Unix time)."""
    if view.opponent_left_at is None or view.opponent_present:
        return None
    return f"{view.opponent_name} left {ago((now or time.time()) - view.opponent_left_at)}"


def link_text(view: GameView, now: float | None = None, wall: float | None = None) -> str:
    """The right end of the status bar: the relay link, the opponent's presence, a long wait."""
    from tabletop.ledger import Link  # loaded with the table, which made this view

    now = now or time.monotonic()
    if view.link is Link.RECONNECTING:
        since = now - view.link_since
        return "Reconnecting…" + (f" ({int(since)} s)" if since >= 5 else "")
    if view.link is not Link.CONNECTED:
        return view.link.value
    if (gone := absence(view, wall)) is not None:
        return gone
    if view.waiting_since is not None and view.phase in IN_GAME:
        waited = now - view.waiting_since
        if waited >= 5:
            return f"waiting for {view.opponent_name} for {int(waited)} s"
    return "connected"


def relay_gone_for(view: GameView, now: float | None = None) -> float | None:
    """Seconds the relay has not answered, or None while it does."""
    from tabletop.ledger import Link

    return (now or time.monotonic()) - view.link_since if view.link is Link.RECONNECTING else None


def opponent_gone_for(view: GameView, wall: float | None = None) -> float | None:
    """Seconds the opponent has been away mid-game, or None."""
    left = view.opponent_left_at
    return (wall or time.time()) - left if left is not None and view.phase in IN_GAME else None


def can_leave(view: GameView, grace: float, now: float | None = None, wall: float | None = None) -> bool:
    """Offer to leave once the relay or, mid-game, the opponent has been gone ``grace`` seconds."""
    return any(gone is not None and gone >= grace for gone in (relay_gone_for(view, now), opponent_gone_for(view, wall)))


def trouble(view: GameView, grace: float, now: float | None = None, wall: float | None = None) -> str:
    """What is wrong, past the grace period, and the way out: it outranks the hint."""
    if not can_leave(view, grace, now, wall):
        return ""
    gone = relay_gone_for(view, now)
    if gone is not None and gone >= grace:
        return (f"The relay has not answered for {int(gone)} s; if {view.opponent_name} hosted it, they have "
                "quit. x leaves; the same command comes back to this game.")
    return f"{absence(view, wall)}: x leaves; the same command comes back to this game."


def note(view: GameView) -> str:
    """Worth knowing when there is nothing to do."""
    if view.deck_chosen_by and view.phase in IN_GAME:
        return f"{view.deck_chosen_by} opened this room with the {view.deck_size}-card deck, so it is played here."
    return ""


def hint(view: GameView) -> str:
    """What the player can do now, in one line."""
    if not view.my_turn:
        return ""
    top = view.discard_top
    if top is None:
        return "Anything goes on the empty pile: ← → choose, Enter discards"
    if any(view.playable):
        return f"Play a {top.suit} or a {top.rank} (double frame), or d to draw"
    if view.draw_pile:
        return f"Nothing matches {top}: press d to draw"
    return "Nothing matches and the draw pile is empty"


def headline(view: GameView) -> str:
    if view.phase is Phase.PLAYING:
        return "Your turn" if view.my_turn else f"{view.opponent_name}'s turn"
    if view.phase in (Phase.OVER, Phase.AUDITING) and view.result:
        return "You win" if view.result == "win" else "You lose"
    if view.phase is Phase.WAITING and view.game > 1:
        return f"Waiting for {view.opponent_name}"
    return {
        Phase.CONNECTING: "Connecting",
        Phase.WAITING: "Waiting for an opponent",
        Phase.FLIPPING: "Flipping a coin",
        Phase.SHUFFLING: "Shuffling",
        Phase.DEALING: "Dealing",
        Phase.AUDITING: "Auditing",
        Phase.VIOLATION: "Stopped",
        Phase.FAILED: "Disconnected",
    }.get(view.phase, view.phase.value)


def refusal(view: GameView, action: str, index: int | None = None) -> str | None:
    """Why ``action`` cannot be done now, in the status bar's words; None if it can (the table checks again)."""
    if action == "rematch":
        return view.rematch_refusal
    if view.phase is not Phase.PLAYING:
        return "the game is not under way"
    if not view.my_turn:
        return f"it is {view.opponent_name}'s turn"
    if action == "draw" or (view.draw_refusal is not None and view.draw_pile):  # e.g. a move still on its way
        return view.draw_refusal
    top = view.discard_top
    if not any(view.playable):
        assert top is not None  # anything goes on an empty pile
        return f"nothing in your hand matches {top}: press d to draw" if view.draw_pile else \
            f"nothing in your hand matches {top}, and the draw pile is empty"
    if index is not None and 0 <= index < len(view.hand) and not view.playable[index]:
        from games.discard.rules import short_mismatch  # loaded with the table, which made this view

        assert top is not None
        return short_mismatch(view.hand[index], top)
    return None


class DiscardApp(App[None]):
    """discard in the terminal."""

    CSS_PATH = "app.tcss"
    TITLE = "discard"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "interrupt", show=False, priority=True, system=True),
    ]

    view: reactive[GameView | None] = reactive(None, always_update=False)

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.session: Seat | None = None
        self._opponent: Seat | None = None
        self._relay_server: Server | None = None
        self._relay: Relay | None = None
        self._store_lock: TextIO | None = None
        self._room_over = False  # the player left a finished game: its seats and ledger can go
        self._over_shown = 0  # the game whose game-over dialog was shown
        self._stage: str | None = None  # what the saved seat says of the room, as last written

    # -- an unexpected error ----------------------------------------------------------

    crash: str | None = None  # one line about an unexpected error; its traceback is in a file

    def _handle_exception(self, error: Exception) -> None:
        """Textual's hook for an unhandled error (private: it has no public one).

        The traceback goes to a file in the data directory and the terminal gets
        one line (``crash``) instead of a screenful; the exit code is 1.
        """
        self.crash = crash_report(error)
        super()._handle_exception(error)
        self._exit_renderables.clear()

    # -- start-up ------------------------------------------------------------------

    def on_mount(self) -> None:
        if not self.is_headless and hasattr(signal, "SIGINT"):  # SIGINT from outside the keyboard: as Ctrl-C
            with contextlib.suppress(NotImplementedError):  # no such handlers on Windows' loop
                asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self.action_interrupt)
        self.push_screen(TableScreen(self.config.leave_grace))
        self.push_screen(ConnectingScreen(self.where()))
        self.set_interval(1.0, self._tick)
        self.call_after_refresh(self.play)  # the first frame first: the table's imports take a while

    def where(self) -> str:
        c = self.config
        if c.against_computer:
            return "Playing the computer on this machine."
        return f"Relay {c.relay or 'hosted here'} · room {c.room}"

    def action_retry(self) -> None:
        self.pop_screen()
        self.push_screen(ConnectingScreen(self.where()))
        self.play()

    @property
    def relay_key(self) -> str:
        """Which relay saved seats belong to: the URL, or our own embedded relay."""
        from . import saves

        c = self.config
        if c.relay:
            return c.relay
        return saves.LOCAL_RELAY if c.against_computer else f"host:{c.port}"

    @work(exclusive=True, group="game")
    async def play(self) -> None:
        """Start the relay and the opponent if needed, take (or take back) a seat, and run the session."""
        from . import startup

        await asyncio.to_thread(lambda: [importlib.import_module(name) for name in ENGINE_MODULES])
        from games import GAMES
        from tabletop.crypto import MODP_2048
        from tabletop.ledger import RelayError
        from tabletop.table import Wish

        from . import saves

        c = self.config
        game = GAMES["discard"]
        try:
            url = c.relay or await self._start_relay()
            await startup.pool_ready()
            if c.against_computer and self._opponent is None:
                wish = Wish(saves.COMPUTER, game.name, 2, {"deck": c.deck}, MODP_2048)
                self._opponent, _ = await saves.resume_or_join(
                    url, c.room, wish, relay_key=self.relay_key, seed=c.seeds[1] if c.seeds else None,
                    follow=True, autoplay=game.computer(c.opponent_seed), think_time=c.think_time,
                    transcript_dir=transcripts_dir())
                self.run_worker(self._opponent.run(), group="opponent")
            wish = Wish(c.name, game.name, 2, {"deck": c.deck}, MODP_2048)
            self.session, resumed = await saves.resume_or_join(
                url, c.room, wish, relay_key=self.relay_key, seed=c.seeds[0] if c.seeds else None,
                transcript_dir=transcripts_dir())
        except (RelayError, OSError) as error:
            self.switch_to_problem(relay_problem(c.relay, str(error)))
            return
        if resumed:
            self.notify(f"Back in room {c.room}: your game goes on where it stopped.", title="Resumed", markup=False)
        self.session.subscribe(self._seat_moved)
        self.seat_changed()
        await self.session.run()

    async def _start_relay(self) -> str:
        """Our own relay, durable in the data directory so a crash here loses no game."""
        from relay.server import Relay
        from relay.store import SQLiteStore
        from tabletop.ledger import RelayError

        store_name = "computer-relay.sqlite3" if self.config.against_computer else f"host-{self.config.port}.sqlite3"
        data_dir().mkdir(parents=True, exist_ok=True)
        path = data_dir() / store_name
        if self._store_lock is not None:  # a retry: let go of the last attempt's lock first
            self._store_lock.close()
        self._store_lock = hold_lock(path.with_suffix(".lock"))
        try:
            self._relay = relay = Relay(SQLiteStore(path))
        except sqlite3.DatabaseError as error:
            raise RelayError(f"the saved games in {path} are unreadable ({error}); "
                             "move that file away to start afresh") from None
        host = self.config.host or "127.0.0.1"
        try:
            self._relay_server = server = await relay.serve(host, self.config.port)
        except OSError as error:
            raise RelayError(f"cannot start a relay on {host}:{self.config.port}: "
                             f"{error.strerror or error}; pick another --port") from None
        port = server.sockets[0].getsockname()[1]
        if self.config.host:
            from . import invite

            invites = [invite.command(address, port, self.config.room) for address in invite.addresses(host)]
            if isinstance(self.screen, ConnectingScreen):
                self.screen.invites = invites
                await self.screen.recompose()
        return f"ws://127.0.0.1:{port}"

    def switch_to_problem(self, problem: str, retry: str | None = None) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.push_screen(ProblemScreen(problem, *([retry] if retry else [])))

    # -- the seat's view -------------------------------------------------------------

    def _seat_moved(self) -> None:
        """The seat's observer: only a message, so the screen updates in the app's own time."""
        self.post_message(SeatChanged())

    @on(SeatChanged)
    def seat_changed(self) -> None:
        """The seat's state moved on (told by message: no screen code runs inside the table's own calls)."""
        if self.session is not None:
            from .viewmodel import game_view

            self.view = view = game_view(self.session)
            stage = seat_stage(view)
            if stage is not None and stage != self._stage:  # for --games: only rooms with a game under way
                from . import saves

                self._stage = stage
                saves.mark(self.session, stage=stage)

    def _tick(self) -> None:
        """Once a second: the times the status bar and the game-over dialog show."""
        table, view = self.table, self.view
        if view is not None and table is not None and table.view is not None:
            table.update(view)
            if isinstance(self.screen, GameOverScreen):
                self.screen.update(view)

    @property
    def table(self) -> TableScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, TableScreen)), None)

    def watch_view(self, old: GameView | None, view: GameView | None) -> None:
        if view is None or not self.screen_stack:
            return
        stopped = view.phase in (Phase.VIOLATION, Phase.FAILED)
        if isinstance(self.screen, ConnectingScreen):
            if view.replaying and not stopped:  # a resumed room: show only the game being played
                self.screen.waiting(f"Catching up with room {self.config.room}…")
                return
            if view.phase in (Phase.CONNECTING, Phase.WAITING) and view.game == 1:
                present = view.opponent_present
                self.screen.waiting(f"{view.opponent_name} is here; starting…" if present
                                    else "Waiting for an opponent…")
                return
            self.pop_screen()
        table = self.table
        assert table is not None
        table.update(view)
        if view.phase is Phase.VIOLATION and not isinstance(self.screen, ViolationScreen):
            self.push_screen(ViolationScreen(view.problem or "a violation", view.transcript))
        elif view.phase is Phase.FAILED and not isinstance(self.screen, ProblemScreen):
            self.show_failure(view)
        elif view.verdict is not None and view.phase in (Phase.OVER, Phase.WAITING) and self._over_shown < view.game:
            self._over_shown = view.game
            self.call_after_refresh(self.show_game_over)  # the table's last frame first
        if isinstance(self.screen, GameOverScreen):
            if view.phase in IN_GAME:
                self.pop_screen()
            else:
                self.screen.update(view)

    def show_game_over(self) -> None:
        if self.view is not None and self.view.phase not in IN_GAME:
            self.push_screen(GameOverScreen(self.view))

    def show_failure(self, view: GameView) -> None:
        """The relay cannot be used; if it forgot our seat, the saved one is useless: say what r does."""
        if view.seat_lost:
            self.forget_room()
            self._room_over = False  # the relay lost the ledger; nothing of ours is left in it
            self.switch_to_problem(
                f"The relay lost this game: it no longer knows room {self.config.room} "
                "(it was restarted without --store, or the room expired).",
                "Press r to start a new game in the same room, or q to quit.")
        else:
            self.switch_to_problem(view.problem or "the relay connection was lost")

    # -- intents -----------------------------------------------------------------------

    @on(Intent)
    def intent(self, message: Intent) -> None:
        if message.action == "leave":
            self.exit()  # mid-game the seat is kept: the same command comes back
        else:
            self._intent(message.action, message.index)

    @work(group="intents")
    async def _intent(self, action: str, index: int | None = None) -> None:
        session = self.session
        if session is None:
            return
        from . import viewmodel

        if action == "discard":
            reason = await viewmodel.discard(session, index or 0)
        elif action == "draw":
            reason = await viewmodel.draw(session)
        else:
            reason = await session.rematch()
        table = self.table
        if table is not None and table.view is not None and reason is not None:  # the game moved on meanwhile
            table.notice(refusal(table.view, action, index) or reason)

    # -- app-wide keys ---------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.view.safety if self.view else None))

    def action_interrupt(self) -> None:
        """Ctrl-C: leave at once, like an interrupted program (status 130); the seat is kept."""
        self.exit(return_code=130)

    async def action_quit(self) -> None:
        """q, Ctrl+Q and the command palette's Quit (Textual's own action, asked first here)."""
        self.quit_game()

    @work(exclusive=True, group="quit")
    async def quit_game(self) -> None:
        """Mid-game, ask first and keep the seat; a finished game, or a room where none started, is forgotten."""
        phase = self.view.phase if self.view is not None else Phase.CONNECTING
        if phase in IN_GAME:
            if not await self.push_screen_wait(ConfirmQuit()):
                return
        elif self.session is not None and phase in (Phase.OVER, Phase.VIOLATION, Phase.WAITING, Phase.CONNECTING):
            self.forget_room()  # only a room this run sat down in: another copy may be playing this one
        self.exit()

    def forget_room(self) -> None:
        """Nothing to come back to in this room: drop the saved seats."""
        from . import saves

        for session in (self.session, self._opponent):
            if session is not None:
                saves.forget(session)
        self._room_over = True

    async def on_unmount(self) -> None:
        for session in (self.session, self._opponent):
            if session is not None:
                session.observers.clear()
                await session.ledger.close()
        if self._relay_server is not None and self._relay is not None:
            self._relay_server.close()
            await self._relay_server.wait_closed()  # the last leave events reach the store first
            if self._room_over:  # nobody comes back to a finished game: keep the store small
                self._relay.store.drop_room(self.config.room)
            self._relay.close()
        if self._store_lock is not None:
            self._store_lock.close()


def seat_stage(view: GameView) -> str | None:
    """How far the room got, for the saved seat: "waiting", "playing" or "over" (None: unknown yet)."""
    if view.replaying or view.phase is Phase.FAILED:
        return None
    if view.phase in IN_GAME:
        return "playing"
    if view.phase in (Phase.OVER, Phase.VIOLATION) or view.game > 1:
        return "over"
    return "waiting"


def relay_problem(url: str | None, problem: str) -> str:
    """A relay problem in words; wss:// to a relay that speaks plain ws:// fails in TLS, which says little."""
    if url and url.startswith("wss://") and problem.startswith("cannot reach the relay"):
        return (f"{problem}. If that relay has no TLS (discard-relay itself has none), "
                f"use ws://{url.removeprefix('wss://')}")
    return problem


def crash_report(error: BaseException) -> str:
    """Keep ``error``'s traceback in the data directory; one line that says what and where."""
    if isinstance(error, WorkerFailed):  # a worker's own error says more than the wrapper
        error = error.error
    what = (str(error).splitlines() or [""])[0][:200]
    line = f"crashed ({type(error).__name__}{': ' + what if what else ''})"
    try:
        directory = data_dir() / "crashes"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / time.strftime("crash-%Y%m%d-%H%M%S.txt")
        path.write_text("".join(traceback.format_exception(error)))
    except OSError:
        return line
    return f"{line}; the details are in {path}"


def hold_lock(path: Path) -> TextIO:
    """Hold an exclusive lock on ``path`` for as long as the returned file stays open.

    Two copies of the game must not run one embedded relay's store at once.
    """
    from tabletop.ledger import RelayError

    handle = path.open("a")
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise RelayError("another discard-tui is already running this game from "
                             f"{path.parent}; finish it there, or set DISCARD_DATA_DIR to play another") from None
    return handle
