"""What every game's table screen has: the status bar, the safety number, the log, the messages it sends.

A game's side of the app is one :class:`GameUI`, registered in
discard_tui/config.py. Its screen (discard_tui/discard_screen.py, …)
subclasses :class:`TableScreen` over the game's view (a :class:`SeatView`):
it composes its own board in ``compose_board``, draws it in ``show_board``,
and says in ``hint`` and ``refusal`` what the player can do and why a key
does nothing. The screen never talks to the table and holds no rules: it posts
typed messages (:class:`MakeMove` with a move its view offered, built by the
game's ``view`` with the table loaded; :class:`Choose`, :class:`Rematch`,
:class:`LeaveTable`…), which the app hands to the seat, where the table checks them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import RichLog, Static

from .view import SeatView
from tabletop.words import SENT_BY_PROGRAM, ago, headline_words, wins_words
from .widgets import (MIN_SCREEN, NAME_CUTS, CardWidget, KeysFooter, Scale, StatusBar, cell, scale_for, show_text,
                      word_lines)

if TYPE_CHECKING:
    from tabletop.shell import Seat
    from tabletop.wire import Message as Move

LOG_AFTER = 0.05  # seconds the move log waits, so that a move's own frame goes out first
FOOTER_SETTLES = 0.25  # seconds without a change before the footer shows which keys act
NOTICE_STANDS = 5.0  # seconds a notice (a key refused) stands on the hint's line when nothing else happens


class SeatChanged(Message):
    """The seat took in a ledger event, changed its link, or finished an audit."""


class SeatRequest(Message):
    """What the player asks of their seat, which the table checks: ``ask`` makes the request and returns why the
    table refused it, or None (the app and the tests carry requests out the same way)."""

    async def ask(self, seat: Seat) -> str | None:
        raise NotImplementedError


class MakeMove(SeatRequest):
    """The player makes ``move``, one of the game's own moves that the screen's view offered; the table checks it."""

    def __init__(self, move: Move) -> None:
        super().__init__()
        self.move = move

    async def ask(self, seat: Seat) -> str | None:
        return await seat.move(self.move)


class Choose(SeatRequest):
    """The player commits to ``value`` in the simultaneous choice under way (a throw of rock-paper-scissors)."""

    def __init__(self, value: str) -> None:
        super().__init__()
        self.value = value

    async def ask(self, seat: Seat) -> str | None:
        return await seat.choose(self.value)


class Rematch(SeatRequest):
    """The player offers (or accepts) another game in the same room."""

    async def ask(self, seat: Seat) -> str | None:
        return await seat.rematch()


class LeaveTable(Message):
    """The player leaves the table; mid-game the seat is kept, and the same command comes back to it."""


class ToggleAutoplay(Message):
    """The player lets the game's computer strategy play their seat to the end of this game, or stops it."""


class SaveTranscript(Message):
    """The player wants the game's transcript: a download in a browser, its path copied in a terminal."""


class SaveHistory(Message):
    """The player wants the game's own record (Hold'em's hand history): a download in a browser, its path copied in a
    terminal."""


