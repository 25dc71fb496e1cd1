"""The games the table can run, by the name they have on the wire.

``GAMES`` is built on first use, so that importing a light module of this
package (``games.cards``, for a screen) does not load every game's rules
and messages: the TUI draws its first frame before it needs any of them.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tabletop.game import Game

    GAMES: dict[str, Game]


@cache
def _registry() -> dict[str, Game]:
    from .cabo.game import Cabo
    from .discard.game import Discard
    from .holdem.game import Holdem
    from .rps.game import Rps
    from .war.game import War

    return {game.name: game for game in (Discard(), Rps(), War(), Cabo(), Holdem())}


def __getattr__(name: str) -> object:
    if name == "GAMES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
