"""The games the table can run, by the name they have on the wire.

``GAMES`` maps each name to its :class:`~tabletop.game.Game`, imported on first use: importing this package
(``games.cards``, for a screen) loads only each game's facts (``games/<game>/about.py``), and starting one game
does not load the others' rules (Hold'em's PokerKit alone takes longer to import than the table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from .cabo.about import ABOUT as CABO
from .discard.about import ABOUT as DISCARD
from .holdem.about import ABOUT as HOLDEM
from .rps.about import ABOUT as RPS
from .war.about import ABOUT as WAR

if TYPE_CHECKING:
    from tabletop.about import About
    from tabletop.game import Game


def _discard() -> Game:
    from .discard.game import Discard
    return Discard()


def _rps() -> Game:
    from .rps.game import Rps
    return Rps()


def _war() -> Game:
    from .war.game import War
    return War()


def _cabo() -> Game:
    from .cabo.game import Cabo
    return Cabo()


def _holdem() -> Game:
    from .holdem.game import Holdem
    return Holdem()


class Registry(Mapping[str, "Game"]):
    """Games by name, each made (its modules imported) the first time it is asked for."""

    def __init__(self, loaders: dict[About, Callable[[], Game]]) -> None:
        self.abouts = {about.name: about for about in loaders}  # every game's facts, without its rules
        self._loaders = {about.name: load for about, load in loaders.items()}
        self._games: dict[str, Game] = {}

    def __getitem__(self, name: str) -> Game:
        if name not in self._games:
            game = self._loaders[name]()
            assert game.about is self.abouts[name], f"{name} is registered with another game's facts"
            self._games[name] = game
        return self._games[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


GAMES = Registry({DISCARD: _discard, RPS: _rps, WAR: _war, CABO: _cabo, HOLDEM: _holdem})
