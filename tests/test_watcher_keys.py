"""A watcher's keys, in every game: none makes a move, and one that would have been a move says why in a watcher's
words, never in a player's ("it is bo's turn" read as if the watcher held a seat and waited for it)."""

from __future__ import annotations

import pytest

from discard_tui.app import PlayConfig
from discard_tui.config import SCREENS
from discard_tui.table_screen import READ_ONLY
from discard_tui.widgets import StatusBar
from pilot import TableHarness, offline_room, until, watcher_of, watcher_view

KEYS = ("enter", "space", "d", "c", "f", "r", "a", "t", "s", "p", "n", "left", "right", "1", "2", "3")


@pytest.mark.parametrize("game", sorted(SCREENS))
async def test_no_key_of_a_watcher_makes_a_move_and_none_answers_with_a_players_refusal(game):
    entry = SCREENS[game]
    seats = entry.about.default_seats
    config = PlayConfig(name="tester", room=f"watch-{game}", game=game, seats=seats, opponent_seed=1, think_time=0,
                        seeds=tuple(bytes([10 * k + 1]) * 32 for k in range(seats)))
    room = offline_room(config)
    watcher = watcher_of(room)
    room.run()  # the computers play up to my seat's first move, which the test never makes
    ui = entry.ui()
    app = TableHarness(ui.screen(PlayConfig.leave_grace), watcher_view(room, watcher), title=ui.title)
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.table.query_one(StatusBar)
        await until(pilot, lambda: app.table.view is not None, "the watcher's table")
        for key in KEYS:
            await pilot.press(key)
            await pilot.pause()
            assert status.notice in ("", READ_ONLY), (key, status.notice)
        assert app.intents == []
