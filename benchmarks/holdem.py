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
three seats both ways (the computer against two copies of the policy, and
one copy against two computers: the "computers" column), ``--games`` games
per policy and table size (default 100), game k seeded k (its decks and the
computer's choices; ``--first-seed S``: from seed S on) with the first
button on the seat of its seed mod the seats. Prints
the computers' games won / played (a game shared at the last hand is not
won, unless the computers share it), the win rate with a 95 % Wilson
interval, the hands per game, and the time of each of the computer's
decisions. Against always-all-in it also prints the best win rate any
strategy can reach there, by a model solved exactly
(:func:`best_against_all_in`), and against always-pot a bound on it
(:func:`best_against_pot`) and what a playable strategy wins
(:func:`floor_against_pot`). ``--compare REV`` also plays the computer of git
revision REV (its games/holdem/strategy.py, on today's rules) on the same
seeds, line by line.

    uv run python benchmarks/holdem.py --against always-all-in,always-call,always-pot,always-fold-unless-free
    uv run python benchmarks/holdem.py --against always-pot --compare af5c302
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
import subprocess
import sys
import tempfile
import time
import types

import eval7

from local_relay import game_arguments, game_relay, play_game

from games.holdem.game import HoldemOptions
from games.holdem.moves import HoldemView
from games.holdem.rules import blinds_at, parse_blinds
from games.holdem.rules import DECK
from games.holdem.strategy import COMBOS, RANKING, kind, range_equity
from games.holdem.sitngo import POLICIES, Policy, computer, play
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
    parser.add_argument("--first-seed", type=int, default=1, help="with --against: the seed of the first game "
                        "(default 1; game k is seeded first-seed + k - 1)")
    parser.add_argument("--blinds", default="10/20", help="with --against: the first blinds (default 10/20)")
    parser.add_argument("--compare", metavar="REV", help="with --against: also play the computer of git revision REV "
                        "(its games/holdem/strategy.py) on the same seeds")
    args = parser.parse_args()
    if args.against:
        options = HoldemOptions(chips=args.chips, blinds=args.blinds, hands=args.hands)
        players = {"now": computer} | ({args.compare: computer_at(args.compare)} if args.compare else {})
        seeds = range(args.first_seed, args.first_seed + (args.games or 100))
        against(args.against.split(","), [int(n) for n in args.seats.split(",")], seeds, options, players)
        return
    args.games = args.games or 1
    with game_relay(args.group) as url, tempfile.TemporaryDirectory() as data_dir:
        for game in range(1, args.games + 1):
            start = time.perf_counter()
            lines = play_game(url, f"holdem-{os.getpid()}-{game}", "holdem", args.group,
                              ["--hands", str(args.hands), "--chips", str(args.chips)], NAMES, data_dir)
            print(summary(lines, time.perf_counter() - start, 3 * args.chips), flush=True)


def computer_at(revision: str) -> Callable[[int | None], Policy]:
    """The computer of another git revision: its games/holdem/strategy.py, run against today's rules."""
    path = "games/holdem/strategy.py"
    source = subprocess.run(["git", "show", f"{revision}:{path}"], capture_output=True, text=True, check=True).stdout
    module = types.ModuleType(f"games.holdem.strategy_at_{revision}")
    module.__package__ = "games.holdem"
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return lambda seed: lambda view: module.decide(view, seed)


def against(names: list[str], sizes: list[int], seeds: range, options: HoldemOptions,
            players: dict[str, Callable[[int | None], Policy]]) -> None:
    """Each computer's win rate against each fixed policy at each table size, on the same seeds, and the time of
    each one's decisions."""
    games = len(seeds)
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        sys.exit(f"no such policy: {', '.join(unknown)} (known: {', '.join(POLICIES)})")
    print(f"cores: {os.cpu_count()}, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {options.chips:,} "
          f"chips each, blinds {options.blinds} doubling every 10 hands, {options.hands} hands at most")
    print(f"{'computer':<10} {'against':<24} {'seats':>5} {'computers':>9} {'won':>8} {'win rate':>8} "
          f"{'95 % interval':>13} {'hands/game':>10}")
    times: dict[str, list[float]] = {label: [] for label in players}
    start = time.perf_counter()
    for name in names:
        for seats in sizes:
            for computers in (1, seats - 1) if seats > 2 else (1,):
                for label, player in players.items():
                    won, hands = 0, 0
                    for seed in seeds:
                        mine = [timed(player(seed + 1_000_000 * k), times[label]) for k in range(computers)]
                        state = play([*mine, *[POLICIES[name]] * (seats - computers)], seed, options,
                                     button=seed % seats)
                        outcome = state.outcome()
                        assert outcome is not None
                        won += bool(outcome.winners) and max(outcome.winners) < computers and (
                            computers > 1 or len(outcome.winners) == 1)  # (no winner: a draw, not won)
                        hands += state.hand.number + 1
                    low, high = wilson(won, games)
                    print(f"{label:<10} {name:<24} {seats:>5} {computers:>9} {f'{won}/{games}':>8} {won / games:>8.0%} "
                          f"{f'{low:.0%}–{high:.0%}':>13} {hands / games:>10.1f}", flush=True)
    for label, taken in times.items():
        ms = sorted(t * 1000 for t in taken)
        print(f"{label}'s decisions: {len(ms):,}, median {statistics.median(ms):.2f} ms, "
              f"99th percentile {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, max {ms[-1]:.2f} ms")
    print(f"{time.perf_counter() - start:.1f} s in all")
    if "always-all-in" in names:
        print("the best any strategy can do against always-all-in here (a model: best_against_all_in): " + ", ".join(
            f"{best_against_all_in(options, seats):.0%} at {seats} seats" for seats in sizes if seats in (2, 3)))
    if "always-pot" in names:
        print("no strategy does better against always-pot than a player told the turn and river once it calls the flop "
              "(best_against_pot): " + ", ".join(
                  f"{best_against_pot(options, seats):.0%} at {seats} seats" for seats in sizes if seats in (2, 3)))
        if 2 in sizes:
            print("a strategy that folds knowing only the cards dealt so far, never on the river (floor_against_pot), "
                  f"wins {floor_against_pot(options):.0%} heads-up: the best does no worse")


Best = Callable[[int, int, int], float]  # the best win rate from (hand, my chips, the button's parity)
Hand = Callable[[Callable[[int], float], int, int, int], float]  # one hand's best value: (the value after my chips
# change by so much, my blind, the big blind, the effective stack)


def solve(options: HoldemOptions, seats: int, hand: Hand) -> Best:
    """A heads-up sit-and-go against a fixed policy solved by dynamic programming over (hand, my chips, button):
    ``hand`` gives one hand's best value from the values after it; the blinds double every 10 hands; after the last
    hand the chip leader wins (a tie is no win). ``seats`` sets the chips in play (``seats`` times the stack)."""
    total, base = seats * options.chips, parse_blinds(options.blinds)

    @functools.cache
    def best(number: int, chips: int, button: int) -> float:
        if chips <= 0 or chips >= total or number == options.hands:
            return float(chips * 2 > total)
        small, big = blinds_at(base, number)
        blind = min(chips, small if number % 2 == button else big)
        return hand(lambda change: best(number + 1, chips + change, button), blind, big, min(chips, total - chips))

    return best


def either_button(best: Best, number: int, chips: int) -> float:
    """A solved game's win rate from hand ``number`` with ``chips``, averaged over who has the button."""
    return (best(number, chips, 0) + best(number, chips, 1)) / 2


def best_against_all_in(options: HoldemOptions, seats: int = 2) -> float:
    """The win rate of the best strategy heads-up against always-all-in, in a model solved by dynamic programming
    (:func:`solve`): every hand it shoves (or calls the shove) or folds its blind; a called shove is won with the
    hand's all-in equity against a random hand (1,000 seeded deals per kind of hand), the effective stack changing
    hands. Averaged over who has the first button. ``seats=3``: from the second hand, the two copies having played
    each other all in on the first (one holds two stacks), and the computer its own stack."""
    hands = all_in_equities()
    shares = [share for share, _ in hands]
    combos = list(itertools.accumulate((combos for _, combos in hands), initial=0))  # prefix sums, worst hand first
    equity = list(itertools.accumulate((combos * share for share, combos in hands), initial=0.0))

    def hand(after: Callable[[int], float], blind: int, big: int, stake: int) -> float:
        fold, won, lost = after(-blind), after(stake), after(-stake)
        if won <= lost:
            return fold
        k = bisect.bisect_left(shares, (fold - lost) / (won - lost))  # the hands below k fold, the rest go all in
        calls = (combos[-1] - combos[k]) * lost + (equity[-1] - equity[k]) * (won - lost)
        return (combos[k] * fold + calls) / combos[-1]

    best = solve(options, seats, hand)
    start = seats - 2
    return either_button(best, start, options.chips)


def best_against_pot(options: HoldemOptions, seats: int = 2) -> float:
    """A bound on the win rate of any strategy against always-pot: the best strategy of a player told the turn and
    the river as soon as it has called the bet on the flop, and for whom every tie is a win, solved by dynamic
    programming.

    Always pot never folds and holds any two cards; it raises the pot on every street, so a hand that goes on costs
    3 big blinds to the flop, 9 to the turn, 27 to the river, and every showdown is for the effective stack (at most
    50 big blinds here). Knowing the board, going on and folding later only loses more, so the player's choices are:
    fold its blind knowing its two cards; or see the flop, then, knowing the flop, fold there (3 big blinds) or call
    its bet; told the turn and the river, fold on the turn (9 big blinds) or go to the showdown, won with its equity
    against every hand always-pot can hold on that board (:func:`flop_equities`). A real player knows less, so it
    wins no more (given that more chips never lower the chance to win). Heads-up: averaged over who has the first
    button. ``seats=3``: always-pot's two copies re-raise each other all in before the first flop, so the player
    folds its blind knowing its two cards (a tie between the copies counted as its win, then heads-up against the
    survivor, the better button) or puts in its whole stack against both."""
    best = solve(options, seats, against_pot(flop_equities()[0]))
    if seats == 2:
        return either_button(best, 0, options.chips)
    tie, three = three_way()
    small, big = parse_blinds(options.blinds)
    places = []
    for blind in (0, small, big):  # on the button, in the small blind, in the big blind
        fold = tie + (1 - tie) * max(best(1, options.chips - blind, button) for button in (0, 1))
        places.append(sum(COMBOS[kind] * max(fold, share) for kind, share in three.items()) / 1326)
    return sum(places) / 3


def floor_against_pot(options: HoldemOptions) -> float:
    """What a strategy a player can play wins heads-up against always-pot, in the model of
    :func:`best_against_pot` but told nothing: it folds on the flop knowing the flop, on the turn knowing the turn,
    never on the river, and splits ties. The best strategy wins at least this much, and at most
    :func:`best_against_pot`."""
    best = solve(options, 2, against_pot(flop_equities()[1]))
    return either_button(best, 0, options.chips)


def against_pot(flops: Rows) -> Hand:
    """One hand's best value against always-pot (see :func:`best_against_pot`): fold the blind, or see the flop
    and fold there, or call the flop's bet and fold on the turn, or go to the showdown, where ``flops`` gives per
    kind of hand and flop the shares of the pot a hand that goes on wins, for each card the turn decision knows."""
    def hand(after: Callable[[int], float], blind: int, big: int, stake: int) -> float:
        fold, won, lost = after(-blind), after(stake), after(-stake)
        flop = after(-3 * big) if 3 * big < stake else None
        turn = after(-9 * big) if 9 * big < stake and won > lost else None
        total, gain = 0.0, won - lost
        for name, rows in flops.items():
            if turn is None:  # all in by the flop's call, or before
                goes = [lost + sums[-1] / len(shares) * gain for shares, sums, _ in rows]
            else:
                at, cut = turn - lost, (turn - lost) / gain
                goes = [lost + (k * at + (sums[-1] - sums[k]) * gain) / len(shares)
                        for shares, sums, _ in rows for k in (bisect.bisect_left(shares, cut),)]
            value = sum(weight * (x if flop is None or x > flop else flop) for x, (_, _, weight) in zip(goes, rows))
            total += COMBOS[name] * max(fold, value)
        return total / 1326

    return hand


Rows = dict[str, list[tuple[list[float], list[float], float]]]  # per kind of starting hand, a row per flop: shares
# of the pot, sorted, their prefix sums, and the flop's weight for that kind


@functools.cache
def flop_equities(flops: int = 24) -> tuple[Rows, Rows]:
    """For each of ``flops`` seeded flops and each kind of starting hand, one hand of that kind the flop leaves
    possible (seeded), and against every other hand: on each turn and river, the share of them it beats or ties
    (ties counted as wins); and on each turn, its share of the pot over the rivers (ties split). Per kind, a row per
    flop of those shares, sorted, with their prefix sums and the flop's weight: how many hands of that kind the flop
    leaves possible, over the kind's rows. (A flop drawn first and a hand of the kind then, a hand that shares a rank
    with the flop would come too often: aces on an ace-high flop, three of their six hands possible, as often as on
    any other. The weight makes every hand of the kind, then the flop, equally likely.) The (turn, river) rows,
    then the turn rows."""
    rng = random.Random("flops")
    deck = [eval7.Card(card) for card in DECK]
    pairs_of: dict[str, list[tuple[int, int]]] = {name: [] for name in RANKING}
    for pair in itertools.combinations(range(52), 2):
        pairs_of[kind((DECK[pair[0]], DECK[pair[1]]))].append(pair)
    boards: Rows = {name: [] for name in RANKING}
    turns: Rows = {name: [] for name in RANKING}
    for _ in range(flops):
        flop = rng.sample(range(52), 3)
        left = [i for i in range(52) if i not in flop]
        possible = {name: [p for p in pairs if not set(p) & set(flop)] for name, pairs in pairs_of.items()}
        holes = {name: rng.choice(pairs) for name, pairs in possible.items()}
        found: dict[str, list[float]] = {name: [] for name in RANKING}
        by_turn: dict[str, dict[int, list[float]]] = {name: {} for name in RANKING}
        for turn, river in itertools.combinations(left, 2):
            shared = [deck[i] for i in (*flop, turn, river)]
            rest = [i for i in left if i != turn and i != river]
            scores = {pair: eval7.evaluate([deck[pair[0]], deck[pair[1]], *shared])
                      for pair in itertools.combinations(rest, 2)}
            ordered = sorted(scores.values())
            by_card: dict[int, list[int]] = {i: [] for i in rest}
            for (first, second), score in scores.items():
                by_card[first].append(score)
                by_card[second].append(score)
            for listed in by_card.values():
                listed.sort()
            for name, pair in holes.items():  # the pairs at or below mine, less those that share a card with mine
                if pair[0] in (turn, river) or pair[1] in (turn, river):
                    continue
                score = scores[pair]
                at_most = (bisect.bisect_right(ordered, score) - bisect.bisect_right(by_card[pair[0]], score)
                           - bisect.bisect_right(by_card[pair[1]], score) + 1)
                below = (bisect.bisect_left(ordered, score) - bisect.bisect_left(by_card[pair[0]], score)
                         - bisect.bisect_left(by_card[pair[1]], score))
                found[name].append(at_most / 990)
                for card in (turn, river):  # either can be the turn, the other the river
                    by_turn[name].setdefault(card, []).append((at_most + below) / 2 / 990)
        for name, shares in found.items():
            shares.sort()
            weight = float(len(possible[name]))
            boards[name].append((shares, list(itertools.accumulate(shares, initial=0.0)), weight))
            means = sorted(sum(rivers) / len(rivers) for rivers in by_turn[name].values())
            turns[name].append((means, list(itertools.accumulate(means, initial=0.0)), weight))
    for rows in (boards, turns):
        for name, kept in rows.items():
            whole = sum(row[2] for row in kept)
            rows[name] = [(row[0], row[1], row[2] / whole) for row in kept]
    return boards, turns


@functools.cache
def three_way(deals: int = 1000) -> tuple[float, dict[str, float]]:
    """The chance that two random hands tie, and each kind of starting hand's chance to beat or tie two random hands
    at once (``deals`` seeded deals each)."""
    rng = random.Random("three")
    deck = [eval7.Card(card) for card in DECK]
    ties = 0
    for _ in range(deals * 10):
        cards = rng.sample(deck, 9)
        ties += eval7.evaluate(cards[:2] + cards[4:]) == eval7.evaluate(cards[2:4] + cards[4:])
    shares = {}
    for name in RANKING:
        mine = [eval7.Card(card) for card in example(name)]
        rest = [card for card in deck if card not in mine]
        wins = 0
        for _ in range(deals):
            cards = rng.sample(rest, 9)
            score = eval7.evaluate(mine + cards[4:])
            wins += score >= eval7.evaluate(cards[:2] + cards[4:]) and score >= eval7.evaluate(cards[2:4] + cards[4:])
        shares[name] = wins / deals
    return ties / (deals * 10), shares


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
