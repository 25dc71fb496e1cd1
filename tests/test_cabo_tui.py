"""Cabo's table screen, driven by key presses through Pilot against two computers, and its snapshot at 80x24.

Games here play to 20 or 30 points (--points), not 66, so that a whole game is one or two rounds. What the screen
shows of a state is tested on the screen alone, showing the app's game played on the in-memory ledger
(tests/pilot.py: offline_room); whole games, and games taken back, are played in the app.
"""

from __future__ import annotations

import pytest

from discard_tui.app import DiscardApp, HelpScreen, PlayConfig, TableScreen
from discard_tui.game_over_screen import GameOverScreen
from discard_tui.profile import terminal_profile
from discard_tui.cabo_screen import HELP, KEY_HELP, CaboHand, CaboTable, refusal
from discard_tui.table_screen import help_page
from tabletop.values import Phase
from discard_tui.widgets import StatusBar
from games.cabo.rules import Stage
from pilot import TableHarness, carry_out, offline_room, play_key, settled, text_of, until, view_of
from room import Room

SIZE = (80, 24)




def cabo_config(seed: int = 1, points: int = 20) -> PlayConfig:
    """Against two computers; every seat's crypto seed and the computers' choices are fixed by ``seed``."""
    seeds = tuple(bytes([seed + 10 * k]) * 32 for k in range(3))
    return PlayConfig(name="tester", room=f"cabo-{seed}", game="cabo", seats=3, options={"points": points},
                      opponent_seed=seed, think_time=0, seeds=seeds)


def cabo_game(seed: int = 1, points: int = 20) -> DiscardApp:
    return DiscardApp(cabo_config(seed, points), terminal_profile())


def at_my_turn(seed: int, points: int = 20) -> Room:
    """The app's game of ``seed`` on the in-memory ledger, at my first turn."""
    room = offline_room(cabo_config(seed, points))
    room.run(until=lambda: room.tables[-1].view().my_turn)
    return room


async def draw(pilot) -> None:
    """Press d: the draw it asks for is made, and the table shows the card drawn."""
    assert await play_key(pilot, "d") == "draw"


def my_turn_or_over(app) -> bool:
    view = app.view
    return view is not None and (view.my_turn or view.phase is Phase.OVER or view.stopped)



async def play_by_keys(pilot, app) -> set[str]:
    """Play every turn by keys until the game-over dialog shows its verdict; the stages my turns went through.

    Draw; keep the card drawn in place of my first card, unless it has a power, which is then used (peek at my
    card, spy on the next player's, swap my first card for theirs); stop the round on my second turn.
    """
    stages: set[str] = set()
    turns = 0
    while True:
        await until(pilot, lambda: my_turn_or_over(app), "my turn")
        view = app.view
        if not view.playing:
            break
        if app.screen.summary is not None:  # the last round's hands, face up, until a key
            stages.add("round end")
            await pilot.press("space")  # it only takes the summary away
            assert app.screen.summary is None and app.view.moves == view.moves
        board = view.board
        stages.add(board.stage.value)
        if board.stage is Stage.TURN:
            turns += 1
            key = "s" if turns % 2 == 0 and board.stopper is None else "d"
        elif board.stage is Stage.TAKEN:
            key = "d" if board.from_draw and 7 <= board.taken.value <= 12 else "enter"
        elif board.stage is Stage.SWAP:
            await pilot.press("enter")  # one of mine, raised: chosen; the cursor goes up to the next player
            assert app.screen.target[0] != view.me
            key = "enter"
        else:
            key = "enter"
        await pilot.press(key)
        await until(pilot, lambda: app.view.moves > view.moves or not app.view.playing, f"{key} to land")
        if not isinstance(app.screen, GameOverScreen):  # my key may have ended the game
            assert not app.screen.query_one(StatusBar).notice, app.screen.query_one(StatusBar).notice
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over screen")
    await until(pilot, lambda: text_of(app.screen, "#verdict").startswith("Checked: every shuffle"), "the verdict")
    return stages