class PathCopied(Message):
    """The app copied ``path`` to the clipboard (OSC 52, which no terminal confirms): the dialog that shows the path
    says so beside it (and stops this); on any other screen it reaches the app, which says it in a notification."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class MoveLog(RichLog):
    """The moves so far, newest at the bottom; Tab focuses it to scroll by keyboard (the game's keys wait until
    Escape gives them back); it rewraps on resize."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave_log", "Back to the table")]

    def action_leave_log(self) -> None:
        self.screen.set_focus(None)

    lines_shown: tuple[str, ...] = ()
    lines_wanted: tuple[str, ...] = ()

    _timer: Timer | None = None

    def show(self, lines: tuple[str, ...]) -> None:
        """Show ``lines`` once the screen has drawn what else changed: a line written lays the screen out again
        (the log's height grows), and the board's frame (a card drawn) should not wait for that."""
        if lines != self.lines_wanted:
            self.lines_wanted = lines
            if self._timer is None:
                self._timer = self.set_timer(LOG_AFTER, self.write_new)

    def write_new(self) -> None:
        """Write the lines not written yet, now."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        lines = self.lines_wanted
        if lines[:len(self.lines_shown)] != self.lines_shown:  # not more of the same (a replay stepped back)
            self.lines_shown = ()
            self.clear()
        width = self.scrollable_content_region.width  # less the scrollbar that a longer log will show
        width -= 0 if self.show_vertical_scrollbar else self.styles.scrollbar_size_vertical
        for line in lines[len(self.lines_shown):]:  # broken between words, as Rich does, but a long word at a "-"
            self.write("\n".join(word_lines(line, width)) if width > 0 else line)  # (not sized: on_resize rewrites)
        self.lines_shown = lines

    def on_resize(self, event: events.Resize) -> None:
        self.lines_shown = ()
        self.clear()
        self.write_new()


V = TypeVar("V", bound=SeatView[Any])  # a game's screen view


@dataclass(frozen=True)
class GameUI(Generic[V]):
    """A game's side of the app: everything the app asks of it (registered in discard_tui/config.py).

    ``view`` is called with the seat's table loaded; it imports the game's own modules when called, so that
    registering a game costs the first frame nothing. The moves the screen can make are in the view it builds.
    """

    title: str  # the app's title while the game is played
    rules: str  # the help page's rules and cues, in markup (help_page adds the keys, the log's and the safety number)
    keys: str  # the help page's keys of a player (and the mouse's), in markup: a watcher's page has WATCHER_KEYS
    screen: type[TableScreen[V]]
    view: Callable[[Seat], V]  # what the screen shows of the seat now, with the moves it offers


class TableScreen(Screen[None], Generic[V]):
    """The status bar on top, the game's board on the left, the safety number and the log on the right."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "rematch", "Rematch"),
        Binding("x", "leave", "Leave"),
        Binding("L", "toggle_log", "Log", show=False),  # shift: h and l move the cursor, as in vi
        Binding("n", "refuse('rematch')", show=False),  # while a rematch is not possible: say why
        Binding("w", "watching", "Watching: read-only"),  # shown to a watcher only, whose keys make no move
    ]

    AUTO_FOCUS = ""  # nothing has the keys but the screen until the player Tabs into the log (or a game's
    # own widget takes them): a log focused by default would hold the game's keys
    view: V | None = None
    _footer_shows: tuple[tuple[str, str, bool], ...] = ()  # the footer's keys as last shown (footer_keys)
    _footer_timer: Timer | None = None
    _notice_since: float | None = None  # the clock of the first update that showed the notice (None: not yet)

    def __init__(self, leave_grace: float, resumes: bool = True, computers: bool = False) -> None:
        super().__init__()
        self.leave_grace, self.resumes = leave_grace, resumes  # resumes: the same command comes back to the game
        self.computers = computers  # every other player is this app's computer: nobody waits for me to read

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="table"):
            with Vertical(id="play"):
                yield from self.compose_board()
            with Vertical(id="side"):
                yield Static("", id="safety", markup=False)
                yield MoveLog(id="log", wrap=True, min_width=10, max_lines=500)
        yield Static("", id="too-small", markup=False)
        yield KeysFooter()

    def compose_board(self) -> ComposeResult:
        """The game's own widgets."""
        yield from ()

    def on_resize(self, event: events.Resize) -> None:
        """Larger cards when the terminal has room; a plain request when it is too small for the table."""
        width, height = event.size
        scale = scale_for(width, height)
        self.set_class(scale >= Scale.LARGE, "-large")
        self.set_class(scale >= Scale.HUGE, "-huge")
        for widget in self.query(CardWidget):
            widget.scale = scale
        self.set_class(height < MIN_SCREEN[1] + 2, "-short")  # no room to spare between the rows of cards
        small = width < MIN_SCREEN[0] or height < MIN_SCREEN[1]
        if small != self.has_class("-too-small"):
            self.set_class(small, "-too-small")
            self.refresh_bindings()  # no key acts on a table the player cannot see
        show_text(self.query_one("#too-small", Static),
                  f"Make the terminal at least {MIN_SCREEN[0]}×{MIN_SCREEN[1]} to see the table (it is {width}×{height})."
                  "\n\nq quits; the game waits for you.")

    def on_mount(self) -> None:
        if self.view is not None:
            self.update(self.view)

    def update(self, view: V, now: float | None = None, wall: float | None = None) -> None:
        """Show ``view``; before the widgets exist (a fast resume), keep it for when they do.

        The app's clock calls this every second, also while the app is closing and the widgets are gone.
        """
        old, self.view = self.view, view
        if not self.is_mounted or not self.query(StatusBar):
            return
        status = self.query_one(StatusBar)
        moment = now or time.monotonic()
        if status.notice and self._notice_since is None:
            self._notice_since = moment  # a notice counts its time from here: the tick after it, at most a second
        if old is None or (old.moves, old.phase, old.number) != (view.moves, view.phase, view.number) or \
                self._notice_since is not None and moment - self._notice_since >= NOTICE_STANDS:
            status.notice = ""  # a notice stands until something happens, or a few seconds on a table that waits
        status.match = " · ".join(part for part in (score_line(view), f"game {view.number}") if part)
        status.link = link_text(view, now, wall)
        status.shorter = tuple((" · ".join(part for part in (score_line(cut), f"game {view.number}") if part),
                                link_text(cut, now, wall), words, clock_text(cut, now, named_in(words, cut))[0])
                               for cut in (names_cut(view, cells) for cells in NAME_CUTS) for words in [self.headline(cut)])
        status.headline, status.my_turn, status.names = self.headline(view), view.my_turn, view.names
        status.clock, status.hurry = clock_text(view, now, named_in(status.headline, view))
        status.event = capitalized(view.last_move or "", view.names)
        hints = self.hints(view, now, wall)
        status.hint, status.shorter_hints = hints[0], hints[1:]
        groups = (view.safety or "").split()
        show_text(self.query_one("#safety", Static),
                  "Safety number\n" + (" ".join(groups[:3]) + "\n" + " ".join(groups[3:]) if groups else "…"))
        self.query_one(MoveLog).show(view.log)
        self.show_board(view)
        shown = self.footer_keys()
        if shown != self._footer_shows:  # the footer rebuilds itself on every refresh: only when it changes,
            self._footer_shows = shown  # and once the moves have settled (a rebuild takes a frame's time)
            if self._footer_timer is not None:
                self._footer_timer.stop()
            self._footer_timer = self.set_timer(FOOTER_SETTLES, self._refresh_footer)

    def footer_keys(self) -> tuple[tuple[str, str, bool], ...]:
        """What the footer shows now: each key shown, its word and whether it acts. All of it, not only the game's
        own actions: a key whose word depends on the moment (Hold'em's f mucks at showdown and folds in the
        betting) changes the footer while every action's state stays the same."""
        return tuple((key, active.binding.description, active.enabled) for key, active in self.active_bindings.items()
                     if active.binding.show)

    def _refresh_footer(self) -> None:
        if self._footer_timer is not None:
            self._footer_timer.stop()
            self._footer_timer = None
        self.refresh_bindings()

    def settle(self) -> None:
        """Show now what the last view asked for but holds back until the board's frame is out: the move log's
        new lines and the footer's keys (for tests and snapshots, which read the screen at once); a card that just
        changed is no longer marked (a snapshot shows the steady table)."""
        for log in self.query(MoveLog):
            log.write_new()
        for widget in self.query(CardWidget):
            widget.unflash()
        if self._footer_timer is not None:
            self._refresh_footer()

    def show_board(self, view: V) -> None:
        """Draw the game's own widgets from ``view``."""

    def headline(self, view: V) -> str:
        """Whose turn it is, or what is going on, in a few words ("Your turn", "bo's turn", "Shuffling")."""
        return headline(view)

    def hint(self, view: V) -> str:
        """What the player can do now, in one line ("" for nothing)."""
        return ""

    def hints(self, view: V, now: float | None = None, wall: float | None = None) -> tuple[str, ...]:
        """The hint's line and its shorter forms, in the order the status bar tries them: what is wrong past the
        grace period, else what the player can do, else what the game waits for (a program gone, a seat sitting
        out), else what is worth knowing."""
        if view.replay is not None:
            return (replaying(view),)
        if view.watcher:
            return (WATCHING,)
        if wrong := troubles(view, self.leave_grace, now, wall, self.resumes):
            return wrong
        if hint := self.hint(view):
            return (hint,)
        return program_gone(view, now) or (sitting_out(view) or (view.note if view.in_game else ""),)

    def refusal(self, view: V, action: str, index: int | None = None) -> str | None:
        """Why the game's ``action`` (on the ``index``-th item) cannot be done now; None if it can."""
        return "the game is not under way" if not view.playing else None

    def notice(self, text: str) -> None:
        """Say ``text`` on the hint's line (a key refused, and why), some ``NOTICE_STANDS`` seconds at most."""
        if self.is_mounted:
            self.query_one(StatusBar).notice = text
            self._notice_since = None

    def action_rematch(self) -> None:
        self.post_message(Rematch())

    def action_toggle_log(self) -> None:
        """Show or hide the safety number and the move log (the board takes their room)."""
        self.toggle_class("-no-log")
        if self.has_class("-no-log") and isinstance(self.focused, MoveLog):
            self.set_focus(None)

    def action_leave(self) -> None:
        self.post_message(LeaveTable())

    def action_watching(self) -> None:
        """What the footer's "Watching: read-only" means: said once, in other words than the hint it stands above."""
        self.notice(READ_ONLY)

    def action_refuse(self, action: str) -> None:
        if self.view is not None:
            self.notice(self.refused(self.view, action) or "")

    def refused(self, view: V, action: str, index: int | None = None) -> str | None:
        """Why ``action`` cannot be done now (the table checks again when it is sent); None if it can."""
        if view.watcher and view.replay is None:
            return READ_ONLY  # not the game's refusal ("it is bo's turn"), as if the watcher held a seat
        return view.rematch_refusal if action == "rematch" else self.refusal(view, action, index)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.has_class("-too-small"):
            return False  # the table is hidden: a key would act blind (q, the app's, still quits)
        if isinstance(self.focused, MoveLog) and (action in self.actions or action == "refuse"):
            return False  # the log has the keys (Enter must not discard while it scrolls); Tab gives them back
        view = self.view
        if (action == "watching") != (view is not None and view.watcher and view.replay is None):
            return False  # a watcher's footer says it is read-only; a player's does not, nor a replay's (its own keys)
        if view is not None and view.read_only:
            return action == "watching"  # no move, no rematch, nothing to refuse: the keys make no move
        if action == "refuse":
            return view is not None and self.refused(view, str(parameters[0])) is not None
        if action == "leave":
            return view is not None and can_leave(view, self.leave_grace)
        if action == "rematch" and view is not None and view.in_game:
            return False  # hidden during a game: the footer's room is the game's keys ('n' still says why not)
        if action in self.actions:  # a key that does not apply now is not shown (its refusal binding says why)
            if view is not None and self.refused(view, action) is None:
                return True
            shown = action in self.always_shown and (view is None or view.result is None and not view.stopped)
            return None if shown else False  # None: greyed out, and its refusal binding says why
        return True

    actions: ClassVar[tuple[str, ...]] = ("rematch",)  # actions hidden (and refused) when not possible
    always_shown: ClassVar[tuple[str, ...]] = ()  # of those, the ones greyed out instead until the game is over


