"""The computer's Hold'em player: simple, legal, and deterministic for its seed.

Before the flop it plays by hand-strength tiers. After the flop it weighs its
equity against random hands (a Monte-Carlo count with eval7's evaluator)
against the pot odds: it folds junk, value-bets strong hands (and fair ones
half the time when checked to), and now and then bluffs, or raises a bet it
would otherwise fold. At showdown it mucks only a hand beaten, in every pot
it could win, by a hand already shown. Every random draw comes from a
generator seeded by the strategy's seed and the point of the hand, so the
same seed makes the same moves, however often it is asked.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import eval7

from tabletop.table import Strategy, Table
from tabletop.wire import Message

from .moves import Call, Check, Fold, HoldemView, Muck, Raise, Show
from .about import Stage
from .rules import DECK, RANKS

SAMPLES = 300  # Monte-Carlo deals per equity estimate
VALUE = 0.65  # equity from which a hand is bet, or raised, for value
RERAISE = 0.8  # equity from which a bet is raised for value (below it, a strong hand calls)
THIN = 0.5  # equity from which a hand checked to is bet for value half the time
MARGIN = 0.15  # equity a call needs above the pot odds (a bettor holds more than a random hand)
BLUFF = 0.2  # how often it bets when checked to with a weak hand
RAISE_BLUFF = 0.05  # how often it raises a bet with a hand that would fold
OPEN = 0.5  # how often a playable hand (tier 3) raises when nobody has raised
STEAL = 0.15  # how often it raises junk before the flop when nobody has raised
LIMP = 0.35  # how often junk completes the small blind, or calls one big blind
def tier(hole: Sequence[str]) -> int:
    """1 premium (QQ+, AK), 2 strong (99+, AQ, AJs, KQs), 3 playable (pairs, broadways, suited aces and
    connectors), 4 the rest."""
    high, low = sorted((RANKS.index(card[0]) for card in hole), reverse=True)
    suited = hole[0][1] == hole[1][1]
    ace, king, queen, jack, ten = (RANKS.index(r) for r in "AKQJT")
    if high == low:
        return 1 if high >= queen else 2 if high >= RANKS.index("9") else 3
    if (high, low) == (ace, king):
        return 1
    if (high, low) == (ace, queen) or (suited and (high, low) in {(ace, jack), (king, queen)}):
        return 2
    if low >= ten or (suited and (high == ace or high - low <= 2 and low >= RANKS.index("5"))):
        return 3
    return 4


def equity(hole: Sequence[str], board: Sequence[str], opponents: int, rng: random.Random) -> float:
    """My share of the pot against ``opponents`` random hands, by :data:`SAMPLES` random completions."""
    known = {*hole, *board}
    rest = [card for card in DECK if card not in known]
    mine = [eval7.Card(card) for card in hole]
    shared = [eval7.Card(card) for card in board]
    total = 0.0
    for _ in range(SAMPLES):
        drawn = [eval7.Card(card) for card in rng.sample(rest, 2 * opponents + 5 - len(board))]
        runout = shared + drawn[2 * opponents:]
        me = eval7.evaluate(mine + runout)
        others = [eval7.evaluate(drawn[2 * k:2 * k + 2] + runout) for k in range(opponents)]
        best = max(others)
        if me > best:
            total += 1
        elif me == best:
            total += 1 / (1 + others.count(best))
    return total / SAMPLES


def raise_to(view: HoldemView, fraction: float) -> Message:
    """A raise of ``fraction`` of the pot (after my call), within the legal bounds; a call or check if none."""
    bounds = view.raise_bounds
    if bounds is None:
        return Call() if view.to_call else Check()
    least, most = bounds
    call_to = view.mine.bet + view.to_call
    wanted = call_to + int(fraction * (view.total + view.to_call))
    return Raise(to=max(least, min(most, wanted)))


def preflop(view: HoldemView, hole: Sequence[str], rng: random.Random) -> Message:
    """By tiers: premium hands raise and re-raise; strong ones raise an unraised pot and call up to six big
    blinds; playable ones raise an unraised pot half the time and call up to three; junk checks when it may, now
    and then steals an unraised pot or calls a single big blind, and folds the rest."""
    big = view.blinds[1]
    owe = view.to_call
    strength = tier(hole)
    if strength == 1:
        return raise_to(view, 1.0)
    if strength == 2:
        if owe <= big:
            return raise_to(view, 1.0)
        return Call() if owe <= 6 * big or owe * 10 <= view.mine.chips else Fold()
    if owe <= big and rng.random() < (OPEN if strength == 3 else STEAL):
        return raise_to(view, 0.75)
    if not owe:
        return Check()
    if owe <= (3 * big if strength == 3 else big) and (strength == 3 or rng.random() < LIMP):
        return Call()
    return Fold()


def postflop(view: HoldemView, hole: Sequence[str], rng: random.Random) -> Message:
    """Equity against random hands, one per opponent still in, weighed against the pot odds: a strong hand bets
    two thirds of the pot, and a very strong one raises a bet by as much; checked to, a fair one bets half the pot half the time, and a weak one
    bluffs now and then; facing a bet it calls when the odds allow, now and then raises as a bluff, else folds."""
    opponents = sum(p.dealt and not p.folded and not p.mucked for p in view.players) - 1
    share = equity(hole, view.board, opponents, rng)
    owe = view.to_call
    if share >= (RERAISE if owe else VALUE):
        return raise_to(view, 2 / 3)
    if not owe:
        bets = rng.random() < (0.5 if share >= THIN else BLUFF)
        return raise_to(view, 0.5) if bets else Check()
    odds = owe / (view.total + owe)
    if share >= odds + MARGIN:
        return Call()
    return raise_to(view, 2 / 3) if rng.random() < RAISE_BLUFF and view.raise_bounds is not None else Fold()


def mucks(view: HoldemView, hole: Sequence[str], shown: Mapping[int, Sequence[str]]) -> bool:
    """Whether every pot I could win goes to a better hand already shown (known only once the board is out)."""
    if len(view.board) < 5:
        return False
    board = [eval7.Card(card) for card in view.board]
    score = eval7.evaluate([eval7.Card(card) for card in hole] + board)
    beaten = {seat for seat, cards in shown.items() if eval7.evaluate([eval7.Card(c) for c in cards] + board) > score}
    pots = [set(eligible) for _, eligible in view.pots if view.me in eligible]
    return bool(pots) and all(beaten & eligible for eligible in pots)


def player(seed: int | None = None) -> Strategy:
    def choose(table: Table) -> Message | None:
        state = table.play.state
        if state is None:
            return None
        view = state.view(table.me)
        assert isinstance(view, HoldemView)
        if not view.my_turn or view.stage not in (Stage.BETTING, Stage.SHOWDOWN):
            return None
        hole = [card for card in view.mine.hole if card is not None]
        if len(hole) < 2:
            return None  # the hand is still being dealt
        rng = random.Random(f"{seed}/{view.hand}/{len(view.board)}/{view.to_call}/{view.mine.bet}/{view.total}")
        if view.stage is Stage.SHOWDOWN:
            shown = {p.seat: [c for c in p.hole if c is not None] for p in view.players if p.shown}
            return Muck() if view.may_muck and mucks(view, hole, shown) else Show(positions=list(view.mine.positions))
        return preflop(view, hole, rng) if not view.board else postflop(view, hole, rng)

    return choose
