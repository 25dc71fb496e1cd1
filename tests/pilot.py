"""The one way screen tests wait on a Textual app run by Pilot, read what it shows, and show a screen alone.

A screen alone (:class:`TableHarness`) shows a view built by hand (:func:`seat_view`), or what a seat of a game
played on tests/room.py's in-memory ledger sees (:func:`offline_room`, :func:`view_of`): the same tables, rules
and crypto as the app's, built by the app's own view functions, without a relay, a process pool or Pilot's
waits for each move.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import on
from textual.app import App
from textual.pilot import Pilot

import discard_tui
from discard_tui.app import DiscardApp
from discard_tui.config import SCREENS, PlayConfig
from discard_tui.table_screen import Choose, MakeMove, MoveLog, SeatRequest, TableScreen
from discard_tui.view import SeatView
from tabletop.values import Phase
from room import Room

if TYPE_CHECKING:
    from tabletop.shell import Seat


async def until(pilot: Pilot, condition: Callable[[], object], what: str = "the expected state",
                limit: int = 3000) -> None:
    """Let the app run until ``condition()`` holds (bounded by message rounds, not by the clock), then let
    what that state pushed (a screen, say) compose, and a table screen show all of it at once (its log and
    footer otherwise follow the board by a moment: TableScreen.settle)."""
    for _ in range(limit):
        if condition():
            await pilot.pause()
            settle_tables(pilot.app)
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


async def until_busy(pilot: Pilot, condition: Callable[[], object], what: str = "the expected state",
                     limit: int = 3000) -> None:
    """:func:`until` for an app that is never idle (auto-play): Pilot's pauses wait up to a second each for an idle
    app, and auto-play went on meanwhile (some 185 turns past the state waited for). This yields to the app between
    checks (bounded by rounds) and shows the table screen whole, as :func:`until` does."""
    for _ in range(limit):
        if condition():
            settle_tables(pilot.app)
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


def settle_tables(app: App) -> None:
    """Have each table screen on ``app``'s stack show all of its last view now (:meth:`TableScreen.settle`)."""
    for screen in app.screen_stack:
        if isinstance(screen, TableScreen):
            screen.settle()


def footer_cut(screen) -> list[str]:
    """The keys of ``screen``'s footer that do not show whole (past its right edge): [] when every word is in sight."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    edge = screen.query_one(Footer).region.right
    return [f"{key.key_display} {key.description}" for key in screen.query(FooterKey) if key.region.right > edge]


def screen_rows(widget) -> list[str]:
    """The rows ``widget`` shows on the screen, as drawn (a line Rich wrapped again shows here as two)."""
    from textual.geometry import Region

    return [strip.text for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]


def text_of(screen, selector: str) -> str:
    """The plain text a widget of ``screen`` renders."""
    return screen.query_one(selector).render().plain


class TableHarness(App[None]):
    """One table screen showing one view, with the app's styles, title and keys in the footer: a screen tested
    without the app's relay, seats and computers.

    What the screen asks of the game (its :class:`MakeMove`, :class:`Choose` and :class:`Rematch` messages, which
    the real app hands to the seat) is kept in ``intents``: nothing acts on it here.
    """

    CSS_PATH = str(Path(discard_tui.__file__).parent / "app.tcss")
    BINDINGS = DiscardApp.BINDINGS  # shown in the footer as the app shows them (their actions are the app's)

    def __init__(self, screen: TableScreen, view: SeatView, title: str = "discard") -> None:
        super().__init__()
        self.table, self.view = screen, view
        self.title = title
        self.intents: list[SeatRequest] = []
        self.room: Room | None = None  # the game it shows, if any (of)

    @classmethod
    def of(cls, room: Room, seat: int = -1) -> TableHarness:
        """The table screen of ``room``'s game, showing what ``seat`` (by default the last: mine) sees now."""
        ui = SCREENS[room.game].ui()
        harness = cls(ui.screen(PlayConfig.leave_grace), view_of(room, seat), title=ui.title)
        harness.room = room
        return harness

    async def on_mount(self) -> None:
        await self.push_screen(self.table)  # mounted: a view given to a screen still mounting waits for the next
        self.table.update(self.view)

    @on(SeatRequest)
    def record(self, intent: SeatRequest) -> None:
        self.intents.append(intent)

    def asked(self) -> list[str]:
        """What the screen asked for so far, in short: each move's type ("draw"), each choice, "rematch"."""
        return [asked(intent) for intent in self.intents]

    def show(self, **changes: Any) -> None:
        """Show the view ``changes`` away from the one shown, as the engine's next change would."""
        assert self.table.view is not None
        self.table.update(dataclasses.replace(self.table.view, **changes))