WATCHING = "Watching: you see what all players see, no hidden card."  # fits 60 columns
READ_ONLY = "You hold no seat: no key of yours makes a move. q leaves."  # w, a watcher's; fits 60 columns


def replaying(view: SeatView) -> str:
    """A replay's hint: whose eyes it sees the game through."""
    if view.watcher:
        return view.unseen or "Replay: what all players saw, no hidden card."
    return f"Replay as {view.my_name} saw it: {view.my_name}'s own cards too."


WATCHER_KEYS = """\
[b]Keys[/b]   You watch: no key makes a move.
       w what watching is   q quit"""


def help_page(rules: str, keys: str, safety: str | None, seats: int, watcher: bool = False) -> Content:
    """A game's help (its rules and cues; a player's ``keys``, or a watcher's), the log's keys, and the safety number
    of the game on the table with how to use it. Its paragraphs are one line each, wrapped to the screen; the rows of
    keys and cues fit 52 columns (the help's width at 60x20), each on one row."""
    two = seats == 2
    use = "Compare it with a player's: if they differ, the relay shows you another game than theirs." if watcher \
        else f"Read it to {'your opponent' if two else 'the others'}: if yours differ, the relay has put you in " \
             "different games and plays each of you itself."
    return Content.from_markup(rules + "\n\n" + (WATCHER_KEYS if watcher else keys) + f"""
[b]Log[/b]    Tab scrolls it (Esc back)   L hides or shows

[b]Safety number[/b]  $safety
{use}""", safety=safety or ("(once both players have said hello)" if two else "(once every player has said hello)"))


