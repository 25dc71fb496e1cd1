"""The Textual app, driven by key presses through Pilot, against the built-in computer."""

import dataclasses
import pathlib

from textual.app import App

import pytest

from conftest import drop_connections, seat_dir
from discard_tui import discard_screen
from discard_tui.discard_screen import DiscardScreenView, DiscardTable
from discard_tui.table_screen import WATCHING, MakeMove
from discard_tui.profile import terminal_profile
from discard_tui.app import DiscardApp, HelpScreen, PlayConfig, TableScreen
from discard_tui.game_over_screen import GameOverScreen
from discard_tui.problem_screen import CANNOT_PLAY, ProblemScreen
from tabletop.values import Phase
from games.cards import FULL_DECK, Card
from games.discard.moves import DiscardCard, Draw
from games.discard.rules import matches, short_mismatch
from discard_tui.widgets import HandView, Scale, StatusBar, card_size, counted, same_text
from pilot import TableHarness, offline_room, play_key, seat_view, text_of, until, view_of, watcher_view




def computer_config(deck="short", seed=1, seeds=None) -> PlayConfig:
    return PlayConfig(name="tester", options={"deck": deck}, opponent_seed=seed, think_time=0, seeds=seeds)


def computer_game(deck="short", seed=1, seeds=None) -> DiscardApp:
    return DiscardApp(computer_config(deck, seed, seeds), terminal_profile())


def fixed(k: int) -> tuple[bytes, bytes]:
    """Crypto seeds (mine, the computer's) that fix the shuffle, so the game: with fixed(3) or fixed(31) and my
    moves the first card I can play, else a draw, a game is 9 moves (I win the first, with the computer's seed 1;
    it wins the second, with seed 3), against 17 for a median game; fixed(31) with seed 2 gives me a card I can
    play and one I cannot on my first turn."""
    return bytes([k]) * 32, bytes([k + 100]) * 32


SAFETY = "12345 67890 13579 24680 11223 34455"
TOP = Card("10", "♥")


def my_turn_view(**fields) -> DiscardScreenView:
    """What the table shows on my turn against the computer, 24-card deck, five cards each, one on the discard
    pile (10♥: 9♥, 10♠ and K♥ of my hand match it); ``fields`` change any of it."""
    hand = (Card("9", "♥"), Card("10", "♠"), Card("J", "♦"), Card("Q", "♣"), Card("K", "♥"))
    base = dict(names=("tester", "Computer"), my_turn=True, hand=hand, playable=tuple(matches(c, TOP) for c in hand),
                discards=tuple(DiscardCard(pos=pos) for pos in range(5)), draw=Draw(pos=11),
                discard_refusals=tuple(None if matches(c, TOP) else short_mismatch(c, TOP) for c in hand),
                opponent_hand=5, draw_pile=13, discard_top=TOP, discard_count=1, deck_size=24, draw_refusal=None,
                safety=SAFETY, log=("— game 1 —", "Computer discarded 10♥"), last_move="Computer discarded 10♥",
                moves=1)
    return seat_view(DiscardScreenView, **{**base, **fields})


def discard_table(**fields) -> TableHarness:
    """Discard's table alone, showing :func:`my_turn_view` (``fields`` change it): no game, relay or crypto."""
    return TableHarness(DiscardTable(30), my_turn_view(**fields))



def my_turn_or_over(app):
    view = app.view
    return view is not None and (view.my_turn or view.phase is Phase.OVER or view.stopped)



def moved(app, before) -> bool:
    return app.view.moves > before.moves or not app.view.playing


async def play_to_game_over(pilot, app) -> None:
    """Play by keys, the first playable card or a draw, until the game-over screen shows its verdict."""
    while True:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        view = app.view
        if not view.playing:
            break
        playable = [i for i, ok in enumerate(view.playable) if ok]
        if playable:
            hand = app.screen.query_one(HandView)
            await pilot.press("home")
            for _ in range(playable[0]):
                await pilot.press("right")
            assert hand.cursor == playable[0]
            await pilot.press("enter")
        else:
            await pilot.press("d")
        await until(pilot, lambda: moved(app, view), "the move to land")
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over screen")
    await until(pilot, lambda: text_of(app.screen, "#verdict"), "the verdict")


async def test_whole_game_by_keys_to_game_over_then_the_rematch_resumed_alone(monkeypatch):
    """A game by keys to its game-over dialog, n for game 2; closed mid-game 2 and started again (the terminal
    closed without quitting, the same command), the room shows only the game being played (never game 1's
    result, its audit or its dialog), with the same hand."""
    app = computer_game(seeds=fixed(3))
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_game_over(pilot, app)
        text = text_of(app.screen, "#result") + " " + text_of(app.screen, "#verdict")
        assert ("You win" in text) or ("You lose" in text)
        assert "Checked: every shuffle, deal and move was verified" in text and "(1 deck of 24 cards, " in text
        score = "tester 1 – 0 Computer" if "You win" in text else "tester 0 – 1 Computer"
        assert text_of(app.screen, "#score") == score
        assert app.view.log[0] == "— game 1 —"  # each game's lines under its heading
        await pilot.press("n")
        await until(pilot, lambda: app.view.number == 2 and app.view.phase in (Phase.PLAYING,), "the rematch")
        assert isinstance(app.screen, TableScreen)
        assert text_of(app.screen, StatusBar).startswith(f" {score} · game 2")
        assert "— game 2 —" in app.view.log
        hand = app.view.hand
    # the terminal closed mid-game 2; the same command starts again
    shown, pushed = [], []
    update, push = TableScreen.update, DiscardApp.push_screen

    def recording_update(self, view, *args, **kwargs):
        shown.append((view.number, view.result, view.phase))
        return update(self, view, *args, **kwargs)

    def recording_push(self, screen, *args, **kwargs):
        pushed.append(type(screen).__name__)
        return push(self, screen, *args, **kwargs)

    monkeypatch.setattr(TableScreen, "update", recording_update)
    monkeypatch.setattr(DiscardApp, "push_screen", recording_push)
    again = computer_game(seeds=fixed(3))
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: again.view is not None and again.view.number == 2 and
                    again.view.playing and not again.view.replaying,
                    f"game 2 again {again.view} {[type(s).__name__ for s in again.screen_stack]}")
        await pilot.pause()
        assert again.view.hand == hand
    assert shown and {game for game, _, _ in shown} == {2}, shown  # never game 1's result or its audit
    assert "GameOverScreen" not in pushed


async def test_back_at_a_saved_game_the_table_is_uncovered_with_its_log_written(monkeypatch):
    """The same command after a game was left: for a frame the table showed "▶ Your turn" over an empty log (the
    log follows the board by a moment, the footer too), then the log. The connecting screen ("Catching up…") stays
    until the table under it shows the game replayed, its log and its keys."""
    from discard_tui.connecting_screen import ConnectingScreen
    from discard_tui.table_screen import MoveLog

    app = computer_game(seeds=fixed(3))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app) and app.view.playing, "my turn")
    uncovered = []
    pop = DiscardApp.pop_screen

    def recording_pop(self, *args, **kwargs):
        if isinstance(self.screen, ConnectingScreen) and self.table is not None:
            table = self.table
            uncovered.append((table.view, table.query_one(MoveLog).lines_shown, table.footer_keys()))
        return pop(self, *args, **kwargs)

    monkeypatch.setattr(DiscardApp, "pop_screen", recording_pop)
    again = computer_game(seeds=fixed(3))
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, TableScreen) and again.view is not None
                    and not again.view.replaying and again.view.playing, "back at the table")
    [(view, lines, keys)] = uncovered
    assert view is not None and not view.replaying and view.my_turn
    assert lines == view.log and "— game 1 —" in lines
    assert any(word == "Draw" for _, word, _ in keys), keys  # and its keys


async def test_leaving_a_finished_game_cleans_the_data_directory(data_dir):
    import sqlite3

    from discard_tui import saves

    app = computer_game(seed=3, seeds=fixed(31))
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_game_over(pilot, app)
        room = app.config.room
        assert saves.load(seat_dir(), "local", room, "tester").stage == "over"  # kept until I leave, not listed by --games
        assert saves.unfinished(seat_dir()) == []
        await pilot.press("q")
    assert saves.load(seat_dir(), "local", room, "tester") is None and saves.load(seat_dir(), "local", room, "Computer") is None
    with sqlite3.connect(data_dir / "computer-relay.sqlite3") as store:
        assert store.execute("SELECT count(*) FROM events").fetchone() == (0,)


async def test_illegal_discard_is_refused_with_the_reason():
    app = computer_game(seed=2, seeds=fixed(31))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await until(pilot, lambda: my_turn_or_over(app), "my turn")
            view = app.view
            assert view.playing
            bad = [i for i, ok in enumerate(view.playable) if not ok]
            if bad and any(view.playable):  # with nothing playable, Discard is greyed out instead
                break
            playable = [i for i, ok in enumerate(view.playable) if ok]
            if playable:
                app.screen.query_one(HandView).cursor = playable[0]
                await pilot.press("enter")
            else:
                await pilot.press("d")
            await until(pilot, lambda: moved(app, view), "the move")
        posted_before = len(app.seat.events)
        app.screen.query_one(HandView).cursor = bad[0]
        card, top = view.hand[bad[0]], view.discard_top
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one(StatusBar).notice, "a refusal")
        assert app.screen.query_one(StatusBar).notice == f"{card} matches neither {top.suit} nor {top.rank}"
        assert not matches(card, top)
        await pilot.pause()
        assert app.view.my_turn and len(app.seat.events) == posted_before  # nothing was sent
        # A move the view no longer offers (the draw pile's top has moved on) reaches the table, which refuses it.
        assert app.view.draw is not None
        app.screen.post_message(MakeMove(Draw(pos=app.view.draw.pos + 1)))
        await until(pilot, lambda: "top of the draw pile" in app.screen.query_one(StatusBar).notice, "the table's refusal")
        assert app.view.my_turn and len(app.seat.events) == posted_before


