"""Hold'em's table screen alone, showing the app's game against two computers played on the in-memory ledger
(tests/pilot.py): the betting keys, the raise's amount, refused keys, the cues without colour, every size."""

from __future__ import annotations

import dataclasses

import pytest

from textual import on
from textual.widgets import Static

from discard_tui.app import PlayConfig
from discard_tui.table_screen import PathCopied, SaveHistory, SaveTranscript
from tabletop.values import Phase
from discard_tui.holdem_screen import (CardRow, HELP, KEY_HELP, HoldemScreenView, HoldemTable, info, plain_cards,
                                       seat_text, short_action)
from discard_tui.widgets import StatusBar
from discard_tui.table_screen import READ_ONLY, WATCHING, link_text
from games.holdem.about import Stage
from pilot import (TableHarness, carry_out, footer_cut, offline_room, play_key, screen_rows, seat_view, settled, text_of,
                   until, view_of, watcher_of, watcher_view)
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


async def test_at_60_columns_the_footer_shows_every_key_whole_with_the_raise_open():
    """The raise's keys at 60 columns: "q Quit" was cut to "q Q" (the footer's command palette key beside the
    game's). The footer is compact there, and r (the raise, open already) gives its room to the editor's keys."""
    app = TableHarness.of(room_at(mine=True))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("r")
        await until(pilot, lambda: app.table.amount is not None, "the raise open")
        keys = {key.key: key.description for key in app.table.query("FooterKey")}
        assert keys.get("enter") == "Send" and "r" not in keys and keys.get("q") == "Quit", keys
        assert footer_cut(app.table) == []


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


async def test_a_watchers_table_shows_no_hidden_card_makes_no_move_and_the_players_see_how_many_watch():
    """A watcher (relay 1.3) sees every seat's chips and the board, every hole card face down, its footer says it is
    read-only and no key makes a move; the players' status bar counts the watchers the ledger's watch event gives."""
    from tabletop.ledger import Event
    from tabletop.table import OBSERVER

    room = offline_room(config())
    watcher = watcher_of(room)
    room.run()
    mine = room.tables[-1].view().board.mine.hole
    app = TableHarness(HoldemTable(PlayConfig.leave_grace), watcher_view(room, watcher), title="Texas Hold'em")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.table

        def seats() -> str:
            return " ".join(str(widget.render()) for widget in screen.query(".seat"))

        await until(pilot, lambda: "▚▞" in seats(), "the seats drawn")
        seen = seats()
        assert seen.count("▚▞") == 6 and not any(plain_cards([card]) in seen for card in mine), seen
        status = screen.query_one(StatusBar)
        assert status.hint == WATCHING and status.headline == "tester's turn"
        footer = {binding.binding.description for binding in screen.active_bindings.values()
                  if binding.binding.show and screen.check_action(binding.binding.action, ()) is True}
        assert "Watching: read-only" in footer and not footer & {"Fold", "Check/Call", "Raise", "All in", "Rematch"}
        await pilot.press("f", "c", "a", "r", "enter", "n")
        assert app.asked() == []
        await pilot.press("w")  # what read-only means, in other words than the hint's, which stays
        assert status.notice == READ_ONLY != WATCHING == status.hint
    for table in (*room.tables, watcher):
        table.apply(Event(0, OBSERVER, "zed", "watch", {"watching": 2}, 0.0))
    player = view_of(room)
    assert player.watching == 2 and link_text(player) == "connected · 2 watching"
    waited = dataclasses.replace(watcher_view(room, watcher), waiting_since=0.0)  # the headline names who moves
    assert link_text(waited, now=60.0) == "connected · 2 watching"


