"""War's table screen, driven through Pilot against the built-in computer: keys, auto-play, a violation.

What the table shows of a state is tested on the screen alone, showing the app's game against the computer played
on the in-memory ledger (tests/pilot.py: offline_room)."""

import dataclasses


from arena import TamperingLedger
from discard_tui import war_screen
from discard_tui.app import DiscardApp, PlayConfig
from discard_tui.game_over_screen import GameOverScreen
from discard_tui.violation_screen import ViolationScreen
from discard_tui.profile import terminal_profile
from tabletop.values import Phase
from discard_tui.war_screen import Trick, WarScreenView
from discard_tui.widgets import DrawPile, StatusBar
from games.war.strategy import turn
from tabletop import wire
from tabletop.words import verdict_words
from pilot import TableHarness, offline_room, settled, until, until_busy

SIZE = (80, 24)
SEEDS = (bytes([13]) * 32, bytes([240]) * 32)  # mine, the computer's: the computer starts; turns 9 and 10 tie




def war_config(tricks: int | None = None) -> PlayConfig:
    """Against the computer, with both seats' keys fixed: the same shuffle, so the same game, every run."""
    options: dict[str, str | int] = {} if tricks is None else {"tricks": tricks}
    return PlayConfig(name="tester", room="war", game="war", options=options, think_time=0, seeds=SEEDS)


def war_game(tricks: int | None = None) -> DiscardApp:
    return DiscardApp(war_config(tricks), terminal_profile())


def war_table(moves: int, tricks: int | None = None) -> TableHarness:
    """War's table alone, showing the app's game against the computer at my turn after ``moves`` turns (mine by
    the computer's strategy: turning is all there is to it), played on the in-memory ledger."""
    room = offline_room(war_config(tricks))
    room.strategies[1] = turn()
    mine = room.tables[1]
    room.run(until=lambda: mine.view().my_turn and mine.view().moves == moves)
    assert mine.view().moves == moves
    return TableHarness.of(room)



def board(app) -> WarScreenView:
    assert isinstance(app.view, WarScreenView)
    return app.view


def my_turn(app) -> bool:
    return app.view is not None and app.view.my_turn


def status(app) -> str:
    return app.screen.query_one(StatusBar).render().plain


async def test_space_turns_then_a_plays_to_the_game_over_dialog():
    app = war_game(tricks=10)  # a double war at the 9th to 11th turns, and the end
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn(app), "my turn")
        before = board(app)
        assert "Space turns both top cards" in status(app)
        await pilot.press("space")
        await until(pilot, lambda: board(app).moves > before.moves, "my turn to land")
        mine = app.view.log[[line.startswith("you turned ") for line in app.view.log].index(True)]
        on_table = 0 if board(app).taker is not None else sum(map(len, board(app).trick))  # a war's pot
        assert sum(board(app).piles) + on_table == 52
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen) and app.view.verdict is not None,
                    "the game-over dialog")
        end = board(app)
        text = {name: app.screen.query_one(f"#{name}").render().plain
                for name in ("result", "ending", "verdict", "transcript", "path")}
        summary = text["verdict"]
        assert summary.startswith("Checked: every shuffle") and summary == verdict_words(end.verdict, end.names, end.me)
        assert text["transcript"].startswith("Transcript, ") and "".join(text["path"].splitlines()) == str(end.transcript)
        assert end.tricks == 10
        assert text["result"] == "You lose" and end.piles == (28, 24)
        assert text["ending"] == "After 10 tricks Computer held 28 cards and you 24: Computer won."
        assert mine in end.log and not end.auto  # auto-play ends with the game


async def test_a_again_stops_auto_play_mid_game():
    """While auto-play runs the app is never idle, so keys go in as the terminal sends them (simulate_key), not
    through Pilot's press, which waits for an idle app after each key."""
    app = war_game()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn(app), "my turn")
        app.simulate_key("a")
        await until_busy(pilot, lambda: board(app).auto and board(app).moves >= 6, "three turns of each by auto-play")
        assert "Auto-playing to the end of the game: a stops" in status(app)
        app.simulate_key("a")  # stop: my seat turns no more; the computer finishes its own turn
        # (until_busy above: until's pauses for an idle app let auto-play run some 185 turns before this key)
        await until(pilot, lambda: not board(app).auto, "auto-play to stop")
        assert app.view.playing and board(app).moves < 515  # long before the end
        # My turn, by the table itself, with no turn of mine on its way (auto-play may have sent one just before
        # the key, and the view is built after each ledger event, not after each post).
        session = app.seat
        await until(pilot, lambda: session.table.view().my_turn and session.outbox is None and
                    board(app).moves == session.table.view().moves, "my turn again")
        stopped = board(app).moves
        for _ in range(20):
            await pilot.pause()
        assert board(app).moves == stopped and my_turn(app)
        await pilot.click("#my-pile")  # a click on my pile turns by hand again
        await until(pilot, lambda: board(app).moves > stopped, "the turn by click")


