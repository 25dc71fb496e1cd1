"""The Textual app, driven by key presses through Pilot, against the built-in computer."""

import pytest

from discard_tui.app import DiscardApp, GameOverScreen, HelpScreen, PlayConfig, ProblemScreen, TableScreen
from discard_tui.engine import Phase
from discard_tui.rules import DeckKind, matches
from discard_tui.widgets import HandView, StatusBar


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DISCARD_DATA_DIR", str(tmp_path))


def computer_game(deck=DeckKind.SHORT, seed=1) -> DiscardApp:
    return DiscardApp(PlayConfig(name="tester", deck=deck, opponent_seed=seed, think_time=0))


async def until(pilot, condition, what, limit=2000):
    """Let the app run until ``condition()`` holds (bounded by message rounds, not by the clock)."""
    for _ in range(limit):
        if condition():
            await pilot.pause()  # let a just-pushed screen compose
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


def my_turn_or_over(app):
    view = app.view
    return view is not None and (view.my_turn or view.phase in (Phase.OVER, Phase.VIOLATION, Phase.FAILED))


def text_of(screen, selector) -> str:
    return screen.query_one(selector).render().plain


def moved(app, before) -> bool:
    return app.view.moves > before.moves or app.view.phase is not Phase.PLAYING


async def play_to_game_over(pilot, app) -> None:
    """Play by keys, the first playable card or a draw, until the game-over screen shows its verdict."""
    while True:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        view = app.view
        if view.phase is not Phase.PLAYING:
            break
        playable = [i for i, ok in enumerate(view.playable) if ok]
        if playable:
            hand = app.screen.query_one(HandView)
            for _ in range(len(view.hand)):
                await pilot.press("left")
            for _ in range(playable[0]):
                await pilot.press("right")
            assert hand.cursor == playable[0]
            await pilot.press("enter")
        else:
            await pilot.press("d")
        await until(pilot, lambda: moved(app, view), "the move to land")
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over screen")
    await until(pilot, lambda: text_of(app.screen, "#verdict"), "the verdict")


async def test_whole_game_by_keys_to_game_over():
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_game_over(pilot, app)
        text = text_of(app.screen, "#result") + " " + text_of(app.screen, "#verdict")
        assert ("You win" in text) or ("You lose" in text)
        assert "fair: 24 cards and" in text and "moves verified" in text
        await pilot.press("n")
        await until(pilot, lambda: app.view.game == 2 and app.view.phase in (Phase.PLAYING,), "the rematch")
        assert isinstance(app.screen, TableScreen)


async def test_leaving_a_finished_game_cleans_the_data_directory(tmp_path):
    import sqlite3

    from discard_tui import saves

    app = computer_game(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_game_over(pilot, app)
        assert [seat.name for seat in saves.unfinished()] == ["tester"]  # mine, until I leave
        await pilot.press("q")
    assert saves.unfinished() == []
    with sqlite3.connect(tmp_path / "computer-relay.sqlite3") as store:
        assert store.execute("SELECT count(*) FROM events").fetchone() == (0,)


async def test_illegal_discard_is_refused_with_the_reason():
    app = computer_game(seed=2)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await until(pilot, lambda: my_turn_or_over(app), "my turn")
            view = app.view
            assert view.phase is Phase.PLAYING
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
        posted_before = len(app.session.events)
        app.screen.query_one(HandView).cursor = bad[0]
        card, top = view.hand[bad[0]], view.discard_top
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.query_one(StatusBar).notice, "a refusal")
        assert app.screen.query_one(StatusBar).notice == f"{card} matches neither {top.suit} nor {top.rank}"
        assert not matches(card, top)
        await pilot.pause()
        assert app.view.my_turn and len(app.session.events) == posted_before  # nothing was sent


async def test_help_screen_opens_and_closes():
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "matches the [b]suit[/b]" in str(app.screen.query_one("Static").content)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


