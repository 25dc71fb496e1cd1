"""The words the screens put to the table's values: a game's result and the progress of the work around it.

The table returns values (``Result``, ``Progress``); what a player reads of them is written here, once. Keyed by
the values' strings, so that this module stays as light as the first frame (the table is imported later). The
words for who owes the game what and for an audit's verdict are in tabletop/words.py: the table writes them into
its own log and transcripts too, and tabletop imports nothing of discard_tui.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tabletop.table import Progress, Result

RESULTS = {"win": "You win", "loss": "You lose", "draw": "A draw"}
PROGRESS = {
    "starting": "Drawing who starts",
    "shuffling": "Shuffling: step {step} of {steps}",
    "dealing": "Dealing",
    "auditing": "Auditing the game",
}


def result_words(result: Result, cheer: bool = False) -> str:
    """ "You win" (with ``cheer``: "You win!"), "You lose", "A draw"."""
    return RESULTS[result.value] + ("!" if cheer and result.value == "win" else "")


def progress_words(progress: Progress) -> str:
    """ "Shuffling: step 3 of 4", "Dealing", …"""
    return PROGRESS[progress.phase.value].format(step=progress.step, steps=progress.steps)
