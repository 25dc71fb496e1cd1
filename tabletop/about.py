"""What is known of a game before its rules are imported: its names, how many play, and its options.

The command line, the start screen and the registry of screens read a game's
``About`` before the first frame, so this module imports nothing. The game's
``Game`` class carries it (``Game.about``): the table takes the game's names
and seats from it, and the game's pydantic ``Options`` model takes each
option's default and bounds from it (``tabletop.game.option_field``), checked
when the class is made.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OneOf:
    """An option that is one of some words (``--deck short``)."""

    name: str  # the option's field, and its flag
    choices: tuple[str, ...]
    default: str
    help: str  # what it does, for a person choosing it

    def parse(self, text: str) -> str:
        if text not in self.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(self.choices)}")
        return text


@dataclass(frozen=True)
class Number:
    """An option that is a whole number from ``low`` to ``high`` (``--tricks 50``)."""

    name: str
    low: int
    high: int
    default: int
    help: str

    def parse(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = self.low - 1
        if not self.low <= value <= self.high:
            raise ValueError(f"{text!r} is not a whole number from {self.low} to {self.high}")
        return value


Option = OneOf | Number

CLOCK, BANK = "clock", "bank"  # the names of the two options every game with turns declares (:func:`clock`)


def clock(move: int, bank: int) -> tuple[Number, Number]:
    """A game's action clock, as two options of the room with the game's own defaults: seconds for each move, and a
    time bank each seat draws on once a move takes longer (docs/games.md, "The clock")."""
    return (Number(CLOCK, 5, 3600, move, "seconds each player has for a move"),
            Number(BANK, 0, 36000, bank, "seconds of time bank each player draws on past a move's time"))


@dataclass(frozen=True)
class About:
    """A game's facts, written once."""

    name: str  # on the wire, in hello, and on the command line
    title: str  # for people
    seats: range  # how many players it takes
    default_seats: int  # how many sit down when nobody says (against the computer: the others are computers)
    options: tuple[Option, ...] = ()

    def __post_init__(self) -> None:
        assert self.default_seats in self.seats, f"{self.name}: {self.default_seats} players is not in {self.seats}"

    @property
    def players(self) -> str:
        """How many play, in words: "2 players", "2 to 5 players"."""
        low, high = self.seats.start, self.seats.stop - 1
        return f"{low} players" if low == high else f"{low} to {high} players"
