"""Texas Hold'em between three discard-bot processes over a loopback relay: a 50-hand sit-and-go, and the time per hand.

Starts `python -m relay --port 0`, then three `discard-bot --game holdem
--seats 3 --hands 50 --json` processes in one room. Every hand is a new deal:
the three-player shuffle of 52 cards, the hole cards sealed to their owners,
the betting, each street shown to everyone, the showdown. The game ends after
50 hands, or sooner when one bot holds every chip; the blinds double every 10
hands. Prints the median of the bots' figures (`shuffle_s`: the first hand's
shuffle and deal; `game_s`: game start until the outcome, before the audit),
the time per hand, and the wall time of the whole run (processes and audit
too), and how the bots bet: folds, checks, calls, bets or raises (every
seat's, from `discard-bot --json`'s "bets"). Checks that every bot reports
the same chips, and that they add up.

    uv run python benchmarks/holdem.py
    uv run python benchmarks/holdem.py --hands 20 --group modp2048
    uv run python benchmarks/holdem.py --games 3
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from local_relay import game_arguments, game_relay, play_game

NAMES = ("ana", "bo", "cy")


def main() -> None:
    parser = game_arguments(__doc__)
    parser.add_argument("--hands", type=int, default=50, help="hands at most (default 50)")
    parser.add_argument("--chips", type=int, default=1000, help="each bot's chips at the start (default 1000)")
    parser.add_argument("--games", type=int, default=1, help="games, each in a room of its own (default 1)")
    args = parser.parse_args()
    with game_relay(args.group) as url, tempfile.TemporaryDirectory() as data_dir:
        for game in range(1, args.games + 1):
            start = time.perf_counter()
            lines = play_game(url, f"holdem-{os.getpid()}-{game}", "holdem", args.group,
                              ["--hands", str(args.hands), "--chips", str(args.chips)], NAMES, data_dir)
            print(summary(lines, time.perf_counter() - start, 3 * args.chips), flush=True)


def summary(lines: list[dict], wall: float, chips: int) -> str:
    """One game's figures: its hands and moves, the time per hand, and how the bots bet (every seat's moves)."""
    first = lines[0]
    if any(line["chips"] != first["chips"] or line["hands"] != first["hands"] for line in lines):
        sys.exit("the bots disagree on the chips")
    if sum(first["chips"].values()) != chips:
        sys.exit(f"the chips do not add up: {first['chips']}")
    hands, bets = first["hands"], first["bets"]
    game_s = statistics.median(line["game_s"] for line in lines)
    return (f"{hands} hands, {first['moves']} moves; game_s median {game_s:.1f} s, {game_s / hands:.2f} s per hand "
            f"(shuffle+deal of the first hand {statistics.median(line['shuffle_s'] for line in lines):.3f} s); "
            f"{wall:.1f} s of wall time in all; bets: {bets['fold']} folds, {bets['check']} checks, "
            f"{bets['call']} calls, {bets['raise']} bets or raises ({bets['fold'] / max(sum(bets.values()), 1):.0%} "
            f"folds); chips {first['chips']}; audits {','.join(sorted({line['audit'] for line in lines}))}")


if __name__ == "__main__":
    main()
