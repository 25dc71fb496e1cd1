"""What the table tells, as values: its phase and the progress of the work around a game (:class:`Phase`,
:class:`Progress`), how a game ended for a seat (:class:`Result`), who owes the game what (:class:`Awaiting`), and
what an audit found (:class:`Problem`, :class:`Verdict`).

Nothing here is a sentence: tabletop/words.py words these values, once, for the table's log, a give-up line, a
transcript's check and the screens. They live below tabletop/table.py so that the words module, which the table
imports, can name them without an import cycle, and the first frame can import both (plain dataclasses and enums).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Phase(str, Enum):
    WAITING = "waiting"  # for every seat's hello
    STARTING = "starting"  # drawing who starts
    SHUFFLING = "shuffling"
    DEALING = "dealing"
    PLAYING = "playing"
    AUDITING = "auditing"
    OVER = "over"
    VIOLATION = "violation"


IN_GAME = frozenset({Phase.STARTING, Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING, Phase.AUDITING})  # a game
# under way: from the draw for who starts to its audit


class Result(str, Enum):
    """How a game ended for one seat."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"

    @classmethod
    def of(cls, winners: tuple[int, ...], seat: int) -> Result:
        """The result for ``seat`` of a game that ``winners`` won (nobody: a draw)."""
        return cls.DRAW if not winners else cls.WIN if seat in winners else cls.LOSS


@dataclass(frozen=True)
class Progress:
    """How far the work around a game has come: the draw for who starts, the shuffle, the deal or the audit."""

    phase: Phase  # STARTING, SHUFFLING, DEALING or AUDITING
    done: int  # steps done of ``total``, counting the shuffle's steps one by one
    total: int
    step: int = 0  # while shuffling: the step under way (from 1) of ``steps``; 0 once all are in, being checked
    steps: int = 0


class Owed(str, Enum):
    """What a seat can owe the game."""

    HELLO = "hello"
    REMATCH = "rematch"  # its hello to the next game
    START_COMMITMENT = "start commitment"  # the draw for who starts
    START_REVEAL = "start reveal"
    SHUFFLE_STEP = "shuffle step"  # step ``step`` of ``steps``
    HAND_KEYS = "hand keys"  # its keys to the cards dealt to me
    CARD_KEY = "card key"  # its key to a card being shown
    CHOICE_COMMITMENT = "choice commitment"  # a simultaneous choice (a throw)
    CHOICE_REVEAL = "choice reveal"
    MOVE = "move"


@dataclass(frozen=True)
class Awaiting:
    """Seat ``seat`` owes the game ``what``."""

    seat: int
    what: Owed
    step: int = 0  # SHUFFLE_STEP: the step owed (from 1) of ``steps``
    steps: int = 0


class Fault(str, Enum):
    """What an audit can find wrong."""

    BAD_SEED = "bad seed"  # a published deck seed is not the one of the seat's hello
    UNCOMMITTED_KEY = "uncommitted key"  # a card's key is not the one its owner committed to
    BAD_SEALED_KEY = "bad sealed key"  # a key sealed to another seat (``to``) was wrong
    BAD_SHOWN_KEY = "bad shown key"  # a key shown in the open during the game is not its owner's real one
    BAD_SHUFFLE = "bad shuffle"  # a phase-1 shuffle step is not the one the seat's seed makes
    BAD_REKEYING = "bad rekeying"  # a phase-2 shuffle step does not match the seat's keys
    BAD_DEAL = "bad deal"  # the final deck does not decrypt to one of each card (no one seat is named)
    ILLEGAL_MOVE = "illegal move"  # replayed with every face known, a move broke the rules (``details``: the game's)


@dataclass(frozen=True)
class Problem:
    """One thing an audit found wrong, and whose fault it is."""

    seat: int | None  # who; None when no one seat can be named
    kind: Fault
    details: str = ""  # the game's own words, after the mover's name ("claimed they could not move, …")
    card: int | None = None  # the card's position
    to: int | None = None  # BAD_SEALED_KEY: the seat the key was sealed to
    deal: int | None = None  # BAD_DEAL: the deal, from 1


@dataclass(frozen=True)
class Verdict:
    """The audit of one game: what it checked, and what failed."""

    problems: tuple[Problem, ...]
    decks: int
    cards: int  # in each deck
    moves: int  # moves and choices (throws) together
    tally: tuple[str, str]  # what the game calls one of them, and several

    @property
    def fair(self) -> bool:
        return not self.problems