async def test_a_watcher_sees_a_hand_shown_at_showdown_face_up():
    """A hand shown at showdown is shown to everyone, a watcher too: its seat turns it face up as the players' do
    (it stayed face down on the watcher's screen while the log said "h1 showed 2♠ 5♠")."""
    room = offline_room(config(1))
    room.strategies = {seat: station for seat in range(3)}
    watcher = watcher_of(room)
    table = room.tables[-1]

    def shown() -> bool:
        board = table.view().board
        return board is not None and table.play.pending is None and any(player.shown for player in board.players)

    room.run(until=shown)
    [player] = [p for p in table.view().board.players if p.shown]
    assert None not in player.hole  # the players see it
    app = TableHarness(HoldemTable(PlayConfig.leave_grace), watcher_view(room, watcher), title="Texas Hold'em")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table.query(".seat"), "the seats drawn")
        seats = " ".join(str(widget.render()) for widget in app.table.query(".seat"))
        assert plain_cards(player.hole) in seats and seats.count("▚▞") == 4, seats


async def test_a_watcher_s_big_table_names_whose_hand_it_draws():
    """At 200x50 the table draws a hand in big cards: a watcher's is the near seat's as everyone saw it, named
    ("ana's hand"; it once showed the last seat's cards under "Your hand")."""
    room = offline_room(config())
    watcher = watcher_of(room)
    room.run()
    view = watcher_view(room, watcher)
    app = TableHarness(HoldemTable(PlayConfig.leave_grace), view, title="Texas Hold'em")
    async with app.run_test(size=(200, 50)) as pilot:
        await until(pilot, lambda: app.table.query(".seat"), "the seats drawn")
        label = str(app.table.query_one("#hole-label", Static).render())
        assert label.endswith("'s hand") and "Your" not in label, label
        board = view.board
        assert board is not None
        assert app.table.query_one("#hole-cards", CardRow).shown == tuple(board.players[view.near].hole)


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
            for widget in screen.query(".seat"):  # each line cut to the seat's width, never wrapped onto the next
                assert all(len(line) <= widget.size.width for line in widget.render().plain.splitlines()), seats
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
    assert "↑ ↓ ±10 big blinds" in KEY_HELP and "⌫ deletes" in KEY_HELP


def test_the_cues_read_without_colour_and_the_help_says_that_a_folded_hand_is_never_shown():
    view = view_of(room_at(mine=True))
    me = seat_text(view, view.me, 30).plain
    assert me.startswith("▶ You") and "to act" in me
    button = view.board.button
    assert " D" in seat_text(view, button, 30).plain.splitlines()[0]
    assert "folded or mucked hand is never shown to anyone, not even after the game" in HELP


def test_a_narrow_seat_keeps_its_last_action_s_amount_in_a_poker_table_s_shorthand():
    view = view_of(room_at(mine=True))
    [big] = [p for p in view.board.players if p.action.startswith("Big blind")]
    wide = seat_text(view, big.seat, 30).plain.splitlines()[1]
    narrow = seat_text(view, big.seat, len(wide) - 1).plain.splitlines()[1]
    assert wide.endswith(f"Big blind {big.bet:,}") and narrow.endswith(f"BB {big.bet:,}")
    assert short_action("Raised to 1,050") == "Raise 1,050" and short_action("Bet 40") == "Bet 40"


def at_my_showdown(seed: int) -> Room:
    """The app's game of ``seed``, everyone checking and calling to the river, at my turn to show (after the first
    hand is shown), before my table posts anything."""
    room = offline_room(config(seed))
    room.strategies = {seat: station for seat in range(3)}
    table = room.tables[-1]

    def my_showdown() -> bool:
        board = table.view().board
        return board is not None and table.play.pending is None and board.stage is Stage.SHOWDOWN and \
            board.to_move == table.me and any(player.shown for player in board.players)

    room.run(until=my_showdown)
    assert my_showdown()
    del room.strategies[table.me]
    return room


def footer(app: TableHarness) -> list[str]:
    """The words the footer shows now (as drawn, not as the keys' checks would draw it)."""
    from textual.widgets._footer import FooterKey

    return [key.description for key in app.table.query(FooterKey)]


