"""The lobby screen: the rooms waiting for players on a relay, to join one or create one that is listed there.

Guarantees: the rooms come from strangers through the relay, so every text of theirs (room names, player names,
options) is shown literally, never read as markup; a page is read by a worker, never on the screen's own time,
and a relay that cannot be read costs one line on the screen, which then tries again at the next refresh. The
screen dismisses itself with the table to open (a listed room to join, a new public room, or one of the player's
own unfinished games on this relay, listed first: Enter goes back to it; or a game under way to watch, listed
last, relay 1.3), or None (Escape).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Input, Label, Select

from tabletop.about import OneOf
from tabletop.words import duration

from . import saves
from .config import GROUPS, SCREENS, PlayConfig, fresh_room, room_problem
from .lobby import PAGE, LobbyError, LobbyLink, Page, Waiting, joining, watching
from .widgets import HelpScreen, KeysFooter, cell, choosing
from .your_games import YourGames

Fetch = Callable[[str | None, int], Awaitable[Page]]  # a page after a cursor (None: the first), at most n rooms

REFRESH = 5.0  # seconds between two readings of the page shown
FIXED = 7 + 8 + 12 + 8  # the players, waiting and game columns, and the cells' padding

HELP = """[b]The lobby[/b]: rooms on this relay waiting for players.

Your own unfinished games on this relay come first (a game you left, or whose window closed): the game, the other players, the score or the game under way, and when you last played it. Enter goes back to the highlighted one; Tab moves between your games and the rooms.

Each row is a room somebody created as public: its game, the seats taken and how many it has, who sits there, and how long it has waited. A room leaves the list once it is full (its game starts) or empty.

Below them, the games under way: public rooms whose every seat is taken. Enter watches one, read-only: you see what every player is shown (the board, the discards, the cards turned), never a hidden card, and the players see how many watch.

[b]Enter[/b]  go back to your game, join the highlighted
       room, or watch the game under way
[b]Tab[/b]    move between your games, the rooms and the
       games under way
[b]c[/b]      create a room, listed here
[b]n p[/b]    next page, previous page
[b]r[/b]      read the list again now
[b]Esc[/b]    leave the lobby

