"""Shuffle-and-deal time in every group, between discard-bot processes over a loopback relay.

Prints each group's cost per operation (one exponentiation with a full-size
key, and one check of a received element), then starts `python -m relay
--port 0` and, for each group, two `discard-bot --json` processes that play
GAMES rematches of discard with the full deck in one room, and prints the
median `shuffle_s` (game start until both hands are dealt, as each bot reports
it, relay hops included). `--three cabo` times the three-player cabo shuffle
and deal of 52 cards the same way.

    uv run python benchmarks/shuffle.py                       # every group, side by side
    uv run python benchmarks/shuffle.py --groups ed25519      # one group
    uv run python benchmarks/shuffle.py --three cabo          # three players, every group
    uv run python benchmarks/shuffle.py --baseline ../old-checkout --groups modp2048
                                      # the same runs, old and new bots taking turns, side by side

A baseline is another checkout of this repository with its own `uv sync`
done; its bots run with its own .venv, against the same relay, alternating
with this checkout's so that both see the same machine load.

Reference toolkit (mental-poker-toolkit demo, 1024-bit prime, measured on this
machine): 17.7 s for 52 cards, 6.8 s for 24.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time

from local_relay import run_bots, start_relay

from tabletop.groups import GROUPS

TARGETS = {  # (players, group) -> the median shuffle+deal it must not exceed, in seconds
    (2, "ed25519"): 0.060,
    (3, "ed25519"): 0.100,
    (2, "modp2048"): 0.5,
}


def play(url: str, room: str, group: str, games: int, data_dir: str, checkout: str | None = None,
         game: str | None = None, seats: int = 2) -> list[dict]:
    """``seats`` bots (of this checkout, or of ``checkout``) play `games` games; every bot's per-game JSON lines."""
    python = os.path.join(checkout, ".venv", "bin", "python") if checkout else sys.executable
    command = [python, "-m", "discard_tui.bot", "--relay", url, "--room", room, "--games", str(games),
               "--group", group, "--json",
               *(["--game", game, "--seats", str(seats)] if game else ["--deck", "full"])]
    names = ("north", "south", "east", "west", "up", "down")[:seats]
    return run_bots([command + ["--name", name, "--seed", str(i)] for i, name in enumerate(names)], data_dir,
                    cwd=checkout, timeout=600)


def operation_us(group_name: str, rounds: int = 200) -> tuple[float, float]:
    """Microseconds for one exponentiation with a full-size key, and for one check of an element received from
    elsewhere (a copy of the group made first has checked and computed none of them)."""
    group = GROUPS[group_name]
    receiver = copy.deepcopy(group)
    x, k = group.encode(0), group.q - 12345
    received = []
    start = time.perf_counter()
    for _ in range(rounds):
        x = group.power(x, k)
        received.append(group.to_hex(x))
    power = (time.perf_counter() - start) / rounds * 1e6
    start = time.perf_counter()
    for text in received:
        receiver.from_hex(text, "card")
    return power, (time.perf_counter() - start) / rounds * 1e6


def figure(label: str, results: list[dict], target: float | None) -> tuple[str, bool]:
    """One line: the median shuffle+deal of ``results``, against ``target`` if there is one; and whether it missed."""
    shuffles = [r["shuffle_s"] for r in results]
    median = statistics.median(shuffles)
    audits = ",".join(sorted({r["audit"] for r in results}))
    line = (f"{label}: shuffle+deal median {median * 1000:.0f} ms (min {min(shuffles) * 1000:.0f}, "
            f"max {max(shuffles) * 1000:.0f}, {len(shuffles)} samples), audits {audits}")
    missed = target is not None and median > target
    if target is not None:
        line += f"  [target <= {target * 1000:.0f} ms: {'MISSED' if missed else 'ok'}]"
    return line, missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(GROUPS), help=f"comma-separated (default {','.join(GROUPS)})")
    parser.add_argument("--games", type=int, default=5, help="rematches per figure (default 5)")
    parser.add_argument("--baseline", metavar="CHECKOUT", help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: alternating rounds (default 3)")
    parser.add_argument("--three", metavar="GAME", help="time a 52-card shuffle and deal among three bots playing "
                        "GAME (e.g. cabo) instead of two playing discard")
    args = parser.parse_args()
    groups = args.groups.split(",")
    if unknown := [g for g in groups if g not in GROUPS]:
        parser.error(f"--groups: no group {', '.join(unknown)} (there are {', '.join(GROUPS)})")

    print(f"cores: {os.cpu_count()}")
    for name in groups:
        power, check = operation_us(name)
        print(f"{name}: one exponentiation {power:.0f} µs, one element check {check:.0f} µs")
    seats = 3 if args.three else 2
    relay, url = start_relay()
    missed = False
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            for group in groups:
                if args.baseline:
                    compare(url, data_dir, args, group, seats)
                    continue
                results = play(url, f"bench-{group}-{os.getpid()}", group, args.games, data_dir, game=args.three,
                               seats=seats)
                what = f"three players ({args.three})" if args.three else "two players (discard)"
                line, miss = figure(f"52 cards, {group}, {what}", results, TARGETS.get((seats, group)))
                missed |= miss
                print(line, flush=True)
    finally:
        relay.terminate()
        relay.wait(timeout=10)
    sys.exit(1 if missed else 0)


def compare(url: str, data_dir: str, args: argparse.Namespace, group: str, seats: int) -> None:
    """This checkout's bots and the baseline's, taking turns in ``group``, medians side by side."""
    samples: dict[str, list[float]] = {"baseline": [], "this checkout": []}
    for round_ in range(args.rounds):
        for label, checkout in (("baseline", args.baseline), ("this checkout", None)):
            results = play(url, f"compare-{group}-{round_}-{label[0]}-{os.getpid()}", group, args.games, data_dir,
                           checkout, game=args.three, seats=seats)
            if {r["audit"] for r in results} != {"fair"}:
                sys.exit(f"{label}: a game was not fair")
            samples[label] += [r["shuffle_s"] for r in results]
    for label, values in samples.items():
        print(f"52 cards, {group}, {seats} players, {label}: shuffle+deal median {statistics.median(values) * 1000:.0f}"
              f" ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, {len(values)} samples)")
    ratio = statistics.median(samples["this checkout"]) / statistics.median(samples["baseline"])
    print(f"{group}: this checkout / baseline: {ratio:.2f}", flush=True)


if __name__ == "__main__":
    main()
