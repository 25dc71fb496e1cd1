"""The lobby: the screen fed with listings by hand (a harness, no relay), what it makes of a relay's pages,
and one walk through a real in-process relay (create a public room from the lobby, see it listed, fill it)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, Select

import discard_tui
from discard_tui import saves
from discard_tui.app import DiscardApp, HelpScreen
from discard_tui.config import PlayConfig
from discard_tui.lobby import LobbyError, LobbyLink, Page, Waiting, parse_page, public_fields
from discard_tui.lobby_screen import CreateRoom, LobbyScreen
from discard_tui.profile import Profile
from tabletop.groups import DEFAULT_GROUP
from pilot import text_of, until
from tabletop.words import duration

RELAY = "ws://relay.example:8765"


def waiting(n: int, game: str = "cabo", names: tuple[str, ...] = ("ana",), seats: int = 3, **options) -> Waiting:
    return Waiting(f"table-{n:04d}", seats, names, 75 * n, game, dict(options))


class LobbyHarness(App[None]):
    """The lobby screen alone, fed pages by hand: ``fetched`` keeps the cursors it asked for, ``chosen`` what
    it dismissed with."""

    CSS_PATH = str(Path(discard_tui.__file__).parent / "app.tcss")

    def __init__(self, pages: dict[str | None, Page | LobbyError], under_way: Page | None = None,
                 saved: tuple[saves.SavedSeat, ...] = (), name: str = "me") -> None:
        super().__init__()
        self.pages, self.under_way, self.saved, self.player = pages, under_way, saved, name
        self.fetched: list[str | None] = []
        self.chosen: list[PlayConfig | None] = []

    async def going(self, after: str | None, limit: int) -> Page:
        assert self.under_way is not None
        return self.under_way

    async def fetch(self, after: str | None, limit: int) -> Page:
        self.fetched.append(after)
        page = self.pages[after]
        if isinstance(page, LobbyError):
            raise page
        return page

    def on_mount(self) -> None:
        config = PlayConfig(relay=RELAY, room="", name=self.player, game="discard")
        self.push_screen(LobbyScreen(config, self.fetch, refresh=None, saved=self.saved,
                                     under_way=self.going if self.under_way is not None else None), self.chosen.append)


def offered(app: App) -> set[str]:
    """The keys the footer shows."""
    return {key for key, active in app.screen.active_bindings.items() if active.binding.show}


def rows(app: App) -> list[list[str]]:
    table = app.screen.query_one("#rooms", DataTable)
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_lobby_lists_rooms_literally_and_pages_through_them():
    long = "x" * 32
    first = Page((waiting(1, names=("[b]ana[/b]", "bo")), waiting(2, game="war", names=(long, long), seats=2),
                  waiting(3, names=(long,) * 5, seats=6)), "cursor-1")
    second = Page((waiting(4, game="discard", names=("cy",), seats=2, deck="short"),), None)
    app = LobbyHarness({None: first, "cursor-1": second})
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: rows(app), "the first page")
        shown = rows(app)
        assert shown[0] == ["cabo", "2/3", "[b]ana[/b], bo", "1 min"]  # markup from a stranger stays text
        assert shown[2][2].endswith("…") and len(shown[2][2]) <= 60  # long names are cut, not wrapped
        assert "3 rooms waiting (page 1)" in text_of(app.screen, "#status")
        assert text_of(app.screen, "#detail") == "Room table-0001"
        assert "n" in offered(app) and "p" not in offered(app)  # no previous page to go back to
        await pilot.press("n")
        await until(pilot, lambda: rows(app) and rows(app)[0][0] == "discard", "the second page")
        assert app.fetched == [None, "cursor-1"]
        assert text_of(app.screen, "#detail") == "Room table-0004 · deck: short"
        assert "p" in offered(app) and "n" not in offered(app)
        await pilot.press("p")
        await until(pilot, lambda: rows(app) and rows(app)[0][0] == "cabo", "the first page again")


async def test_enter_joins_the_highlighted_room_with_its_game_and_seats():
    app = LobbyHarness({None: Page((waiting(1), waiting(2, game="war", seats=2)), None)})
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: rows(app), "the rooms")
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.chosen, "the choice")
    [chosen] = app.chosen
    assert chosen is not None
    assert (chosen.room, chosen.game, chosen.seats, chosen.public, chosen.relay) == ("table-0002", "war", 2, False,
                                                                                     RELAY)


async def test_the_lobby_s_keys_are_asked_for_safely_while_its_list_is_gone():
    """The footer asks the screen's check_action after a refresh, which may come as the screen is removed (seen once
    under load, after Enter watched a game): with its list of rooms gone, nothing is highlighted and join is not
    offered, instead of the app failing on a missing widget."""
    app = LobbyHarness({None: Page((waiting(1),), None)})
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.screen
        await until(pilot, lambda: screen.highlighted is not None, "a room highlighted")
        await screen.query("DataTable").remove()
        assert screen.highlighted is None and screen.check_action("join", ()) is False
        assert screen.watched is None and screen.check_action("watch", ()) is False


async def test_the_games_under_way_are_listed_literally_and_enter_watches_one():
    """Below the rooms waiting, the games under way (relay 1.3) with their watchers; Tab reaches them, the footer
    says Enter watches, and Enter opens a watcher's table of the room's game, no seat taken."""
    going = Page((dataclasses.replace(waiting(7, game="holdem", names=("[b]ana", "bo"), seats=2), watching=2),), None)
    app = LobbyHarness({None: Page((waiting(1),), None)}, under_way=going)
    async with app.run_test(size=(60, 20)) as pilot:
        under_way = app.screen.query_one("#under-way", DataTable)
        await until(pilot, lambda: under_way.row_count, "the games under way")
        assert [str(getattr(c, "plain", c)) for c in under_way.get_row_at(0)] == ["holdem", "2/2", "[b]ana, bo", "2"]
        assert text_of(app.screen, "#under-way-title") == "Games under way: Enter watches one, read-only"
        under_way.focus()
        await pilot.pause()
        assert app.screen.active_bindings["enter"].binding.description == "Watch"
        await pilot.press("enter")
        await until(pilot, lambda: app.chosen, "the choice")
    [chosen] = app.chosen
    assert chosen is not None and (chosen.room, chosen.game, chosen.watch, chosen.relay) == ("table-0007", "holdem",
                                                                                             True, RELAY)


async def test_my_own_game_is_listed_among_my_games_not_among_the_rooms_to_join_or_the_games_to_watch():
    """A game of mine under way (or waiting for players) is mine to go back to: the lobby lists it once, as "your
    game in room R is waiting: Enter returns", and offers the others' games to watch."""
    import time

    seat = saves.SavedSeat(RELAY, "table-0007", "me", "t", "00", "holdem", time.time() - 40, stage="playing",
                           seats=2, names=["ana", "me"], me=1, number=1)
    going = Page((waiting(7, game="holdem", names=("ana", "me"), seats=2), waiting(8, game="war", seats=2)), None)
    app = LobbyHarness({None: Page((waiting(1), waiting(7)), None)}, under_way=going, saved=(seat,))
    async with app.run_test(size=(80, 24)) as pilot:
        under_way = app.screen.query_one("#under-way", DataTable)
        await until(pilot, lambda: under_way.row_count, "the games under way")
        assert [str(under_way.get_row_at(i)[0]) for i in range(under_way.row_count)] == ["war"]
        assert [row[0] for row in rows(app)] == ["cabo"] and "1 room waiting" in text_of(app.screen, "#status")
        assert text_of(app.screen, "#yours-detail") == "Your game in room table-0007 is waiting: Enter returns to it."


