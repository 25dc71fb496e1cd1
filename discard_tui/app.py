"""The Textual app: watches the engine's ``GameView`` and sends the player's intents.

The engine, the embedded relay and the computer opponent run in a worker on
the app's event loop; exponentiations run in a process pool, so the screen
never waits for crypto.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

try:  # POSIX; on Windows two copies are not kept apart
    import fcntl
except ImportError:
    fcntl = None  # type: ignore[assignment]

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Label, LoadingIndicator, ProgressBar, RichLog, Static

from . import crypto
from .bot import simple_strategy
from .engine import GameView, Phase, Session
from .net import Link, RelayError
from . import saves
from .paths import data_dir, transcripts_dir
from .rules import DeckKind
from .widgets import LARGE_SCREEN, CardWidget, DiscardPile, DrawPile, HandView, OpponentHand, StatusBar

IN_GAME = (Phase.FLIPPING, Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING, Phase.AUDITING)


@dataclass
class PlayConfig:
    """How to start: against the computer (no relay given), through a relay, or hosting one."""

    relay: str | None = None
    room: str = "local"
    name: str = "you"
    deck: DeckKind = DeckKind.FULL
    host: str | None = None  # listen address when we run the relay ourselves
    port: int = 0
    opponent_seed: int | None = None
    think_time: float = 0.6
    seeds: tuple[bytes, bytes] | None = None  # fixed crypto seeds (mine, the computer's), for tests only

    @property
    def against_computer(self) -> bool:
        return self.relay is None and self.host is None


HELP = """\
[b]Discard[/b]: get rid of all your cards first.

On your turn, either [b]discard[/b] a card that matches the [b]suit[/b] or the [b]value[/b] of the top of the discard pile (anything goes on an empty pile), or [b]draw[/b] the top card of the draw pile. Either ends your turn. If you can do neither, you lose. Discarding your last card wins.

[b]Keys[/b]
  ← → or h l  choose a card    Enter, Space  discard it
  d           draw             n             rematch, once over
  ?           this help        q             quit

[b]Mouse[/b]: click a card to discard it, click the draw pile to draw.

Nobody deals: both players shuffle the deck under their own keys, so neither you, your opponent nor the relay can see a card before its owner. Every move is checked on arrival, and at the end both players publish their keys and audit the whole game.

[dim]Escape closes this help.[/dim]"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help", classes="dialog"):
            yield Static(HELP)
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

    def __init__(self, where: str, invite: str | None) -> None:
        super().__init__()
        self.where, self.invite = where, invite

    def compose(self) -> ComposeResult:
        with Vertical(id="connecting", classes="dialog"):
            yield Label(self.where, id="where")
            if self.invite:
                yield Label("Your friend types:", classes="dim")
                yield Label(f"[b]{self.invite}[/b]", id="invite")
            yield Label("Connecting…", id="waiting")
            yield LoadingIndicator()
            yield Label("Escape cancels.", classes="dim")
        yield Footer()

    def waiting(self, text: str) -> None:
        self.query_one("#waiting", Label).update(text)


class ProblemScreen(Screen[None]):
    """The game cannot go on (relay unreachable, seat lost); say why and offer a retry."""

    BINDINGS = [Binding("r", "app.retry", "Retry"), Binding("q,escape", "app.quit", "Quit")]

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Label("[b]Cannot play[/b]")
            yield Label(self.problem, id="problem")
            yield Label("Press r to try again or q to quit.")
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
            yield Label(self.problem, id="problem")
            if self.transcript:
                yield Label(f"Transcript of every message: {self.transcript}", id="transcript")
        yield Footer()