@pytest.mark.long
async def test_a_whole_game_by_keys_against_two_computers_to_the_game_over_dialog():
    points = 30  # two rounds with these seeds: the second is shuffled and dealt while the screen shows the first
    app = cabo_game(seed=3, points=points)  # 32 moves, in which my turns spy and swap
    async with app.run_test(size=SIZE) as pilot:
        stages = await play_by_keys(pilot, app)
        assert {"turn", "taken", "spy", "swap", "round end"} <= stages
        text = text_of(app.screen, "#result") + " " + text_of(app.screen, "#ending")
        assert ("You win" in text) or ("You lose" in text)
        assert f"passed {points} after round" in text and "; the lowest total wins: " in text
        assert " of 52 cards, " in text_of(app.screen, "#verdict")
        board = app.view.board
        assert board.over and max(board.totals) > points
        assert all(slot.value is not None for hand in board.hands for slot in hand)  # every card shown at the end
        log = app.view.log
        assert "shuffling for deal 2" in log and log[-1].startswith("Checked: every shuffle")  # a new deal for the second round


async def test_refused_keys_say_why_and_send_nothing():
    app = TableHarness.of(at_my_turn(seed=2))
    async with app.run_test(size=SIZE) as pilot:
        view = app.view
        assert view.board.stage is Stage.TURN
        status = app.screen.query_one(StatusBar)
        await pilot.press("enter")
        assert status.notice == "a turn begins by drawing, taking the discard or stopping"  # the rule, said to me
        await draw(pilot)
        assert app.table.view.board.stage is Stage.TAKEN
        assert app.table.view.board.taken.value is not None  # I see the card I drew
        await pilot.press("t")
        assert status.notice.startswith("the card taken must first replace a card")
        await pilot.press("up")  # the card taken replaces one of mine: ↑ stays in my hand and says so
        assert status.notice.startswith("the card you took replaces one of yours")
        assert app.screen.target[0] == view.me
        assert len(app.intents) == 1  # the draw, and nothing else
        await pilot.press("space", "right", "space")  # two of my cards marked
        hand = app.screen.query_one("#hand", CaboHand)
        assert hand.marks == frozenset({0, 1}) and hand.cursor == 1
        rows = hand.render().plain.splitlines()
        assert "".join(rows).count("╔") == 2  # marked cards have a double frame, without colour too
        assert refusal(app.table.view, "stop") == "the card taken must first replace a card or be discarded"
        assert len(app.intents) == 1


async def test_help_names_the_keys_and_every_hand_fits_its_box_at_every_size():
    app = TableHarness.of(at_my_turn(seed=3))
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(HelpScreen(help_page(HELP, KEY_HELP, app.view.safety, 3)))  # what ? opens
        await pilot.pause()
        text = str(app.screen.query_one("Static").content)
        assert "identical" in text and "Space mark" in text and f"Safety number  {app.view.safety}" in text
        assert app.screen.query_one("#help").max_scroll_y == 0  # it fits at 80x24
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
        await draw(pilot)
        for size in [(60, 20), (120, 40), (80, 24)]:
            await pilot.resize_terminal(*size)
            await until(pilot, lambda: app.screen.has_class("-large") is (size == (120, 40)), "the new layout")
            hands = list(app.screen.query(CaboHand))
            assert len(hands) == 3
            for hand in hands:
                lines = hand.render().plain.splitlines()
                assert len(lines) <= hand.size.height and all(len(line) <= hand.size.width for line in lines), \
                    (size, lines)
            mine = app.screen.query_one("#hand", CaboHand)
            assert mine.cursor == 0 and len(mine.render().plain.splitlines()) == (8 if size == (120, 40) else 5)  # 9x7 cards, one lifted
            assert app.screen.query_one("#taken").render().plain.splitlines()[-1].strip() == "You drew"  # a card from the draw pile


async def test_a_round_s_end_says_my_clock_runs_when_the_next_round_waits_on_me():
    """Round 2 is dealt and waits on me while round 1's hands are held face up: my move's clock runs meanwhile
    (it is the relay's), so the hint says so rather than inviting me to read the hands at leisure."""
    import dataclasses

    from tabletop.clock import Clock, ClockView, Wait

    room = at_my_turn(seed=1, points=66)
    app = TableHarness.of(room)
    async with app.run_test(size=SIZE) as pilot:
        assert await play_key(pilot, "s") == "stop"
        view = app.table.view
        assert view.board.round == 2 and view.my_turn and app.table.summary is not None
        clock = ClockView(Clock(move_ms=20_000, bank_ms=60_000), banks=(60_000,) * 3, waits=(Wait(view.me, 9, 0),))
        app.table.update(dataclasses.replace(view, clock=clock))
        await pilot.pause()
        assert app.table.query_one(StatusBar).hint.startswith("Any key: on to round 2 (your turn: your clock runs)")