@pytest.mark.parametrize("game", ["cabo", "discard", "holdem", "rps", "war"])
async def test_the_help_wraps_its_paragraphs_to_the_screen_and_a_watcher_s_names_only_a_watcher_s_keys(game):
    """The rules were broken by hand near 66 columns: at 60x20 (52 columns inside) each line broke again, a long row
    then a short one. A paragraph wraps to the screen, and each row of keys and cues stays one row. A watcher's help
    listed the player's keys (f fold, d draw…), which do nothing for a watcher: it names a watcher's keys."""
    import re
    from pathlib import Path

    import discard_tui
    from discard_tui.config import SCREENS
    from discard_tui.table_screen import WATCHER_KEYS, help_page
    from pilot import screen_rows

    ui = SCREENS[game].ui()
    plain = lambda markup: markup.replace("[b]", "").replace("[/b]", "")  # noqa: E731
    app: App[None] = App(css_path=str(Path(discard_tui.__file__).parent / "app.tcss"))
    async with app.run_test(size=(60, 20)) as pilot:
        for watcher in (False, True):
            page = help_page(ui.rules, ui.keys, SAFETY, 3, watcher=watcher)
            await app.push_screen(HelpScreen(page))
            await pilot.pause()
            help = app.screen.query_one("#help Static")
            rows = [row.rstrip() for row in screen_rows(help)]
            rules = rows[:rows.index("")]  # the first paragraph
            assert len(rules) > 1 and all(len(row) >= help.size.width - 14 for row in rules[:-1]), rows  # 14: a word
            table = [line.rstrip() for line in str(page).splitlines()  # rows of keys or cues: a heading ("Keys",
                     if re.match(r"(\s|\S+( \S+)?\s\s)", line) and len(line) < 80]  # "Log") or indented, not prose
            assert all(line in rows for line in table), [line for line in table if line not in rows]  # each one row
            app.pop_screen()
    watching = str(help_page(ui.rules, ui.keys, SAFETY, 3, watcher=True))
    assert plain(WATCHER_KEYS) in watching and not any(line in watching for line in plain(ui.keys).splitlines())


async def test_help_screen_fits_and_closes():
    """The help page over the table (what ? opens in the app: see the safety-number test, through a relay)."""
    from discard_tui.table_screen import help_page

    app = discard_table()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(HelpScreen(help_page(discard_screen.HELP, discard_screen.KEY_HELP, SAFETY, 2)))
        await pilot.pause()
        text = str(app.screen.query_one("Static").content)
        assert "matching the suit" in text and f"Safety number  {SAFETY}" in text
        assert app.screen.query_one("#help").max_scroll_y == 0  # it fits at 80x24
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


async def test_a_full_room_offers_to_create_another_and_c_does(relay_url):
    """A full room offered nothing but the relay's "pick another room"; c now creates one for the same game."""
    from websockets.asyncio.client import connect

    from discard_tui.connecting_screen import ConnectingScreen

    async with connect(relay_url) as ana, connect(relay_url) as bo:  # two players fill room "full"
        for socket, name in ((ana, "ana"), (bo, "bo")):
            await socket.send('{"type": "join", "room": "full", "name": "%s", "token": null}' % name)
            assert '"welcome"' in await socket.recv()
        app = DiscardApp(PlayConfig(relay=relay_url, room="full", name="cy", game="war"), terminal_profile())
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            assert text_of(app.screen, "#retry").startswith("The room is full: c creates a new room for war")
            offered = {key for key, b in app.screen.active_bindings.items()
                       if b.binding.show and app.screen.check_action(b.binding.action.split(".")[-1], ()) is True}
            assert {"c", "w", "r"} <= offered, offered  # a new room, or watch this one's game (relay 1.3)
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, ConnectingScreen) and app.seat is not None,
                        "a seat in a new room")
            assert app.config.room != "full" and app.config.game == "war"
    app = DiscardApp(PlayConfig(relay="ws://127.0.0.1:9", room="r", name="tester"), terminal_profile())
    async with app.run_test(size=(60, 20)) as pilot:  # any other problem offers no new room
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        assert "c" not in {key for key, b in app.screen.active_bindings.items() if b.binding.show}


async def test_unreachable_relay_screen_offers_retry():
    app = DiscardApp(PlayConfig(relay="ws://127.0.0.1:9", room="r", name="tester"), terminal_profile())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        problem = text_of(app.screen, "#problem")
        assert "cannot reach the relay at ws://127.0.0.1:9" in problem
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen again")
        await pilot.press("q")
    assert app.return_code == CANNOT_PLAY != 0 and "cannot reach the relay" in app.cannot_play  # a script sees it


async def test_violation_dialog_names_it_and_shows_the_transcript():
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        problem = "Computer sent a malformed message (msg.type: 'teleport' is not a message of this game)"
        # A malformed post in the computer's seat, through the real relay: the table stops at it.
        await app.computers[0].ledger.post({"game": 1, "n": 99, "msg": {"type": "teleport"}, "sig": "00" * 64})
        await until(pilot, lambda: type(app.screen).__name__ == "ViolationScreen", "the violation dialog")
        assert text_of(app.screen, "#problem") == problem
        assert "t copies the path" in text_of(app.screen, "#transcript")
        path = "".join(text_of(app.screen, "#path").splitlines())  # whole, broken only after a "/" or a "-"
        assert path == str(app.seat.transcript_path) and app.seat.transcript_path.exists()
        await pilot.press("t")  # copied: the dialog says so, no toast covers it
        await pilot.pause()
        assert app.clipboard == path and list(app._notifications) == []
        assert text_of(app.screen, "#transcript") == "Transcript: copied if the terminal allows OSC 52:"


async def test_clicking_the_draw_pile_draws():
    app = discard_table()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.click("#draw")
        assert app.asked() == ["draw"]  # the app makes the draw ('d' does it through a relay, below)


async def test_rematch_offer_from_the_opponent_shows_once():
    """The computer asks for a rematch first; the player sees one dialog saying so, and accepts with n."""
    app = computer_game(seed=3, seeds=fixed(31))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.my_turn, "my turn")
        app.computers[0].table.want = 2  # the computer will open game 2 as soon as game 1 is audited
        while app.view.verdict is None:
            view = app.view
            if view.my_turn:
                playable = [i for i, ok in enumerate(view.playable) if ok]
                await app.seat.move(view.discards[playable[0]] if playable else view.draw)
                await until(pilot, lambda: moved(app, view), "the move")
            else:
                await pilot.pause(0.01)
        await until(pilot, lambda: app.view.rematch_offered, "the offer")
        assert sum(isinstance(s, GameOverScreen) for s in app.screen_stack) == 1
        assert "Computer wants a rematch" in text_of(app.screen, "#offer")
        await pilot.press("n")
        await until(pilot, lambda: app.view.number == 2 and app.view.playing, "game 2")
        assert isinstance(app.screen, TableScreen)


@pytest.mark.parametrize("size, scale", [((80, 24), Scale.SMALL), ((100, 34), Scale.LARGE), ((120, 40), Scale.HUGE)])
async def test_cards_grow_when_the_terminal_has_room(size, scale):
    app = discard_table()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen) and table.has_class("-large") is (scale >= Scale.LARGE)
        assert table.has_class("-huge") is (scale is Scale.HUGE)
        rows = text_of(table, HandView).splitlines()
        width, height = card_size(scale)
        assert "╔" + "═" * (width - 2) + "╗" in "".join(rows)  # a double frame: playable
        assert len(rows) == height + 1  # the cursor card is lifted by one row
        hand = table.query_one(HandView)  # in the middle of the board, and a click finds the card under it
        left = (hand.size.width - len(rows[0])) // 2
        assert left >= 10 and hand.render_line(0).text == " " * left + rows[0] + " " * (hand.size.width - left - len(rows[0]))
        await pilot.click(HandView, offset=(left + 2 * (width + 1) + 1, height))
        assert app.intents[-1].move == app.view.discards[2]  # the third card, J♦
        await pilot.resize_terminal(*((120, 40) if scale is Scale.SMALL else (80, 24)))
        await until(pilot, lambda: table.has_class("-large") is (scale is Scale.SMALL), "the layout to follow the resize")


async def test_damaged_store_of_the_computer_game_is_named(data_dir):
    data_dir.mkdir()
    (data_dir / "computer-relay.sqlite3").write_bytes(b"this is not an SQLite database" * 100)
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        problem = text_of(app.screen, "#problem")
        assert "computer-relay.sqlite3 are unreadable" in problem and "move that file away" in problem


async def test_a_second_copy_against_the_computer_is_refused(data_dir):
    from discard_tui import saves
    from discard_tui.session import hold_lock

    data_dir.mkdir()
    held = hold_lock(data_dir / "computer-relay.lock")  # as the first copy holds it
    try:
        app = computer_game()
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            assert "another discard-tui is already running this game" in text_of(app.screen, "#problem")
            seat = saves.new_seat("local", app.config.room, "tester", "t" * 32, b"\1" * 32, "short")
            saves.save(seat_dir(), seat)  # the other copy's game
            await pilot.press("q")
        assert saves.load(seat_dir(), "local", app.config.room, "tester") is not None  # left alone
    finally:
        held.close()


async def test_status_bar_says_reconnecting_disconnected_and_how_long_we_wait():
    import dataclasses
    import time

    from tabletop.ledger import Link

    app = discard_table()
    async with app.run_test(size=(80, 24)):
        table, view = app.table, app.view
        cases = [
            (dict(link=Link.RECONNECTING), "Reconnecting…"),
            (dict(present=(True, False), left_at=(None, time.time() - 150)), "Computer left 2 min ago"),
            (dict(my_turn=False, waiting_since=time.monotonic() - 42), "waiting for Computer for 4"),
        ]
        for changes, says in cases:
            table.update(dataclasses.replace(view, **changes))  # what the engine's next change would show
            assert says in text_of(table, StatusBar), (changes, text_of(table, StatusBar))