async def test_a_refresh_keeps_the_highlight_on_the_same_room_wherever_it_moved():
    """The lists are read again every few seconds: a room that arrived above the highlighted one moves it down a
    row, and the highlight goes with it (in both lists)."""
    going = Page((waiting(7, seats=2), waiting(8, seats=2)), None)
    app = LobbyHarness({None: Page((waiting(1), waiting(2)), None)}, under_way=going)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(pilot, lambda: rows(app) and screen.watched is not None, "both lists")
        await pilot.press("down")
        screen.query_one("#under-way", DataTable).move_cursor(row=1)
        assert (screen.highlighted.room, screen.watched.room) == ("table-0002", "table-0008")
        app.pages[None] = Page((waiting(3), waiting(1), waiting(2)), None)
        app.under_way = Page((waiting(9, seats=2), waiting(7, seats=2), waiting(8, seats=2)), None)
        await pilot.press("r")
        await until(pilot, lambda: len(rows(app)) == 3 and screen.query_one("#under-way", DataTable).row_count == 3,
                    "the lists read again")
        assert (screen.highlighted.room, screen.watched.room) == ("table-0002", "table-0008")
        assert text_of(screen, "#detail") == "Room table-0002"


def test_a_page_of_games_under_way_is_checked_like_the_lobby():
    row = {"room": "r", "seats": 2, "taken": 2, "names": ["a", "b"], "waited": 1, "public": {"game": "war"}}
    assert parse_page({"type": "rooms", "rooms": [{**row, "watching": 3}], "next": None}, under_way=True).rooms[0] \
        .watching == 3
    for bad in ({**row, "watching": -1}, {**row, "watching": "3"}, row, {**row, "taken": 1, "watching": 0}):
        with pytest.raises(LobbyError):
            parse_page({"type": "rooms", "rooms": [bad], "next": None}, under_way=True)


