"""This data directory's unfinished games as a table, for the lobby and the start screen: Enter goes back to one."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from tabletop.words import ago

from . import saves
from .widgets import cell


class YourGames(DataTable[object]):
    """One row per unfinished game, newest first: the game, the other players, the score or the game under way,
    when it was last played (names shown literally). :attr:`highlighted` is the one Enter goes back to."""

    def __init__(self, seats: Sequence[saves.SavedSeat], **kwargs: object) -> None:
        super().__init__(cursor_type="row", **kwargs)  # type: ignore[arg-type]
        self.seats = list(seats)

    def fill(self, width: int, now: float | None = None) -> None:
        """(Re)draw the rows for ``width`` columns of the screen."""
        self.clear(columns=True)
        now = time.time() if now is None else now
        room = max(20, width - 32)  # left by the game (9) and played ("12 min ago") columns, the padding, a scrollbar
        needs = [max(map(cell_len, column)) for column in ([saves.opponents(seat) for seat in self.seats],
                                                           [seat.standing() for seat in self.seats])]
        names = min(needs[0], max(room // 3, room - needs[1]))  # the names take what the score does not need
        rows = [(cell(seat.game, 12), cell(saves.opponents(seat), names),
                 cell(seat.standing(), room - names), Text(ago(now - seat.last_played))) for seat in self.seats]
        # Each column's width is given: left to the table, it is measured when the app is next idle, and the
        # first frame (drawn before that) stays cached with every cell cut to its column's title ("game…").
        for index, label in enumerate(("Your game", "With", "Score", "Played")):
            self.add_column(label, width=max(cell_len(str(row[index])) for row in [(label,) * 4, *rows]))
        for row in rows:
            self.add_row(*row)

    @property
    def highlighted(self) -> saves.SavedSeat | None:
        if not self.seats:
            return None
        return self.seats[min(self.cursor_row, len(self.seats) - 1)]