class GameOverScreen(ModalScreen[None]):
    BINDINGS = [Binding("n", "rematch", "Rematch"), Binding("q", "app.quit_game", "Quit"),
                Binding("escape", "dismiss", "See the table")]

    def __init__(self, view: GameView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover", classes="dialog"):
            yield Label("", id="result")
            yield Label("", id="verdict")
            yield Label("", id="offer")
        yield Footer()

    def on_mount(self) -> None:
        self.update(self.view)

    def update(self, view: GameView) -> None:
        self.view = view
        if not self.query("#result"):
            return  # not composed yet: on_mount shows it
        result = self.query_one("#result", Label)
        result.update("[b]You win![/b]" if view.result == "win" else "[b]You lose[/b]")
        result.set_class(view.result == "win", "win")
        verdict = f"Audit: {view.verdict}" if view.verdict else "Auditing…"
        if view.transcript and view.verdict and not view.verdict.startswith("fair"):
            verdict += f"\nTranscript of every message: {view.transcript}"
        self.query_one("#verdict", Label).update(verdict)
        if view.rematch_offered:
            offer = f"{view.opponent_name} wants a rematch: press n to play again, q to quit."
        elif view.phase is Phase.WAITING:
            offer = f"Waiting for {view.opponent_name} to accept the rematch…"
        else:
            offer = "n plays again (the loser starts), q quits."
        self.query_one("#offer", Label).update(offer)

    def action_rematch(self) -> None:
        self.app.rematch()  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self.app.can("rematch")  # type: ignore[attr-defined]
        return True


class MoveLog(RichLog, can_focus=False):
    """The moves so far, newest at the bottom; it never takes the keyboard from the hand."""

    def on_mount(self) -> None:
        self.shown = 0

    def show(self, lines: tuple[str, ...]) -> None:
        for line in lines[self.shown:]:
            self.write(line)
        self.shown = len(lines)


class TableScreen(Screen[None]):
    """The table: opponent's hand, the piles and the log, my hand, the status bar."""

    BINDINGS = [
        Binding("left,h", "move(-1)", "Left", show=False),
        Binding("right,l", "move(1)", "Right", show=False),
        Binding("enter,space", "discard", "Discard"),
        Binding("d", "draw", "Draw"),
        Binding("n", "rematch", "Rematch"),
    ]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="table"):
            with Vertical(id="play"):
                yield Label("Opponent", id="opponent-label", classes="label")
                yield OpponentHand(id="opponent")
                yield Static(classes="spacer")
                with Horizontal(id="middle"):
                    yield DrawPile(id="draw")
                    yield DiscardPile(id="discard")
                    with Vertical(id="progress-box"):
                        yield Label("", id="progress-label")
                        yield ProgressBar(total=6, show_eta=False, id="progress")
                yield Static(classes="spacer")
                yield Label("Your hand", id="hand-label", classes="label")
                yield HandView(id="hand")
            yield MoveLog(id="log", wrap=True, min_width=10, max_lines=500)
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        """Large cards when the terminal has room for them (the CSS sizes follow the class)."""
        large = event.size.width >= LARGE_SCREEN[0] and event.size.height >= LARGE_SCREEN[1]
        self.set_class(large, "-large")
        for widget in self.query(CardWidget):
            widget.large = large

    ready = False  # composed: its widgets exist
    latest: GameView | None = None

    def on_mount(self) -> None:
        self.ready = True
        if self.latest is not None:
            self.update(self.latest)

    def update(self, view: GameView) -> None:
        """Show ``view``; before the widgets exist (a fast resume), keep it for when they do."""
        self.latest = view
        if not self.ready:
            return
        status = self.query_one(StatusBar)
        status.headline = headline(view)
        status.players = f"{view.my_name} vs {view.opponent_name} · game {view.game}"
        status.link = link_text(view)
        status.hint = hint(view)
        self.query_one("#opponent-label", Label).update(
            f"{view.opponent_name}: {view.opponent_hand} card{'s' if view.opponent_hand != 1 else ''}")
        self.query_one(OpponentHand).count = view.opponent_hand
        self.query_one(DrawPile).count = view.draw_pile
        discard = self.query_one(DiscardPile)
        discard.top, discard.count = view.discard_top, view.discard_count
        hand = self.query_one(HandView)
        hand.cards, hand.playable, hand.my_turn = view.hand, view.playable, view.my_turn
        self.query_one("#hand-label", Label).update(f"Your hand: {len(view.hand)} cards")
        box = self.query_one("#progress-box")
        box.display = view.progress is not None
        if view.progress is not None:
            label, done, total = view.progress
            self.query_one("#progress-label", Label).update(label)
            self.query_one(ProgressBar).update(progress=done, total=total)
        self.query_one(MoveLog).show(view.log)

    def notice(self, text: str) -> None:
        if self.ready:
            self.query_one(StatusBar).notice = text

    def action_move(self, step: int) -> None:
        hand = self.query_one(HandView)
        hand.cursor = hand.cursor + step

    def action_discard(self) -> None:
        self.app.discard(self.query_one(HandView).cursor)  # type: ignore[attr-defined]

    def action_draw(self) -> None:
        self.app.draw()  # type: ignore[attr-defined]

    def action_rematch(self) -> None:
        self.app.rematch()  # type: ignore[attr-defined]

    @on(HandView.CardChosen)
    def card_clicked(self, message: HandView.CardChosen) -> None:
        self.app.discard(message.index)  # type: ignore[attr-defined]

    @on(DrawPile.Pressed)
    def draw_clicked(self) -> None:
        self.app.draw()  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("discard", "draw", "rematch"):
            return self.app.can(action)  # type: ignore[attr-defined]
        return True