HOSTILE_NAMES = ["[/]bo", "[AFK] bo", "[@click=app.quit]x[/]", "[b]bo"]


async def test_hostile_names_are_shown_literally_and_never_act():
    """Names come from the other side: never markup, never an action, never a crash."""
    app = discard_table()
    async with app.run_test(size=(100, 30)) as pilot:
        for name in HOSTILE_NAMES:
            app.show(names=("tester", name), my_turn=False)
            await pilot.pause()
            assert text_of(app.screen, "#opponent-label").startswith(f"{name}: ")
            assert f"{name}'s turn" in text_of(app.screen, StatusBar)
            await pilot.click("#opponent-label")  # a planted [@click=…] would run here
            await pilot.pause()
            assert isinstance(app.screen, TableScreen) and app.return_code is None


async def test_a_hostile_name_through_a_relay_is_shown_literally_and_the_room_stays_playable(relay_url):
    """The name that would quit the app if it were markup, sent by the other seat's hello."""
    import asyncio

    from discard_tui import saves
    from games.discard.strategy import simple
    from tabletop.groups import DEFAULT_GROUP
    from tabletop.table import Wish

    name = "[@click=app.quit]x[/]"
    opponent, _ = await saves.resume_or_join(seat_dir(), relay_url, "hostile", Wish(name, "discard", 2, {"deck": "short"}, DEFAULT_GROUP),
                                             autoplay=simple(1))
    runner = asyncio.create_task(opponent.run())
    app = DiscardApp(PlayConfig(relay=relay_url, room="hostile", name="tester", options={"deck": "short"}), terminal_profile())
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: my_turn_or_over(app), "my turn")
            assert text_of(app.screen, "#opponent-label").startswith(f"{name}: ")
            await pilot.click("#opponent-label")  # a planted [@click=…] would run here
            await pilot.pause()
            assert isinstance(app.screen, TableScreen) and app.return_code is None
            view = app.view
            await pilot.press("d")
            await until(pilot, lambda: moved(app, view), "my draw to land")
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await opponent.ledger.close()


async def test_a_watcher_follows_a_game_through_a_real_relay_read_only_and_the_players_count_it(players, relay_url,
                                                                                               eventually):
    """discard-tui --watch on a real relay (protocol 1.3): the watcher's table takes the room's game from the ledger,
    shows it read-only (the footer says so, no move key), and both players' tables count one watcher, then none; a
    player who finds the room full is offered w to watch its game instead."""
    pair = await players("watched", [None, None], game="rps")  # nobody throws: the game waits, under way
    app = DiscardApp(PlayConfig(relay=relay_url, room="watched", name="zed", watch=True, bell=False),
                     terminal_profile())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.view is not None
                    and app.view.phase is Phase.PLAYING and app.screen.query(StatusBar)
                    and app.screen.query_one(StatusBar).hint == WATCHING, "the watcher's table of the room's game")
        assert app.config.game == "rps" and app.view.watcher and app.view.watching == 1
        assert app.session is not None and app.session.invites == []  # a watcher invites nobody
        shown = {key for key, active in app.screen.active_bindings.items()
                 if active.binding.show and app.screen.check_action(active.binding.action.split("(")[0], ()) is True}
        assert "w" in shown and not shown & {"r", "p", "s"}, shown
        await eventually(lambda: all(seat.table.watching == 1 for seat in pair.seats), "the players count zed")
        await pilot.press("q")  # nothing to keep: a watcher leaves at once
        await until(pilot, lambda: not app.is_running or app.return_code is not None, "leaving")
    await eventually(lambda: all(seat.table.watching == 0 for seat in pair.seats), "zed gone")
    late = DiscardApp(PlayConfig(relay=relay_url, room="watched", name="cy", game="rps"), terminal_profile())
    async with late.run_test(size=(80, 24)) as pilot:  # the room is full: its game is offered to watch instead
        await until(pilot, lambda: isinstance(late.screen, ProblemScreen), "the full room")
        assert "already has 2 players" in late.screen.problem and late.screen.check_action("watch_instead", ())
        await pilot.press("w")
        await until(pilot, lambda: late.view is not None and late.view.watcher and late.view.watching == 1,
                    "watching the full room's game")


# -- the table with any hand: views fed to the screen, as the engine's next change would -----------------

FULL = FULL_DECK


async def show(pilot, app, **changes):
    """Make the app's view ``changes`` away from the real one (the computer waits while it is my turn)."""
    app.view = dataclasses.replace(app.view, **changes)
    await pilot.pause()


def big_hand(count, top=FULL[0]):
    hand = tuple(FULL[i % 52] for i in range(count))
    return dict(hand=hand, playable=tuple(matches(card, top) for card in hand), discard_top=top,
                opponent_hand=count, my_turn=True, phase=Phase.PLAYING)


async def test_every_card_of_a_big_hand_shows_its_rank_and_suit_and_nothing_wraps():
    """Hands of 12, 17, 25 and 40 cards at every size."""
    app = TableHarness(DiscardTable(30), seat_view(DiscardScreenView, **big_hand(12)))
    async with app.run_test(size=(80, 24)) as pilot:
        for size in [(60, 20), (80, 24), (120, 40), (200, 50)]:  # a resize takes longer than a new hand
            await pilot.resize_terminal(*size)
            for count in (12, 17, 25, 40):
                app.table.update(seat_view(DiscardScreenView, **big_hand(count)))
                app.screen.query_one(HandView).cursor = count // 2
                await pilot.pause()
                assert_every_card_shows(app)


def assert_every_card_shows(app):
    """Within the hand's box; as chips every card written out, overlapped each slice shows "│10" and "│ ♥"."""
    from discard_tui.widgets import CHIP, OpponentHand, min_step

    hand = app.screen.query_one(HandView)
    lines = hand.render().plain.splitlines()
    assert len(lines) <= hand.size.height and all(len(line) <= hand.size.width for line in lines), lines
    fitted = hand.fitted_fan()
    if fitted is None:
        text = hand.render().plain
        assert all(f"{card.rank}{card.suit}".rjust(CHIP - 1) in text for card in hand.cards)
    else:  # and the chosen card is whole
        scale, advances = fitted
        assert min(advances) >= min_step(scale) and advances[hand.cursor] >= card_size(scale)[0]
        assert sum(advances) <= hand.size.width
    backs = app.screen.query_one("#opponent", OpponentHand)
    assert all(len(line) <= backs.size.width for line in backs.render().plain.splitlines())