# -- what the status bar says: pure functions of a SeatView -----------------------------------------------


def capitalized(text: str, names: Sequence[str] = ()) -> str:
    """``text`` as a sentence's start: its first letter in capitals, unless it starts with one of ``names``,
    which is shown exactly as its player chose it ("cy drew a card")."""
    if any(name and text.startswith(name) for name in names):
        return text
    return text[:1].upper() + text[1:]


def names_cut(view: V, cells: int) -> V:
    """``view`` with every name longer than ``cells`` columns cut to them with an ellipsis: for a line where the
    score, the game's number and the link must fit beside the names."""
    return dataclasses.replace(view, names=tuple(cell(name, cells).plain for name in view.names))


def score_line(view: SeatView) -> str:
    """ "ana 2 – 1 bo" between two; around a bigger table the players who have won a game, "ana: 2 · cy: 1 games
    won" (a name may end in a number, "Computer 2", and a game's own points, "pts", are shown too), or "" before
    anyone has: five names would not fit a 60-column bar."""
    wins = view.wins or (0,) * len(view.names)
    if len(view.names) == 2:
        first = max(view.me, 0)  # a watcher (no seat) reads seat 0 first
        other = 1 - first
        return f"{view.names[first]} {wins[first]} – {wins[other]} {view.names[other]}"
    return wins_words(view.names, wins)


