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

With ``--against``, no relay and no cryptography: the computer
(games/holdem/strategy.py) plays sit-and-gos on the pure rules
(games/holdem/sitngo.py) against each named fixed policy, heads-up and at
three seats (the computer against two copies of the policy), ``--games``
games per policy and table size (default 100), game k seeded k (its decks and
the computer's choices) with the first button on seat k mod the seats. Prints
the computer's games won / played (a game shared at the last hand is not
won), its win rate with a 95 % Wilson interval, the hands per game, and the
time of each of its decisions. Against always-all-in heads-up it also prints
the best win rate any strategy can reach there, by a model solved exactly
(:func:`best_against_all_in`).

    uv run python benchmarks/holdem.py --against always-all-in,always-call,always-pot,always-fold-unless-free
    uv run python benchmarks/holdem.py --against always-all-in --seats 2 --games 200 --chips 2000
"""

from __future__ import annotations

from collections.abc import Callable

import bisect
import functools
import itertools
import math
import os
import random
import statistics
import sys
import tempfile
import time

from local_relay import game_arguments, game_relay, play_game

from games.holdem.game import HoldemOptions
from games.holdem.moves import HoldemView
from games.holdem.rules import blinds_at, parse_blinds
from games.holdem.strategy import COMBOS, RANKING, range_equity
from games.holdem.sitngo import POLICIES, computer, play
from tabletop.wire import Message

NAMES = ("ana", "bo", "cy")


def main() -> None:
    parser = game_arguments(__doc__)
    parser.add_argument("--hands", type=int, default=50, help="hands at most (default 50)")
    parser.add_argument("--chips", type=int, default=1000, help="each bot's chips at the start (default 1000)")
    parser.add_argument("--games", type=int, help="games, each in a room of its own (default 1); with --against, "
                        "games per policy and table size (default 100)")
    parser.add_argument("--against", help=f"comma-separated fixed policies to play on the pure rules: {', '.join(POLICIES)}")
    parser.add_argument("--seats", default="2,3", help="with --against: the table sizes (default 2,3)")
    parser.add_argument("--blinds", default="10/20", help="with --against: the first blinds (default 10/20)")
    args = parser.parse_args()
    if args.against:
        options = HoldemOptions(chips=args.chips, blinds=args.blinds, hands=args.hands)
        against(args.against.split(","), [int(n) for n in args.seats.split(",")], args.games or 100, options)
        return
    args.games = args.games or 1
    with game_relay(args.group) as url, tempfile.TemporaryDirectory() as data_dir:
        for game in range(1, args.games + 1):
            start = time.perf_counter()
            lines = play_game(url, f"holdem-{os.getpid()}-{game}", "holdem", args.group,
                              ["--hands", str(args.hands), "--chips", str(args.chips)], NAMES, data_dir)
            print(summary(lines, time.perf_counter() - start, 3 * args.chips), flush=True)


def against(names: list[str], sizes: list[int], games: int, options: HoldemOptions) -> None:
    """The computer's win rate against each fixed policy at each table size, and the time of its decisions."""
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        sys.exit(f"no such policy: {', '.join(unknown)} (known: {', '.join(POLICIES)})")
    print(f"cores: {os.cpu_count()}, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {options.chips:,} "
          f"chips each, blinds {options.blinds} doubling every 10 hands, {options.hands} hands at most")
    print(f"{'against':<24} {'seats':>5} {'won':>8} {'win rate':>8} {'95 % interval':>13} {'hands/game':>10}")
    times: list[float] = []
    start = time.perf_counter()
    for name in names:
        for seats in sizes:
            won, hands = 0, 0
            for seed in range(1, games + 1):
                state = play([timed(computer(seed), times), *[POLICIES[name]] * (seats - 1)], seed, options,
                             button=seed % seats)
                outcome = state.outcome()
                assert outcome is not None
                won += outcome.winners == (0,)
                hands += state.hand.number + 1
            low, high = wilson(won, games)
            print(f"{name:<24} {seats:>5} {f'{won}/{games}':>8} {won / games:>8.0%} {f'{low:.0%}–{high:.0%}':>13} "
                  f"{hands / games:>10.1f}", flush=True)
    if "always-all-in" in names:
        print("the best any strategy can do against always-all-in here (a model: best_against_all_in): " + ", ".join(
            f"{best_against_all_in(options, seats):.0%} at {seats} seats" for seats in sizes if seats in (2, 3)))
    ms = sorted(t * 1000 for t in times)
    print(f"the computer's decisions: {len(ms):,}, median {statistics.median(ms):.2f} ms, "
          f"99th percentile {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, max {ms[-1]:.2f} ms; "
          f"{time.perf_counter() - start:.1f} s in all")


def best_against_all_in(options: HoldemOptions, seats: int = 2) -> float:
    """The win rate of the best strategy heads-up against always-all-in, in a model solved by dynamic programming:
    every hand it shoves (or calls the shove) or folds its blind; a called shove is won with the hand's all-in
    equity against a random hand (1,000 seeded deals per kind of hand), the effective stack changing hands; the
    blinds double every 10 hands; after the last hand the chip leader wins (a tie is no win). Averaged over who
    has the first button. ``seats=3``: from the second hand, the two copies having played each other all in on the
    first (one holds two stacks), and the computer its own stack."""
    hands = all_in_equities()
    shares = [share for share, _ in hands]
    combos = list(itertools.accumulate((combos for _, combos in hands), initial=0))  # prefix sums, worst hand first
    equity = list(itertools.accumulate((combos * share for share, combos in hands), initial=0.0))
    total, base = seats * options.chips, parse_blinds(options.blinds)

    @functools.cache
    def best(hand: int, chips: int, button: int) -> float:
        if chips <= 0 or chips >= total or hand == options.hands:
            return float(chips * 2 > total)
        small, big = blinds_at(base, hand)
        fold = best(hand + 1, chips - min(chips, small if hand % 2 == button else big), button)
        stake = min(chips, total - chips)
        won, lost = best(hand + 1, chips + stake, button), best(hand + 1, chips - stake, button)
        if won <= lost:
            return fold
        k = bisect.bisect_left(shares, (fold - lost) / (won - lost))  # the hands below k fold, the rest go all in
        calls = (combos[-1] - combos[k]) * lost + (equity[-1] - equity[k]) * (won - lost)
        return (combos[k] * fold + calls) / combos[-1]

    start = seats - 2
    return (best(start, options.chips, 0) + best(start, options.chips, 1)) / 2


@functools.cache
def all_in_equities() -> list[tuple[float, int]]:
    """Each kind of starting hand's all-in equity against a random hand (1,000 seeded deals), and its combinations;
    the weakest first."""
    return sorted((range_equity(example(kind), (), [1.0], random.Random(kind), samples=1000), COMBOS[kind])
                  for kind in RANKING)


def example(kind: str) -> tuple[str, str]:
    """Two cards of a kind of starting hand: "AKs" -> ("As", "Ks")."""
    return kind[0] + "s", kind[1] + ("s" if kind.endswith("s") else "h")


def timed(policy: Callable[[HoldemView], Message | None], times: list[float]) -> Callable[[HoldemView], Message | None]:
    """``policy``, appending the time of each of its decisions to ``times``."""
    def decide(view: HoldemView) -> Message | None:
        start = time.perf_counter()
        move = policy(view)
        times.append(time.perf_counter() - start)
        return move

    return decide


def wilson(won: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate of ``won`` in ``games``."""
    rate = won / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


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