async def test_playable_cards_and_the_cursor_are_marked_without_colour(monkeypatch):
    """NO_COLOR=1 and colour-blind players: a double frame or an underline, a lift or reverse video."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = discard_table(**big_hand(5, top=FULL[8]))  # 4♠: the 2♠ and the 4♠ … match
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        hand = app.screen.query_one(HandView)
        rows = hand.render().plain.splitlines()
        tops = "".join(rows[:2])
        assert tops.count("╔") == sum(hand.playable) and tops.count("┌") == len(hand.cards) - sum(hand.playable)
        app.show(**big_hand(40, top=FULL[8]))
        await pilot.pause()
        text = hand.render()
        assert hand.layout_advances() is None  # chips
        styles = [str(span.style) for span in text.spans]
        assert sum("underline" in style for style in styles) == sum(hand.playable)
        assert sum("reverse" in style for style in styles) == 1  # the chosen card
        def reversed_in_status():
            return any("reverse" in str(span.style) for span in app.screen.query_one(StatusBar).render().spans)

        assert reversed_in_status()  # my turn; theirs is not reversed
        app.show(my_turn=False)
        await pilot.pause()
        assert not reversed_in_status()


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_the_status_bar_never_wraps_and_keeps_a_line_for_the_refusal(size):
    import time

    long = "Bartholomew-the-Magnificent-IV"
    app = discard_table(names=("x" * 32, long), present=(True, False), left_at=(None, time.time() - 3600),
                        last_move=f"{long} discarded 10♥")
    async with app.run_test(size=size) as pilot:
        status = app.screen.query_one(StatusBar)
        status.notice = "10♥ matches neither ♣ nor 9, and this sentence is long enough to need cutting at eighty"
        await pilot.pause()
        lines = status.render().plain.splitlines()
        assert len(lines) == 3 and all(len(line) <= size[0] for line in lines), lines
        assert lines[0].rstrip().endswith(" left 1 h ago") and "…" in lines[0]  # names cut, the score whole
        assert " 0 – 0 " in lines[0] and " · game 1 " in lines[0] and lines[0].count(long[:5]) == 2, lines[0]
        assert "Your turn" in lines[1] and f"{long} discarded 10♥"[:10] in lines[1]
        assert lines[2].startswith(" 10♥ matches neither") and lines[2].rstrip().endswith("…")  # after a whole word
        app.show(names=("tester", "Computer"), last_move="Computer showed J♥ 3♣: one pair, Twos, King, Jack "
                 "kickers. Hand 1 on 8♣ 7♥ 4♣ 2♣ Q♥: Computer won 40 with one pair")  # fits no way: cut at its end
        await pilot.pause()
        assert "  Computer showed J♥ 3♣" in status.render().plain.splitlines()[1]  # a short name is never cut


async def test_the_status_bar_says_what_the_other_player_just_did_and_whose_turn_it_is():
    """My discard (Enter on the card lifted: the first I can play) and the computer's answer, on the app's game
    played on the in-memory ledger (tests/pilot.py)."""
    room = offline_room(computer_config(seed=3, seeds=(b"\3" * 32, b"\4" * 32)))
    room.run(until=lambda: room.tables[-1].view().my_turn and any(room.tables[-1].view().board.playable))
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        moves = app.view.moves
        assert await play_key(pilot, "enter") == "discard"
        view = app.table.view
        assert view.my_turn and view.moves >= moves + 2, "the computer answered"
        line = text_of(app.screen, StatusBar).splitlines()[1]
        assert "Your turn" in line and ("Computer discarded" in line or "Computer drew a card" in line), line
        app.show(my_turn=False)
        assert "Computer's turn" in text_of(app.screen, StatusBar).splitlines()[1]


@pytest.mark.parametrize("key", ["enter", "space", "d"])
async def test_every_refused_key_says_why(key):
    app = discard_table(my_turn=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(key)
        assert app.screen.query_one(StatusBar).notice == "it is Computer's turn"
        if key != "d":
            app.show(my_turn=True, playable=(False,) * len(app.view.hand), discard_top=FULL[0])
            await pilot.press(key)
            assert app.screen.query_one(StatusBar).notice == "nothing in your hand matches 2♠: press d to draw"
        await pilot.press("n")
        assert app.screen.query_one(StatusBar).notice == "a rematch can start once this game is over"
        assert app.intents == []  # nothing was asked of the game


async def test_a_terminal_too_small_for_the_table_says_how_big_it_must_be():
    app = discard_table()
    async with app.run_test(size=(50, 16)) as pilot:
        table = app.screen
        assert table.query_one("#too-small").display and not table.query_one("#table").display
        assert "at least 60×20" in text_of(table, "#too-small") and "50×16" in text_of(table, "#too-small")
        for key in ("d", "enter", "space", "n", "x"):  # no key acts on a table the player cannot see
            await pilot.press(key)
        await pilot.pause()
        assert app.intents == [] and not table.query_one(StatusBar).notice
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert not table.query_one("#too-small").display and table.query_one("#table").display
        await pilot.press("d")
        assert app.asked() == ["draw"]  # once the table shows


async def test_the_log_takes_focus_scrolls_and_rewraps():
    from discard_tui.table_screen import MoveLog

    app = discard_table(log=tuple(f"line {i}: {'word ' * 12}" for i in range(60)))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table.query_one(MoveLog).lines_shown, "the log written")
        log = app.screen.query_one(MoveLog)
        await pilot.press("tab")
        assert app.focused is log
        await pilot.press("enter", "d")  # the log has the keys: neither discards nor draws
        await pilot.pause()
        assert app.intents == []
        await pilot.press("end")
        bottom = log.scroll_y
        await pilot.press("pageup")
        assert log.scroll_y < bottom  # scrolled by keyboard
        width = log.scrollable_content_region.width
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert log.scrollable_content_region.width > width
        assert max(strip.cell_length for strip in log.lines) > width  # the lines were laid out again


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_the_log_breaks_lines_between_words_and_a_long_word_after_a_hyphen(size):
    """A log of 20-odd columns wrapped by Rich cut "rock-paper-scissors" mid-word ("rock-paper-sciss" / "ors")."""
    import re

    from discard_tui.table_screen import MoveLog

    said = ("— game 1 —", "game 1: rock-paper-scissors, 2 players, 24 cards, secp256k1 keys",
            "shuffling; Computer starts", "Computer discarded 10♥")
    app = discard_table(log=said)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.table.query_one(MoveLog).lines_shown, "the log written")
        log = app.screen.query_one(MoveLog)
        shown = [strip.text.rstrip() for strip in log.lines]
        joined = re.sub(r"-\n", "-", "\n".join(shown)).replace("\n", " ")  # a line broken after "-" goes on
        assert joined == " ".join(said), shown  # so every other break fell between two words
        assert max(strip.cell_length for strip in log.lines) <= log.scrollable_content_region.width


async def test_one_card_is_one_card():
    app = discard_table(opponent_hand=1, hand=(TOP,), playable=(True,))
    async with app.run_test(size=(80, 24)):
        assert text_of(app.screen, "#opponent-label") == "Computer: 1 card"
        assert text_of(app.screen, "#hand-label") == "Your hand: 1 card"


async def test_every_way_to_quit_asks_first_mid_game():
    from discard_tui.quit_screen import ConfirmQuit

    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        for way in ("ctrl+q", "q", "palette"):
            if way == "palette":
                [quit_command] = [c for c in app.get_system_commands(app.screen) if c.title.startswith("Quit")]
                await quit_command.callback()
            else:
                await pilot.press(way)
            await until(pilot, lambda: isinstance(app.screen, ConfirmQuit), f"the question after {way}")
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, TableScreen), f"the table after {way}")
            assert app.return_code is None


# -- rooms through a relay: a person on the other side (an engine in this process) -------------------------


class Opponent:
    """Another player in the room, through the real relay: an engine with a simple strategy."""

    async def join(self, url, room, name="bo", deck="short", **options):
        import asyncio

        from discard_tui import saves
        from games.discard.strategy import simple
        from tabletop.groups import DEFAULT_GROUP
        from tabletop.table import Wish

        self.session, _ = await saves.resume_or_join(seat_dir(), url, room, Wish(name, "discard", 2, {"deck": deck}, DEFAULT_GROUP),
                                                     autoplay=simple(1), **options)
        self.task = asyncio.create_task(self.session.run())
        return self.session

    async def leave(self):
        import asyncio

        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.session.ledger.close()


@pytest.fixture
async def opponent():
    other = Opponent()
    yield other
    if hasattr(other, "task"):
        await other.leave()


def through(url, room="table", name="tester", deck="short", **options) -> DiscardApp:
    return DiscardApp(PlayConfig(relay=url, room=room, name=name, options={"deck": deck}, **options), terminal_profile())


async def test_both_players_see_the_same_safety_number_on_the_table_and_in_help(relay_url, opponent):
    from tabletop.table import safety_number

    bo = await opponent.join(relay_url, "safety")
    app = through(relay_url, "safety")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        number = app.view.safety
        assert number == bo.table.view().safety and len(number.split()) == 6
        assert all(len(group) == 5 and group.isdigit() for group in number.split())
        groups = number.split()
        assert text_of(app.screen, "#safety").splitlines()[1:] == [" ".join(groups[:3]), " ".join(groups[3:])]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert f"Safety number  {number}" in str(app.screen.query_one("Static").content)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
    keys = ("a" * 64, "b" * 64)
    assert safety_number("r", 1, keys) == safety_number("r", 1, keys)  # deterministic
    assert len({safety_number("r", 1, keys), safety_number("s", 1, keys), safety_number("r", 2, keys),
                safety_number("r", 1, keys[::-1])}) == 4  # room, game and seats all count


async def test_a_table_reached_from_the_lobby_keeps_its_three_status_lines_and_says_why_a_key_is_refused(
        relay_url, opponent):
    """The lobby's styles (its own #status and #where) stay on the lobby: once it has been shown, the table's
    status bar is still the top three rows, the refusal on the third."""
    from textual.geometry import Region
    from textual.widgets import Select

    from discard_tui.lobby_screen import CreateRoom, LobbyScreen

    app = through(relay_url, room="")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CreateRoom), "the dialog")
        app.screen.query_one("#discard-deck", Select).value = "short"
        await pilot.click("#create-room")
        await until(pilot, lambda: app.seat is not None, "my seat in the new room")
        await opponent.join(relay_url, app.config.room)
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.view.playing,
                    "the deal")
        await pilot.press("n")
        status = app.screen.query_one(StatusBar)
        assert status.region == Region(0, 0, 80, 3)
        assert text_of(app.screen, StatusBar).splitlines()[2].rstrip() == " a rematch can start once this game is over"


async def test_the_deck_the_room_chose_over_mine_is_said(relay_url, opponent):
    await opponent.join(relay_url, "decks", deck="short")
    await until_ledger(opponent.session, 1)
    app = through(relay_url, "decks", deck="full")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.playing, "the deal")
        await show(pilot, app, my_turn=False)
        assert "bo opened this room with the 24-card deck" in text_of(app.screen, StatusBar)


async def until_ledger(session, posts):
    """Wait until ``session``'s own first ``posts`` posts are in the ledger."""
    import asyncio

    for _ in range(3000):
        if sum(e.kind == "post" and e.seat == session.table.me for e in session.events) >= posts:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the opponent never posted")


