"""Snapshots of the table, help and game-over screens at 80x24.

Deterministic: both players' crypto seeds and the computer's choices are fixed, and the game is the app's game
against the computer (tests/pilot.py: offline_room), played on an in-memory ledger; the screens show what the
app's own view function makes of my seat, and the tests wait for screen states, not time.
Update after a deliberate change with: uv run pytest tests/test_snapshots.py --snapshot-update
"""

import dataclasses

from discard_tui.app import HelpScreen, PlayConfig
from discard_tui.game_over_screen import GameOverScreen
from discard_tui.discard_screen import HELP, KEY_HELP
from discard_tui.table_screen import help_page
from games.cards import FULL_DECK
from games.discard.moves import DiscardCard, Draw
from games.discard.rules import matches
from pilot import TableHarness, offline_room, settled, until
from tabletop.table import Table

SIZE = (80, 24)
FIXED = PlayConfig(name="tester", room="snapshot", options={"deck": "short"}, opponent_seed=5, think_time=0,
                   seeds=(b"\x01" * 32, b"\x02" * 32))


def at_my_first_turn() -> TableHarness:
    room = offline_room(FIXED)
    room.run(until=lambda: room.tables[-1].view().my_turn)
    return TableHarness.of(room)


def first_playable_or_draw(table: Table) -> DiscardCard | Draw | None:
    """My moves: the first card of my hand that can be played, else a draw."""
    board = table.view().board
    if board is None or not table.view().my_turn:
        return None
    playable = [pos for (pos, _), ok in zip(board.hand, board.playable) if ok]
    return DiscardCard(pos=playable[0]) if playable else Draw(pos=board.draw_top)


def at_the_game_over() -> TableHarness:
    """The table at the end of the game (the app opens the game-over dialog over it)."""
    room = offline_room(FIXED)
    room.strategies[1] = first_playable_or_draw
    room.run()
    app = TableHarness.of(room)
    # The app's seat writes the transcript where the data directory says; its name is the time and the room.
    app.view = dataclasses.replace(app.view, transcript="data/transcripts/20261125-120000-snapshot-seat1.json")
    return app


def test_table(snap_compare):
    assert snap_compare(at_my_first_turn(), terminal_size=SIZE, run_before=settled)


def test_help(snap_compare):
    async def open_help(pilot):
        await settled(pilot)
        pilot.app.push_screen(HelpScreen(help_page(HELP, KEY_HELP, pilot.app.view.safety, 2)))  # what ? opens

    assert snap_compare(at_my_first_turn(), terminal_size=SIZE, run_before=open_help)


def test_game_over(snap_compare):
    async def over(pilot):
        await settled(pilot)
        pilot.app.push_screen(GameOverScreen(pilot.app.view, download=False))
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen), "the game-over dialog")

    assert snap_compare(at_the_game_over(), terminal_size=SIZE, run_before=over)


def test_big_hand_without_colour(snap_compare, monkeypatch):
    """40 cards at the smallest size, NO_COLOR=1: chips, the chosen one reversed, playable ones underlined."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def forty_cards(pilot):
        app = pilot.app
        hand = FULL_DECK[:40]
        app.show(hand=hand, opponent_hand=40, playable=tuple(matches(card, app.view.discard_top) for card in hand))
        await settled(pilot)
        await pilot.press("right", "right")

    assert snap_compare(at_my_first_turn(), terminal_size=(60, 20), run_before=forty_cards)


def test_too_small(snap_compare):
    assert snap_compare(at_my_first_turn(), terminal_size=(50, 16), run_before=settled)