def seat_view(kind: type[SeatView] = SeatView, **fields: Any) -> Any:
    """A view of seat 0 of two ("ana", "bo"), both present, in play: ``fields`` change any of it."""
    from tabletop.ledger import Link

    base: dict[str, Any] = dict(phase=Phase.PLAYING, number=1, me=0, names=("ana", "bo"), present=(True, True),
                                my_turn=False, log=(), progress=None, link=Link.CONNECTED, result=None, verdict=None,
                                problem=None, transcript=None, rematch_offered=False, waiting_since=None, moves=0)
    return kind(**{**base, **fields})


def offline_room(config: PlayConfig) -> Room:
    """The room the app sets up against its computers for ``config``, on tests/room.py's in-memory ledger instead
    of an embedded relay: its name, game, options and group; the computers first (they sit down first in the app),
    named and seeded as the app names and seeds them, each with the game's computer strategy; my seat last, with
    my seed, moving only when the test says (``room.strategies``)."""
    from discard_tui.saves import computer_name
    from games import GAMES
    from tabletop.groups import GROUPS

    assert config.seeds is not None, "fixed seeds: the same game every run"
    game, computers = GAMES[config.game], config.computers
    room = Room(game=config.game, seats=config.seats, options=dict(config.options), group=GROUPS[config.group],
                name=config.room, seeds=[*config.seeds[1:], config.seeds[0]],
                names=(*(computer_name(k) for k in range(computers)), config.name))
    room.strategies = {k: game.computer(None if config.opponent_seed is None else config.opponent_seed + k)
                       for k in range(computers)}
    return room


class RoomLedger:
    """A seat's ledger on a Room of tests/room.py, in the relay's place: always connected, and a post lands at once
    (the room feeds every table; a seat here never reads events)."""

    token = None

    def __init__(self, room: Room, seat: int) -> None:
        from tabletop.ledger import Link

        self.room, self.seat, self.link = room, seat, Link.CONNECTED

    async def post(self, body: dict) -> bool:
        self.room.append(self.seat, "post", body)
        return True

    async def close(self) -> None:
        pass


def offline_seat(room: Room, seat: int = -1) -> Seat:
    """The app's Seat at ``room``'s table ``seat`` (the last: mine), posting to the room: caught up, nothing on its
    way."""
    from tabletop.shell import Ledger, Seat

    table = room.tables[seat]
    return Seat(cast(Ledger, RoomLedger(room, table.me)), table, replaying=False, caught_up=True)


def watcher_of(room: Room) -> Any:
    """A watcher's table of ``room`` (a table of no seat, as a relay 1.3 watcher's join gives one): the ledger so
    far folded in, and every later event fed to it by the room."""
    from tabletop import transcript

    table = transcript.observer(room.name, room.catalog)
    for event in room.ledger:
        table.apply(event)
        transcript.check_proofs(table)
    room.watchers.append(table)
    return table


def watcher_view(room: Room, table: Any) -> Any:
    """What the app's screen for ``room``'s game shows the watcher ``table`` (:func:`watcher_of`) now."""
    from tabletop.shell import Ledger, Seat

    seat = Seat(cast(Ledger, RoomLedger(room, table.me)), table, replaying=False, caught_up=True)
    return SCREENS[room.game].ui().view(seat)


def view_of(room: Room, seat: int = -1) -> Any:
    """What the app's screen for ``room``'s game shows of ``seat`` now, built by that game's own view function."""
    return SCREENS[room.game].ui().view(offline_seat(room, seat))


def asked(intent: SeatRequest) -> str:
    """What a screen's message asks for, in short: the move's type ("draw"), the choice ("rock"), "rematch"."""
    if isinstance(intent, MakeMove):
        return intent.move.type
    return intent.value if isinstance(intent, Choose) else "rematch"


async def carry_out(room: Room, intent: SeatRequest, seat: int = -1) -> str | None:
    """Carry out what a screen asked for as the app does (on the seat), posted to ``room``; then let the others post
    what they owe (the keys that show it, the computers' moves). The reason it was refused, or None."""
    reason = await intent.ask(offline_seat(room, seat))
    room.run()
    return reason


async def play_key(pilot: Pilot, key: str) -> str:
    """Press ``key`` on the table of a room (TableHarness.of): make the move it asks for as the app would, and show
    the table after it and the others' answers. What the key asked for, in short (:func:`asked`)."""
    app = pilot.app
    assert isinstance(app, TableHarness) and app.room is not None
    before = len(app.intents)
    await pilot.press(key)
    assert len(app.intents) == before + 1, f"{key} asked for nothing"
    assert await carry_out(app.room, app.intents[-1]) is None
    app.table.update(view_of(app.room))
    await pilot.pause()
    return asked(app.intents[-1])


async def settled(pilot: Pilot) -> None:
    """A table screen has written its whole log, scrolled it to the last line and shown its keys (for snapshots)."""
    app = pilot.app
    assert isinstance(app, TableHarness)
    log, table = app.table.query_one(MoveLog), app.table
    await until(pilot, lambda: table.view is not None and log.lines_shown == table.view.log, "the whole log")
    await until(pilot, lambda: log.scroll_y == log.max_scroll_y, "the log at its last line")
    await pilot.wait_for_scheduled_animations()
