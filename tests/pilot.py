"""The one way screen tests wait on a Textual app run by Pilot, read what it shows, and show a screen alone."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App
from textual.pilot import Pilot

import discard_tui
from discard_tui.table_screen import Intent, TableScreen
from discard_tui.view import SeatPhase, SeatView


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


class TableHarness(App[None]):
    """One table screen showing one view, with the app's styles: a screen tested without a game, a relay or crypto.

    What the screen asks the game for (its :class:`Intent` messages, which the real app hands to the table) is
    kept in ``intents``: nothing acts on it here.
    """

    CSS_PATH = str(Path(discard_tui.__file__).parent / "app.tcss")

    def __init__(self, screen: TableScreen, view: SeatView) -> None:
        super().__init__()
        self.table, self.view = screen, view
        self.intents: list[Intent] = []

    async def on_mount(self) -> None:
        await self.push_screen(self.table)  # mounted: a view given to a screen still mounting waits for the next
        self.table.update(self.view)

    @on(Intent)
    def record(self, intent: Intent) -> None:
        self.intents.append(intent)

    def asked(self) -> list[tuple[str, int | None]]:
        """The intents so far, as (action, index)."""
        return [(intent.action, intent.index) for intent in self.intents]

    def show(self, **changes: Any) -> None:
        """Show the view ``changes`` away from the one shown, as the engine's next change would."""
        assert self.table.view is not None
        self.table.update(dataclasses.replace(self.table.view, **changes))


def seat_view(kind: type[SeatView] = SeatView, **fields: Any) -> Any:
    """A view of seat 0 of two ("ana", "bo"), both present, in play: ``fields`` change any of it."""
    from tabletop.ledger import Link

    base: dict[str, Any] = dict(phase=SeatPhase.PLAYING, game=1, me=0, names=("ana", "bo"), present=(True, True),
                                my_turn=False, log=(), progress=None, link=Link.CONNECTED, result=None, verdict=None,
                                problem=None, transcript=None, rematch_offered=False, waiting_since=None, moves=0)
    return kind(**{**base, **fields})