async def test_a_room_of_a_game_this_discard_cannot_play_is_refused_in_one_line():
    app = LobbyHarness({None: Page((waiting(1, game="[red]poker"),), None)})
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: rows(app), "the room")
        assert "cannot play '[red]poker'" in text_of(app.screen, "#detail")
        await pilot.press("enter")
        assert text_of(app.screen, "#status") == "This discard cannot play '[red]poker': pick another room."
        assert app.chosen == []


async def test_an_empty_lobby_offers_only_to_create_and_a_relay_that_fails_costs_one_line():
    app = LobbyHarness({None: Page((), None)})
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: "No room is waiting" in text_of(app.screen, "#status"), "the empty lobby")
        assert "enter" not in offered(app) and "c" in offered(app)
        app.pages[None] = LobbyError("cannot reach the relay at ws://x (connection refused)")
        await pilot.press("r")
        await until(pilot, lambda: text_of(app.screen, "#status").startswith("Cannot read"), "the problem")
        assert text_of(app.screen, "#status") == ("Cannot read the lobby: cannot reach the relay at ws://x "
                                                  "(connection refused)")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.press("escape", "escape")
        await until(pilot, lambda: app.chosen == [None], "leaving the lobby")


async def test_c_creates_a_public_room_with_the_game_its_players_and_options():
    app = LobbyHarness({None: Page((), None)})
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "No room" in text_of(app.screen, "#status"), "the lobby")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
        dialog = app.screen
        dialog.query_one("#game", Select).value = "war"
        await pilot.pause()
        assert dialog.query_one("#war-tricks", Input).display and not dialog.query_one("#discard-deck").display
        tricks = dialog.query_one("#war-tricks", Input)
        tricks.value = "0"
        await pilot.click("#create-room")
        assert text_of(dialog, "#problem").startswith("Tricks: ")
        tricks.value = "50"
        tricks.focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.chosen, "the new room")
    [chosen] = app.chosen
    assert chosen is not None and chosen.public and chosen.room.startswith("table-")
    clock = {"clock": 10, "bank": 30}  # war's clock, as the dialog offers it
    assert (chosen.game, chosen.seats, chosen.options) == ("war", 2, {"tricks": 50, **clock})
    assert public_fields(chosen) == {"game": "war", "group": DEFAULT_GROUP.name, "tricks": 50, **clock}


@pytest.mark.parametrize("frame", [
    None, [], {"type": "welcome"}, {"type": "rooms", "rooms": {}, "next": None},
    {"type": "rooms", "rooms": [{"room": "r"}], "next": None},
    {"type": "rooms", "rooms": [], "next": 5},
    {"type": "rooms", "rooms": [{"room": "r", "seats": 2, "taken": 2, "names": ["a", "b"], "waited": 1,
                                 "public": {}}], "next": None},
    {"type": "rooms", "rooms": [{"room": "r", "seats": 2, "taken": 1, "names": ["a\x1b[31m"], "waited": 1,
                                 "public": {}}], "next": None},
    {"type": "rooms", "rooms": [{"room": "../x", "seats": 2, "taken": 1, "names": ["a"], "waited": 1,
                                 "public": {}}], "next": None},
    {"type": "rooms", "rooms": [{"room": "r", "seats": 2, "taken": 1, "names": ["a"], "waited": 1,
                                 "public": {"\x1b]0;pwned\x1b\\": 1}}], "next": None},  # a terminal escape as a key
], ids=repr)
def test_a_page_that_is_not_what_the_protocol_says_is_refused_in_one_line(frame):
    with pytest.raises(LobbyError) as refused:
        parse_page(frame)
    assert "\n" not in str(refused.value)


def test_waiting_times_are_short():
    assert [duration(s) for s in (0, 59, 60, 3599, 3600, 86400 * 3)] == ["0 s", "59 s", "1 min", "59 min", "1 h",
                                                                             "3 d"]


