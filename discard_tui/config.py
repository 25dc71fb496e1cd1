"""How a game starts: the settings the command line makes and the app follows (importing nothing heavy)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from games.cabo.about import ABOUT as CABO
from games.discard.about import ABOUT as DISCARD
from games.holdem.about import ABOUT as HOLDEM
from games.rps.about import ABOUT as RPS
from games.war.about import ABOUT as WAR
from tabletop.about import About

if TYPE_CHECKING:
    from .table_screen import GameUI

ROOM = re.compile(r"[A-Za-z0-9._-]{1,64}")


@dataclass(frozen=True)
class ScreenEntry:
    """A game the app offers (``SCREENS``: the registry of screens, beside games.GAMES, the registry of games):
    its screen, and its facts (players, options), which the command line reads before its rules are imported.
    """

    about: About  # the game's own facts (games/<game>/about.py), which its Game class carries too
    ui: Callable[[], GameUI[Any]]  # its side of the app: the screen, its view and moves (imported when called)


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


def _holdem() -> GameUI[Any]:
    from .holdem_screen import UI
    return UI


SCREENS = {entry.about.name: entry for entry in (
    ScreenEntry(DISCARD, _discard), ScreenEntry(RPS, _rps), ScreenEntry(WAR, _war), ScreenEntry(CABO, _cabo),
    ScreenEntry(HOLDEM, _holdem))}
DEFAULT_GAME = next(iter(SCREENS))  # the first one

# The groups a new room's deck can be encrypted in (tabletop/groups.py; tests/test_cli.py checks they agree),
# the default first, each with what a player weighs in choosing it.
GROUPS = {
    "secp256k1": "secp256k1: 128-bit security, fastest",
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
    game: str = DEFAULT_GAME  # the game to open a room with (a room opened by someone else decides its own)
    seats: int = 2  # players, when this player opens the room
    options: dict[str, str | int] = field(default_factory=dict)  # the game's options ({"deck": "short"}, {"tricks": 50})
    group: str = DEFAULT_GROUP  # the deck's group, when this player opens the room (a room keeps its own)
    host: str | None = None  # listen address when we run the relay ourselves
    port: int = 0
    opponent_seed: int | None = None
    think_time: float = THINK  # seconds a computer player waits before each move
    seeds: tuple[bytes, ...] | None = None  # fixed crypto seeds (mine, then each computer's), for tests only
    leave_grace: float = 30.0  # seconds an opponent (or the relay) may be gone before leaving is offered
    bell: bool = True  # ring the terminal's bell when my turn comes after a wait, in a game with people elsewhere
    public: bool = False  # a room this player creates on the relay is listed in its lobby (discard_tui/lobby.py)
    watch: bool = False  # watch ``room`` on ``relay`` from no seat (relay protocol 1.3): read-only, nothing is kept

    @property
    def against_computer(self) -> bool:
        return self.relay is None and self.host is None

    @property
    def computers(self) -> int:
        """How many computer players sit at the table: every seat but mine, against the computer."""
        return self.seats - 1 if self.against_computer else 0


def name_problem(name: str) -> str | None:
    """What is wrong with a player's name (shown to every other player), or None."""
    if not (1 <= len(name) <= 32 and name.isprintable()):
        return "use 1 to 32 printable characters"
    return "use 1 to 32 printable characters, not only spaces" if not name.strip() else None


def fresh_room(kind: str) -> str:
    """A new room's name nobody else will pick by chance: "computer-3fa2c1d0", "table-…"."""
    return f"{kind}-{secrets.token_hex(4)}"


def room_problem(room: str) -> str | None:
    """What is wrong with a room's name, or None."""
    if not ROOM.fullmatch(room):
        return "use 1 to 64 of A-Z a-z 0-9 . _ -"
    return "use more than dots: . and .. read as directories" if set(room) == {"."} else None