async def test_at_showdown_a_hand_that_loses_every_pot_waits_for_c_to_show_or_f_to_muck():
    """Everyone checks and calls to the river; the first hand is shown for its player; mine loses to it in every
    pot: it waits for me, and f mucks it."""
    room = at_my_showdown(1)
    table = room.tables[-1]
    assert view_of(room).board.beaten
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.table.query_one(StatusBar)
        assert status.hint == "Your hand loses every pot · c shows · f mucks (gives up nothing it could win)"
        app.table.settle()
        await pilot.pause()
        shown = [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show and b.enabled]
        assert "Muck" in shown and "Show" in shown and "Fold" not in shown and "Check/Call" not in shown, shown
        assert {"Muck", "Show"} <= set(footer(app))
        await pilot.press("r")
        assert status.notice == "it is the showdown: c shows, f mucks"
        assert await play_key(pilot, "f") == "muck"
    assert any(line.startswith("you mucked") for line in table.log)
    last = view_of(room).board.last  # the next hand is dealt: the showdown stays on the screen as the last hand
    panel = info(view_of(room), 120).splitlines()  # wide: a line for each hand shown
    assert panel[1] == f"Hand 1 on {plain_cards(last.board)}:" and panel[-1] == "  You mucked", panel
    for shown, line in zip(last.shown, panel[2:], strict=False):  # each hand shown: who, the cards, its name, won
        won = [f"· won {last.took(shown.seat)}"] if last.took(shown.seat) else []
        assert line.split() == " ".join([view_of(room).names[shown.seat], plain_cards(shown.cards), shown.name,
                                         *won]).split(), panel
    assert len(panel) == 2 + len(last.shown) + 1 and sum(last.took(s.seat) for s in last.shown) == 60


async def test_at_showdown_a_hand_that_wins_a_pot_is_shown_for_me_without_asking():
    """Mine beats or ties the hand shown first: the screen asks nothing (no hint, no Muck or Show key) and my table
    shows it on its own."""
    room = at_my_showdown(4)
    table = room.tables[-1]
    assert not view_of(room).board.beaten and view_of(room).board.may_muck  # the rules would let me muck it
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        app.table.settle()
        await pilot.pause()
        assert not app.table.view.my_turn and app.table.query_one(StatusBar).hint == ""
        assert "Muck" not in footer(app) and "Show" not in footer(app)
        await pilot.press("f")
        assert app.asked() == []
    room.run()
    assert app.asked() == [] and any(line.startswith("you showed") for line in table.log)
    assert view_of(room).board.last.shown[-1].seat == table.me


async def test_the_footer_names_what_f_and_c_do_now_when_only_their_words_change():
    """From my showdown (f Muck, c Show) to the next hand's turn to bet while its cards are still being dealt: every
    betting key is refused in both, only the words change; the footer must not keep "Muck" and "Show"."""
    room = at_my_showdown(1)
    app = TableHarness.of(room)
    async with app.run_test(size=(80, 24)) as pilot:
        app.table.settle()
        await pilot.pause()
        assert {"Muck", "Show"} <= set(footer(app))
        await pilot.press("f")
        assert await carry_out(room, app.intents[-1]) is None  # mucked; the next hand comes to my turn to bet
        dealing = "the last move is still being shown"
        betting = dataclasses.replace(view_of(room), fold_refusal=dealing, call_refusal=dealing,
                                      all_in_refusal=dealing, raise_refusal=dealing)
        assert betting.board.stage is Stage.BETTING and betting.my_turn
        app.table.update(betting)
        app.table.settle()
        await pilot.pause()
        assert "Muck" not in footer(app) and "Show" not in footer(app), footer(app)


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
    room = offline_room(config(2))
    table = room.tables[-1]
    phases: list[Phase] = []

    def shown() -> bool:
        phases.append(view_of(room).phase)
        return table.view().my_turn

    room.run(until=shown)
    assert {Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING} <= set(phases)



