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
    uv run python benchmarks/shuffle.py --baseline ../v4 --baseline-group ed25519 --groups ed25519,secp256k1
                                      # version 4's default against version 5 on the same group and on its own

A baseline is another checkout of this repository with its own `uv sync`
done; its bots run with its own .venv, against the same relay, alternating
with this checkout's so that both see the same machine load.

Before the games, each group's proven steps alone: the time to prove and to check
one phase-1 and one phase-2 step (52 cards on ed25519, 8 on MODP), the
operations each costs, their lower bound on this machine and the ratio to it,
and the proof's size. `--baseline` with a version-4 checkout (`git worktree
add ../v4 0617dac`, `uv sync` there) compares the unproven path side by side.

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
from collections.abc import Callable
from typing import Any

from local_relay import run_bots, start_relay

from tabletop import proofs
from tabletop.crypto import WORKERS, Group, Key
from tabletop.deck import prove_phase1, prove_phase2
from tabletop.groups import GROUPS

TARGETS = {  # (players, group) -> the median shuffle+deal, every proof made and checked, not to exceed, in seconds
    (2, "secp256k1"): 0.200,
    (3, "secp256k1"): 0.350,
    (2, "ed25519"): 0.200,
    (3, "ed25519"): 0.350,
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


def operations(group: Group) -> list[str]:
    """What a proof's cost is counted in: variable-base and fixed-base (k·G) multiplications, additions, and, for a
    group that sums many points at once (secp256k1), the points summed that way."""
    return ["power", "base_power", "multiply"] + (["total"] if type(group).total is not Group.total else [])


class Counting:
    """A group's operations (:func:`operations`), counted."""

    def __init__(self, group: Group) -> None:
        self.group = copy.deepcopy(group)
        self.counts = dict.fromkeys(operations(group), 0)
        for name in self.counts:
            setattr(self.group, name, self._counted(name, getattr(self.group, name)))

    def _counted(self, name: str, method: Callable[..., int]) -> Callable[..., int]:
        def counted(*args: Any) -> int:
            self.counts[name] += len(args[0]) if name == "total" else 1
            return method(*args)
        return counted


def proof_figures(group_name: str, size: int = 52) -> None:
    """One proven phase-1 and phase-2 step of ``size`` cards: the time to prove and to check each, the operations
    each costs, their lower bound (that many operations at this machine's cost per operation, on one core) and the
    ratio of the measured time on this machine's threads to it, and the proof's size."""
    group = GROUPS[group_name]
    summed = list(group.encoded(size))
    unit = {"power": _time(lambda: group.power(group.encode(1), group.q - 12345)),
            "base_power": _time(lambda: group.base_power(group.q - 12345)),
            "multiply": _time(lambda: group.multiply(group.encode(1), group.encode(2))),
            "total": _time(lambda: group.total(summed)) / size}  # per point summed
    source = list(group.encoded(size))
    key, order = Key.derive(group, bytes(32), "shuffle/0"), list(range(size))[::-1]
    keys = [Key.derive(group, bytes(32), f"card/{j}") for j in range(size)]
    context = {"version": 5, "group": group_name, "room": "bench", "game": 1, "deal": 0, "seat": 0, "step": 1,
               "steps": 4}
    step1 = prove_phase1(group, context, source, key, order, bytes(32))
    output = [group.from_hex(x, "card") for x in step1.deck]
    f = group.base_power(key.d)
    step2 = prove_phase2(group, context, output, key.d, keys, bytes(32))
    rekeyed = [group.from_hex(x, "card") for x in step2.deck]
    d_points = [group.base_power(k.d) for k in keys]
    shuffle_proof = proofs.ShuffleProof.from_wire(group, step1.proof or [], size)
    rekey_proof = proofs.RekeyProof.from_wire(group, step2.proof or [], size)
    runs: list[tuple[str, Callable[[Group], object], int]] = [
        ("phase 1, prove", lambda g: prove_phase1(g, context, source, key, order, bytes(32)), 0),
        ("phase 1, check", lambda g: proofs.check_shuffle(g, context, output, source, f, shuffle_proof),
         sum(map(len, step1.proof or []))),
        ("phase 2, prove", lambda g: prove_phase2(g, context, output, key.d, keys, bytes(32)), 0),
        ("phase 2, check", lambda g: proofs.check_rekey(g, context, output, rekeyed, f, d_points, rekey_proof),
         sum(map(len, step2.proof or [])))]
    for label, run, digits in runs:
        counting = Counting(group)
        counting.group.threads = False  # counted on one thread
        run(counting.group)
        start = time.perf_counter()
        run(group)
        took = time.perf_counter() - start
        bound = sum(count * unit[name] for name, count in counting.counts.items())
        counts = ", ".join(f"{count} {name}" for name, count in counting.counts.items())
        size_note = f", proof {digits:,} hex digits" if digits else ""
        print(f"{group_name}, {size} cards, {label}: {took * 1000:.1f} ms on {WORKERS} threads; {counts}; "
              f"lower bound {bound * 1000:.1f} ms on one core, measured/bound {took / bound:.2f}{size_note}",
              flush=True)


def _time(operation: Callable[[], object], rounds: int = 50) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        operation()
    return (time.perf_counter() - start) / rounds


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
    parser.add_argument("--baseline-group", metavar="G", help="with --baseline: the baseline's bots play in G "
                        "(default: the group they are compared in; an old checkout may not have a new group)")
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
        proof_figures(name, 52 if GROUPS[name].threads else 8)
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
    groups = {"baseline": args.baseline_group or group, "this checkout": group}
    for round_ in range(args.rounds):
        for label, checkout in (("baseline", args.baseline), ("this checkout", None)):
            results = play(url, f"compare-{group}-{round_}-{label[0]}-{os.getpid()}", groups[label], args.games,
                           data_dir, checkout, game=args.three, seats=seats)
            if {r["audit"] for r in results} != {"fair"}:
                sys.exit(f"{label}: a game was not fair")
            samples[label] += [r["shuffle_s"] for r in results]
    for label, values in samples.items():
        print(f"52 cards, {groups[label]}, {seats} players, {label}: shuffle+deal median "
              f"{statistics.median(values) * 1000:.0f}"
              f" ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, {len(values)} samples)")
    ratio = statistics.median(samples["this checkout"]) / statistics.median(samples["baseline"])
    print(f"{group}: this checkout / baseline: {ratio:.2f}", flush=True)


if __name__ == "__main__":
    main()
