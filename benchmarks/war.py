"""A whole game of War between two discard-bot processes over a loopback relay.

Starts `python -m relay --port 0`, then, GAMES times, two
`discard-bot --game war --tricks TRICKS --json` processes that play one game
in a room of their own, and prints per game what the bots report (each bot
its own figures: they differ by the relay's delivery) and the medians: the
time from every hello to the game's end (`game_s`: shuffle and every turn,
not the audit), the shuffle and deal (`shuffle_s`), turns (`moves`) and
milliseconds per turn, and the wall time of the two processes from start to
exit (start-up, the game and the audit).

    uv run python benchmarks/war.py                  # 3 games of up to 500 tricks
    uv run python benchmarks/war.py --games 5 --think 0.01

One game at full speed stays within the relay's default rate limit (a burst of
400 frames per connection, then 100 a second): a 500-trick game costs each
seat about 300 frames. Rematches at full speed in one room would not: the
client paces itself to 90 % of the limit the relay states in its welcome, so
a later game waits for tokens (`discard-bot --games 4` in one room: the
fourth game takes 2.7 s instead of 0.8). `--think` paces the bots;
`--relay-rate N` gives the relay `--rate N --burst N`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from local_relay import run_bots, start_relay


def play(url: str, room: str, tricks: int, think: float, data_dir: str) -> tuple[list[dict], float]:
    """One game in ``room``: both bots' JSON lines, and the wall time until both processes exited."""
    command = [sys.executable, "-m", "discard_tui.bot", "--relay", url, "--room", room, "--game", "war",
               "--tricks", str(tricks), "--think", str(think), "--json"]
    start = time.perf_counter()
    results = run_bots([command + ["--name", name] for name in ("north", "south")], data_dir)
    return results, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games, each in a room of its own (default 3)")
    parser.add_argument("--tricks", type=int, default=500, help="the trick limit (default 500)")
    parser.add_argument("--think", type=float, default=0.0, help="each bot's --think, seconds (default 0)")
    parser.add_argument("--relay-rate", type=float, default=None, metavar="N",
                        help="the relay's --rate and --burst (default: the relay's own, 100 frames/s and 400)")
    args = parser.parse_args()

    print(f"cores: {os.cpu_count()}, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    relay, url = start_relay(*(["--rate", str(args.relay_rate), "--burst", str(int(args.relay_rate))]
                               if args.relay_rate else []))
    results, walls = [], []
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            for number in range(1, args.games + 1):
                lines, wall = play(url, f"war-{os.getpid()}-{number}", args.tricks, args.think, data_dir)
                results += [dict(line, game=number) for line in lines]
                walls.append(wall)
    finally:
        relay.terminate()
        relay.wait(timeout=10)
    for r in sorted(results, key=lambda r: r["game"]):
        play_ms = (r["game_s"] - r["shuffle_s"]) / r["moves"] * 1000
        print(f"game {r['game']}: {r['result']:<4} scores {r['scores']}, {r['moves']} turns, game {r['game_s']:.2f} s "
              f"(shuffle+deal {r['shuffle_s']:.2f} s, {play_ms:.1f} ms a turn), audit {r['audit']}")
    game_s = [r["game_s"] for r in results]
    shuffle_s = [r["shuffle_s"] for r in results]
    per_turn = [(r["game_s"] - r["shuffle_s"]) / r["moves"] * 1000 for r in results]
    print(f"median: game {statistics.median(game_s):.2f} s (min {min(game_s):.2f}, max {max(game_s):.2f}), "
          f"shuffle+deal {statistics.median(shuffle_s):.2f} s, {statistics.median(per_turn):.1f} ms a turn, "
          f"{len(results)} samples; two processes from start to exit: median {statistics.median(walls):.2f} s")
    if {r["audit"] for r in results} != {"fair"}:
        sys.exit("a game was not fair")


if __name__ == "__main__":
    main()
