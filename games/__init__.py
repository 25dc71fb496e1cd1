"""The games the table can run, by the name they have on the wire."""

from __future__ import annotations

from tabletop.game import Game

from .cabo.game import Cabo
from .discard.game import Discard

GAMES: dict[str, Game] = {game.name: game for game in (Discard(), Cabo())}