The list is read again every few seconds. Names and games are typed by other players: discard shows them as they are."""


def detail_line(room: Waiting) -> str:
    """What the highlighted room says of itself beyond the row: its name and options."""
    shown = [f"{key}: {value}" for key, value in room.options.items()]
    where = f"Room {room.room}" + (f" · {' · '.join(shown)}" if shown else "")
    return where if room.known else f"{where} · this discard cannot play {room.game or 'an unnamed game'!r}"


class LobbyScreen(Screen[PlayConfig | None]):
    """The rooms waiting on ``config.relay``, a page at a time; Enter joins one, ``c`` creates one."""

    CSS_PATH = "lobby.tcss"
    BINDINGS = [  # Enter before the tables' own (which only say "selected"); r and Esc are in the help
        Binding("enter", "go_back", "Return", priority=True),  # on my own games
        Binding("enter", "join", "Join", priority=True),  # on the rooms waiting
        Binding("enter", "watch", "Watch", priority=True),  # on the games under way
        Binding("c", "create", "Create"),
        Binding("n", "next_page", "Next"),
        Binding("p", "previous_page", "Previous"),
        Binding("r", "reload", "Refresh", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "leave", "Leave", show=False),
    ]

    def __init__(self, config: PlayConfig, fetch: Fetch | None = None, refresh: float | None = REFRESH,
                 saved: Sequence[saves.SavedSeat] = (), games: Path | None = None, under_way: Fetch | None = None,
                 tried: PlayConfig | None = None) -> None:
        """``saved``: the player's unfinished games on this relay, newest first (saves.returnable), whose seat
        files are in ``games``; ``fetch`` and ``under_way`` read pages of the rooms waiting and under way (by
        default from the relay; given ``fetch`` and no ``under_way``, no game under way is listed); ``tried``: the
        table chosen here that could not be opened, back from its problem: a room created here, c offers it again."""
        super().__init__()
        self.config = config
        self.tried = tried if tried is not None and tried.public else None
        self.saved, self.games = list(saved), games
        self.link = LobbyLink(config.relay or "") if fetch is None else None
        self.fetch: Fetch = fetch or self.link.page  # type: ignore[union-attr]
        self.fetch_under_way = under_way or (self.link.under_way if self.link is not None else None)
        self.going: Page | None = None  # the games under way shown (their first page)
        self.refresh_every = refresh
        self.cursors: list[str | None] = [None]  # the cursor of each page up to the one shown
        self.page: Page | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby"):
            yield Label(f"Rooms waiting on {self.config.relay} · you play as {self.config.name}", id="where",
                        markup=False)
            if self.saved:
                yield YourGames(self.saved, id="yours")
                yield Label("", id="yours-detail", markup=False)
            yield DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
            yield Label("", id="detail", markup=False)
            yield Label("Games under way: Enter watches one, read-only", id="under-way-title", markup=False)
            yield DataTable(id="under-way", cursor_type="row", zebra_stripes=True)
            yield Label("Reading the lobby…", id="status", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        for label, key in (("Game", "game"), ("Players", "players"), ("Names", "names"), ("Waiting", "waited")):
            table.add_column(label, key=key)
        for label, key in (("Game", "game"), ("Players", "players"), ("Names", "names"), ("Watching", "watching")):
            self.query_one("#under-way", DataTable).add_column(label, key=key)
        self.show_under_way(Page((), None))
        table.focus()
        if self.saved:
            self.show_saved()
            self.query_one(YourGames).focus()
        self.load()
        if self.refresh_every:
            self.set_interval(self.refresh_every, self.load)

    # -- reading ----------------------------------------------------------------------------------

    @work(exclusive=True, group="lobby")
    async def load(self) -> None:
        """Read the page shown (the first at the start) and show it; a relay that fails costs one line."""
        try:
            page = await self.fetch(self.cursors[-1], PAGE)
        except LobbyError as error:
            self.say(f"Cannot read the lobby: {error}")
            return
        self.show(page)
        if self.fetch_under_way is not None:
            try:
                going = await self.fetch_under_way(None, PAGE)
            except LobbyError:  # a relay before 1.3 lists no game under way: nothing to watch there
                going = Page((), None)
            self.show_under_way(going)

    def show_under_way(self, page: Page) -> None:
        """The games under way (their first page), to watch, but for my own (listed among my games, where Enter
        returns to it); the section takes no room while there is none."""
        keep, table = self.watched, self.query_one("#under-way", DataTable)
        self.going = page = self.not_mine(page)
        self.fill(table, page, keep, lambda room: f"{room.watching or 0}")
        for widget in (table, self.query_one("#under-way-title")):
            widget.display = bool(page.rooms)
        self.focus_something()
        self.refresh_bindings()

    def focus_something(self) -> None:
        """Enter acts where there is something: with no room waiting, the games under way take the focus from the
        empty list of rooms (Enter watches, as the screen says), and give it back when none is under way any more."""
        rooms, going = self.query_one("#rooms", DataTable), self.query_one("#under-way", DataTable)
        if self.focused is rooms and not rooms.row_count and going.row_count:
            going.focus()
        elif self.focused is going and not going.row_count:
            rooms.focus()

    def mounted_table(self, name: str) -> DataTable[object] | None:
        """The list ``name``, or None before it is mounted or once it is gone: the footer asks check_action (which
        asks for the room highlighted) after a refresh, which may come as the screen is removed."""
        return next(iter(self.query(f"#{name}").results(DataTable)), None)

    @property
    def watched(self) -> Waiting | None:
        """The highlighted game under way, if any."""
        table = self.mounted_table("under-way")
        if table is None or self.going is None or not self.going.rooms or table.row_count == 0:
            return None
        return self.going.rooms[min(table.cursor_row, len(self.going.rooms) - 1)]

    @property
    def on_under_way(self) -> bool:
        """Whether Enter watches (the games under way have the focus)."""
        return self.focused is not None and self.focused.id == "under-way"

    def fill(self, table: DataTable, page: Page, keep: Waiting | None, last: Callable[[Waiting], str]) -> None:
        """Put ``page``'s rooms in ``table`` (game, seats taken, names, and ``last``'s column), the room ``keep``
        still highlighted if it is there."""
        table.clear()
        names_width = max(10, self.size.width - FIXED)
        for room in page.rooms:
            table.add_row(cell(room.game or "?", 12), f"{len(room.names)}/{room.seats}",
                          cell(", ".join(room.names), names_width), last(room), key=room.room)
        rooms = [room.room for room in page.rooms]
        if keep is not None and keep.room in rooms:
            table.move_cursor(row=rooms.index(keep.room))

    def not_mine(self, page: Page) -> Page:
        """``page`` without the rooms of my own unfinished games: those are mine to go back to, not to join or
        watch."""
        mine = {seat.room for seat in self.saved}
        return dataclasses.replace(page, rooms=tuple(room for room in page.rooms if room.room not in mine))

    def show(self, page: Page) -> None:
        """Show ``page`` in the table (but for my own games' rooms), the highlighted room still highlighted if it is
        still there, wherever it is now."""
        keep = self.highlighted
        self.page = page = self.not_mine(page)
        self.fill(self.query_one("#rooms", DataTable), page, keep, lambda room: duration(room.waited))
        number = len(self.cursors)
        if page.rooms:
            self.say(f"{len(page.rooms)} room{'s' * (len(page.rooms) != 1)} waiting (page {number}). "
                     "Enter joins, c creates one.")
        elif number > 1:
            self.say(f"No more rooms (page {number}). p goes back, c creates one.")
        else:
            self.say("No room is waiting on this relay: c creates one.")  # one line at 60 columns
        self.show_detail()
        self.focus_something()
        self.refresh_bindings()

    def show_saved(self, now: float | None = None) -> None:
        """My unfinished games here: the game, the other players, the score or the game under way, when last
        played (names are shown literally)."""
        self.query_one(YourGames).fill(min(self.size.width, 110), now)
        self.show_own()

    @on(DataTable.RowHighlighted, "#yours")
    def show_own(self) -> None:
        seat = self.own
        if seat is not None:
            who = f" as {seat.name}" if seat.name != self.config.name else ""
            self.query_one("#yours-detail", Label).update(
                f"Your game in room {seat.room}{who} is waiting: Enter returns to it.")

    @property
    def own(self) -> saves.SavedSeat | None:
        """The highlighted game of mine, if any."""
        return self.query_one(YourGames).highlighted if self.saved else None

    @property
    def on_own(self) -> bool:
        """Whether Enter goes back to a game of mine (my games have the focus) rather than joining a room."""
        return bool(self.saved) and self.focused is not None and self.focused.id == "yours"

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_resize(self) -> None:
        if self.page is not None:
            self.show(self.page)
        if self.going is not None:
            self.show_under_way(self.going)
        if self.saved:
            self.show_saved()

    def say(self, text: str) -> None:
        self.query_one("#status", Label).update(text)

    @property
    def highlighted(self) -> Waiting | None:
        """The waiting room the cursor is on, if any."""
        table = self.mounted_table("rooms")
        if table is None or self.page is None or not self.page.rooms or table.row_count == 0:
            return None
        return self.page.rooms[min(table.cursor_row, len(self.page.rooms) - 1)]

    @on(DataTable.RowHighlighted)
    def show_detail(self) -> None:
        room = self.highlighted
        self.query_one("#detail", Label).update(detail_line(room) if room is not None else "")

    # -- keys ---------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing now are not offered: False leaves them out of the footer (None would dim them)."""
        if action == "go_back":
            return self.on_own
        if action == "join":
            return self.highlighted is not None and not self.on_own and not self.on_under_way
        if action == "watch":
            return self.watched is not None and self.on_under_way
        if action == "next_page":
            return self.page is not None and self.page.next is not None
        if action == "previous_page":
            return len(self.cursors) > 1
        return True

    def action_go_back(self) -> None:
        seat = self.own
        if seat is not None and self.games is not None:
            self.dismiss(saves.back_to(self.config, self.games, seat))

    @on(DataTable.RowSelected, "#rooms")
    def action_join(self) -> None:
        room = self.highlighted
        if room is None:
            return
        if not room.known:
            self.say(f"This discard cannot play {room.game or 'an unnamed game'!r}: pick another room.")
            return
        self.dismiss(joining(self.config, room))

    @on(DataTable.RowSelected, "#under-way")
    def action_watch(self) -> None:
        room = self.watched
        if room is None:
            return
        if not room.known:
            self.say(f"This discard cannot show {room.game or 'an unnamed game'!r}: pick another game to watch.")
            return
        self.dismiss(watching(self.config, room))

    def action_next_page(self) -> None:
        if self.page is not None and self.page.next:
            self.cursors.append(self.page.next)
            self.query_one("#rooms", DataTable).move_cursor(row=0)
            self.load()

    def action_previous_page(self) -> None:
        if len(self.cursors) > 1:
            self.cursors.pop()
            self.query_one("#rooms", DataTable).move_cursor(row=0)
            self.load()

    def action_reload(self) -> None:
        self.say("Reading the lobby…")
        self.load()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(Content.from_markup(HELP)))

    @work(exclusive=True, group="create")
    async def action_create(self) -> None:
        config = await self.app.push_screen_wait(CreateRoom(self.tried or self.config))
        if config is not None:
            self.dismiss(config)

    def action_leave(self) -> None:
        self.dismiss(None)

    async def on_unmount(self) -> None:
        if self.link is not None:
            await self.link.close()


