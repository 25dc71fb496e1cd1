"""``discard-verify FILE…``: check saved games offline, as anyone, with no seat and no relay.

Prints one plain line per game of each transcript (tabletop/transcript.py
does the checking). Exit status 0 when every game checked out, 1 when a
problem was found (a violation, a failed audit, a game the transcript does
not finish), 2 when a file cannot be read or is not a transcript; 130 on
Ctrl-C. Never a traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import NoReturn

from .args import OneLineParser

FINE, PROBLEM, UNREADABLE = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-verify", description="Check saved games (transcripts) offline: every signature "
                      "and counter, every shuffle step, every key against its commitment, every move against the "
                      "rules, and the audit. One line per game; exit 0 if all is well, 1 if a problem was found, "
                      "2 if a file is not a transcript.")
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
    status = FINE if all(c.fair for c in checks) else PROBLEM
    return status, [f"{path}: {c.line()}" for c in checks]


def main(argv: list[str] | None = None) -> NoReturn:
    args = parser().parse_args(argv)
    status = FINE
    try:
        for path in args.files:
            code, lines = verify(path)
            for line in lines:
                print(line, flush=True)
            status = max(status, code)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        status = 130
    sys.exit(status)


if __name__ == "__main__":
    main()