def hint(view: GameView) -> str:
    """What the player can do now, in one line."""
    if not view.my_turn:
        return ""
    if view.discard_top is None:
        return "Anything goes on the empty pile: ← → choose, Enter discards"
    if any(view.playable):
        return f"Play a card matching {view.discard_top.suit} or {view.discard_top.rank} (green), or d to draw"
    if view.draw_pile:
        return f"Nothing matches {view.discard_top}: press d to draw"
    return "Nothing matches and the draw pile is empty"


def headline(view: GameView) -> str:
    if view.phase is Phase.PLAYING:
        return "Your turn" if view.my_turn else "Opponent's turn"
    if view.phase in (Phase.OVER, Phase.AUDITING) and view.result:
        return "You win" if view.result == "win" else "You lose"
    return {
        Phase.CONNECTING: "Connecting",
        Phase.WAITING: "Waiting for opponent",
        Phase.FLIPPING: "Flipping a coin",
        Phase.SHUFFLING: "Shuffling",
        Phase.DEALING: "Dealing",
        Phase.AUDITING: "Auditing",
        Phase.VIOLATION: "Stopped",
        Phase.FAILED: "Disconnected",
    }.get(view.phase, view.phase.value)


def link_text(view: GameView, now: float | None = None) -> str:
    if view.link is Link.RECONNECTING:
        return "Reconnecting…"
    if view.link is not Link.CONNECTED:
        return view.link.value
    if not view.opponent_present and view.phase in IN_GAME:
        return f"{view.opponent_name} disconnected; waiting for them to come back"
    if view.waiting_since is not None and view.phase in IN_GAME:
        waited = (now or time.monotonic()) - view.waiting_since
        if waited >= 5:
            return f"waiting for {view.opponent_name} for {int(waited)} s"
    return "connected"