async def test_an_opponent_who_left_is_shown_with_how_long_and_leaving_is_offered(relay_url, opponent):
    await opponent.join(relay_url, "gone")
    app = through(relay_url, "gone", leave_grace=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        assert not app.screen.check_action("leave", ())
        await opponent.leave()
        await until(pilot, lambda: not app.view.opponent_present, "bo's leave")
        app._tick()
        await pilot.pause()
        status = text_of(app.screen, StatusBar)
        assert "bo left just now" in status and "x leaves; the same command comes back" in status
        await pilot.press("x")
        await pilot.pause()
    assert app.return_code == 0
    from discard_tui import saves

    assert saves.load(seat_dir(), relay_url, "gone", "tester") is not None  # the game stays resumable


async def test_a_hosts_relay_that_is_gone_is_said_leaving_is_offered_and_keeps_the_game_so_far(opponent):
    """Leaving (x) mid-game a relay out of reach, stopped for good maybe (and the game with it, without --store):
    the transcript so far is written, and named on the way out."""
    from discard_tui import cli, verify
    from relay.server import Limits, Relay

    relay = Relay(limits=Limits())
    server = await relay.serve("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        await opponent.join(url, "hosted")
        app = through(url, "hosted", leave_grace=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: my_turn_or_over(app), "my turn")
            server.close()  # the host quits: its relay is gone
            await until(pilot, lambda: "Reconnecting" in text_of(app.screen, StatusBar), "the reconnecting link")
            app._tick()
            await pilot.pause()
            assert "The relay has not answered" in text_of(app.screen, StatusBar)
            assert "if bo hosted it, they have quit" in text_of(app.screen, StatusBar)
            assert app.screen.check_action("leave", ())
            await pilot.press("x")  # gone for good, maybe, and the game so far with it: it is kept, and named
        assert app.left_transcript is not None
        status, [line] = verify.verify(pathlib.Path(app.left_transcript))
        assert status == verify.UNFINISHED and "everything up to there checked out" in line, line
        assert "The relay was out of reach: the game so far is kept, for discard-verify: " + app.left_transcript in \
            cli.leaving_lines(None, None, app.config, app.left_transcript)
    finally:
        server.close()
        await relay.close()


async def test_a_relay_that_lost_the_game_says_so_keeps_the_transcript_and_r_starts_a_new_one(relay_server, opponent):
    """The relay forgot the room mid-game (restarted without --store): the game so far was nowhere any more, and
    the problem screen showed no transcript. Now it is written and shown (t copies its path), and discard-verify
    calls it unfinished with everything up to there checked."""
    from discard_tui import saves, verify

    relay, url = relay_server
    await opponent.join(url, "lost")
    app = through(url, "lost")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        relay.ledger.rooms.clear()  # what a restart without --store leaves: no room, no token...
        drop_connections(relay, "lost")  # ...and every connection cut
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        assert "The relay lost this game" in text_of(app.screen, "#problem")
        assert "r to start a new game in the same room" in text_of(app.screen, "#retry")
        transcript = app.view.transcript
        assert transcript is not None and text_of(app.screen, "#path").replace("\n", "") == transcript
        status, [line] = verify.verify(pathlib.Path(transcript))
        assert status == verify.UNFINISHED and "everything up to there checked out" in line, line
        await pilot.press("t")
        await until(pilot, lambda: text_of(app.screen, "#transcript").startswith("Transcript: copied"), "t copied")
        assert saves.load(seat_dir(), url, "lost", "tester") is None  # not in --games any more
        await opponent.leave()
        await pilot.press("r")
        await until(pilot, lambda: app.view is not None and app.view.number == 1 and
                    app.view.phase is Phase.WAITING and saves.load(seat_dir(), url, "lost", "tester") is not None,
                    "a new seat in the room")



async def test_a_relay_failure_mid_game_keeps_the_transcript_and_q_names_it_on_the_way_out(relay_url, opponent):
    """Any other failure that ends the game (here the seat taken over by another window with its token) showed
    the relay's words and no transcript: the game so far is now kept, shown (the path, t copies it), and named in
    the line q leaves on the terminal."""
    import json

    from websockets.asyncio.client import connect

    from discard_tui.problem_screen import CANNOT_PLAY

    await opponent.join(relay_url, "taken")
    app = through(relay_url, "taken")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        token = app.seat.ledger.token
        other = await connect(relay_url)  # the same seat, from elsewhere: the relay closes ours
        try:
            await other.send(json.dumps({"type": "join", "room": "taken", "name": "tester", "token": token}))
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        finally:
            other.transport.abort()  # a close handshake here waited 10 s for the relay (not looked into)
        assert "taken over by another window" in text_of(app.screen, "#problem")
        transcript = app.view.transcript
        assert transcript is not None and text_of(app.screen, "#path").replace("\n", "") == transcript
        assert app.screen.check_action("download", ())
        await pilot.press("q")
    assert app.return_code == CANNOT_PLAY and app.cannot_play.endswith(f" (transcript: {transcript})")


async def test_a_resume_the_relay_refuses_for_its_memory_says_so_in_one_line_keeps_the_transcript_and_r_resumes(
        relay_server, opponent):
    """Mid-game the connection drops and the relay, its memory for our address's rooms full, refuses to seat us
    again (store_full): the screen said "the relay refused to seat us in room …: the relay's memory for your
    address's rooms is full (64 bytes)" and no transcript was written. Now it says it as a join refused so does,
    the transcript of the game so far is written and shown (t copies its path), the seat is kept, and r, once the
    relay has room again, takes it back (where a tick of the clock before the new attempt's first view showed the
    failure again, for good)."""
    import json
    from pathlib import Path

    from discard_tui import saves
    from discard_tui.app import STORE_FULL

    relay, url = relay_server
    await opponent.join(url, "crowded")
    app = through(url, "crowded")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        share, relay.ledger.address_bytes = relay.ledger.address_bytes, 64  # no room left for our address's rooms
        drop_connections(relay, "crowded")
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        assert text_of(app.screen, "#problem") == STORE_FULL
        transcript = app.view.transcript
        assert transcript is not None and json.loads(Path(transcript).read_text())["events"]
        assert text_of(app.screen, "#path").replace("\n", "") == transcript
        await pilot.press("t")
        await until(pilot, lambda: text_of(app.screen, "#transcript").startswith("Transcript: copied"), "t copied")
        assert text_of(app.screen, "#retry") == "r tries again: your seat is kept. q quits."
        assert saves.load(seat_dir(), url, "crowded", "tester") is not None
        relay.ledger.address_bytes = share
        app.action_retry()  # r, and at once the clock's tick, before the new attempt's first view: it showed the
        app._tick()  # last attempt's failure again
        await until(pilot, lambda: isinstance(app.screen, TableScreen) and app.view is not None
                    and app.view.failure is None and not app.view.replaying, "the table again")


async def test_wss_at_a_plain_relay_says_to_use_ws(relay_url):
    plain = relay_url.removeprefix("ws://")
    app = through(f"wss://{plain}", "tls")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        assert f"If that relay has no TLS (discard-relay itself has none), use ws://{plain}" in \
            text_of(app.screen, "#problem")


async def test_the_hosts_invite_uses_an_address_a_friend_can_reach():
    import re

    from discard_tui import invite
    from discard_tui.connecting_screen import ConnectingScreen

    reachable = invite.interface_addresses()
    if not reachable:
        pytest.skip("this machine has no network interface but loopback")
    app = DiscardApp(PlayConfig(room="table-abc", name="ana", host="0.0.0.0", port=0, game="holdem", seats=2),
                     terminal_profile())
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConnectingScreen) and app.screen.query("#invite"),
                    "the invite")
        command = text_of(app.screen, "#invite")
        # the room's game and seats: a friend whose own last game was a three-seat Hold'em is not refused
        match = re.fullmatch(r"uv run discard-tui --relay ws://([\d.]+):(\d+) --room table-abc --game holdem "
                             r"--seats 2", command)
        assert match and match.group(1) in reachable and not match.group(1).startswith("127."), command
        await pilot.press("escape")


async def test_the_saved_seat_says_how_far_the_room_got(relay_url):
    from discard_tui import saves

    app = through(relay_url, "alone")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.phase is Phase.WAITING, "waiting")
        assert saves.load(seat_dir(), relay_url, "alone", "tester").stage == "waiting"
        await pilot.press("escape")  # nobody came: nothing to go back to
    assert saves.load(seat_dir(), relay_url, "alone", "tester") is None
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        assert saves.load(seat_dir(), "local", app.config.room, "tester").stage == "playing"
        assert [seat.room for seat in saves.unfinished(seat_dir())] == [app.config.room]


# -- the start screen, and a browser visitor's profile ------------------------------------------------------


def visitor(tmp_path, **config) -> DiscardApp:
    """What discard-web runs for a visitor: their own directory, the start screen first."""
    from discard_tui.profile import visitor_profile

    return DiscardApp(PlayConfig(name="guest", room="", think_time=0, **config), visitor_profile(tmp_path / "visit"),
                      pick=True)


async def test_the_start_screen_says_what_is_wrong_in_one_line_and_keeps_what_was_typed(tmp_path, relay_url):
    from textual.widgets import Input, Select

    from discard_tui.start import StartScreen

    app = visitor(tmp_path, relay=relay_url)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        screen = app.screen
        screen.query_one("#name", Input).value = ""
        await pilot.press("enter")
        assert text_of(screen, "#problem") == "Name: use 1 to 32 printable characters"
        screen.query_one("#name", Input).value = "[b]ana"
        screen.query_one("#opponent", Select).value = "person"
        await pilot.pause()
        screen.query_one("#room", Input).value = "no spaces"
        await pilot.press("enter")
        assert text_of(screen, "#problem") == "Room: use 1 to 64 of A-Z a-z 0-9 . _ -"
        assert isinstance(app.screen, StartScreen) and screen.query_one("#name", Input).value == "[b]ana"
        assert f"--relay {relay_url} --room 'no spaces'" in text_of(screen, "#invite")
        screen.query_one("#room", Input).value = "picked"
        await pilot.click("#play")
        await until(pilot, lambda: app.view is not None and app.view.phase is Phase.WAITING, "the room on the relay")
        assert (app.config.relay, app.config.room, app.config.name) == (relay_url, "picked", "[b]ana")


async def test_a_visitor_plays_the_computer_in_memory_and_nothing_is_kept(tmp_path):
    from discard_tui.quit_screen import ConfirmQuit

    app = visitor(tmp_path, options={"deck": "short"})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "whoever runs it, and the network to it, can see them" in text_of(app.screen, "#trust")
        await pilot.press("enter")  # the name offered, the computer: the only choice without a relay
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        assert app.where() == "Playing the computer on the server."  # the connecting screen's line, gone by now
        assert app.config.against_computer and app.config.room.startswith("computer-")
        assert not list((tmp_path / "visit").glob("*.sqlite3"))  # the embedded relay keeps its ledger in memory
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmQuit), "the question")
        assert "Nothing is kept" in str(app.screen.query("Label").last().render())
        await pilot.press("y")


