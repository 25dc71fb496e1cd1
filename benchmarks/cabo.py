"""Cabo between three discard-bot processes over a loopback relay: one round, and a whole game to 66.

Starts `python -m relay --port 0`, then three `discard-bot --game cabo
--seats 3 --json` processes in one room, twice: with `--points 1` every game
is one round (a total passes 1 after the first showdown), so its `game_s` is a
whole round (the draw for who starts, the three-player shuffle and deal of 52
cards, every turn, the showdown); then to the default 66 points, a whole game.
Prints the medians of the bots' figures (`shuffle_s`: game start until every
hand is dealt; `game_s`: game start until the outcome, before the audit) and
the wall time per game of the whole run (processes, rematches and audits too).

    uv run python benchmarks/cabo.py              # 3 one-round games, 2 whole games
    uv run python benchmarks/cabo.py --rounds 5 --games 3
    uv run python benchmarks/cabo.py --group modp2048
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from local_relay import game_arguments, game_relay, play_game


def play(url: str, room: str, games: int, points: int | None, data_dir: str, group: str
         ) -> tuple[list[dict], float]:
    """Three bots play ``games`` games in one room; every bot's JSON lines, and the wall time of the run."""
    options = ["--games", str(games), *(["--points", str(points)] if points is not None else [])]
    start = time.perf_counter()
    lines = play_game(url, room, "cabo", group, options, ("ana", "bo", "cy"), data_dir)
    return lines, time.perf_counter() - start


def summary(what: str, lines: list[dict], wall: float, games: int) -> str:
    shuffles, plays = [r["shuffle_s"] for r in lines], [r["game_s"] for r in lines]
    audits = ",".join(sorted({r["audit"] for r in lines}))
    moves = statistics.median(r["moves"] for r in lines)
    return (f"{what}: game_s median {statistics.median(plays):.2f} s (min {min(plays):.2f}, max {max(plays):.2f}); "
            f"shuffle+deal median {statistics.median(shuffles):.3f} s (min {min(shuffles):.3f}, "
            f"max {max(shuffles):.3f}); {moves:g} moves; {wall / games:.1f} s of wall time per game; "
            f"{len(lines)} samples; audits {audits}")


def main() -> None:
    parser = game_arguments(__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="one-round games to time (default 3)")
    parser.add_argument("--games", type=int, default=2, help="whole games to 66 to time (default 2)")
    args = parser.parse_args()
    with game_relay(args.group) as url, tempfile.TemporaryDirectory() as data_dir:
        for what, games, points in (("one round", args.rounds, 1), ("whole game to 66", args.games, None)):
            lines, wall = play(url, f"cabo-{games}-{points}-{os.getpid()}", games, points, data_dir, args.group)
            if any(line["scores"] != lines[0]["scores"] for line in lines if line["game"] == lines[0]["game"]):
                sys.exit("the bots disagree on the scores")
            print(summary(what, lines, wall, games), flush=True)


if __name__ == "__main__":
    main()