class SavingHarness(TableHarness):
    """The table alone, keeping what the game-over dialog asks the app to save."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.saved: list[str] = []

    @on(SaveHistory)
    def history(self) -> None:
        self.saved.append("history")

    @on(SaveTranscript)
    def transcript(self) -> None:
        self.saved.append("transcript")


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_game_over_dialog_names_the_hand_history_and_h_asks_for_it(size):
    """Beside the transcript's path, the hand history's (whole, broken only after a "/" or a "-"); h asks the app
    for it (in a terminal the app copies the path, as t does the transcript's, and the dialog says so where the
    path is, scrolled into sight); a game without one offers no h."""
    from discard_tui.app import GameOverScreen
    from discard_tui.widgets import PathLines
    from tabletop.values import Result, Verdict

    transcript = "/home/tester/.local/share/discard/transcripts/20261127-042649-computer-3fa2c1d0-seat2.json"
    history = transcript.removesuffix(".json") + "-game1.phhs"
    done = seat_view(HoldemScreenView, phase=Phase.OVER, verdict=Verdict((), 1, 52, 9, ("move", "moves")),
                     transcript=transcript, history=history, result=Result.WIN, wins=(1, 0),
                     ending="1st 1,010 ██ you\n2nd   990 ██ bo\n1 hand was played; the chip lead wins: you")
    app = SavingHarness(HoldemTable(30), done)
    async with app.run_test(size=size) as pilot:
        await app.push_screen(GameOverScreen(done, download=False))
        await pilot.pause()
        assert "h copies the path" in text_of(app.screen, "#history")
        lines = app.screen.query_one("#history-path", PathLines).render().plain.splitlines()
        assert "".join(lines) == history and all(line.endswith(("/", "-")) for line in lines[:-1])
        await pilot.press("h", "t")
        assert app.saved == ["history", "transcript"]
        app.screen.post_message(PathCopied(history))  # what the app answers h with in a terminal
        await pilot.pause()
        assert text_of(app.screen, "#history") == "Hand history: copied if the terminal allows OSC 52:"
        assert app.screen.query_one("#history").region.height == 1  # one line, beside the scrollbar too
        shown = app.screen.query_one("#gameover-body").scrollable_content_region
        assert all(shown.contains_region(app.screen.query_one(part).region) for part in ("#history", "#history-path"))
        app.screen.update(dataclasses.replace(done, history=None))
        await pilot.press("h")
        assert app.saved == ["history", "transcript"] and not app.screen.query_one("#history").display


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_game_over_dialog_keeps_its_keys_in_sight_while_the_rest_scrolls(size):
    """Three places, the transcript and the hand history: at 80x24 the dialog scrolled and "n plays again, q quits."
    was below its fold. The offer stays under what scrolls, in sight at 80x24 and 60x20."""
    from discard_tui.app import GameOverScreen
    from tabletop.values import Result, Verdict

    transcript = "/home/tester/.local/share/discard/transcripts/20261127-094721-computer-c7d6bdc0-seat2.json"
    done = seat_view(HoldemScreenView, phase=Phase.OVER, verdict=Verdict((), 1, 52, 4, ("move", "moves")),
                     transcript=transcript, history=transcript.removesuffix(".json") + "-game1.phhs",
                     result=Result.WIN, wins=(1, 0, 0), me=2, names=("Computer", "Computer 2", "tester"),
                     present=(True,) * 3, ending="1st 1,070 ██ you\n2nd   980 ██ Computer\n3rd   950 ██ Computer 2"
                                                 "\n1 hand was played; the chip lead wins: you")
    app = TableHarness(HoldemTable(30), done)
    async with app.run_test(size=size) as pilot:
        await app.push_screen(GameOverScreen(done, download=False))
        await pilot.pause()
        offer = app.screen.query_one("#offer")
        assert offer.render().plain == "n plays again, q quits."
        assert app.screen.query_one("#gameover").content_region.contains_region(offer.region), offer.region
        body = app.screen.query_one("#gameover-body")
        assert body.max_scroll_y > 0  # the case at hand: the rest does not fit
        assert not body.region.overlaps(offer.region)
        assert footer_cut(app.screen) == []  # "h History" was cut to "h Histo" at 60 columns
        assert app.screen.active_bindings["down"].binding.key_display == "↑↓"  # and the keys that scroll it:
        assert app.screen.check_action("scroll", ("down",))  # shown while something is below the fold
        app.set_focus(None)  # they scroll it whatever has the focus (only the mouse's wheel did)
        for key, at in (("pagedown", body.max_scroll_y), ("up", body.max_scroll_y - 1), ("pageup", 0), ("down", 1)):
            await pilot.press(key)
            await pilot.pause()
            assert body.scroll_y == at, (key, body.scroll_y)
        assert {key: app.screen.active_bindings[key].binding.action for key in "nqth"} == {  # its own keys stay
            "n": "rematch", "q": "app.quit", "t": "download", "h": "history"}


async def test_the_game_over_dialog_shows_no_scrolling_key_when_all_of_it_fits():
    from discard_tui.app import GameOverScreen
    from tabletop.values import Result, Verdict

    done = seat_view(HoldemScreenView, phase=Phase.OVER, verdict=Verdict((), 1, 52, 4, ("move", "moves")),
                     result=Result.WIN, wins=(1, 0))
    app = TableHarness(HoldemTable(30), done)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(GameOverScreen(done, download=False))
        await pilot.pause()
        assert app.screen.query_one("#gameover-body").max_scroll_y == 0
        assert not app.screen.check_action("scroll", ("down",))


def checked_down(state) -> None:
    """The current hand to its end: every bet called or checked, every street dealt, every hand shown."""
    from games.holdem.moves import Call, Check
    from test_holdem import board, play, showdown

    finished = len(state.played)
    while len(state.played) == finished:
        if state.hand.stage is Stage.BETTING:
            play(state, state.to_move(), Call() if state.hand.to_call() else Check())
        elif state.hand.stage is Stage.BOARD:
            board(state)
        else:
            showdown(state)


def two_hands_ended():
    """Hand 1 goes to a showdown; hand 2 is folded to my big blind (seat 2's) before my turn comes."""
    from games.holdem.moves import Call, Fold
    from test_holdem import new, play, stack

    state = new(seats=3, starter=2)  # I (seat 2) have the button, Computer the small blind, Computer 2 the big
    stack(state, {0: "2h3h", 1: "JsTd", 2: "9c9d", -1: "JcTh4sKd2c"})
    play(state, 2, Call())
    play(state, 0, Fold())
    checked_down(state)
    play(state, 0, Fold())  # hand 2: I have the big blind; the button and the small blind fold
    play(state, 1, Fold())
    return state


async def test_a_showdown_stays_until_my_next_decision_and_a_long_hand_name_wraps_under_itself():
    """Hand 1 goes to a showdown; hand 2 is folded to my big blind before my turn comes: both stay on the screen,
    hand 1's long hand name going on under its own start at 80 columns, until I decide something in hand 3."""
    from games.holdem.moves import Call, Fold
    from test_holdem import play

    state = two_hands_ended()
    names = ("Computer", "Computer 2", "tester")
    app = TableHarness(HoldemTable(30), seat_view(HoldemScreenView, me=2, names=names, present=(True,) * 3,
                                                  board=state.view(2)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = app.table.query_one("#info")
        lines = panel.render().plain.splitlines()
        assert lines[1] == "Hand 1 on J♣ 10♥ 4♠ K♦ 2♣:" and lines[-1] == "Hand 2: you won 20; 10 uncalled returned to you"
        named = lines.index("  Computer 2  J♠ 10♦  two pair, Jacks and Tens, King")
        assert lines[named + 1] == " " * 22 + "kicker · won 50" and max(map(len, lines)) <= panel.size.width
        play(state, 1, Fold())  # hand 3: the button folds; my small blind calls: a decision
        play(state, 2, Call())
        app.show(board=state.view(2))
        await pilot.pause()
        assert panel.render().plain.splitlines()[1:] == ["Hand 2: you won 20; 10 uncalled returned to you"]


def test_the_chip_graph_of_the_ending_has_thousands_separators():
    from games.holdem.moves import Call, Raise
    from test_holdem import new, play, stack

    state = new(seats=2, starter=0, chips=1500, hands=1)
    stack(state, {0: "AsAd", 1: "7c2d", -1: "3c8d9hJs4d"})
    play(state, 0, Raise(to=1500))
    play(state, 1, Call())
    checked_down(state)
    view = seat_view(HoldemScreenView, board=state.view(0), phase=Phase.OVER)
    assert info(view, 56).splitlines()[-2:] == ["You        █ 3,000", "bo         ▁ 0"]
    long = dataclasses.replace(view, names=("ana", "Anastasia-Philippa_Łopez-Zavala"))  # cut, it says so
    assert info(long, 56).splitlines()[-1] == "Anastasia… ▁ 0"  # not "Anastasia-", read as the whole name


def test_the_status_bar_names_whom_the_game_waits_on_not_every_other_player():
    """At three seats only the player to act is waited on: "waiting for bo", not "bo and cy" (a busted seat that left
    was named too, though it owed nothing)."""
    room = room_at(mine=False)
    [owing] = {due.seat for due in room.tables[-1].awaiting()}
    view = dataclasses.replace(view_of(room), waiting_since=0.0)
    assert link_text(view, now=42.0) == f"waiting for {view.names[owing]} for 42 s"


def after_a_void() -> tuple[Room, int]:
    """Three seats (ana, bo, cy) check and call; the flop needs a key of one who has gone, and its time runs out:
    hand 1 is void. Hand 2 is dealt to its first bet, no move made in it yet. The room and the seat that left."""
    from test_leaving import CLOCKED, claim_after, vanish_when
    from tabletop.values import Owed

    room = Room(game="holdem", seats=3, options=CLOCKED)
    room.strategies = {seat: station for seat in range(3)}
    room.run(until=lambda: room.tables[0].play.pending is not None)  # the flop is shown: every key is needed
    gone = vanish_when(room, Owed.CARD_KEY)
    claim_after(room, 90.0, gone)
    live = room.tables[(gone + 1) % 3]

    def next_bet() -> bool:
        board = live.view().board
        return board is not None and board.hand == 2 and board.stage is Stage.BETTING and board.to_move is not None

    room.run(until=next_bet)
    assert next_bet()
    return room, gone


async def test_a_void_hand_is_in_the_last_hand_panel_and_short_on_the_status_line():
    """The last-hand panel says that the hand was void, who left and how their stack was shared, as the log does;
    the status line says it in a few words, whole at 80 columns ("cy's time ran out while the deal needed their
    keys; hand 3 is void: every chip goes back …" was cut there), at 60 its first clause whole ("Hand 1 void: bo
    left", where it read "Hand 1 void: bo left, 1,0…"); the log keeps every word."""
    room, gone = after_a_void()
    seat = (gone + 1) % 3
    left, other = room.names[gone], room.names[3 - gone - seat]
    app = TableHarness.of(room, seat)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = app.table.query_one("#info")
        said = " ".join(line.strip() for line in panel.render().plain.splitlines()[1:])
        assert said == f"Hand 1 is void: {left} left. Every chip bet goes back; the 1,000 chips {left} had are " \
                       f"shared: 500 to {'you, 500 to ' + other if seat < 3 - gone - seat else other + ', 500 to you'}"
        assert all(row.rstrip() for row in screen_rows(panel)[1:3])  # drawn as written, not wrapped again
        status = app.table.query_one(StatusBar)
        assert status.event == f"Hand 1 void: {left} left, 1,000 shared"
        turn = screen_rows(status)[1]
        assert turn.rstrip().endswith(status.event), turn
        assert any(line.startswith(f"{left}'s time ran out while the deal needed their keys; hand 1 is void: every "
                                   f"chip goes back to where it stood when it began") for line in app.table.view.log)
        long, names = "Cyrano-de-Bergerac-Savinien", app.table.view.names  # a long name is cut in it as elsewhere
        app.show(names=tuple(long if k == gone else name for k, name in enumerate(names)),
                 last_move=app.table.view.last_move.replace(left, long), relay_offset=0.0)  # the clock shown too
        await pilot.pause()
        turn = screen_rows(status)[1].rstrip()
        assert "⏱" in turn and turn.endswith(" left, 1,000 shared") and "Hand 1 void: Cyrano-de" in turn, turn
        await pilot.resize_terminal(60, 20)  # "Hand 1 void: Cyrano-de-Ber…": its first clause whole
        await pilot.pause()
        turn = screen_rows(status)[1].rstrip()
        assert "⏱" in turn and turn.endswith("  Hand 1 void: Cyran… left"), turn
        app.show(names=names, last_move=app.table.view.last_move.replace(long, left))
        await pilot.pause()
        turn = screen_rows(status)[1].rstrip()
        assert "⏱" in turn and turn.endswith(f"  Hand 1 void: {left} left"), turn


async def test_the_status_line_names_the_new_hand_not_the_showdown_that_ended_the_last():
    """A showdown ends hand 1 and hand 2 is dealt: until somebody moved in it, the status line said "bo showed …",
    the start of the last hand's end; it names the new hand, whose showdown the last-hand panel shows whole."""
    room = Room(game="holdem", seats=2, options={"hands": 2})  # heads-up: the cheapest deal
    room.strategies = {seat: station for seat in range(2)}
    table = room.tables[0]
    room.run(until=lambda: (board := table.view().board) is not None and board.hand == 2 and
             board.stage is Stage.BETTING)
    view = view_of(room, 0)
    moves = [line for line in view.log if not line.startswith(("shuffling", "cards dealt"))]
    assert view.board.recent[-1][0].shown and " showed " in moves[-1], moves[-3:]  # nobody moved in hand 2 yet
    app = TableHarness.of(room, 0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.table.query_one(StatusBar).event == "Hand 2: button to bo, blinds 10/20"
        assert app.table.query_one("#info").render().plain.splitlines()[1].startswith("Hand 1 on ")


async def test_at_60_columns_the_new_hand_s_status_line_keeps_its_first_clause_whole_beside_a_long_clock():
    """At 60 columns, beside the clock and its time bank, "Hand 2: the button goes to you, blinds 10/20" was cut to
    "Hand 2: the button goes…": the status line says it short ("Hand 2: button to you", the blinds on the board
    below), for the seat to act as for the other, whose long name is cut with an ellipsis, never a word."""
    room = Room(game="holdem", seats=2, options={"hands": 2})
    room.strategies = {seat: station for seat in range(2)}
    table = room.tables[0]
    room.run(until=lambda: (board := table.view().board) is not None and board.hand == 2 and
             board.stage is Stage.BETTING)
    long = "Anastasia-Philippa_Łopez-Zavala"
    for seat, ends in ((1, "  Hand 2: button to you"), (0, "  Hand 2: button to Anast…")):
        app = TableHarness.of(room, seat)
        async with app.run_test(size=(60, 20)) as pilot:
            view = app.table.view
            app.show(names=(long if seat else "ana", "bo" if seat else long), relay_offset=0.0,
                     last_move=view.last_move.replace("bo", long) if not seat else view.last_move)
            await pilot.pause()
            status = app.table.query_one(StatusBar)
            assert status.event == ("Hand 2: button to you, blinds 10/20" if seat else
                                    f"Hand 2: button to {long}, blinds 10/20")
            turn = screen_rows(status)[1].rstrip()
            assert "⏱" in turn and " · bank " in turn and turn.endswith(ends), turn


async def test_a_separator_in_the_last_hand_panel_stays_with_its_words_at_80_columns():
    """"one pair, Fours, Ace, King, Ten kickers" filled the line, and the next began "· won 220" (or ended "· won"
    above "40"): the separator stays at the end of the words before it, "won 40" on one line, at every width."""
    from games.holdem.moves import Call, Fold
    from test_holdem import new, play, stack

    state = new(seats=3, starter=2)
    stack(state, {0: "2h3h", 1: "JsTd", 2: "9c9d", -1: "JcTh4sKd2c"})
    play(state, 2, Call())
    play(state, 0, Fold())
    checked_down(state)
    names = ("ana", "bo", "abcde")  # a name column of five leaves the hand's name a line up to "kicker", no more
    view = seat_view(HoldemScreenView, me=0, names=names, present=(True,) * 3, board=state.view(0))
    app = TableHarness(HoldemTable(30), view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = app.table.query_one("#info")
        rows = [row.rstrip() for row in screen_rows(panel)]
        assert "  bo     J♠ 10♦  two pair, Jacks and Tens, King" in rows, rows  # "kicker" fits, "kicker ·" not
        assert " " * 17 + "kicker · won 50" in rows and not any(row.lstrip().startswith("·") for row in rows), rows
    for width in range(24, 90):
        for line in info(view, width).splitlines():
            assert not line.lstrip().startswith("·") and not line.endswith((" won", " to")), (width, line)


async def test_at_60x20_the_last_hand_panel_keeps_the_newest_hand_when_both_do_not_fit():
    """Hand 1's showdown and hand 2 do not fit 60x20 together: hand 2, the newest, was cut off below the panel; the
    oldest hand goes instead."""
    state = two_hands_ended()
    view = seat_view(HoldemScreenView, me=2, names=("Computer", "Computer 2", "tester"), present=(True,) * 3,
                     board=state.view(2))
    app = TableHarness(HoldemTable(30), view)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        app.table.update(view)  # laid out: the rows it leaves the panel are known
        await pilot.pause()
        panel = app.table.query_one("#info")
        rows = [row.rstrip() for row in screen_rows(panel)]
        assert "Hand 2: you won 20; 10 uncalled" in rows and panel.region.bottom <= app.table.query_one("#play").region.bottom, rows
        assert not any(row.startswith("Hand 1") for row in rows), rows


async def test_a_long_name_cut_in_the_last_hand_panel_ends_in_an_ellipsis():
    """A 31-character name was cut to its first 14 columns, "Ana-Maria_Łope", with nothing to say it goes on: a
    player reads a cut name as the whole name. Cut, it ends in "…"."""
    from games.holdem.moves import Call, Fold
    from test_holdem import new, play, stack

    state = new(seats=3, starter=2)
    stack(state, {0: "2h3h", 1: "JsTd", 2: "9c9d", -1: "JcTh4sKd2c"})
    play(state, 2, Call())
    play(state, 0, Fold())
    checked_down(state)
    names = ("ana", "Ana-Maria_Łopez-Zavala_[b]x[/b]", "cy")
    view = seat_view(HoldemScreenView, me=0, names=names, present=(True,) * 3, board=state.view(0))
    app = TableHarness(HoldemTable(30), view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = [row.rstrip() for row in screen_rows(app.table.query_one("#info"))]
        assert any(row.startswith("  Ana-Maria_Łop…  J♠ 10♦") for row in rows), rows


async def test_the_help_keeps_each_key_line_on_one_row_at_80x24():
    """The help scrolls at 80x24, and its scrollbar took two columns: "⌫ deletes" and "f mucks it" went to the next
    row, under the headings' column ("deletes", "it"). Every key and cue line is one row."""
    from discard_tui.table_screen import help_page
    from discard_tui.widgets import HelpScreen

    app = TableHarness(HoldemTable(30), seat_view(HoldemScreenView))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(HelpScreen(help_page(HELP, KEY_HELP, "12345 67890 13579 24680 11223 34455", 3)))
        await pilot.pause()
        rows = [row.rstrip() for row in screen_rows(app.screen.query_one("#help Static"))]
        keys = (KEY_HELP + "\n" + HELP[HELP.index("[b]Cues"):HELP.index("[b]Secrecy")]).replace("[b]", "")
        keys = keys.replace("[/b]", "")
        for line in filter(None, keys.splitlines()):
            assert line.rstrip() in rows, (line, rows)