async def test_a_room_created_in_the_lobby_is_listed_on_a_real_relay_until_it_is_full(relay_url, tmp_path):
    from websockets.asyncio.client import connect

    profile = Profile(tmp_path / "data", "ana")
    app = DiscardApp(PlayConfig(relay=relay_url, room="", name="ana", game="discard"), profile)
    link = LobbyLink(relay_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and "No room is waiting" in text_of(app.screen, "#status"), "the empty lobby")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
        await pilot.click("#create-room")
        await until(pilot, lambda: app.seat is not None, "my seat in the new room")
        room = app.config.room
        [listed] = (await link.page(None)).rooms
        assert (listed.room, listed.game, listed.names, listed.seats) == (room, "discard", ("ana",), 2)
        assert listed.options == {"group": DEFAULT_GROUP.name, "deck": "full", "clock": 20, "bank": 60}
        async with connect(relay_url) as other:  # a second player takes the last seat: the room is full
            await other.send('{"type": "join", "room": "%s", "name": "bo", "token": null}' % room)
            await other.recv()
            assert (await link.page(None)).rooms == ()
    await link.close()


async def test_the_start_screen_goes_to_the_lobby_by_default_and_escape_comes_back(relay_url, tmp_path):
    from textual.widgets import Checkbox

    from discard_tui.start import StartScreen

    app = DiscardApp(PlayConfig(relay=relay_url, room="", name="ana"), Profile(tmp_path / "data", "ana"), pick=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        assert app.screen.query_one("#opponent", Select).value == "lobby"
        assert not app.screen.query_one("#public", Checkbox).display  # only for a room named there
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again")
        screen = app.screen
        screen.query_one("#opponent", Select).value = "person"
        await pilot.pause()
        screen.query_one("#public", Checkbox).value = True
        screen.query_one("#room", Input).value = "named-public"
        await pilot.click("#play")
        await until(pilot, lambda: app.seat is not None, "my seat")
        assert (app.config.room, app.config.public) == ("named-public", True)
        link = LobbyLink(relay_url)
        assert [room.room for room in (await link.page(None)).rooms] == ["named-public"]
        await link.close()


def test_a_relays_refusal_reaches_the_screen_without_the_controls_a_terminal_would_act_on():
    """A hostile relay's error message is shown as text: ESC (a title, a clear, a clipboard write) cannot get out."""
    with pytest.raises(LobbyError) as refused:
        parse_page({"type": "error", "code": "bad_request", "message": "no\x1b]52;c;cHduZWQ=\x07\x1b[2J rooms"})
    assert "\x1b" not in str(refused.value) and "\x07" not in str(refused.value)
    assert str(refused.value).endswith("no ]52;c;cHduZWQ= [2J rooms")


async def test_a_relay_answering_the_listing_with_json_nested_past_pythons_limit_costs_one_line():
    """JSON nested 200,000 deep makes json.loads raise RecursionError, not ValueError: it must not end the app."""
    from websockets.asyncio.server import serve

    async def hostile(connection) -> None:
        await connection.recv()
        await connection.send("[" * 200_000 + "]" * 200_000)

    async with serve(hostile, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        link = LobbyLink(f"ws://127.0.0.1:{port}")
        with pytest.raises(LobbyError, match="something else"):
            await link.page(None)
        await link.close()


class StartHarness(App[None]):
    """The start screen alone, under the app's own keys: ``chosen`` keeps what it dismissed with."""

    CSS_PATH = str(Path(discard_tui.__file__).parent / "app.tcss")
    BINDINGS = DiscardApp.BINDINGS

    def __init__(self, config: PlayConfig, profile: Profile) -> None:
        super().__init__()
        self.config, self.profile = config, profile
        self.chosen: list[PlayConfig | None] = []

    def on_mount(self) -> None:
        from discard_tui.start import StartScreen

        self.push_screen(StartScreen(self.config, self.profile), self.chosen.append)


def background(app: App, widget) -> tuple[int, int, int]:
    """The colour a widget is drawn on, at its first cell."""
    from textual.color import Color

    style = app.screen.get_style_at(widget.region.x, widget.region.y)
    assert style.bgcolor is not None
    return Color.from_rich_color(style.bgcolor).rgb


def apart(one: tuple[int, int, int], other: tuple[int, int, int]) -> int:
    return sum(abs(a - b) for a, b in zip(one, other))


async def test_the_start_screen_marks_the_focus_plainly_and_enter_on_a_list_plays(tmp_path):
    """On the web start screen a Tab to a list showed no focus (a 5% tint) and Play looked lit all the time; Enter
    on a list opened it; the footer offered Quit twice; the title stayed the first game's."""
    from discard_tui.profile import visitor_profile

    app = StartHarness(PlayConfig(name="ana", room="", relay=RELAY), visitor_profile(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen.query("#play"), "the start screen")
        screen = app.screen
        fields = [screen.query_one(f"#{name}") for name in ("name", "game", "opponent", "group")]
        play = screen.query_one("#play")
        marks = []
        for field in [*fields[1:], play]:
            await pilot.press("tab")
            await until(pilot, lambda: app.focused is field, f"the focus on {field.id}")
            others = [background(app, other) for other in [*fields, play] if other is not field]
            marks.append(background(app, field))
            assert min(apart(marks[-1], colour) for colour in others) >= 90, field.id  # plain to see
        await pilot.press("tab")
        assert app.focused is fields[0]
        assert apart(background(app, play), marks[0]) >= 90  # unfocused, Play does not look as if it had the focus
        assert [key for key, b in screen.active_bindings.items() if b.binding.show and "Quit" in b.binding.description
                ] == ["escape"]  # one Quit in the footer (q types in a field; Esc works everywhere)
        fields[1].focus()
        await pilot.press("down")  # a list opens with the arrows or Space …
        await until(pilot, lambda: fields[1].expanded, "the list of games")
        await pilot.press("down", "down", "down", "down", "enter")  # … and Enter picks in it (discard, rps, war, cabo)
        await until(pilot, lambda: not fields[1].expanded, "holdem picked")
        assert fields[1].value == "holdem" and app.title == "Texas Hold'em" and not app.chosen
        await pilot.press("enter")  # on a closed list, Enter plays
        await until(pilot, lambda: app.chosen, "the choice")
    [chosen] = app.chosen
    assert chosen is not None and chosen.game == "holdem" and chosen.room == ""  # to the lobby


async def test_the_create_dialog_names_the_room_and_enter_creates_from_any_field():
    app = LobbyHarness({None: Page((), None)})
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: "No room" in text_of(app.screen, "#status"), "the lobby")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
        dialog = app.screen
        room = dialog.query_one("#room", Input)
        assert app.focused is room and room.value.startswith("table-")
        room.value = "../etc"
        await pilot.press("enter")
        assert text_of(dialog, "#problem").startswith("Room: use 1 to 64") and not app.chosen
        room.value = "fridays"
        dialog.query_one("#game", Select).focus()
        await pilot.press("enter")  # on the game's list, closed: creates, rather than opening it
        await until(pilot, lambda: app.chosen, "the new room")
    [chosen] = app.chosen
    assert chosen is not None and (chosen.room, chosen.game, chosen.public) == ("fridays", "discard", True)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_my_unfinished_game_s_row_is_drawn_whole_at_the_first_frame(size):
    """The return-to-your-game row as the lobby first draws it (no resize since): each cell whole, not cut to its
    column's title ("game…", "40 s a" at 80x24 once)."""
    import time

    seat = saves.SavedSeat(RELAY, "crashed", "me", "t", "00", "discard", time.time() - 40, stage="playing",
                           seats=2, names=["ana", "me"], me=1, number=1)
    app = LobbyHarness({None: Page((), None)}, saved=(seat,))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.page is not None, "the lobby")
        table = app.screen.query_one("#yours", DataTable)
        assert re.fullmatch(r" *discard +ana +game 1 under way +4\d s ago *", table.render_line(1).text)


async def test_with_no_room_waiting_enter_watches_a_game_under_way_without_a_tab_first():
    """No room waiting, one game under way: the focus stayed on the empty list of rooms, so Enter did nothing and
    said nothing though the screen said "Enter watches one". The games under way take the focus."""
    going = Page((waiting(7, game="discard", names=("ana", "bo"), seats=2),), None)
    app = LobbyHarness({None: Page((), None)}, under_way=going)
    async with app.run_test(size=(80, 24)) as pilot:
        under_way = app.screen.query_one("#under-way", DataTable)
        await until(pilot, lambda: under_way.row_count, "the games under way")
        assert app.screen.active_bindings["enter"].binding.description == "Watch"
        await pilot.press("enter")
        await until(pilot, lambda: app.chosen, "the choice")
    [chosen] = app.chosen
    assert chosen is not None and (chosen.room, chosen.watch) == ("table-0007", True)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_my_game_row_shows_a_long_opponent_name_whole_where_the_score_leaves_room(size):
    """"Your game" cut a 31-character name to a third of the row ("Ana-Maria_Łope…" at 80 columns, "…_[…" even
    at 200) while the score column beside it stood half empty: the name takes what the score does not need."""
    import time

    name = "Ana-Maria_Łopez-Zavala_[b]x[/b]"
    seat = saves.SavedSeat(RELAY, "table-0007", "me", "t", "00", "discard", time.time() - 40, stage="playing",
                           seats=2, names=[name, "me"], me=1, number=1)
    app = LobbyHarness({None: Page((), None)}, saved=(seat,))
    async with app.run_test(size=size) as pilot:
        yours = app.screen.query_one("#yours", DataTable)
        await until(pilot, lambda: yours.row_count, "my game")
        assert [str(getattr(c, "plain", c)) for c in yours.get_row_at(0)][1:3] == [name, "game 1 under way"]


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_the_lobby_title_shows_my_long_name_whole(size):
    """"you play as Ana-Maria_Łopez-Zavala_[b…": the player's own name, cut, in the title. It goes on a second line."""
    from textual.geometry import Region

    name = "Ana-Maria_Łopez-Zavala_[b]x[/b]"
    app = LobbyHarness({None: Page((), None)}, name=name)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "No room" in text_of(app.screen, "#status"), "the lobby read")
        where = app.screen.query_one("#where")
        shown = [strip.text.strip() for strip in where.render_lines(Region(0, 0, where.size.width, where.size.height))]
        assert shown[-1] == name and "…" not in " ".join(shown), shown