def absence(view: SeatView, now: float | None = None) -> str | None:
    """ "bo left 2 min ago" while another player is away from the room (``now``: Unix time)."""
    left = view.opponent_left_at
    if left is None or view.opponent_present:
        return None
    return f"{view.absent_name} left {ago((now or time.time()) - left)}"


def link_text(view: SeatView, now: float | None = None, wall: float | None = None) -> str:
    """The right end of the status bar: the relay link, the other players' presence, a long wait."""
    from tabletop.ledger import Link  # loaded with the table, which made this view

    now = now or time.monotonic()
    if view.replay is not None:
        return view.replay  # no relay: where the replay is
    if view.link is Link.RECONNECTING:
        since = now - view.link_since
        return "Reconnecting…" + (f" ({int(since)} s)" if since >= 5 else "")
    if view.link is not Link.CONNECTED:
        return view.link.value
    watching = f" · {view.watching} watching" if view.watching else ""
    if (gone := absence(view, wall)) is not None:
        return gone + watching
    if view.waiting_since is not None and view.in_game and not view.watcher:  # a watcher waits for nobody
        waited = now - view.waiting_since
        if waited >= 5:
            return f"waiting for {view.awaited_name} for {int(waited)} s{watching}"
    return f"connected{watching}"


def relay_gone_for(view: SeatView, now: float | None = None) -> float | None:
    """Seconds the relay has not answered, or None while it does."""
    from tabletop.ledger import Link

    return (now or time.monotonic()) - view.link_since if view.link is Link.RECONNECTING else None


def opponent_gone_for(view: SeatView, wall: float | None = None) -> float | None:
    """Seconds another player has been away mid-game, or None."""
    left = view.opponent_left_at
    return (wall or time.time()) - left if left is not None and view.in_game else None


def can_leave(view: SeatView, grace: float, now: float | None = None, wall: float | None = None) -> bool:
    """Offer to leave once the relay or, mid-game, another player has been gone ``grace`` seconds."""
    return any(gone is not None and gone >= grace for gone in (relay_gone_for(view, now), opponent_gone_for(view, wall)))


