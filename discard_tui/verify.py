"""``discard-verify FILE…``: check saved games offline, as anyone, with no seat and no relay.

Prints one plain line per game of each transcript (tabletop/transcript.py
does the checking). Exit status 0 when every game ended and checked out;
3 when a game is unfinished (the transcript stops before its end, or an old
version's audit never came) and nothing in it broke the rules; 1 when a
problem was found (a violation, a failed audit); 2 when a file cannot be read,
is not a transcript, or is damaged (changed after it was written: its events'
digest does not match, or sequence numbers are missing); 130 on Ctrl-C. With several files, the worst status
counts (2, then 1, then 3). Never a traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import NoReturn

from .args import OneLineParser

FINE, PROBLEM, UNREADABLE, UNFINISHED = 0, 1, 2, 3
SEVERITY = (FINE, UNFINISHED, PROBLEM, UNREADABLE)  # the worst status of several files counts


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-verify", description="Check saved games (transcripts) offline: every signature "
                      "and counter, every shuffle step, every key against its commitment, every move against the "
                      "rules, and the audit. One line per game; exit 0 if every game ended and checked out, 3 if a game "
                      "is unfinished but nothing in it broke the rules, 1 if a problem was found, 2 if a file is "
                      "not a transcript.")
    p.add_argument("files", nargs="+", metavar="FILE", type=Path, help="a transcript (see the README: Transcripts)")
    return p


def verify(path: Path) -> tuple[int, list[str]]:
    """The status and the lines for one file."""
    from games import GAMES
    from tabletop import transcript

    try:
        record = transcript.load(path)
        checks = transcript.check(record, GAMES)
    except transcript.NotATranscript as error:
        return UNREADABLE, [f"{path}: {error}"]
    if not checks:
        return PROBLEM, [f"{path}: no game was played in room {record.room}"]
    status = PROBLEM if not all(c.fair for c in checks) else FINE if all(c.verified for c in checks) else UNFINISHED
    return status, [f"{path}: {c.line()}" for c in checks]


def main(argv: list[str] | None = None) -> NoReturn:
    args = parser().parse_args(argv)
    status = FINE
    try:
        for path in args.files:
            code, lines = verify(path)
            for line in lines:
                print(line, flush=True)
            status = max(status, code, key=SEVERITY.index)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        status = 130
    sys.exit(status)


if __name__ == "__main__":
    main()