async def test_a_round_s_end_shows_every_hand_face_up_with_its_sum_until_a_key():
    """Seed 1, to 66 points: I stop at once; the computers play their last turns, every hand is shown and summed, and
    round 2 is dealt and played up to my turn, all before the screen sees the next view. The screen still shows
    round 1's hands face up, each with its sum, and says what happened, however the table moves on, until a key;
    that key only takes the summary away."""
    room = at_my_turn(seed=1, points=66)
    app = TableHarness.of(room)
    async with app.run_test(size=SIZE) as pilot:
        assert await play_key(pilot, "s") == "stop"
        table = app.table
        board = table.view.board
        assert board.round == 2 and table.view.my_turn  # the next round is under way underneath
        computer, computer_2, me = board.last_scores

        def held() -> None:
            assert {hand.seat: hand.values for hand in table.query(CaboHand)} == dict(enumerate(board.showdown))
            status = table.query_one(StatusBar)
            assert status.headline == "Round 1 over" and not status.my_turn
            assert status.event == f"Round 1: you called cabo; you {me}, Computer {computer}, Computer 2 {computer_2}"
            assert status.hint.startswith("Any key: on to round 2")
            assert text_of(table, "#hand-label") == f"You · sum {me} · called cabo"
            assert text_of(table, ".seat-label") == f"Computer · sum {computer}"  # the first of the others
            assert f"Totals: you {me} · Computer {computer} · Computer 2 {computer_2}" in text_of(table, "#info")
            assert not table.query_one("#draw").display  # the piles are the next round's: hidden meanwhile

        held()
        table.update(view_of(room))  # the clock's update, a second later: the same view again
        await pilot.pause()
        held()
        asked = len(app.intents)
        await pilot.press("d")  # would draw in round 2
        assert len(app.intents) == asked and table.summary is None
        mine = table.query_one("#hand", CaboHand)
        assert mine.values == tuple(slot.value for slot in board.hands[board.me])  # round 2's: two seen, two not
        assert table.query_one(StatusBar).headline == "Your turn"
        assert await play_key(pilot, "d") == "draw"


async def test_against_the_computer_the_round_s_end_gives_way_to_the_next_round_by_itself(monkeypatch):
    from discard_tui import cabo_screen

    monkeypatch.setattr(cabo_screen, "ROUND_END_SECONDS", 0.05)
    room = at_my_turn(seed=1, points=66)
    app = TableHarness(CaboTable(PlayConfig.leave_grace, computers=True), view_of(room))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert await carry_out(room, app.intents[-1]) is None
        app.table.update(view_of(room))
        assert app.table.summary is not None and app.table.summary.number == 1
        await until(pilot, lambda: app.table.summary is None, "the next round")
        board = app.table.view.board
        mine = app.table.query_one("#hand", CaboHand)
        assert mine.values == tuple(slot.value for slot in board.hands[board.me])


async def test_the_hint_follows_a_swap_step_by_step_and_an_old_refusal_goes():
    """Seed 10: my first draw is an 11, and d discards it for a swap."""
    app = TableHarness.of(at_my_turn(seed=10))
    async with app.run_test(size=SIZE) as pilot:
        await draw(pilot)
        assert await play_key(pilot, "d") == "discard"
        table, me = app.table, app.view.me
        assert table.view.board.stage is Stage.SWAP
        status = table.query_one(StatusBar)
        first = "Swap: Enter on one of your cards, then on another player's card"
        assert status.hint == first
        await pilot.press("t")  # refused: the swap comes first
        assert status.notice
        await pilot.press("right", "enter")  # my card 2: chosen; the cursor goes up to the next player
        assert not status.notice  # the refusal went with a step that was not refused
        chosen = "Swap: your card 2 chosen; now Enter on another player's card · Esc: back"
        assert status.hint == chosen and table.target[0] != me
        await pilot.press("escape")  # back: no card chosen, the cursor on the one that was
        assert status.hint == first and table.marks == frozenset() and table.target == (me, 1)
        await pilot.press("up", "enter")  # another player's card before one of mine: refused
        assert status.notice == "first choose one of your cards to give (Enter on it)"
        await pilot.press("down")  # a step that is not refused
        assert not status.notice
        await pilot.press("enter")
        assert status.hint == chosen
        await pilot.press("enter")
        assert app.asked()[-1] == "swap"
        mine = table.view.board.hands[me][1].pos
        assert app.intents[-1].move.mine == mine


