"""The one way screen tests wait on a Textual app run by Pilot, and read what it shows."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from discard_tui.table_screen import TableScreen


async def until(pilot: Pilot, condition: Callable[[], object], what: str = "the expected state",
                limit: int = 3000) -> None:
    """Let the app run until ``condition()`` holds (bounded by message rounds, not by the clock), then let
    what that state pushed (a screen, say) compose, and a table screen show all of it at once (its log and
    footer otherwise follow the board by a moment: TableScreen.settle)."""
    for _ in range(limit):
        if condition():
            await pilot.pause()
            for screen in pilot.app.screen_stack:
                if isinstance(screen, TableScreen):
                    screen.settle()
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


def text_of(screen, selector: str) -> str:
    """The plain text a widget of ``screen`` renders."""
    return screen.query_one(selector).render().plain
