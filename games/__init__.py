"""The games the table can run, by the name they have on the wire."""

from __future__ import annotations

from tabletop.game import Game

from .cabo.game import Cabo
from .discard.game import Discard
from .rps.game import Rps
from .war.game import War

GAMES: dict[str, Game] = {game.name: game for game in (Discard(), Rps(), War(), Cabo())}
