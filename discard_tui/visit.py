"""One browser visitor's game: the app process discard-web starts for each visitor.

``python -m discard_tui.visit DATA_DIR [--relay URL] [--relay-ca FILE] [--think S]``, run
by the server (discard_tui/web.py), never by hand: ``DATA_DIR`` is the
visitor's ephemeral profile, made and removed by the server; the start screen
comes first (name, game, the computer or a room on the relay); the game is
played as in a terminal, the screen going to the browser through textual-serve.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

from .args import OneLineParser, add_think, trust_relay
from .config import THINK, PlayConfig
from .profile import visitor_profile


def main(argv: list[str] | None = None) -> NoReturn:
    p = OneLineParser(prog="discard-visit", description="One browser visitor's game (started by discard-web).")
    p.add_argument("data_dir", type=Path, help="the visitor's own directory, removed when the visit ends")
    p.add_argument("--relay", metavar="URL", help="the relay visitors meet in")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss://")
    add_think(p, THINK)
    args = p.parse_args(argv)
    trust_relay(p, args.relay, args.relay_ca)
    profile = visitor_profile(args.data_dir)
    from .cli import run

    sys.exit(run(PlayConfig(name=profile.name, relay=args.relay, room="", think_time=args.think), profile, pick=True))


if __name__ == "__main__":
    main()
