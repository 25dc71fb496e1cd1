"""``discard-tui --history FILE``: the hand histories of a saved transcript's games, on standard output.

Hold'em's are in the Poker Hand History format (``games/holdem/history.py``), a
game of ``[gameN-handK]`` tables each, as ``discard-tui`` and ``discard-bot``
write them beside the transcript when a game ends. Only games in which
``discard-verify`` finds nothing wrong (an unfinished one as far as its last
finished hand), built from the transcript alone: the cards shown to everyone
and, when it runs from the data directory of the seat that kept the transcript
(its seed is beside it), that seat's own hole cards; never another's unshown
card.
"""

from __future__ import annotations


def history(path: str) -> int:
    """Print the hand histories of ``path``; the exit status (discard-verify's: 2 unreadable, 1 nothing to write)."""
    import sys
    from pathlib import Path

    from games import GAMES
    from tabletop import transcript
    from tabletop.table import OBSERVER

    from .args import checked_transcript, nothing_in

    checked = checked_transcript("--history", path)
    if checked is None:
        return 2
    record, checks = checked
    seed = transcript.seed_beside(Path(path))
    mine = transcript.seat_table(record, GAMES, seed) if seed is not None else None
    texts = []
    for check in checks:
        play = mine.plays[check.number - 1] if mine is not None else check.play
        made = play.state.history_file(check.names, mine.me if mine is not None else OBSERVER, check.number,
                                       record.room) if check.fair and play.state is not None else None
        if made is not None:
            texts.append(made[1])
    if not texts:
        return nothing_in("--history", path, "no hand history", checks)
    sys.stdout.write("\n".join(texts))
    return 0
