"""What the table tells about silence, as values: who owes the game what (:class:`Awaiting`).

Nothing here is a sentence: tabletop/words.py words these values, once, for a give-up line and a transcript's
check. They live below tabletop/table.py so that the words module can name them without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Owed(str, Enum):
    """What a seat can owe the game."""

    HELLO = "hello"
    REMATCH = "rematch"  # its hello to the next game
    START_COMMITMENT = "start commitment"  # the draw for who starts
    START_REVEAL = "start reveal"
    SHUFFLE_STEP = "shuffle step"  # step ``step`` of ``steps``
    HAND_KEYS = "hand keys"  # its keys to the cards dealt to me
    CARD_KEY = "card key"  # its key to a card being shown
    AUDIT_KEYS = "audit keys"  # its secrets, published for the audit
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
