"""How a game starts: the settings the command line makes and the app follows (importing nothing heavy)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PlayConfig:
    """How to start: against the computer (no relay given), through a relay, or hosting one."""

    relay: str | None = None
    room: str = "local"
    name: str = "you"
    deck: str = "full"  # discard's deck: "full" or "short"
    host: str | None = None  # listen address when we run the relay ourselves
    port: int = 0
    opponent_seed: int | None = None
    think_time: float = 0.6
    seeds: tuple[bytes, bytes] | None = None  # fixed crypto seeds (mine, the computer's), for tests only
    leave_grace: float = 30.0  # seconds an opponent (or the relay) may be gone before leaving is offered

    @property
    def against_computer(self) -> bool:
        return self.relay is None and self.host is None
