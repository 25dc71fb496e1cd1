"""Every game at every number of seats, on every group, between discard-bot processes over a real relay.

For each (game, seats, group) of the matrix, starts one `discard-bot --json` per seat in a room of its own on one
loopback relay (`python -m relay --port 0`), plays one short game, and prints whether every seat finished it
verified (version 5: every shuffle step's proof checked on receipt, every key against its commitment, every move
against the rules), the first deal's wall time (`shuffle_s`: game start until the deal, every proof made and
checked, relay hops included; median over the seats) and its CPU time per seat (`shuffle_cpu_s`: every thread of
the seat's process; the largest seat's), and the game's wall time. A seat that fails ends the run with its line.

    uv run python benchmarks/every_game.py                              # the whole matrix, ed25519
    uv run python benchmarks/every_game.py --groups ed25519,modp2048    # and MODP (slower: seconds per deal)
    uv run python benchmarks/every_game.py --games holdem --seats 6     # one cell

The issue's bound for a six-seat Hold'em deal: each seat's own proving and checking at most 1 s of CPU
(`shuffle_cpu_s` also counts the seat's start-up work in the game: the draw for who starts and the deal's shares).
MODP's CPU is spent in a two-process pool that `shuffle_cpu_s` (the bot's own process) does not count; its wall
time is the figure to read there.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from local_relay import play_game, start_relay

from tabletop.groups import GROUPS

SEATS = {"discard": (2,), "rps": (2,), "war": (2,), "cabo": (2, 3, 4, 5), "holdem": (2, 3, 4, 5, 6)}
OPTIONS = {  # short games: the deal is the figure, and every game must reach its end
    "discard": ["--deck", "full"],
    "rps": [],
    "war": ["--tricks", "3"],
    "cabo": ["--points", "10"],
    "holdem": ["--hands", "2", "--blinds", "50/100"],
}
NAMES = ("ana", "bo", "cy", "di", "ed", "flo")
CPU_BOUND_6 = 1.0  # seconds of one seat's CPU for a six-seat Hold'em deal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(SEATS), help="games, comma-separated (default: all)")
    parser.add_argument("--seats", type=int, help="only this number of seats")
    parser.add_argument("--groups", default="ed25519", help="groups, comma-separated (default ed25519)")
    args = parser.parse_args()
    games, groups = args.games.split(","), args.groups.split(",")
    for group in groups:
        if group not in GROUPS:
            parser.error(f"no group {group!r} (choose from {', '.join(GROUPS)})")
    relay, url = start_relay()
    print(f"{'game':<8}{'seats':>6}  {'group':<9}{'verified':>9}{'deal ms':>9}{'deal CPU ms/seat':>18}{'game s':>8}",
          flush=True)
    six_seat_cpu: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            for group in groups:
                for game in games:
                    for seats in SEATS[game]:
                        if args.seats is not None and seats != args.seats:
                            continue
                        room = f"every-{game}-{seats}-{group}-{time.monotonic_ns()}"
                        start = time.perf_counter()
                        lines = play_game(url, room, game, group, OPTIONS[game], NAMES[:seats], data_dir)
                        wall = time.perf_counter() - start
                        verified = len(lines) == seats and all(line["audit"] == "fair" for line in lines)
                        deal = statistics.median(line["shuffle_s"] for line in lines) * 1000
                        cpu = max(line["shuffle_cpu_s"] for line in lines)
                        if game == "holdem" and seats == 6:
                            six_seat_cpu[group] = cpu
                        print(f"{game:<8}{seats:>6}  {group:<9}{'yes' if verified else 'NO':>9}{deal:>9.0f}"
                              f"{cpu * 1000:>18.0f}{wall:>8.1f}", flush=True)
    finally:
        relay.terminate()
        relay.wait(timeout=10)
    for group, cpu in six_seat_cpu.items():
        print(f"six-seat Hold'em deal on {group}, the busiest seat's CPU: {cpu:.2f} s (bound {CPU_BOUND_6:.1f} s; "
              "MODP's pool is not counted)")


if __name__ == "__main__":
    main()