def troubles(view: SeatView, grace: float, now: float | None = None, wall: float | None = None,
             resumes: bool = True) -> tuple[str, ...]:
    """What is wrong, past the grace period, and the way out (it outranks the hint), and its shorter forms in the
    order the status bar tries them (the first that fits; () when nothing is wrong): the names cut, then without
    the way back; while a player who left sits out, how long the table waits on them for each step too. (Past the
    grace period it said only "bo left 1 min ago: x leaves; …", where "bo's time ran out: 5 s for each step owed
    until bo acts" had said why the clock beside it starts again from 0:05.)"""
    if not can_leave(view, grace, now, wall):
        return ()
    leave = "x leaves; the same command comes back to this game." if resumes else "x leaves."
    gone = relay_gone_for(view, now)
    if gone is not None and gone >= grace:  # the long name of a host cut the way out off the line
        silent = f"The relay has not answered for {int(gone)} s"
        cuts = (view, *(names_cut(view, cells) for cells in NAME_CUTS))
        hosts = [f"{silent}; if {cut.opponent_name} hosted it, they have quit. {ways}"
                 for ways in (leave, "x leaves.") for cut in cuts]
        return tuple(dict.fromkeys([*hosts, f"{silent}. x leaves."]))
    rule, out = sitting_out(view), out_seats(view)
    forms = [f"{absence(view, wall)}; {rule}. {leave}"] if rule else []
    for ways in (leave, "x leaves."):
        for cut in (view, *(names_cut(view, cells) for cells in NAME_CUTS)):
            left = absence(cut, wall)
            if not out:
                forms.append(f"{left}: {ways}")
                continue
            assert cut.clock is not None  # "bo left 1 min ago and sits out, …", or "bo left …; cy sits out, …"
            who = " and ".join(cut.names[seat] for seat in out)
            sits = f"sit{'s' * (len(out) == 1)} out, {cut.clock.clock.allowance(True) // 1000} s a step"
            forms.append(f"{left} and {sits}: {ways}" if cut.absent_name == who else f"{left}; {who} {sits}: {ways}")
    return tuple(dict.fromkeys(forms))


HURRY = 10_000  # ms left (move and bank together) under which my own clock is shown in red


def named_in(headline: str, view: SeatView) -> frozenset[int]:
    """The seat ``headline`` names alone: mine in "Your turn" ("Your throw"), bo's in "bo's turn" or "Waiting for bo";
    the clock beside it need not name it again."""
    named = {s for s, name in enumerate(view.names) if headline in (f"{name}'s turn", f"Waiting for {name}")}
    return frozenset(named | ({view.me} if headline.startswith("Your ") and view.me >= 0 else set()))


def clock_text(view: SeatView, now: float | None = None, named: Collection[int] = ()) -> tuple[str, bool]:
    """The clock the player needs, by the relay's time (``now``: time.monotonic()): mine while the game waits on me
    ("you 0:04 · bank 0:00"), else that of each seat it waits on ("bo 0:23 · bank 1:00", "cy sitting out 0:05"),
    without the name when it waits on one seat only and that is ``named`` by the headline beside it ("bo's turn ⏱
    0:23 · bank 1:00"); and whether mine is nearly out. ("", False) when no clock runs."""
    clock, relay = view.clock, relay_ms(view, now)
    if clock is None or relay is None or not view.in_game:  # a shuffle step or a key may be on it
        return "", False
    seats = [wait.seat for wait in clock.waits]
    parts, hurry = [], False
    shown = [view.me] if view.me in seats else seats
    for seat in shown:
        left = clock.left(seat, relay)
        assert left is not None
        move, bank = left
        who = "" if shown == [seat] and seat in named else "you " if seat == view.me else f"{view.names[seat]} "
        step = clock.step(seat)  # no bank while sitting out, a wait for each step owed: which, so that a new one
        parts.append(f"{who}sitting out: step {step}, {minutes(move)}" if step is not None  # reads as such
                     else f"{who}{minutes(move)} · bank {minutes(bank)}")
        hurry = seat == view.me and move + bank < HURRY
    return " · ".join(parts), hurry