async def test_unreachable_relay_screen_offers_retry():
    app = DiscardApp(PlayConfig(relay="ws://127.0.0.1:9", room="r", name="tester"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        problem = text_of(app.screen, "#problem")
        assert "cannot reach the relay at ws://127.0.0.1:9" in problem
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen again")
        await pilot.press("q")


async def test_violation_dialog_names_it_and_shows_the_transcript():
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        problem = "opponent discarded 7♣, which matches neither the suit nor the value of 9♦"
        app.session._violation(problem)  # what the engine does on receipt of such a discard
        await until(pilot, lambda: type(app.screen).__name__ == "ViolationScreen", "the violation dialog")
        assert text_of(app.screen, "#problem") == problem
        transcript = text_of(app.screen, "#transcript")
        assert str(app.session.transcript_path) in transcript and app.session.transcript_path.exists()


async def test_clicking_the_draw_pile_draws():
    app = computer_game(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        view = app.view
        await pilot.click("#draw")
        await until(pilot, lambda: moved(app, view), "the draw")
        assert any(line.startswith("you drew ") for line in app.view.log)


async def test_rematch_offer_from_the_opponent_shows_once():
    """The computer asks for a rematch first; the player sees one dialog saying so, and accepts with n."""
    app = computer_game(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.my_turn, "my turn")
        app._opponent.want_game = 2  # the computer will open game 2 as soon as game 1 is audited
        while app.view.verdict is None:
            view = app.view
            if view.my_turn:
                playable = [i for i, ok in enumerate(view.playable) if ok]
                await (app.session.discard(playable[0]) if playable else app.session.draw())
                await until(pilot, lambda: moved(app, view), "the move")
            else:
                await pilot.pause(0.01)
        await until(pilot, lambda: app.view.rematch_offered, "the offer")
        assert sum(isinstance(s, GameOverScreen) for s in app.screen_stack) == 1
        assert "Computer wants a rematch" in text_of(app.screen, "#offer")
        await pilot.press("n")
        await until(pilot, lambda: app.view.game == 2 and app.view.phase is Phase.PLAYING, "game 2")
        assert isinstance(app.screen, TableScreen)


@pytest.mark.parametrize("size, large", [((80, 24), False), ((120, 40), True)])
async def test_cards_grow_when_the_terminal_has_room(size, large):
    app = computer_game()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        table = app.screen
        assert isinstance(table, TableScreen) and table.has_class("-large") is large
        rows = text_of(table, HandView).splitlines()
        card = "┌─────┐" if large else "┌───┐"
        assert card in "".join(rows)
        assert len(rows) == (6 if large else 5)  # the cursor card is lifted by one row
        await pilot.resize_terminal(*((80, 24) if large else (120, 40)))
        await until(pilot, lambda: table.has_class("-large") is not large, "the layout to follow the resize")


async def test_damaged_store_of_the_computer_game_is_named(tmp_path):
    (tmp_path / "computer-relay.sqlite3").write_bytes(b"this is not an SQLite database" * 100)
    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
        problem = text_of(app.screen, "#problem")
        assert "computer-relay.sqlite3 are unreadable" in problem and "move that file away" in problem


async def test_a_second_copy_against_the_computer_is_refused(tmp_path):
    from discard_tui.app import hold_lock

    held = hold_lock(tmp_path / "computer-relay.lock")  # as the first copy holds it
    try:
        app = computer_game()
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem screen")
            assert "another discard-tui is already running this game" in text_of(app.screen, "#problem")
    finally:
        held.close()


async def test_status_bar_says_reconnecting_disconnected_and_how_long_we_wait():
    import dataclasses
    import time

    from discard_tui.net import Link

    app = computer_game()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        table, view = app.screen, app.view
        cases = [
            (dict(link=Link.RECONNECTING), "Reconnecting…"),
            (dict(opponent_present=False), "Computer disconnected; waiting for them to come back"),
            (dict(my_turn=False, waiting_since=time.monotonic() - 42), "waiting for Computer for 4"),
        ]
        for changes, says in cases:
            table.update(dataclasses.replace(view, **changes))  # what the engine's next change would show
            assert says in text_of(table, StatusBar), (changes, text_of(table, StatusBar))


async def test_closing_mid_game_and_starting_again_goes_back_to_the_same_hand():
    first = computer_game(seed=4)
    async with first.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(first), "my turn")
        hand, game = first.view.hand, first.view.game
        assert first.view.phase is Phase.PLAYING
    # the terminal closed without quitting; the same command starts again
    again = computer_game(seed=4)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_turn_or_over(again), "my turn again")
        assert (again.view.hand, again.view.game, again.view.phase) == (hand, game, Phase.PLAYING)


HOSTILE_NAMES = ["[/]bo", "[AFK] bo", "[@click=app.quit]x[/]", "[b]bo"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
async def test_a_hostile_name_is_shown_literally_and_the_room_stays_playable(relay_url, name):
    """Names come from the other side: never markup, never an action, never a crash."""
    import asyncio

    from discard_tui import saves
    from discard_tui.bot import simple_strategy

    opponent, _ = await saves.resume_or_join(relay_url, "hostile", name, deck=DeckKind.SHORT,
                                             autoplay=simple_strategy(1))
    runner = asyncio.create_task(opponent.run())
    app = DiscardApp(PlayConfig(relay=relay_url, room="hostile", name="tester", deck=DeckKind.SHORT))
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
