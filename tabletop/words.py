"""The words put to the table's values of tabletop/values.py: who owes the game what.

Every sentence about them is written here, once, and read by everyone who shows one: the shell's give-up line
(discard-bot's, and the reason a transcript keeps) and a transcript's check (discard-verify, the replay). It lives
in ``tabletop/`` because the shell writes them itself and must not import ``discard_tui/``; the screens' own words
for the table's values (a result, the progress) are in discard_tui/words.py, which the first frame imports before
any of ``tabletop/``.

Seats are named from ``names`` (one per seat, as ``Table.name`` gives them).
"""

from __future__ import annotations

from collections.abc import Sequence

from .values import Awaiting, Owed

OWED = {  # each ends "bo never …"
    Owed.HELLO: "said hello",
    Owed.REMATCH: "accepted the rematch",
    Owed.START_COMMITMENT: "sent their commitment for who starts",
    Owed.START_REVEAL: "revealed their draw for who starts",
    Owed.SHUFFLE_STEP: "sent shuffle step {step} of {steps}",
    Owed.HAND_KEYS: "sent the keys to your hand",
    Owed.CARD_KEY: "sent their key to a card",
    Owed.AUDIT_KEYS: "sent their keys for the audit: the game cannot be verified",
    Owed.CHOICE_COMMITMENT: "chose",
    Owed.CHOICE_REVEAL: "revealed their choice",
    Owed.MOVE: "made their move",
}

# -- silence -------------------------------------------------------------------------------------------------


def awaiting_words(owed: Sequence[Awaiting], names: Sequence[str]) -> str:
    """ "bo never made their move", one clause per seat, joined by "; "; empty when nobody owes anything."""
    return "; ".join(f"{names[a.seat]} never {OWED[a.what].format(step=a.step, steps=a.steps)}" for a in owed)


def silence_words(owed: Sequence[Awaiting], names: Sequence[str], waited: float) -> str:
    """Why a seat gave up waiting: "bo never made their move (silent for 60 s)"."""
    return f"{awaiting_words(owed, names) or 'nobody moved'} (silent for {waited:g} s)"


def empty_room_words(room: str, waited: float) -> str:
    """Why a seat gave up waiting when nobody else ever joined its room."""
    return f"nobody came to play in room {room} (waited {waited:g} s)"


def unfinished_words(owed: Sequence[Awaiting], names: Sequence[str]) -> str:
    """Why a transcript's game is not verified although nothing in it broke the rules: it stops early."""
    what = awaiting_words(owed, names)
    return "the transcript ends before the game did" + (f" ({what})" if what else "")


def unaudited_words(missing: Sequence[int], names: Sequence[str]) -> str:
    """A transcript's game that ended but whose audit never came: who never published their keys."""
    return (f"{' and '.join(names[s] for s in missing)} never published their keys for the audit: "
            "the game cannot be verified")
