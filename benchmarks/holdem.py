"""Texas Hold'em between three discard-bot processes over a loopback relay: a 50-hand sit-and-go, and the time per hand.

Starts `python -m relay --port 0`, then three `discard-bot --game holdem
--seats 3 --hands 50 --json` processes in one room. Every hand is a new deal:
the three-player shuffle of 52 cards, the hole cards sealed to their owners,
the betting, each street shown to everyone, the showdown. The game ends after
50 hands, or sooner when one bot holds every chip; the blinds double every 10
hands. Prints the median of the bots' figures (`shuffle_s`: the first hand's
shuffle and deal; `game_s`: game start until the outcome, before the audit),
the time per hand, and the wall time of the whole run (processes and audit
too). Checks that every bot reports the same chips, and that they add up.

    uv run python benchmarks/holdem.py
    uv run python benchmarks/holdem.py --hands 20 --group modp2048
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from local_relay import run_bots, start_relay
from shuffle import operation_us

from tabletop.groups import DEFAULT_GROUP, GROUPS

NAMES = ("ana", "bo", "cy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50, help="hands at most (default 50)")
    parser.add_argument("--chips", type=int, default=1000, help="each bot's chips at the start (default 1000)")
    parser.add_argument("--group", choices=list(GROUPS), default=DEFAULT_GROUP.name,
                        help=f"the group the cards are encrypted in (default {DEFAULT_GROUP.name})")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, one exponentiation ({args.group}): {operation_us(args.group)[0]:.0f} µs",
          flush=True)
    relay, url = start_relay()
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            command = [sys.executable, "-m", "discard_tui.bot", "--relay", url, "--room", f"holdem-{os.getpid()}",
                       "--game", "holdem", "--seats", "3", "--hands", str(args.hands), "--chips", str(args.chips),
                       "--json", "--timeout", "120", "--group", args.group]
            start = time.perf_counter()
            lines = run_bots([command + ["--name", name, "--seed", str(k)] for k, name in enumerate(NAMES)], data_dir)
            wall = time.perf_counter() - start
    finally:
        relay.terminate()
        relay.wait(timeout=10)
    if any(line["chips"] != lines[0]["chips"] or line["hands"] != lines[0]["hands"] for line in lines):
        sys.exit("the bots disagree on the chips")
    if sum(lines[0]["chips"].values()) != 3 * args.chips:
        sys.exit(f"the chips do not add up: {lines[0]['chips']}")
    hands = lines[0]["hands"]
    game_s = statistics.median(line["game_s"] for line in lines)
    print(f"{hands} hands, {lines[0]['moves']} moves; game_s median {game_s:.1f} s, {game_s / hands:.2f} s per hand "
          f"(shuffle+deal of the first hand {statistics.median(line['shuffle_s'] for line in lines):.3f} s); "
          f"{wall:.1f} s of wall time in all; chips {lines[0]['chips']}; audits "
          f"{','.join(sorted({line['audit'] for line in lines}))}", flush=True)


if __name__ == "__main__":
    main()