async def test_a_visitor_cannot_host_a_relay(tmp_path):
    from discard_tui.profile import visitor_profile

    app = DiscardApp(PlayConfig(name="guest", room="r", host="0.0.0.0", port=0), visitor_profile(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        assert "a browser visitor cannot host a relay" in text_of(app.screen, "#problem")
        assert app.session is not None and app.session.invites == [] and app.seat is None  # nothing started


async def test_a_visitor_downloads_the_transcript_instead_of_reading_a_server_path(tmp_path):
    import json

    from discard_tui.profile import Profile

    app = DiscardApp(PlayConfig(name="tester", options={"deck": "short"}, think_time=0),
                     Profile(tmp_path / "visit", "tester", resumes=False, browser=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        await app.computers[0].ledger.post({"game": 1, "n": 99, "msg": {"type": "teleport"}, "sig": "00" * 64})
        await until(pilot, lambda: type(app.screen).__name__ == "ViolationScreen", "the violation dialog")
        assert text_of(app.screen, "#transcript") == "t downloads the transcript of every message."
        await pilot.press("t")  # in a browser: a download; headless, Textual saves it where a terminal would
        downloaded = tmp_path / "visit" / "downloads" / app.seat.transcript_path.name
        await until(pilot, downloaded.exists, "the delivered transcript")
        await until(pilot, lambda: downloaded.read_bytes() == app.seat.transcript_path.read_bytes(), "all of it")
        assert "teleport" in json.loads(downloaded.read_text())["reason"]


def test_a_crash_in_a_browser_goes_to_the_servers_log(capfd):
    from discard_tui.app import crash_report

    try:
        raise ValueError("boom")
    except ValueError as error:
        line = crash_report(error, None)
    assert line == "crashed (ValueError: boom)"
    assert "Traceback" in capfd.readouterr().err


def test_a_text_is_shown_again_only_when_it_would_look_different():
    """show_text skips an update (a new layout) only for what looks the same: a Rich text in another style does not."""
    from rich.text import Text

    assert same_text("Board", "Board") and not same_text("Board", "Board ")
    assert same_text(Text("bo", "bold"), Text("bo", "bold"))
    assert not same_text(Text("bo", "bold"), Text("bo")) and not same_text("bo", Text("bo"))
    assert not same_text(Text.assemble(("b", "red"), "o"), Text("bo"))


def test_leaving_is_offered_without_promising_a_way_back_when_nothing_resumes():
    import dataclasses
    import time

    from discard_tui.table_screen import troubles
    from pilot import seat_view

    view = seat_view(present=(True, False), my_turn=True, left_at=(None, time.time() - 60))
    assert troubles(view, 30)[0].endswith("x leaves; the same command comes back to this game.")
    assert troubles(dataclasses.replace(view), 30, resumes=False) == ("bo left 1 min ago: x leaves.",)
    long = dataclasses.replace(view, names=("ana", "Anastasia-Philippa_Łopez-Zavala"))  # at 60 columns: the name
    assert troubles(long, 30)[-1] == "Anast… left 1 min ago: x leaves."  # cut; the way back is printed on leaving


@pytest.mark.parametrize("name", ["bo", "Anastasia-Philippa_Łopez-Zavala"])
async def test_a_player_who_left_and_sits_out_is_still_explained_once_leaving_is_offered(name):
    """Past the grace period the hint said "bo left 1 min ago: x leaves; the same command comes back to this game."
    and no more "bo's time ran out: 5 s for each step owed until bo acts", while the clock beside bo's turn started
    again from 0:05: at every width, with a long name cut, the line says both that bo left and the 5 s a step."""
    import time

    from tabletop.clock import Clock, Timers
    from discard_tui.table_screen import troubles

    timers = Timers(Clock(move_ms=20_000, bank_ms=60_000), seats=2)
    timers.update({1}, 0)
    timers.judge(1, 80_000)  # bo's time ran out: its default move was made for it
    timers.update({1}, 81_000)  # its next turn: it sits out
    left = time.time() - 90
    fields = dict(names=("ana", name), present=(True, False), left_at=(None, left), my_turn=False,
                  clock=timers.view(), relay_offset=0.0)
    whole = f"{name} left 1 min ago; {name}'s time ran out: 5 s for each step owed until {name} acts. x leaves; " \
            "the same command comes back to this game."
    assert troubles(discard_table(**fields).view, 30, now=83.0, wall=left + 90)[0] == whole
    app = discard_table(**fields)
    async with app.run_test(size=(200, 50)) as pilot:
        app.table.update(app.view, now=83.0, wall=left + 90)
        for size in ((200, 50), (120, 40), (80, 24), (60, 20)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            hint = app.table.query_one(StatusBar).render().plain.splitlines()[2].strip()
            assert " left 1 min ago" in hint and "5 s" in hint and "x leaves" in hint and not hint.endswith("…"), \
                (size, hint)
            turn = app.table.query_one(StatusBar).render().plain.splitlines()[1]
            assert "sitting out: step 1, 0:03" in turn, turn



async def test_a_refused_key_s_notice_gives_way_to_the_hint_of_a_stalled_table():
    """A key refused on a table that waits on a player who left and sits out said "it is Anastasia…'s turn" on the
    hint's line until something happened, which on a stalled table is never: the notice stands a few seconds by
    the app's clock (its ticks update the table), then the hint is back."""
    import time

    from tabletop.clock import Clock, Timers
    from discard_tui.table_screen import NOTICE_STANDS

    name = "Anastasia-Philippa_Łopez-Zavala"
    timers = Timers(Clock(move_ms=20_000, bank_ms=60_000), seats=2)
    timers.update({1}, 0)
    timers.judge(1, 80_000)
    timers.update({1}, 81_000)  # bo sits out
    left = time.time() - 90
    app = discard_table(names=("ana", name), present=(True, False), left_at=(None, left), my_turn=False,
                        clock=timers.view(), relay_offset=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.table.update(app.view, now=83.0, wall=left + 90)
        await pilot.press("d")
        assert app.table.query_one(StatusBar).notice == f"it is {name}'s turn"
        for tick in (84.0, 83.0 + NOTICE_STANDS):  # the notice's time counts from the first tick that shows it
            app.table.update(app.view, now=tick, wall=left + 90)
            await pilot.pause()
            assert app.table.query_one(StatusBar).notice == f"it is {name}'s turn", tick
        app.table.update(app.view, now=84.0 + NOTICE_STANDS, wall=left + 90)
        await pilot.pause()
        hint = app.table.query_one(StatusBar).render().plain.splitlines()[2]
        assert " left 1 min ago" in hint and "x leaves" in hint and "turn" not in hint, hint

async def test_a_key_awaited_from_a_program_that_left_is_said_with_its_clock_until_the_leave_grace():
    """bo's program stopped while the game waits on its key, which is on the clock: the hint's line stayed blank
    until the leave grace (30 s), only the top bar saying "left just now". It says what the table waits for and
    that the clock runs, in the shorter forms at narrower widths (the names cut, then fewer words); past the grace,
    the way out says more."""
    import time

    from tabletop.clock import Clock, Timers
    from tabletop.values import Awaiting, Owed

    name = "Anastasia-Philippa_Łopez-Zavala"
    timers = Timers(Clock(move_ms=20_000, bank_ms=60_000), seats=2)
    timers.update({1}, 0)  # the key is owed from the relay's time 0
    left = time.time() - 5
    for width, shown in ((120, f"waiting for {name}'s key: its program left; the clock runs out in 1:15"),
                         (80, "waiting for Anastasia…'s key: its program left; the clock runs out in 1:15"),
                         (60, "waiting for Anastasia-Phili…'s key, 1:15 left")):
        app = discard_table(names=("ana", name), present=(True, False), left_at=(None, left), my_turn=False,
                            clock=timers.view(), relay_offset=0.0, awaited=(1,), owed=(Awaiting(1, Owed.CARD_KEY),))
        async with app.run_test(size=(width, 24)) as pilot:
            app.table.update(app.view, now=5.0, wall=left + 5)  # 5 s of the move's 20 spent, the bank whole
            await pilot.pause()
            status = app.table.query_one(StatusBar)
            assert status.hint == f"waiting for {name}'s key: its program left; the clock runs out in 1:15"
            assert status.render().plain.splitlines()[2].strip() == shown, width
            app.table.update(app.view, now=31.0, wall=left + 31)  # past the grace: the way out
            await pilot.pause()
            assert status.hint.startswith(f"{name} left") and "x leaves" in status.hint, status.hint


async def test_a_relay_gone_past_the_grace_keeps_the_way_out_on_the_line_beside_a_long_name():
    """The relay silent past the grace, its host (maybe) the other player, whose long name cut the line before
    "x leaves" (at 80 columns, and at 120 with the way back): the line has shorter forms, down to the way out."""
    from tabletop.ledger import Link

    name = "Anastasia-Philippa_Łopez-Zavala"
    for width, shown in ((120, f"The relay has not answered for 40 s; if {name} hosted it, they have quit. x leaves."),
                         (80, "The relay has not answered for 40 s. x leaves.")):
        app = discard_table(names=("ana", name), link=Link.RECONNECTING, link_since=0.0)
        async with app.run_test(size=(width, 24)) as pilot:
            app.table.update(app.view, now=40.0)
            await pilot.pause()
            assert app.table.query_one(StatusBar).render().plain.splitlines()[2].strip() == shown, width


async def test_my_turn_lifts_a_playable_card_and_the_keys_jump_and_go_round():
    app = discard_table()
    async with app.run_test(size=(80, 24)) as pilot:
        hand = app.screen.query_one(HandView)
        view = app.view
        hand.my_turn, hand.cursor = False, 0
        hand.playable = (False, False, True, False, False)
        hand.my_turn = True
        assert hand.cursor == 2  # the first card I can play is lifted: a quick Enter plays it
        hand.playable = view.playable
        last = len(view.hand) - 1
        for key, cursor in (("end", last), ("right", 0), ("left", last), ("home", 0), ("3", 2), ("9", 2)):
            await pilot.press(key)
            assert hand.cursor == cursor, (key, hand.cursor)
        hand.cards = ()  # as while the deck is shuffled: the keys find nothing to choose, and nothing breaks
        await pilot.press("end", "home", "right", "3")
        assert app.is_running and app.intents == []


async def test_a_big_terminal_centres_the_board_and_shift_l_gives_it_the_log_s_room():
    view = seat_view(DiscardScreenView, hand=FULL_DECK[:3], my_turn=True,
                     playable=(True, False, True), opponent_hand=3, draw_pile=40, discard_count=1)
    app = TableHarness(DiscardTable(30), view)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.table
        play, side, hand = screen.query_one("#play"), screen.query_one("#side"), screen.query_one(HandView)
        assert play.region.x > 10 and side.display  # the board keeps a table's width, in the middle
        assert 200 - side.region.right > 10  # the log beside it, not at the far edge
        assert 10 < hand.region.y and hand.region.bottom < 45  # its rows keep together, not pinned to the top
        await pilot.press("L")
        assert not side.display and screen.has_class("-no-log")
        await pilot.press("L")
        assert side.display


# -- the waiting room (issue 21 item 3) ------------------------------------------------------------------------


class WaitingRoom(App[None]):
    """The waiting room alone, with the app's styles and keys: ``invites`` as a session gives them."""

    CSS_PATH = TableHarness.CSS_PATH
    BINDINGS = DiscardApp.BINDINGS

    def __init__(self, invites: list[str], note: str = "") -> None:
        super().__init__()
        from discard_tui.connecting_screen import ConnectingScreen

        self.room = ConnectingScreen("Relay ws://[b]relay:1 · room r1", invites, note)

    async def on_mount(self) -> None:
        await self.push_screen(self.room)


HOSTED = ("uv run discard-tui --relay ws://192.168.100.200:65535 --room table-3fa2c1d0 --game holdem "
          "--seats 6")  # the longest IPv4 invite


@pytest.mark.parametrize("size", [(120, 30), (80, 24), (60, 20)])
async def test_the_waiting_room_says_who_sits_where_who_is_missing_and_what_a_friend_types(size):
    from textual.widgets import Footer

    from discard_tui.invite import shell_lines

    app = WaitingRoom([HOSTED])
    async with app.run_test(size=size) as pilot:
        room = app.room
        room.show_room(seat_view(phase=Phase.WAITING, me=0, names=("[b]ana" + "x" * 26, "bo", "opponent"),
                                 present=(True, True, False), named=(True, True, False)))
        await pilot.pause()
        assert text_of(room, "#seats").splitlines() == ["Seat 1  [b]ana" + "x" * 26 + " (you)", "Seat 2  bo",
                                                         "Seat 3  free"]
        assert text_of(room, "#waiting") == "1 more player needed"
        shown = text_of(room, "#invite").splitlines()
        width = room.query_one("#invite").content_region.width
        assert shown == shell_lines(HOSTED, width) and all(len(line) <= width for line in shown)
        if len(HOSTED) <= width:
            assert shown == [HOSTED]  # one line: a mouse copies it whole
        else:  # broken between words, each line but the last ending in " \\" (a shell takes it whole; c copies it)
            assert " ".join(line.removesuffix(" \\").strip() for line in shown) == HOSTED
        assert "Copy command" in [key.description for key in room.query_one(Footer).query("FooterKey")]
        await pilot.press("c")
        assert app.clipboard == HOSTED
        room.show_room(seat_view(phase=Phase.WAITING, me=1, names=("ana", "bo", "opponent"),
                                 present=(False, True, True), named=(True, True, False)))
        await pilot.pause()
        assert text_of(room, "#seats").splitlines() == ["Seat 1  ana (away)", "Seat 2  bo (you)",
                                                         "Seat 3  someone, joining…"]
        assert text_of(room, "#waiting") == "waiting for ana to come back"


async def test_a_waiting_room_with_no_command_offers_no_copy_key():
    from textual.widgets import Footer

    app = WaitingRoom([])
    async with app.run_test(size=(80, 24)) as pilot:
        app.room.show_room(seat_view(phase=Phase.WAITING, names=("ana", "bo", "cy"),
                                     present=(True, False, False), named=(True, False, False)))
        await pilot.pause()
        assert text_of(app.room, "#waiting") == "2 more players needed"
        assert "Copy command" not in [key.description for key in app.room.query_one(Footer).query("FooterKey")]


def test_a_command_breaks_only_between_words_and_a_loopback_relay_is_said():
    from discard_tui.invite import loopback_only, relay_command, shell_lines

    for width in range(10, 80):
        lines = shell_lines(HOSTED, width)
        assert [word for line in lines for word in line.removesuffix(" \\").split()] == HOSTED.split()
        assert all(len(line) <= width or " " not in line.removesuffix(" \\").strip() for line in lines)
        assert all(line.endswith(" \\") for line in lines[:-1])
    assert relay_command("ws://a:1,ws://b:2", "r.1", "holdem", 2) == ("uv run discard-tui --relay ws://a:1,ws://b:2 "
                                                                      "--room r.1 --game holdem --seats 2")
    assert loopback_only("ws://127.0.0.1:8777") and loopback_only("ws://localhost:1,ws://[::1]:2")
    assert not loopback_only("ws://127.0.0.1:1,ws://10.0.0.2:1") and not loopback_only("wss://relay.example:443")


# -- preferences (issue 21 item 5) --------------------------------------------------------------------------


async def test_the_theme_and_the_start_screens_choices_are_kept_for_next_time(data_dir):
    from textual.widgets import Input, Select

    from discard_tui.connecting_screen import ConnectingScreen
    from discard_tui.prefs import FILE, Prefs, load
    from discard_tui.start import StartScreen

    app = DiscardApp(PlayConfig(name="ana", room=""), terminal_profile(), pick=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        screen = app.screen
        assert screen.query_one("#speed", Select).display  # against the computer: its pace
        app.theme = "nord"  # as the command palette sets it
        screen.query_one("#name", Input).value = "cy"
        screen.query_one("#speed", Select).value = 1.5
        app.play = lambda: None  # the table is opened, but no game is started
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConnectingScreen), "the table")
        assert (app.config.name, app.config.think_time) == ("cy", 1.5)
    assert load(data_dir).prefs == Prefs(theme="nord", think=1.5, name="cy", game="discard")
    app = DiscardApp(PlayConfig(name="ana", room=""), terminal_profile(), pick=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        assert app.theme == "nord"
    (data_dir / FILE).write_text("{")
    app = DiscardApp(PlayConfig(name="ana", room=""), terminal_profile(), pick=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        assert [n.message for n in app._notifications][0].startswith("your preferences in ")
        assert app.theme == "textual-dark"


async def test_the_start_screen_offers_to_watch_a_game_in_a_room_named_there(data_dir):
    """With a relay on offer (discard-web --relay), Opponent "nobody: watch a game" asks for the room only, and Play
    opens a watcher's table of it (no seat, nothing listed)."""
    from textual.widgets import Input, Select

    from discard_tui.connecting_screen import ConnectingScreen
    from discard_tui.start import StartScreen

    app = DiscardApp(PlayConfig(name="ana", room="", relay="ws://relay.example:8765"), terminal_profile(), pick=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        screen = app.screen
        screen.query_one("#opponent", Select).value = "watch"
        await pilot.pause()
        assert screen.query_one("#room", Input).display and not screen.query_one("#public").display
        screen.query_one("#room", Input).value = "table-7"
        app.play = lambda: None  # the table is opened, but nothing is joined
        await pilot.click("#play")
        await until(pilot, lambda: isinstance(app.screen, ConnectingScreen), "the table")
        assert (app.config.watch, app.config.room, app.config.public) == (True, "table-7", False)
        assert text_of(app.screen, "#where") == "Watching, on relay ws://relay.example:8765 · room table-7"


# -- coming back after a crash: the lobby and the start screen offer the game -------------------------------


def own_rows(app) -> list[list[str]]:
    """The rows of my own unfinished games, as the lobby or the start screen lists them."""
    from textual.widgets import DataTable

    table = app.screen.query_one("#yours", DataTable)
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_after_a_crash_the_lobby_offers_the_game_and_enter_returns_to_it(relay_url, opponent):
    """A window closed mid-game without quitting (kill -9 leaves the same on disk: the seat file of a game under
    way); the same command, with no room, opens the lobby, which lists the game first; Enter goes back to it."""
    from discard_tui.lobby_screen import LobbyScreen

    await opponent.join(relay_url, "crashed", name="ana")
    app = through(relay_url, "crashed", name="bo")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app) and app.view.playing, "my turn")
        hand = app.view.hand
    again = through(relay_url, room="", name="bo")
    async with again.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, LobbyScreen) and again.screen.query("#yours-detail"),
                    "the lobby")
        assert own_rows(again)[0][:3] == ["discard", "ana", "game 1 under way"]
        assert text_of(again.screen, "#yours-detail").replace("\n", " ") == \
            "Your game in room crashed is waiting: Enter returns to it."
        assert again.screen.active_bindings["enter"].binding.description == "Return"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(again.screen, TableScreen) and again.view is not None
                    and not again.view.replaying and again.view.playing, "back at the table")
        assert (again.config.room, again.view.hand) == ("crashed", hand)


async def test_the_start_screen_offers_an_unfinished_game_against_the_computer():
    from discard_tui.start import StartScreen

    app = computer_game(seeds=fixed(3))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app) and app.view.playing, "my turn")
        room, hand = app.config.room, app.view.hand
    again = DiscardApp(computer_config(), terminal_profile(), pick=True)
    async with again.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, StartScreen), "the start screen")
        [row] = own_rows(again)
        assert row[:3] == ["discard", "Computer", "game 1 under way"] and row[3].endswith(("just now", " s ago"))
        assert "Your game against the computer is waiting: Enter returns to it" in \
            text_of(again.screen, "#yours-detail").replace("\n", " ")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(again.screen, TableScreen) and again.view is not None
                    and not again.view.replaying and again.view.playing, "back at the table")
        assert (again.config.room, again.view.hand) == (room, hand)


