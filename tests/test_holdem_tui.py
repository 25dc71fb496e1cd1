"""Hold'em's table screen alone, showing the app's game against two computers played on the in-memory ledger
(tests/pilot.py): the betting keys, the raise's amount, refused keys, the cues without colour, every size."""

from __future__ import annotations

from discard_tui.app import PlayConfig
from discard_tui.holdem_screen import HELP, HoldemTable, info, plain_cards, seat_text
from discard_tui.widgets import StatusBar
from games.holdem.about import Stage
from pilot import TableHarness, offline_room, play_key, settled, view_of
from room import Room
from test_holdem_wire import station

SIZES = [(60, 20), (80, 24), (120, 40), (200, 50)]


def config(seed: int = 1) -> PlayConfig:
    seeds = tuple(bytes([seed + 10 * k]) * 32 for k in range(3))
    return PlayConfig(name="tester", room=f"holdem-{seed}", game="holdem", seats=3, options={"hands": 2},
                      opponent_seed=seed, think_time=0, seeds=seeds)


def room_at(mine: bool, seed: int = 1) -> Room:
    """The app's game of ``seed`` on the in-memory ledger at my first turn to bet; or, not ``mine``, just after I
    called there (another player's turn)."""
    from games.holdem.moves import Call, Check

    room = offline_room(config(seed))
    table = room.tables[-1]
    room.run()
    board = table.view().board
    assert board is not None and table.view().my_turn and board.stage is Stage.BETTING
    if not mine:
        room.post(table.me, table.prepare(Call() if board.to_call else Check()))
    return room


async def test_the_raise_is_chosen_by_keys_and_a_raise_under_the_minimum_is_refused_with_the_rule():
    app = TableHarness.of(room_at(mine=True))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.table
        assert isinstance(screen, HoldemTable)
        status = screen.query_one(StatusBar)
        board = screen.view.board
        least, most = board.raise_bounds
        assert f"r raises ({least:,}–{most:,})" in status.hint
        await pilot.press("r")
        assert screen.amount == least and f"min {least:,} max {most:,}" in status.hint
        await pilot.press("right")
        assert screen.amount == least + board.blinds[1]
        await pilot.press("1", "5")  # typed: 15, under the minimum
        assert screen.amount == 15
        await pilot.press("enter")
        assert status.notice == f"the smallest raise is to {least}" and app.asked() == []
        await pilot.press("0", "0", "0")  # 15000: beyond my stack
        await pilot.press("enter")
        assert status.notice == f"the most you can bet is to {most} (all in)" and app.asked() == []
        await pilot.press("escape")
        assert screen.amount is None and "f folds" in status.hint
        await pilot.press("r", "a")  # all in, in the raise
        assert screen.amount == most
        await pilot.press("escape", "enter")
        assert status.notice == "press r to raise first"
        await pilot.press("r", "backspace")  # ⌫ on a preset edits it (40 becomes 4), not clears it to 0
        assert screen.amount == least // 10
        await pilot.press("escape")
        assert await play_key(pilot, "c") in ("call", "check")


async def test_keys_out_of_turn_say_whose_turn_it_is_and_send_nothing():
    room = room_at(mine=False)
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.table.query_one(StatusBar)
        for key, action in (("f", "fold"), ("c", "call"), ("a", "all in"), ("r", "raise")):
            await pilot.press(key)
            assert status.notice.startswith("it is Computer"), (action, status.notice)
        assert app.asked() == []


async def test_the_all_in_key_bets_every_chip():
    room = room_at(mine=True, seed=2)
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await play_key(pilot, "a") == "raise"
    log = room.tables[-1].log
    assert any(line.startswith("you raised to ") and line.endswith(", all in") for line in log), log[-4:]


async def test_every_seat_board_and_pot_are_readable_at_every_size():
    app = TableHarness.of(room_at(mine=True))
    async with app.run_test(size=SIZES[0]) as pilot:
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            screen = app.table
            assert not screen.has_class("-too-small")
            seats = [widget.render().plain for widget in screen.query(".seat")]
            assert len(seats) == 3 and seats[0].startswith("▶ You") and "to act" in seats[0], (size, seats)
            assert all(widget.region.height == 3 and widget.region.width >= 15 for widget in screen.query(".seat"))
            assert sum("Computer" in text for text in seats) == 2
            board = str(screen.query_one("#board").render())
            assert board.startswith("Board  ") and "··" in board
            assert str(screen.query_one("#pots").render()).startswith("Pot ")
            art = screen.query_one("#hole-cards")
            if size[0] >= 100 and size[1] >= 34:  # room for the cards themselves, as on the other tables
                assert not screen.query_one("#board").display and art.display and art.region.height >= 5
                assert str(art.render()).count("┌─") == 2  # my two hole cards, framed
                assert str(screen.query_one("#board-cards").render()).count("┌ ") == 5  # five places, none dealt
                used = max(part.region.bottom for part in screen.query("#seats, .art, #pots, #info"))
                top = min(part.region.y for part in screen.query("#seats"))
                assert used - top >= size[1] // 3, (size, top, used)  # the table takes a third of the rows or more
                if size[0] >= 200:  # and the width the log leaves, not a 110-column column in the middle
                    assert screen.query_one("#seats").region.width >= 140
            else:
                assert not art.display