def test_snapshot_of_the_table_with_a_card_drawn(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def my_first_draw(pilot):
        await draw(pilot)
        await settled(pilot)

    assert snap_compare(TableHarness.of(at_my_turn(seed=5)), terminal_size=SIZE, run_before=my_first_draw)


def from_the_command_line(*argv: str) -> PlayConfig:
    """What ``discard-tui --name tester --seed 4 ARGV`` plays, without the computers' pauses."""
    import dataclasses

    from discard_tui import cli

    args = cli.parser().parse_args(["--name", "tester", "--seed", "4", *argv])
    return dataclasses.replace(cli.config_from(args, cli.parser(), terminal_profile()), think_time=0)


@pytest.mark.parametrize("seats", [2, 4])
async def test_a_game_for_other_than_three_is_taken_back_without_repeating_its_flags(seats):
    """`--game cabo --seats N --points 5`, a draw, q y; then a bare `discard-tui` goes back to that room with its
    N - 1 computers (not the usual two: no problem screen, and every one of them plays its turn), my drawn card
    still in hand, and the game still played to 5 points, the room's, not 66 (the whole game above plays to its
    room's points)."""
    import dataclasses

    from discard_tui.quit_screen import ConfirmQuit
    from discard_tui.problem_screen import ProblemScreen

    config = from_the_command_line("--game", "cabo", "--seats", str(seats), "--points", "5")
    first = DiscardApp(dataclasses.replace(config, seeds=tuple(bytes([k + 1]) * 32 for k in range(seats))),
                       terminal_profile())
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn_or_over(first), "my turn")
        assert first.view.playing and len(first.view.names) == seats
        await pilot.press("d")
        await until(pilot, lambda: first.view.board.stage is Stage.TAKEN, "the draw")
        taken = first.view.board.taken
        await pilot.press("q")
        await until(pilot, lambda: isinstance(first.screen, ConfirmQuit), "the question")
        await pilot.press("y")
    again = DiscardApp(from_the_command_line(), terminal_profile())
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn_or_over(again) or isinstance(again.screen, ProblemScreen), "my turn")
        assert not isinstance(again.screen, ProblemScreen), text_of(again.screen, "#problem")
        assert (again.config.room, again.config.seats) == (config.room, seats)
        board = again.view.board
        assert len(again.view.names) == seats and board.stage is Stage.TAKEN and board.taken == taken
        assert again.seat.table.play.options.points == 5  # what ends the game: the room's, from its first hello
        moves = again.view.moves
        await pilot.press("enter")  # the drawn card replaces my first; my next turn comes once each computer has played
        await until(pilot, lambda: my_turn_or_over(again) and again.view.moves >= moves + seats, "my next turn")


async def test_a_room_on_a_relay_is_saved_with_its_own_players_and_taken_back_with_them(players, relay_url):
    """Asking for nothing (discard, two players) in a cabo room for four: the saved seat follows the room's first
    hello, so `--relay URL --room NAME` alone takes the seat back (asking for cabo's usual three, the relay would
    refuse it)."""
    from conftest import seat_dir
    from discard_tui import cli, saves
    from discard_tui.problem_screen import ProblemScreen
    from games.cabo.strategy import simple

    room = "cabo-for-four"
    await players(room, [simple(k) for k in range(3)], game="cabo", seats=4, options={"points": 20})
    first = DiscardApp(PlayConfig(relay=relay_url, room=room, name="tester", think_time=0), terminal_profile())
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn_or_over(first), "my turn")
        saved = saves.load(seat_dir(), relay_url, room, "tester")
        assert (saved.game, saved.seats) == ("cabo", 4) and (first.config.game, first.config.seats) == ("cabo", 4)
    # the terminal closed mid-game; the command --games prints goes back
    args = cli.parser().parse_args(["--relay", relay_url, "--room", room, "--name", "tester"])
    again = DiscardApp(cli.config_from(args, cli.parser(), terminal_profile()), terminal_profile())
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: my_turn_or_over(again) or isinstance(again.screen, ProblemScreen), "my turn")
        assert not isinstance(again.screen, ProblemScreen), text_of(again.screen, "#problem")
        assert again.view.playing and len(again.view.names) == 4