async def test_long_names_leave_the_score_and_the_game_number_in_the_status_bar_at_60_columns():
    """Two names of 31 characters: the status bar's first line cuts the names, never the score nor "game 3"
    (it read "Ana-Maria_Łopez-Zavala_[b]x[/b] 1 – 0 bo · game…"), and a long wait names the player cut too; the
    second cuts them before the time left (it read "…'s turn  ⏱ Ana-Maria_Łopez-…", no time at all)."""
    from tabletop.clock import Clock, ClockView, Wait

    long, other = "Ana-Maria_Łopez-Zavala_[b]x[/b]", "Bartholomew-Fitzgerald_O'Neill"
    since = 1_800_000_000_000  # the relay's time (ms) when the wait began
    clock = ClockView(Clock(move_ms=20_000, bank_ms=60_000), banks=(60_000, 45_000), waits=(Wait(1, 3, since),))
    app = discard_table(names=(long, other), wins=(1, 0), number=3, waiting_since=0.0, my_turn=False, clock=clock,
                        relay_offset=since / 1000 - 20.0)
    async with app.run_test(size=(60, 20)) as pilot:
        app.table.update(app.view, now=30.0)
        await pilot.pause()
        first, second = app.table.query_one(StatusBar).render().plain.splitlines()[:2]
        assert first.split("  ") == [" Ana-M… 1 – 0 Barth… · game 3", " waiting for Barth… for 30 s "], first
        assert second.startswith(" Barth…'s turn  ⏱ 0:10 · bank 0:45  Computer discarded 10♥"), second  # named
        # once: "Bartholom…'s turn  ⏱ Bartholom… 0:10" said it twice, and left no room for the last move
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        first = app.table.query_one(StatusBar).render().plain.splitlines()[0]
        assert first.startswith(" Ana-Maria… 1 – 0 Bartholom… · game 3 "), first