async def test_a_relay_whose_memory_is_full_says_so_in_one_line_and_r_keeps_the_room_chosen(tmp_path):
    """A relay keeping rooms in memory refuses a join past the address's share with store_full (relay 1.4): the
    player read "the relay refused to seat us in room …: the relay's memory for your address's rooms is full
    (16 MiB)", a plain relay error. One line says what happened and what to do, for a room created in the lobby
    as for --room, and r tries the same room again with every choice made; from the lobby, b or Esc goes back
    there (only r and q were offered), where c offers the room chosen again."""
    from discard_tui.app import STORE_FULL
    from discard_tui.problem_screen import CANNOT_PLAY, ProblemScreen
    from relay.memory_ledger import MemoryLedger
    from relay.server import Limits, Relay

    relay = Relay(MemoryLedger(max_bytes=16 * 64), Limits())  # an address's share (64 bytes) holds no join
    server = await relay.serve("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        app = DiscardApp(PlayConfig(relay=url, room="", name="ana", game="discard"), Profile(tmp_path / "a", "ana"))
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and "No room is waiting" in text_of(app.screen, "#status"), "the empty lobby")
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
            app.screen.query_one("#room", Input).value = "my-table"
            app.screen.query_one("#game", Select).value = "war"
            await pilot.click("#create-room")
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            assert text_of(app.screen, "#problem") == STORE_FULL and "--relay" in STORE_FULL
            assert text_of(app.screen, "#retry") == "r tries again, b goes back to the lobby, q quits."
            shown = {key for key, active in app.screen.active_bindings.items() if active.binding.show}
            assert shown & {"c", "w"} == set() and {"r", "b"} <= shown  # no new room, nothing to watch
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen again")
            assert (app.config.room, app.config.game, app.config.public) == ("my-table", "war", True)
            await pilot.press("escape")  # back to the lobby, where c offers the room chosen again
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby after Esc")
            assert app.config.room == ""  # leaving from here names no table to come back to
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
            assert app.screen.query_one("#room", Input).value == "my-table"
            assert app.screen.query_one("#game", Select).value == "war"
            await pilot.click("#create-room")
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            await pilot.press("b")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby after b")
        app = DiscardApp(PlayConfig(relay=url, room="named", name="bo"), Profile(tmp_path / "b", "bo"))
        async with app.run_test(size=(60, 20)) as pilot:  # --room: no lobby to go back to
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            assert text_of(app.screen, "#problem") == STORE_FULL
            assert text_of(app.screen, "#retry") == "r tries again, q quits."
            assert not app.screen.check_action("lobby", ())
            shown = {key for key, active in app.screen.active_bindings.items() if active.binding.show}
            assert "q" in shown and "escape" not in shown  # "q Quit", as it says, where "esc Quit" showed
            await pilot.press("escape")  # with no lobby to go back to, Escape quits as q does
        assert app.return_code == CANNOT_PLAY
    finally:
        server.close()
        await server.wait_closed()
        await relay.close()