async def test_auto_play_stops_cleanly_at_a_violation():
    """The computer's answer to one of my turns carries a wrong key: my seat names it, stops and keeps the
    transcript, and auto-play ends."""
    app = war_game()

    def wrong_key(table, body):
        if table.phase is not Phase.PLAYING or body["msg"]["type"] != "share" or len(table.play.moves) < 10:
            return None
        shares = wire.Shares.model_validate(body["shares"])
        first = shares.open[0]
        wrong = first.model_copy(update={"key": format(int(first.key, 16) * 2 % table.play.group.q, "x")})
        envelope = table.registry(table.play).parse(body)
        return wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"], envelope.msg,
                         wire.Shares(open=[wrong, *shares.open[1:]], sealed=[]))

    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn(app), "my turn")
        computer = app.computers[0]
        computer.ledger = TamperingLedger(computer.ledger, wrong_key, computer.table)  # type: ignore[arg-type]
        app.simulate_key("a")
        await until(pilot, lambda: isinstance(app.screen, ViolationScreen), "the violation dialog")
        problem = app.screen.query_one("#problem").render().plain
        assert problem.startswith("Computer sent a wrong key for card ") and "not their committed key" in problem
        assert app.seat.transcript_path is not None and app.seat.transcript_path.exists()
        assert not board(app).auto and app.view.phase is Phase.VIOLATION
        mine = [e for e in app.seat.events if e.kind == "post" and e.seat == app.seat.table.me]
        assert mine[-1].seq < app.seat.events[-1].seq  # nothing of mine after the cheat
        assert app.view.log[-1] == f"stopped: {problem}"


async def test_every_refused_key_says_why():
    app = war_table(moves=1, tricks=10)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert "a rematch can start once this game is over" in status(app)
        view = app.view
        assert isinstance(view, WarScreenView)
        screen = app.screen
        assert isinstance(screen, war_screen.WarTable)
        assert screen.refused(view, "turn") is None and screen.refused(view, "autoplay") is None
        theirs = dataclasses.replace(view, my_turn=False)
        assert screen.refused(theirs, "turn") == "it is Computer's turn to turn the cards"
        assert screen.refused(dataclasses.replace(view, auto=True), "turn") == "auto-play turns for you: a stops it"
        assert screen.refused(dataclasses.replace(view, turn_refusal="your last turn is still on its way"),
                              "turn") == "your last turn is still on its way"
        over = dataclasses.replace(view, phase=Phase.OVER)
        assert screen.refused(over, "turn") == screen.refused(over, "autoplay") == "the game is not under way"
        app.show(my_turn=False)  # as it looks while the computer thinks: Enter and a click are refused, and say why
        await pilot.press("enter")
        assert "it is Computer's turn to turn the cards" in status(app)
        await pilot.click("#my-pile")
        assert "it is Computer's turn to turn the cards" in status(app)
        assert app.intents == []


def test_table_with_a_double_war_on_it(snap_compare):
    """Fixed seeds: the computer starts; the 9th turn ties, the 10th (mine) ties again, the 11th settles it."""

    async def double_war(pilot):
        app = pilot.app
        await settled(pilot)
        assert [len(cards) for cards in board(app).trick] == [5, 5] and board(app).taker is not None
        assert app.screen.query_one("#my-trick", Trick).cards[1] is None
        assert app.screen.query_one("#my-pile", DrawPile).count == board(app).piles[board(app).me]

    assert snap_compare(war_table(moves=11), terminal_size=SIZE, run_before=double_war)


async def test_joining_a_war_room_without_asking_for_war_shows_the_war_table(players, relay_url):
    """The room's first hello decides the game: ``--game`` (discard by default) gives way, and so does its screen."""
    from games.war.strategy import turn

    await players("opened-for-war", [turn()], game="war", options={"tricks": 4}, seats=2)
    app = DiscardApp(PlayConfig(relay=relay_url, room="opened-for-war", name="tester"), terminal_profile())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn(app) or app.view is not None and app.view.verdict is not None, "my turn")
        assert isinstance(app.table, war_screen.WarTable) and app.title == "war" and board(app).limit == 4
        moves = board(app).moves
        await pilot.press("space")
        await until(pilot, lambda: board(app).moves > moves, "my turn to land")


async def test_help_open_while_joining_a_war_room_then_the_war_table(players, relay_url):
    """Help opened over the connecting screen while the room turns out to play war: no discard table is fed
    war's view meanwhile, and once help goes the war table is there."""
    from games.war.strategy import turn

    from discard_tui.app import HelpScreen

    await players("help-then-war", [turn()], game="war", options={"tricks": 4}, seats=2)
    app = DiscardApp(PlayConfig(relay=relay_url, room="help-then-war", name="tester"), terminal_profile())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await until(pilot, lambda: app.view is not None and app.view.number == 1 and app.config.game == "war",
                    "the room's game")
        await until(pilot, lambda: app.view.playing, "the cards dealt")
        for _ in range(3):
            app._tick()  # the once-a-second refresh, while help is still open
        assert isinstance(app.screen, HelpScreen)  # still reading help: the game goes on under it
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, war_screen.WarTable), "the war table")
        assert app.table is app.screen and board(app).limit == 4


async def test_the_footer_names_the_key_the_hint_names():
    """The hint says "Space turns"; the footer showed "⏎ Turn" (Enter, the binding's first key): they agree."""
    from textual.widgets import Footer

    app = war_table(moves=1)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert "Space turns" in app.screen.query_one(StatusBar).render().plain
        keys = {key.description: key.key_display for key in app.screen.query_one(Footer).query("FooterKey")}
        assert keys["Turn"] == "space", keys
