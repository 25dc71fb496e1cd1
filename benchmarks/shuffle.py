"""Shuffle-and-deal time between two discard-bot processes over a loopback relay.

Starts `python -m relay --port 0`, then for each configuration two
`discard-bot --json` processes that play GAMES rematches in one room, and
prints the median `shuffle_s` (game start until both hands are dealt, as each
bot reports it) together with the raw cost of one gmpy2 powmod, which sets the
floor: a two-party shuffle of n cards needs at least 4n exponentiations in
sequence.

    uv run python benchmarks/shuffle.py            # 52/2048, 24/2048, 52/3072
    uv run python benchmarks/shuffle.py --games 9  # more rematches per figure
    uv run python benchmarks/shuffle.py --baseline ../old-checkout   # the same 52/2048 runs, old and new
                                                                     # bots taking turns, side by side
    uv run python benchmarks/shuffle.py --three cabo                 # 52 cards among three players

A baseline is another checkout of this repository with its own `uv sync`
done; its bots run with its own .venv, against the same relay, alternating
with this checkout's so that both see the same machine load.

Reference toolkit (mental-poker-toolkit demo, 1024-bit prime, measured on this
machine): 17.7 s for 52 cards, 6.8 s for 24.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import gmpy2
from local_relay import run_bots, start_relay

from tabletop.crypto import GROUPS

TARGET_52_2048 = 0.5
CONFIGS = [("full", 52, "modp2048"), ("short", 24, "modp2048"), ("full", 52, "modp3072")]


def play(url: str, room: str, deck: str | None, group: str, games: int, data_dir: str,
         checkout: str | None = None, game: str | None = None, seats: int = 2) -> list[dict]:
    """``seats`` bots (of this checkout, or of ``checkout``) play `games` games; every bot's per-game JSON lines."""
    python = os.path.join(checkout, ".venv", "bin", "python") if checkout else sys.executable
    command = [python, "-m", "discard_tui.bot", "--relay", url, "--room", room, "--games", str(games),
               "--group", group, "--json", *(["--deck", deck] if deck else []),
               *(["--game", game, "--seats", str(seats)] if game else [])]
    names = ("north", "south", "east", "west", "up", "down")[:seats]
    return run_bots([command + ["--name", name, "--seed", str(i)] for i, name in enumerate(names)], data_dir,
                    cwd=checkout, timeout=600)

def powmod_ms(group_name: str, rounds: int = 200) -> float:
    """Milliseconds for one modular exponentiation with a full-size exponent."""
    p = GROUPS[group_name].p
    base, exponent = gmpy2.mpz(3) ** 2 % p, (p - 1) // 2 - 12345
    start = time.perf_counter()
    for _ in range(rounds):
        base = gmpy2.powmod(base, exponent, p)
    return (time.perf_counter() - start) / rounds * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="rematches per configuration (default 5)")
    parser.add_argument("--baseline", metavar="CHECKOUT", help="another checkout to compare 52/2048 with")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: alternating rounds (default 3)")
    parser.add_argument("--three", metavar="GAME", help="also time a 52-card shuffle and deal among three bots "
                        "playing GAME (e.g. cabo)")
    args = parser.parse_args()

    print(f"cores: {os.cpu_count()}, gmpy2 {gmpy2.version()} ({gmpy2.mp_version()})")
    powmod = {name: powmod_ms(name) for name in ("modp2048", "modp3072")}
    for name, ms in powmod.items():
        print(f"one powmod, {name}: {ms:.2f} ms")
    relay, url = start_relay()
    failed = False
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            if args.baseline:
                compare(url, data_dir, args)
                return
            if args.three:
                results = play(url, f"bench-three-{os.getpid()}", None, "modp2048", args.games, data_dir,
                               game=args.three, seats=3)
                shuffles = [r["shuffle_s"] for r in results]
                print(f"52 cards, modp2048, three players ({args.three}): shuffle+deal median "
                      f"{statistics.median(shuffles):.3f} s (min {min(shuffles):.3f}, max {max(shuffles):.3f}, "
                      f"{len(shuffles)} samples), 6n powmods on one core {6 * 52 * powmod['modp2048'] / 1000:.2f} s, "
                      f"audits {','.join(sorted({r['audit'] for r in results}))}", flush=True)
                return
            for number, (deck, cards, group) in enumerate(CONFIGS):
                results = play(url, f"bench-{number}-{os.getpid()}", deck, group, args.games, data_dir)
                shuffles = [r["shuffle_s"] for r in results]
                audits = {r["audit"] for r in results}
                median = statistics.median(shuffles)
                one_core = 4 * cards * powmod[group] / 1000
                line = (f"{cards} cards, {group}: shuffle+deal median {median:.3f} s "
                        f"(min {min(shuffles):.3f}, max {max(shuffles):.3f}, {len(shuffles)} samples), "
                        f"4n powmods on one core {one_core:.2f} s, audits {','.join(sorted(audits))}")
                if (cards, group) == (52, "modp2048"):
                    verdict = "ok" if median <= TARGET_52_2048 else "MISSED"
                    failed = median > TARGET_52_2048
                    line += f"  [target <= {TARGET_52_2048} s: {verdict}]"
                print(line, flush=True)
    finally:
        relay.terminate()
        relay.wait(timeout=10)
    sys.exit(1 if failed else 0)


def compare(url: str, data_dir: str, args: argparse.Namespace) -> None:
    """52 cards, 2048 bits: this checkout's bots and the baseline's, taking turns, medians side by side."""
    samples: dict[str, list[float]] = {"baseline": [], "this checkout": []}
    for round_ in range(args.rounds):
        for label, checkout in (("baseline", args.baseline), ("this checkout", None)):
            results = play(url, f"compare-{round_}-{label[0]}-{os.getpid()}", "full", "modp2048", args.games,
                           data_dir, checkout)
            if {r["audit"] for r in results} != {"fair"}:
                sys.exit(f"{label}: a game was not fair")
            samples[label] += [r["shuffle_s"] for r in results]
    for label, values in samples.items():
        print(f"52 cards, modp2048, {label}: shuffle+deal median {statistics.median(values):.3f} s "
              f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} samples)")
    ratio = statistics.median(samples["this checkout"]) / statistics.median(samples["baseline"])
    print(f"this checkout / baseline: {ratio:.2f}")


if __name__ == "__main__":
    main()