def sitting_out(view: SeatView) -> str:
    """Why the clock of a seat that sits out starts again: "bo's time ran out: 5 s for each step owed until bo acts"
    ("" when the clock waits on no seat sitting out, or on mine)."""
    out = out_seats(view)
    if not out:
        return ""
    assert view.clock is not None
    allowance = view.clock.clock.allowance(True)
    who, step = " and ".join(view.names[seat] for seat in out), allowance // 1000
    shuffle = max(view.clock.free(seat) for seat in out)  # a shuffle step has more (its clock shows it: 0:30)
    also = f" ({shuffle // 1000} s for a shuffle step)" if shuffle > allowance else ""
    return f"{who}'s time ran out: {step} s for each step owed{also} until {who} acts" if len(out) == 1 \
        else f"{who} sit out: {step} s a step each{also} until they act"


def program_gone(view: SeatView, now: float | None = None) -> tuple[str, ...]:
    """While the game waits on what a program sends by itself (a key, a shuffle step) from a player whose program
    has left: what it waits for and that the clock runs for it, "waiting for bo's key: its program left; the clock
    runs out in 1:15" (the move's time and the bank), then shorter forms, the names cut, then in fewer
    words; () when it waits on no program that left. (Until the leave grace passed, only the top bar's "bo left
    just now" said anything.)"""
    if not view.in_game or view.watcher:
        return ()
    owed = [a for a in view.owed if a.what in SENT_BY_PROGRAM and not view.present[a.seat]]
    if not owed:
        return ()
    seats = list(dict.fromkeys(a.seat for a in owed))
    runs = clock_runs(view, seats, now)
    left = "its program left" if len(seats) == 1 else "their programs left"
    cuts = [view, *(names_cut(view, cells) for cells in NAME_CUTS)]
    what = [" and ".join(dict.fromkeys(f"{cut.names[a.seat]}'s {SENT_BY_PROGRAM[a.what]}" for a in owed))
            for cut in cuts]
    forms = [f"waiting for {each}: {left}" + (f"; the clock runs out in {runs}" if runs else "") for each in what]
    forms += [f"waiting for {each}" + (f", {runs} left" if runs else "") for each in what]
    return tuple(dict.fromkeys(forms))


def clock_runs(view: SeatView, seats: Sequence[int], now: float | None = None) -> str:
    """The time left, move and bank, of the first of ``seats`` whose clock runs out ("0:25"); "" with no clock."""
    clock, relay = view.clock, relay_ms(view, now)
    if clock is None or relay is None:
        return ""
    left = [sum(each) for seat in seats if (each := clock.left(seat, relay)) is not None]
    return minutes(min(left)) if left else ""


def relay_ms(view: SeatView, now: float | None = None) -> int | None:
    """The relay's clock now (ms), the clocks' unit, from this program's (``now``: time.monotonic()); None before
    the relay's time is known."""
    return None if view.relay_offset is None else round(((now or time.monotonic()) + view.relay_offset) * 1000)


def out_seats(view: SeatView) -> list[int]:
    """The seats sitting out that the clock waits on, unless it waits on mine too: [] when none."""
    clock = view.clock
    if clock is None or not view.in_game or view.me in {wait.seat for wait in clock.waits}:
        return []
    return [wait.seat for wait in clock.waits if clock.step(wait.seat) is not None]


def minutes(ms: int) -> str:
    """ "1:05": minutes and seconds, rounded up (a clock at 0:00 has run out)."""
    seconds = -(-ms // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def headline(view: SeatView, to_move: int | None = None) -> str:
    """The status bar's first words (tabletop/words.py); ``to_move``: the seat the game waits on, if the game's
    board does not call it ``to_move``."""
    from tabletop.ledger import Link

    to_move = getattr(view.board, "to_move", None) if to_move is None else to_move
    return headline_words(view.phase, view.names, view.me, my_turn=view.my_turn,
                          to_move=to_move, result=view.result, number=view.number,
                          connecting=view.link is Link.CONNECTING, failed=view.failure is not None,
                          awaited=view.awaited, offered=view.rematch_offered)
