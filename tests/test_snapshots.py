"""Snapshots of the table, help and game-over screens at 80x24.

Deterministic: both players' crypto seeds and the computer's choices are fixed,
the computer does not pause, and the test waits for game states, not time.
Update after a deliberate change with: uv run pytest tests/test_snapshots.py --snapshot-update
"""

import pytest

from discard_tui.app import DiscardApp, GameOverScreen, MoveLog, PlayConfig
from discard_tui.engine import Phase
from discard_tui.rules import DeckKind

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DISCARD_DATA_DIR", str(tmp_path))


def fixed_game() -> DiscardApp:
    return DiscardApp(PlayConfig(name="tester", room="snapshot", deck=DeckKind.SHORT, opponent_seed=5,
                                 think_time=0, seeds=(b"\x01" * 32, b"\x02" * 32)))


async def until(pilot, condition, limit=3000):
    for _ in range(limit):
        if condition():
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError("the app never reached the expected state")


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
            await app.session.discard(playable[0])
        else:
            await app.session.draw()
        await until(pilot, lambda: app.view.moves > view.moves or app.view.phase is not Phase.PLAYING)
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
    log = app.table.query_one(MoveLog)
    await until(pilot, lambda: log.scroll_y == log.max_scroll_y)  # the log scrolls to its last line after a refresh


def test_table(snap_compare):
    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=to_my_first_turn)


def test_help(snap_compare):
    async def open_help(pilot):
        await to_my_first_turn(pilot)
        await pilot.press("question_mark")

    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=open_help)


def test_game_over(snap_compare):
    assert snap_compare(fixed_game(), terminal_size=SIZE, run_before=to_game_over)