class CreateRoom(ModalScreen[PlayConfig | None]):
    """A new public room: its name, game, players, the game's options and the cards' encryption (as the start
    screen and the command line offer them), each first as ``config`` has it (a room, a fresh name if it has none).
    Create (Enter, in any field: a list opens with Space or the arrows) dismisses with the room's table; Escape
    with None."""

    CSS_PATH = "lobby.tcss"
    BINDINGS = [Binding("enter", "create", "Create", priority=True),  # before a field's own (a list would open)
                Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        c = self.config
        with Vertical(id="create", classes="dialog"):
            yield Label("[b]A new room, listed in the lobby[/b]")
            with Grid(id="create-form"):
                yield Label("Room")
                yield Input(c.room or fresh_room("table"), max_length=64, id="room", compact=True,
                            tooltip="1-64 of A-Z a-z 0-9 . _ -, shown in the lobby")
                yield Label("Game")
                yield Select([(entry.about.title, name) for name, entry in SCREENS.items()], value=c.game,
                             allow_blank=False, id="game", compact=True)
                yield Label("Players")
                yield Select(self.seat_choices(c.game), value=self.default_seats(c.game), allow_blank=False,
                             id="seats", compact=True)
                for name, entry in SCREENS.items():
                    for option in entry.about.options:
                        classes = f"option game-{name}"
                        chosen = c.options.get(option.name, option.default) if name == c.game else option.default
                        yield Label(option.name.capitalize(), classes=classes)
                        if isinstance(option, OneOf):
                            yield Select([(choice, choice) for choice in option.choices], allow_blank=False,
                                         value=chosen if chosen in option.choices else option.default,
                                         id=f"{name}-{option.name}", classes=classes, compact=True)
                        else:
                            yield Input(str(chosen), type="integer", id=f"{name}-{option.name}",
                                        classes=classes, compact=True, tooltip=option.help)
                yield Label("Encryption")
                yield Select([(title, name) for name, title in GROUPS.items()], value=c.group, allow_blank=False,
                             id="group", compact=True)
            yield Label("", id="problem", markup=False)
            yield Button("Create", id="create-room", variant="primary", compact=True)
        yield KeysFooter()

    def seat_choices(self, game: str) -> list[tuple[str, int]]:
        return [(str(n), n) for n in SCREENS[game].about.seats]

    def default_seats(self, game: str) -> int:
        about = SCREENS[game].about
        return self.config.seats if game == self.config.game and self.config.seats in about.seats \
            else about.default_seats

    def on_mount(self) -> None:
        self.show_options()
        self.query_one("#room", Input).focus()

    @property
    def game(self) -> str:
        return str(self.query_one("#game", Select).value)

    @on(Select.Changed, "#game")
    def show_options(self) -> None:
        game = self.game
        for widget in self.query(".option"):
            widget.display = widget.has_class(f"game-{game}")
        seats = self.query_one("#seats", Select)
        seats.set_options(self.seat_choices(game))
        seats.value = self.default_seats(game)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "create" or not choosing(self)  # in an open list Enter picks

    @on(Button.Pressed, "#create-room")
    def action_create(self) -> None:
        room = self.query_one("#room", Input).value.strip()
        if (problem := room_problem(room)) is not None:
            self.query_one("#problem", Label).update(f"Room: {problem}")
            return
        game = self.game
        options: dict[str, str | int] = {}
        for option in SCREENS[game].about.options:
            widget = self.query_one(f"#{game}-{option.name}")
            text = str(widget.value) if isinstance(widget, (Select, Input)) else ""
            try:
                options[option.name] = option.parse(text)
            except ValueError as error:
                self.query_one("#problem", Label).update(f"{option.name.capitalize()}: {error}")
                return
        self.dismiss(dataclasses.replace(
            self.config, room=room, game=game, seats=int(str(self.query_one("#seats", Select).value)),
            options=options, group=str(self.query_one("#group", Select).value), public=True))