def test_the_help_names_every_raise_key():
    assert "↑ ↓ ±10 big blinds" in HELP and "⌫ deletes" in HELP


def test_the_cues_read_without_colour_and_the_help_says_that_a_folded_hand_is_never_shown():
    view = view_of(room_at(mine=True))
    me = seat_text(view, view.me, 30).plain
    assert me.startswith("▶ You") and "to act" in me
    button = view.board.button
    assert " D" in seat_text(view, button, 30).plain.splitlines()[0]
    assert "folded or mucked\nhand is never shown to anyone, not even after the game" in HELP


async def test_at_showdown_c_shows_my_hand_and_f_mucks_it():
    """Everyone checks and calls to the river; the first hand is shown for its player; then mine waits for me."""
    room = offline_room(config(1))
    room.strategies = {seat: station for seat in range(3)}
    table = room.tables[-1]

    def my_showdown() -> bool:
        board = table.view().board
        return board is not None and table.play.pending is None and board.stage is Stage.SHOWDOWN and \
            board.to_move == table.me and any(player.shown for player in board.players)

    room.run(until=my_showdown)
    assert my_showdown()
    del room.strategies[table.me]
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.table.query_one(StatusBar)
        assert status.hint == "Showdown: c shows your hand · f mucks it (gives up the pots)"
        app.table.settle()
        await pilot.pause()
        shown = [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show and b.enabled]
        assert "Muck" in shown and "Show" in shown and "Fold" not in shown and "Check/Call" not in shown, shown
        await pilot.press("r")
        assert status.notice == "it is the showdown: c shows, f mucks"
        assert await play_key(pilot, "f") == "muck"
    assert any(line.startswith("you mucked") for line in table.log)
    last = view_of(room).board.last  # the next hand is dealt: the showdown stays on the screen as the last hand
    panel = info(view_of(room), 60).splitlines()
    assert panel[1] == f"Hand 1 on {plain_cards(last.board)}:" and panel[-1] == "  You mucked", panel
    for shown, line in zip(last.shown, panel[2:], strict=False):  # each hand shown: who, the cards, its name, won
        won = [f"· won {last.took(shown.seat)}"] if last.took(shown.seat) else []
        assert line.split() == " ".join([view_of(room).names[shown.seat], plain_cards(shown.cards), shown.name,
                                         *won]).split(), panel
    assert len(panel) == 2 + len(last.shown) + 1 and sum(last.took(s.seat) for s in last.shown) == 60


def at_the_flop_after_a_showdown() -> Room:
    """Hand 1 is checked and called to a showdown; hand 2 to the flop, where it is my turn."""
    from games.holdem.moves import Call, Check

    room = offline_room(config(1))
    room.strategies = {seat: station for seat in range(3)}
    table = room.tables[-1]

    def my_flop() -> bool:
        board = table.view().board
        return board is not None and board.hand == 2 and len(board.board) == 3 and table.view().my_turn

    room.run(until=lambda: (board := table.view().board) is not None and board.hand == 2)
    del room.strategies[table.me]
    while not my_flop():
        room.run()
        board = table.view().board
        if table.view().my_turn and not my_flop():
            room.post(table.me, table.prepare(Call() if board.to_call else Check()))
    return room


def test_snapshot_of_a_three_seat_table_at_the_flop_with_the_last_showdown(snap_compare):
    assert snap_compare(TableHarness.of(at_the_flop_after_a_showdown()), terminal_size=(80, 24), run_before=settled)


def test_the_view_is_built_after_every_post_from_the_hellos_to_my_first_bet():
    """Before a hand is dealt the board is the table's own state, not yet the seat's view: the screen's view is
    built from every state on the way to my first bet, through the shuffle and the deal."""
    from tabletop.values import Phase

    room = offline_room(config(2))
    table = room.tables[-1]
    phases: list[Phase] = []

    def shown() -> bool:
        phases.append(view_of(room).phase)
        return table.view().my_turn

    room.run(until=shown)
    assert {Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING} <= set(phases)
