"""How a game starts: the settings the command line makes and the app follows (importing nothing heavy)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .table_screen import GameUI

ROOM = re.compile(r"[A-Za-z0-9._-]{1,64}")


@dataclass(frozen=True)
class ScreenEntry:
    """A game the app offers (``SCREENS``: the registry of screens, beside games.GAMES, the registry of games):
    its screen, and what the command line needs to know of it before the game's rules are imported.

    tests/test_cli.py checks that ``seats`` and ``options`` agree with the game's own definition.
    """

    ui: Callable[[], GameUI[Any]]  # its side of the app: the screen, its view and moves (imported when called)
    seats: range  # how many players it takes
    default_seats: int  # how many sit down when nobody says (against the computer: the others are computers)
    options: tuple[str, ...] = ()  # its options, each a flag of the same name


def _discard() -> GameUI[Any]:
    from .discard_screen import UI
    return UI


def _rps() -> GameUI[Any]:
    from .rps_screen import UI
    return UI


def _war() -> GameUI[Any]:
    from .war_screen import UI
    return UI


def _cabo() -> GameUI[Any]:
    from .cabo_screen import UI
    return UI


SCREENS = {
    "discard": ScreenEntry(_discard, range(2, 3), 2, ("deck",)),
    "rps": ScreenEntry(_rps, range(2, 3), 2),
    "war": ScreenEntry(_war, range(2, 3), 2, ("tricks",)),
    "cabo": ScreenEntry(_cabo, range(2, 6), 3, ("points",)),
}

# The groups a new room's deck can be encrypted in (tabletop/groups.py; tests/test_cli.py checks they agree),
# the default first, each with what a player weighs in choosing it.
GROUPS = {
    "ed25519": "edwards25519: 128-bit security, fast",
    "modp2048": "2048-bit MODP: 112-bit security, slow",
    "modp3072": "3072-bit MODP: 128-bit security, slower",
}
DEFAULT_GROUP = next(iter(GROUPS))
THINK = 0.6  # seconds the computer waits before each move, so that a person sees it move


@dataclass
class PlayConfig:
    """How to start: against the computer (no relay given), through a relay, or hosting one."""

    relay: str | None = None
    room: str = "local"
    name: str = "you"
    game: str = "discard"  # the game to open a room with (a room opened by someone else decides its own)
    seats: int = 2  # players, when this player opens the room
    options: dict[str, str | int] = field(default_factory=dict)  # the game's options ({"deck": "short"}, {"tricks": 50})
    group: str = DEFAULT_GROUP  # the deck's group, when this player opens the room (a room keeps its own)
    host: str | None = None  # listen address when we run the relay ourselves
    port: int = 0
    opponent_seed: int | None = None
    think_time: float = THINK  # seconds a computer player waits before each move
    seeds: tuple[bytes, ...] | None = None  # fixed crypto seeds (mine, then each computer's), for tests only
    leave_grace: float = 30.0  # seconds an opponent (or the relay) may be gone before leaving is offered

    @property
    def against_computer(self) -> bool:
        return self.relay is None and self.host is None

    @property
    def computers(self) -> int:
        """How many computer players sit at the table: every seat but mine, against the computer."""
        return self.seats - 1 if self.against_computer else 0


def name_problem(name: str) -> str | None:
    """What is wrong with a player's name (shown to every other player), or None."""
    return None if 1 <= len(name) <= 32 and name.isprintable() else "use 1 to 32 printable characters"


def fresh_room(kind: str) -> str:
    """A new room's name nobody else will pick by chance: "computer-3fa2c1d0", "table-…"."""
    return f"{kind}-{secrets.token_hex(4)}"


def room_problem(room: str) -> str | None:
    """What is wrong with a room's name, or None."""
    if not ROOM.fullmatch(room):
        return "use 1 to 64 of A-Z a-z 0-9 . _ -"
    return "use more than dots: . and .. read as directories" if set(room) == {"."} else None