class DiscardApp(App[None]):
    """discard in the terminal."""

    CSS_PATH = "app.tcss"
    TITLE = "discard"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    view: reactive[GameView | None] = reactive(None, always_update=False)

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.session: Session | None = None
        self._opponent: Session | None = None
        self._relay_server = None
        self._relay = None
        self._store_lock: TextIO | None = None
        self._room_over = False  # the player left a finished game: its seats and ledger can go
        self._over_shown = 0  # the game whose game-over dialog was shown

    # -- start-up ------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(TableScreen())
        self.push_screen(ConnectingScreen(self.where(), None))
        self.set_interval(1.0, self._tick)
        self.play()

    def where(self) -> str:
        c = self.config
        if c.against_computer:
            return "Playing the computer on this machine."
        return f"Relay {c.relay or 'hosted here'} · room {c.room}"

    def action_retry(self) -> None:
        self.pop_screen()
        self.push_screen(ConnectingScreen(self.where(), None))
        self.play()

    @property
    def relay_key(self) -> str:
        """Which relay saved seats belong to: the URL, or our own embedded relay."""
        c = self.config
        if c.relay:
            return c.relay
        return saves.LOCAL_RELAY if c.against_computer else f"host:{c.port}"

    @work(exclusive=True, group="game")
    async def play(self) -> None:
        """Start the relay and the opponent if needed, take (or take back) a seat, and run the session."""
        c = self.config
        try:
            url = c.relay or await self._start_relay()
            await crypto.warm_up()
            if c.against_computer and self._opponent is None:
                self._opponent, _ = await saves.resume_or_join(
                    url, c.room, saves.COMPUTER, relay_key=self.relay_key, deck=c.deck,
                    seed=c.seeds[1] if c.seeds else None,
                    autoplay=simple_strategy(c.opponent_seed), auto_rematch=True, think_time=c.think_time,
                    transcript_dir=transcripts_dir())
                self.run_worker(self._opponent.run(), group="opponent")
            self.session, resumed = await saves.resume_or_join(
                url, c.room, c.name, relay_key=self.relay_key, deck=c.deck, seed=c.seeds[0] if c.seeds else None,
                transcript_dir=transcripts_dir())
        except (RelayError, OSError) as error:
            self.switch_to_problem(str(error))
            return
        if resumed:
            self.notify(f"Back in room {c.room}: your game goes on where it stopped.", title="Resumed")
        self.session.subscribe(self._engine_changed)
        self._engine_changed()
        await self.session.run()

    async def _start_relay(self) -> str:
        """Our own relay, durable in the data directory so a crash here loses no game."""
        from relay.ledger import SQLiteLedger
        from relay.server import Relay

        store_name = "computer-relay.sqlite3" if self.config.against_computer else f"host-{self.config.port}.sqlite3"
        data_dir().mkdir(parents=True, exist_ok=True)
        path = data_dir() / store_name
        if self._store_lock is not None:  # a retry: let go of the last attempt's lock first
            self._store_lock.close()
        self._store_lock = hold_lock(path.with_suffix(".lock"))
        try:
            self._relay = Relay(SQLiteLedger(path))
        except sqlite3.DatabaseError as error:
            raise RelayError(f"the saved games in {path} are unreadable ({error}); "
                             "move that file away to start afresh") from None
        host = self.config.host or "127.0.0.1"
        try:
            self._relay_server = await self._relay.serve(host, self.config.port)
        except OSError as error:
            raise RelayError(f"cannot start a relay on {host}:{self.config.port}: "
                             f"{error.strerror or error}; pick another --port") from None
        port = self._relay_server.sockets[0].getsockname()[1]
        if self.config.host:
            invite = f"uv run discard-tui --relay ws://{shareable_address(host)}:{port} --room {self.config.room}"
            if isinstance(self.screen, ConnectingScreen):
                self.screen.invite = invite
                await self.screen.recompose()
        return f"ws://127.0.0.1:{port}"

    def switch_to_problem(self, problem: str) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.push_screen(ProblemScreen(problem))

    # -- the engine's view -----------------------------------------------------------

    def _engine_changed(self) -> None:
        if self.session is not None:
            self.view = self.session.view()

    def _tick(self) -> None:
        table = self.table
        if self.view is not None and table is not None and table.ready:
            table.query_one(StatusBar).link = link_text(self.view)

    @property
    def table(self) -> TableScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, TableScreen)), None)

    def watch_view(self, old: GameView | None, view: GameView | None) -> None:
        if view is None or not self.screen_stack:
            return
        if isinstance(self.screen, ConnectingScreen):
            if view.phase in (Phase.CONNECTING, Phase.WAITING) and view.game == 1:
                present = view.opponent_present
                self.screen.waiting(f"{view.opponent_name} is here; starting…" if present
                                    else "Waiting for an opponent…")
                return
            self.pop_screen()
        table = self.table
        assert table is not None
        table.update(view)
        if old is None or (old.moves, old.phase, old.game) != (view.moves, view.phase, view.game):
            table.notice("")  # a refusal stands until something happens
        self.refresh_bindings()
        if view.phase is Phase.VIOLATION and not isinstance(self.screen, ViolationScreen):
            self.push_screen(ViolationScreen(view.problem or "a violation", view.transcript))
        elif view.phase is Phase.FAILED and not isinstance(self.screen, ProblemScreen):
            self.switch_to_problem(view.problem or "the relay connection was lost")
        elif view.verdict is not None and view.phase in (Phase.OVER, Phase.WAITING) and self._over_shown < view.game:
            self._over_shown = view.game
            self.push_screen(GameOverScreen(view))
        if isinstance(self.screen, GameOverScreen):
            if view.phase in IN_GAME:
                self.pop_screen()
            else:
                self.screen.update(view)

    # -- intents -----------------------------------------------------------------------

    def can(self, action: str) -> bool | None:
        """For check_action: True if legal now, None (greyed out) if not."""
        session, view = self.session, self.view
        if session is None or view is None:
            return None
        if action == "rematch":
            return True if session.refusal("rematch") is None else None
        if not view.my_turn:
            return None
        if action == "discard":
            return True if any(view.playable) else None
        return True if session.refusal("draw") is None else None

    def discard(self, index: int) -> None:
        self._intent("discard", index)

    def draw(self) -> None:
        self._intent("draw")

    def rematch(self) -> None:
        self._intent("rematch")

    @work(group="intents")
    async def _intent(self, action: str, index: int | None = None) -> None:
        session = self.session
        if session is None:
            return
        if action == "discard":
            reason = await session.discard(index)  # type: ignore[arg-type]
        elif action == "draw":
            reason = await session.draw()
        else:
            reason = await session.rematch()
        table = self.table
        if table is not None:
            table.notice(reason or "")

    # -- app-wide keys ---------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    @work
    async def action_quit_game(self) -> None:
        """Quit; mid-game, ask first, and keep the seat so the same command comes back to it."""
        if self.view is not None and self.view.phase in IN_GAME:
            if not await self.push_screen_wait(ConfirmQuit()):
                return
        elif self.view is not None and self.view.phase in (Phase.OVER, Phase.VIOLATION):
            self.forget_room()
        self.exit()

    def forget_room(self) -> None:
        """The game in this room is over: drop the saved seats."""
        c = self.config
        saves.remove(self.relay_key, c.room, c.name)
        if c.against_computer:
            saves.remove(self.relay_key, c.room, saves.COMPUTER)
        self._room_over = True

    async def on_unmount(self) -> None:
        for session in (self.session, self._opponent):
            if session is not None:
                session.observers.clear()
                await session.ledger.close()
        if self._relay_server is not None:
            self._relay_server.close()
            await self._relay_server.wait_closed()  # the last leave events reach the store first
            if self._room_over:  # nobody comes back to a finished game: keep the store small
                self._relay.ledger.drop(self.config.room)  # type: ignore[union-attr]
            await self._relay.close()  # type: ignore[union-attr]
        if self._store_lock is not None:
            self._store_lock.close()


def hold_lock(path: Path) -> TextIO:
    """Hold an exclusive lock on ``path`` for as long as the returned file stays open.

    Two copies of the game must not run one embedded relay's store at once.
    """
    handle = path.open("a")
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise RelayError("another discard-tui is already running this game from "
                             f"{path.parent}; finish it there, or set DISCARD_DATA_DIR to play another") from None
    return handle


def shareable_address(host: str) -> str:
    """An address a friend can reach: a non-loopback address of this host, else its name."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    name = socket.gethostname()
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)}
    except OSError:
        addresses = set()
    reachable = sorted(a for a in addresses if not a.startswith("127."))
    return reachable[0] if reachable else name
