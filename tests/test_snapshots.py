"""Snapshots of the table, help and game-over screens at 80x24.

Deterministic: both players' crypto seeds and the computer's choices are fixed,
the computer does not pause, and the test waits for game states, not time.
Update after a deliberate change with: uv run pytest tests/test_snapshots.py --snapshot-update
"""

import pytest

import dataclasses

from textual.widgets import Label

from discard_tui import discard_screen
from discard_tui.app import DiscardApp, GameOverScreen, PlayConfig
from discard_tui.profile import terminal_profile
from discard_tui.table_screen import Intent, MoveLog
from discard_tui.view import SeatPhase
from tabletop import shell
from games.cards import FULL_DECK
from games.discard.rules import matches
from pilot import until

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """A data directory whose shown path and transcript name are the same on every run (the game-over
    screen shows the transcript's path): relative to a temporary working directory, with a fixed clock."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCARD_DATA_DIR", "data")
    monkeypatch.setattr(shell.time, "strftime", lambda form, when=None: "20261125-120000")


def fixed_game() -> DiscardApp:
    return DiscardApp(PlayConfig(name="tester", room="snapshot", options={"deck": "short"}, opponent_seed=5,
                                 think_time=0, seeds=(b"\x01" * 32, b"\x02" * 32)), terminal_profile())



def my_turn(app) -> bool:
    return app.view is not None and app.view.my_turn


async def to_my_first_turn(pilot):
    await until(pilot, lambda: my_turn(pilot.app))


async def to_game_over(pilot):
    app = pilot.app
    while True:
        await until(pilot, lambda: my_turn(app) or app.view is not None and app.view.verdict is not None)
        view = app.view
        if not view.my_turn:
            break
        playable = [i for i, ok in enumerate(view.playable) if ok]
        if playable:
            await discard_screen.act(app.seat, Intent("discard", playable[0]))
        else:
            await discard_screen.act(app.seat, Intent("draw"))
        await until(pilot, lambda: app.view.moves > view.moves or app.view.phase is not SeatPhase.PLAYING)
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.query("#verdict")
                and str(app.screen.query_one("#verdict", Label).content).startswith("Checked: ")
                and app.table.query_one(MoveLog).lines_shown[-1].startswith("Checked: "))
    log = app.table.query_one(MoveLog)
    await until(pilot, lambda: log.scroll_y == log.max_scroll_y)  # the log scrolls to its last line after a refresh
    await pilot.wait_for_scheduled_animations()


def test_table(snap_compare):
    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=to_my_first_turn)


def test_help(snap_compare):
    async def open_help(pilot):
        await to_my_first_turn(pilot)
        await pilot.press("question_mark")

    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=open_help)


def test_game_over(snap_compare):
    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=to_game_over)


def test_big_hand_without_colour(snap_compare, monkeypatch):
    """40 cards at the smallest size, NO_COLOR=1: chips, the chosen one reversed, playable ones underlined."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def forty_cards(pilot):
        await to_my_first_turn(pilot)
        app = pilot.app
        hand = FULL_DECK[:40]
        app.view = dataclasses.replace(app.view, hand=hand, opponent_hand=40,
                                       playable=tuple(matches(card, app.view.discard_top) for card in hand))
        await pilot.press("right", "right")

    assert snap_compare(fixed_game(), terminal_size=(60, 20), run_before=forty_cards)


def test_too_small(snap_compare):
    assert snap_compare(fixed_game(), terminal_size=(50, 16), run_before=to_my_first_turn)