def test_an_event_with_no_room_for_a_clause_keeps_its_first_words_whole_or_none():
    """The status line's last resort beside the headline and the clock: an event that no clause of fits showed
    a letter of it ("…sitting out: step 1, 0:01  H…"); it shows its first words whole, or nothing."""
    from discard_tui.widgets import whole_words

    event = "Hand 2 void: Anastasia-Phili… left, 990 shared"
    assert whole_words(event, 60) == event
    assert whole_words(event, 12) == "Hand 2 void…" and whole_words(event, 11) == "Hand 2…"
    assert whole_words(event, 6) == "Hand…" and whole_words(event, 4) == ""


async def test_the_status_bar_shows_the_clock_of_whoever_the_game_waits_on_by_the_relay_s_time():
    from tabletop.clock import Clock, ClockView, Wait

    since = 1_800_000_000_000  # the relay's time (ms) when the wait began
    clock = ClockView(Clock(move_ms=20_000, bank_ms=60_000), banks=(60_000, 45_000), waits=(Wait(1, 3, since),))
    app = discard_table(my_turn=False, clock=clock, relay_offset=since / 1000 - 100.0)  # monotonic 100 s: at since
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.screen.query_one(StatusBar)
        app.table.update(app.view, now=107.0)
        await pilot.pause()
        assert status.clock == "0:13 · bank 0:45" and not status.hurry  # the headline names whose clock it is
        assert status.render().plain.splitlines()[1].startswith(" Computer's turn  ⏱ 0:13 · bank 0:45  ")
        app.table.update(dataclasses.replace(app.view, my_turn=True, clock=dataclasses.replace(
            clock, waits=(Wait(0, 4, since),))), now=100.0 + 75.5)  # 20 s of the move, then 55.5 of 60 s of bank
        await pilot.pause()
        assert status.clock == "0:00 · bank 0:05" and status.hurry  # beside "▶ Your turn"
        app.table.update(dataclasses.replace(app.view, my_turn=False, clock=dataclasses.replace(
            clock, waits=(Wait(0, 4, since), Wait(1, 3, since)))), now=100.0 + 75.5)  # both owe (keys, say)
        await pilot.pause()
        assert status.clock == "you 0:00 · bank 0:05"  # mine, named: the headline names nobody alone
        app.table.update(dataclasses.replace(app.view, phase=Phase.OVER))
        await pilot.pause()
        assert status.clock == ""


@pytest.mark.parametrize("watcher", [False, True])
async def test_a_hand_label_keeps_its_count_at_60_columns_and_cuts_the_name_first(watcher):
    """"Bartholomew-the-Magnificent-IV's hand: 7 cards" (a watcher's) and "x…x: 5 cards" (an opponent of 32
    letters) were cut at the end: the count went. The name is cut first, then the words; the count stays."""
    long = "Bartholomew-the-Magnificent-IV"
    hand = (FULL[0],) * 7
    app = discard_table(names=(long, "x" * 32), hand=() if watcher else hand, hand_size=7 if watcher else 0,
                        playable=() if watcher else (False,) * 7, me=-1 if watcher else 0, my_turn=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        mine, theirs = (text_of(app.screen, f"#{which}-label") for which in ("hand", "opponent"))
        width = app.screen.query_one("#hand-label").content_region.width
        assert theirs.endswith("…: 5 cards") and theirs.startswith("xxx") and len(theirs) <= width, theirs
        assert mine.endswith("'s hand: 7 cards") and mine.startswith("Bartholo") and "…" in mine if watcher \
            else mine == "Your hand: 7 cards"
        assert len(mine) <= width
    assert counted("{}'s hand", long, "7 cards", 14) == "7 cards" == counted("Your hand", "", "7 cards", 12)


async def test_a_shuffle_whose_last_step_is_in_but_not_yet_checked_counts_no_step_past_the_last():
    """All four steps of a two-seat shuffle are on the ledger, the last one's proof not yet checked (a watcher's or a
    busy seat's pool is behind): the table says it checks them, not "Shuffling: step 5 of 4"."""
    from room import Room
    from tabletop import transcript
    from discard_tui.config import SCREENS

    room = Room(options={"deck": "short"})
    room.run(until=lambda: room.tables[0].play.deck is not None and room.tables[0].play.deck.shuffled)
    behind = transcript.observer(room.name, room.catalog)
    for event in room.ledger:
        behind.apply(event)  # proofs left unchecked
    assert behind.phase is Phase.SHUFFLING
    harness = TableHarness(SCREENS["discard"].ui().screen(PlayConfig.leave_grace),
                           watcher_view(room, behind))
    async with harness.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        label = text_of(harness.table, "#progress-label")
        assert label == "Shuffling: checking the proofs", label


async def test_while_a_rematch_opens_the_headline_says_who_waits_on_whom():
    """bo opened a rematch after a game I lost: the table (still the last game) said "Waiting for an opponent", as
    if I waited on bo, while bo waits on me. It says the game's result then; once I open it, "Waiting for bo"."""
    from tabletop.values import Result

    offered = seat_view(DiscardScreenView, phase=Phase.WAITING, result=Result.LOSS, rematch_offered=True)
    app = TableHarness(DiscardTable(30), offered)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.table.query_one(StatusBar).headline == "You lose"
        app.show(rematch_offered=False)  # I opened it: bo has not said hello yet
        await pilot.pause()
        assert app.table.query_one(StatusBar).headline == "Waiting for bo"


async def test_the_game_over_dialog_with_a_two_line_ending_and_path_fits_60x20_without_a_scrollbar():
    """Cabo's game-over dialog at 60x20 (an ending and a transcript path of two lines each) scrolled by one row: the
    blank margin under its last line, its scrollbar thumb drawn over "n plays again". Every row of it is shown."""
    from tabletop.values import Result, Verdict

    done = seat_view(DiscardScreenView, phase=Phase.OVER, verdict=Verdict((), 1, 52, 6, ("move", "moves")),
                     transcript="/tmp/c2/cana/transcripts/20261127-081626-cab1-seat1.json", result=Result.WIN,
                     wins=(1, 1), names=("Ana-Maria_Łopez-Zavala_[b]x[/b]", "bot"),
                     ending="bot and you passed 10 after round 1; the lowest total wins: you (bot 20 · you 13).")
    app = TableHarness(DiscardTable(30), done)
    async with app.run_test(size=(60, 20)) as pilot:
        await app.push_screen(GameOverScreen(done, download=False))
        await pilot.pause()
        body = app.screen.query_one("#gameover-body")
        assert body.max_scroll_y == 0, body.max_scroll_y
        assert app.screen.query_one("#gameover").content_region.contains_region(app.screen.query_one("#offer").region)


async def test_back_at_a_finished_rematch_nobody_is_said_to_want_another():
    """Two games played (the second a rematch), the other player gone: my TUI started again on the room said "bot
    wants a rematch: press n" (the other's hello to game 2, which I had answered, read as an offer). It offers n."""
    from room import Room
    from tabletop import transcript
    from tabletop.table import Table
    from games.discard.strategy import simple

    room = Room(options={"deck": "short"})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.tables[1].rematch() is None
    room.run()
    assert room.tables[0].rematch() is None
    room.run()
    assert room.tables[1].play.number == 2 and room.tables[1].phase is Phase.OVER
    old = room.tables[1]
    back = Table(room.name, 1, bytes([2]) * 32, room.catalog, old.wish)  # my program again, as --room starts it
    for event in room.ledger:
        back.apply(event)
        transcript.check_proofs(back)
    room.tables[1] = back
    view = view_of(room, 1)
    app = TableHarness(DiscardTable(30), view)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(GameOverScreen(view, download=False))
        await pilot.pause()
        offer = text_of(app.screen, "#offer")
        assert "wants a rematch" not in offer and offer.startswith("n plays again"), offer


async def test_at_60x20_the_help_covers_the_table_so_no_stray_characters_show_beside_it():
    """At 60x20 the help (95% of the screen) left a column of the table on each side and a row below: "█g", "█m…",
    "█6" at its right edge read as stray characters. Where the terminal is narrow it takes the whole screen."""
    from discard_tui.table_screen import help_page

    app = discard_table()
    async with app.run_test(size=(60, 20)) as pilot:
        app.push_screen(HelpScreen(help_page(discard_screen.HELP, discard_screen.KEY_HELP, SAFETY, 2)))
        await pilot.pause()
        shown = app.screen.query_one("#help").region
        assert (shown.x, shown.width, shown.y, shown.bottom) == (0, 60, 0, 19), shown  # the footer below
