"""The computer's Hold'em player: legal, deterministic for its seed, and hard to exploit with one fixed habit.

It reads its opponents as a poker player does, from what every seat saw them
do (``Player.habits``): how often each bets or raises, and how often it folds
to a bet. A raise is taken to come from the best share of hands that seat
raises with (a player who raises every hand holds any two cards), a call from
the share it continues with.

Before the flop it ranks its hand by its all-in equity against one random
hand (:data:`RANKING`). Chips that decide its stack (a shove, or a bet of a
third of its stack or more) it puts in by the reasoning of the push/fold
equilibrium charts (the heads-up Nash charts of HoldemResources.net,
https://www.holdemresources.net/h/poker-theory/hune/usage.html, and the
jam-or-fold games of Chen and Ankenman, *The Mathematics of Poker*, 2006): it
calls when its equity against the shover's range beats the pot odds, and
shoves short (:data:`SHORT` big blinds or less) when the chips it wins from
folds and calls together beat folding. To these pot odds it adds a premium
that grows with the effective stack in big blinds (:func:`premium`): a deep
stack can wait for a better spot, a short one cannot, as the blinds double
every ten hands. Otherwise it opens the pot from the button and the small
blind with most hands (the button is defended, not given up), raises an
opponent who folds too often with any two cards, and defends its big blind
against a raise by the equity it has against the raiser's range.

After the flop it weighs its equity against each opponent still in (a
Monte-Carlo count with eval7's evaluator) against the pot odds: it bets strong
hands for value (against a calling station thinner, by how far ahead it is,
and never bluffs one), bluffs a player who folds too often, and calls a bettor by how
often that bettor bets: a player who bets every street holds any two cards.

Whether a seat is a maniac, one who raises the pot or all in every time it may
with any two cards, it reads by Bayes' rule (:func:`maniac`): from a prior of
:data:`MANIAC_PRIOR`, each raise of the pot makes it likelier, each smaller
raise, check, call with a raise open, or fold less likely, so that a seat that
has raised the pot once or twice and done nothing else is read as one, and
its first check undoes much of that. Its range is then any two cards with
that chance (:func:`read_equity`). Against a seat more likely a maniac than
not (:data:`WILD`) every pot it plays goes to the stacks: before the flop it
shoves only hands that beat that player's range by the push/fold reasoning and
:data:`LOOK` more, and sees the flop with the rest of what does well against a
random hand (:data:`SEE`); after the flop it goes on only with the equity that
wins the stacks (:func:`against_wild`), letting that player do the betting.

At showdown it mucks only a hand beaten, in every pot it could win, by a hand
already shown. Every random draw comes from a generator seeded by the
strategy's seed and the point of the hand, so the same seed makes the same
moves, however often it is asked.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence

import eval7

from tabletop.table import Strategy, Table
from tabletop.wire import Message

from .about import Stage
from .moves import Call, Check, Fold, Habits, HoldemView, Muck, Player, Raise, Show
from .rules import DECK, RANKS

# The 169 kinds of starting hand, best first, by all-in equity against one random hand (eval7, 40,000 deals each):
# a pair, "s" suited, "o" offsuit.
RANKING = """
AA KK QQ JJ TT 99 88 AKs AQs 77 AJs AKo ATs AQo KQs 66 AJo KJs ATo A9s KTs A8s KQo A7s KJo A9o QJs 55 KTo QTs
A6s K9s A5s A8o A4s A7o QJo K8s Q9s QTo A5o A3s JTs K9o A2s K7s A6o 44 K6s A4o Q8s K8o A3o K5s Q9o K7o J9s JTo
A2o K4s Q7s K6o J8s K3s T9s Q8o K2s 33 Q6s K5o J9o Q5s K4o J7s T8s Q4s Q7o J8o T9o Q6o K3o 98s Q3s K2o J6s T7s
Q2s Q5o 22 J5s J7o T8o Q4o T6s J4s 97s J3s Q3o J6o 98o 87s T5s J2s J5o Q2o T7o 96s 86s T4s 97o T6o J4o T3s 95s
76s J3o 87o T2s J2o 96o 94s T5o 85s 86o 75s T4o 65s 93s 95o 92s 84s 76o T3o 74s T2o 54s 85o 64s 94o 83s 75o
73s 82s 65o 93o 63s 53s 84o 92o 43s 74o 54o 72s 52s 64o 83o 62s 82o 42s 53o 73o 63o 32s 43o 52o 72o 62o 42o
32o
""".split()

SAMPLES = 300  # Monte-Carlo deals per equity estimate
NARROWEST = 0.05  # the narrowest range an opponent is given (so that two of them are never out of cards)
PREMIUM = 0.035  # equity a call of the whole stack needs beyond the pot odds, per doubling of the stack past six big
# blinds (see premium)
PREMIUM_CAP = 0.12  # and at most this
SHORT = 12  # effective stack, in big blinds, from which the first to raise shoves or folds
RAISE_BB = 2.5  # an opening raise, in big blinds
VALUE = 0.65  # equity from which a hand is bet, or raised, for value
RERAISE = 0.8  # equity from which a bet is raised for value (below it, a strong hand calls)
THIN = 0.5  # equity from which a hand checked to is bet for value half the time
STATION_BETS = ((0.85, 1.0), (0.7, 0.5), (0.55, 1 / 3))  # against a calling station: the share of the pot bet
# from each equity (below the last, a check)
MARGIN = 0.15  # equity a call needs above the pot odds against a player who seldom bets
BLUFF = 0.2  # how often it bets when checked to with a weak hand
OPEN = 0.55  # share of hands it opens with from the button or the small blind, when nobody has raised
OPEN_EARLY = 0.25  # share of hands it opens with from a seat that more players act after
LIMP = 0.8  # share of hands the small blind completes with when it does not raise
WILD = 0.5  # the chance (maniac) from which a seat is played as one who raises every time
MANIAC_PRIOR = 0.15  # the chance that a seat not yet seen raises every time
POT_RAISE_RATIO = 9.0  # how much likelier a raise of the pot or more (all in included) is from such a player than
# from a sound one (nine in ten of its moves against one in ten); the likelihood ratios of the other moves:
SMALL_RAISE_RATIO = 0.3  # a smaller bet or raise
PASSIVE_RATIO = 0.1  # a check or call when it might have raised
FOLD_RATIO = 0.1  # a fold to a bet
DEFEND = 0.05  # equity it gives up against a raiser's range in the big blind, for its position and the raise it faces
LOOK = 0.1  # equity beyond the push/fold reasoning a shove before the flop needs against a player who raises every
# pot, but not all in: its raises let a fair hand see a flop, which tells more than two cards
SEE = 0.45  # equity against such a player's range from which a hand sees that flop, completing the small blind or
# calling its raise (unless that player's raises are mostly all in)
STREETS = {3: 0.06, 4: -0.05, 5: -0.05}  # after the flop, against such a player, the equity a hand needs beyond the
# stack's odds and premium, by the cards on the board: a flop hand needs more (two cards to come, and every card the
# rest of its range improves with), a turn or river hand less (fitted on seeds 1-800 against always-pot; at 50 big
# blinds about 63, 46 and 25 % against any two cards, near what a fixed player told whom it faces won with)
FOLD_VALUES: tuple[tuple[float, float | None, float | None, float | None, float | None], ...] = (  # heads-up against a player who raises the pot every time with any two cards (always-pot): by the
    # effective stack in big blinds as the hand began, what folding is worth after putting in 1, 3, 9 and 27 big
    # blinds (its blind; the flop seen; the flop's bet called; the turn's), on the scale where losing the stack is 0
    # and winning it 1 (None: that much is the stack). Solved by dynamic programming over the sit-and-go, blinds
    # doubling every ten hands, by benchmarks/holdem.py (floor_against_pot, the mean over chips and hands of each
    # depth): a call goes on when what it wins is worth more.
    (3, 0.376, 0.020, None, None), (5, 0.435, 0.204, None, None), (7.5, 0.472, 0.319, None, None),
    (10, 0.494, 0.379, 0.055, None), (12.5, 0.511, 0.419, 0.158, None), (15, 0.529, 0.453, 0.235, None),
    (17.5, 0.547, 0.482, 0.293, None), (20, 0.563, 0.506, 0.341, None), (25, 0.585, 0.540, 0.410, None),
    (30, 0.602, 0.564, 0.457, 0.070), (35, 0.622, 0.591, 0.500, 0.173), (40, 0.642, 0.615, 0.538, 0.257),
    (45, 0.661, 0.638, 0.571, 0.326), (50, 0.676, 0.655, 0.597, 0.380))
INVESTED = (1, 3, 9, 27)  # the big blinds put in at which FOLD_VALUES gives what a fold is worth
SEE_HEADS_UP = 0.45  # equity against any two cards from which a hand sees the flop heads-up against such a player
# (the dynamic programming sees it with nearly every hand, from 36 %; on seeds 1-200 against always-pot the computer
# won 137 seeing it from 45 % and 131 from 36 %)
NEXT_CARDS = 40  # deals per card to come when weighing what a call is worth on the street after
PRIOR = 4  # moves of an average player assumed before a seat's own habits are seen
PRIOR_RAISES = 0.2  # an average player bets or raises one move in five
PRIOR_FOLDS = 0.4  # and folds to two bets in five
STATION = 0.2  # folding to fewer bets than this makes a calling station
FOLDER = 0.65  # folding to more bets than this makes a player to bluff


@functools.cache
def kind(hole: tuple[str, str]) -> str:
    """The starting hand's kind: "AA", "AKs", "T9o"."""
    high, low = sorted(hole, key=lambda card: RANKS.index(card[0]), reverse=True)
    if high[0] == low[0]:
        return high[0] + low[0]
    return high[0] + low[0] + ("s" if high[1] == low[1] else "o")


COMBOS = {hand: 6 if len(hand) == 2 else 4 if hand[2] == "s" else 12 for hand in RANKING}
TOP = {hand: sum(COMBOS[other] for other in RANKING[:k + 1]) / 1326 for k, hand in enumerate(RANKING)}


def top(hole: Sequence[str]) -> float:
    """The share of starting hands as good as this one or better: 0.0045 for aces, 1.0 for seven-deuce."""
    return TOP[kind((hole[0], hole[1]))]


@functools.cache
def hands_in(share: float) -> tuple[tuple[str, str], ...]:
    """Every two-card hand of the best ``share`` of starting hands (at least the aces)."""
    kinds = [hand for hand in RANKING if TOP[hand] <= max(share, TOP["AA"])]
    cards = [(a, b) for i, a in enumerate(DECK) for b in DECK[i + 1:]]
    return tuple(pair for pair in cards if kind(pair) in kinds)


def range_equity(hole: Sequence[str], board: Sequence[str], shares: Sequence[float], rng: random.Random,
                 samples: int = SAMPLES, wild: Sequence[float] = ()) -> float:
    """My share of the pot against one opponent per entry of ``shares``, each holding a hand from the best that
    share of starting hands (1.0: any two cards), by ``samples`` random deals; ``wild``, if given, the chance of each
    that it holds any two cards instead (a deal draws which)."""
    known = {*hole, *board}
    mine = [eval7.Card(card) for card in hole]
    shared = [eval7.Card(card) for card in board]
    ranges = [hands_in(round(max(share, NARROWEST), 2)) for share in shares]
    anything = hands_in(1.0)
    chances = list(wild) or [0.0] * len(shares)
    total = 0.0
    for _ in range(samples):
        used = set(known)
        others = []
        for hands, chance in zip(ranges, chances):
            if chance and rng.random() < chance:
                hands = anything
            pair = rng.choice(hands)
            while pair[0] in used or pair[1] in used:
                pair = rng.choice(hands)
            used.update(pair)
            others.append([eval7.Card(card) for card in pair])
        rest = [card for card in DECK if card not in used]
        runout = shared + [eval7.Card(card) for card in rng.sample(rest, 5 - len(board))]
        me = eval7.evaluate(mine + runout)
        scores = [eval7.evaluate(other + runout) for other in others]
        best = max(scores)
        if me > best:
            total += 1
        elif me == best:
            total += 1 / (1 + scores.count(best))
    return total / samples


def equity(hole: Sequence[str], board: Sequence[str], opponents: int, rng: random.Random) -> float:
    """My share of the pot against ``opponents`` random hands."""
    return range_equity(hole, board, [1.0] * opponents, rng)


def aggression(habits: Habits) -> float:
    """How often a seat bets or raises, its habits weighed with an average player's."""
    return (habits.raises + PRIOR * PRIOR_RAISES) / (habits.moves + PRIOR)


def maniac(habits: Habits) -> float:
    """The chance that a seat raises every time it may, the pot or all in, with any two cards, rather than plays a
    sound range: Bayes' rule from :data:`MANIAC_PRIOR`, each of its moves so far weighing by how much likelier it is
    from such a player (a raise of the pot, :data:`POT_RAISE_RATIO`) or from a sound one (a smaller raise, a check or call
    when it might have raised, a fold). Two pot-sized raises and nothing else make it likely (93 %); one check
    after them brings it back near even."""
    weight = (math.log(MANIAC_PRIOR / (1 - MANIAC_PRIOR)) + habits.pots * math.log(POT_RAISE_RATIO)
              + (habits.raises - habits.pots) * math.log(SMALL_RAISE_RATIO) + habits.passive * math.log(PASSIVE_RATIO)
              + habits.folded * math.log(FOLD_RATIO))  # the log of the odds: no overflow however long the game
    return 1 / (1 + math.exp(-weight)) if weight >= 0 else math.exp(weight) / (1 + math.exp(weight))


def wild(player: Player) -> bool:
    """A seat to play as one who raises every time: more likely so than not (:func:`maniac`)."""
    return maniac(player.habits) >= WILD


def read_equity(hole: Sequence[str], board: Sequence[str], players: Sequence[Player], rng: random.Random,
                samples: int = SAMPLES) -> float:
    """My share of the pot against these players' ranges as read: each a raiser of every pot with the chance
    :func:`maniac` gives, else holding the best share of hands it bets or raises with (:func:`aggression`)."""
    return range_equity(hole, board, [aggression(p.habits) for p in players], rng, samples,
                        [maniac(p.habits) for p in players])


def folding(habits: Habits) -> float:
    """How often a seat folds to a bet, its habits weighed with an average player's."""
    return (habits.folded + PRIOR * PRIOR_FOLDS) / (habits.faced + PRIOR)


def premium(depth: float) -> float:
    """The equity a call of my stack needs beyond the pot odds, at an effective stack of ``depth`` big blinds: none
    at six big blinds or less, where the blinds leave no time to wait, then 3.5 points for each doubling (about 11
    at the 50 big blinds a sit-and-go starts with). Fitted to the heads-up game against always all-in solved exactly
    (benchmarks/holdem.py, ``best_against_all_in``), whose best calls need 11 points over the pot odds at 50 big
    blinds, 8 at 25, 5 at 12 and 2 at 6."""
    return min(PREMIUM_CAP, max(0.0, PREMIUM * math.log2(depth / 6))) if depth > 0 else 0.0


def raise_to(view: HoldemView, fraction: float) -> Message:
    """A raise of ``fraction`` of the pot (after my call), within the legal bounds; a call or check if none."""
    bounds = view.raise_bounds
    if bounds is None:
        return Call() if view.to_call else Check()
    least, most = bounds
    call_to = view.mine.bet + view.to_call
    wanted = call_to + int(fraction * (view.total + view.to_call))
    return Raise(to=max(least, min(most, wanted)))


def shove(view: HoldemView) -> Message:
    """All in: the largest raise, or a call when the betting is closed to raises."""
    bounds = view.raise_bounds
    return Raise(to=bounds[1]) if bounds else Call() if view.to_call else Check()


def rivals(view: HoldemView) -> list[Player]:
    """The other players still in the hand."""
    return [p for p in view.players if p.dealt and not p.folded and not p.mucked and p.seat != view.me]


def pot_odds(view: HoldemView) -> float:
    """The share of the pot a call must win to break even; the part of a bet I cannot match comes back."""
    mine = view.mine
    call = min(view.to_call, mine.chips)
    returned = max(0, max(p.bet for p in view.players) - (mine.bet + call))
    return call / (view.total - returned + call)


def depth(view: HoldemView) -> float:
    """The effective stack in big blinds: my chips against the biggest other stack still in the hand (bets
    included)."""
    mine = view.mine.chips + view.mine.bet
    others = [p.chips + p.bet for p in rivals(view)]
    return min(mine, max(others, default=0)) / view.blinds[1]


def preflop(view: HoldemView, hole: Sequence[str], rng: random.Random) -> Message:
    """Before the flop: a bet that decides my stack by the push/fold reasoning; an unraised pot opened, or shoved
    when short; a smaller raise called or re-raised by my equity against the raiser's range."""
    big, mine, owe = view.blinds[1], view.mine, view.to_call
    others = rivals(view)
    raisers = [p for p in others if p.bet > big]
    stake = min(owe, mine.chips)
    if raisers and pot_raiser(others):
        return see_flop(view, hole, others[0], rng)
    if raisers and (stake * 3 >= mine.chips + mine.bet or any(p.all_in for p in raisers)):
        return stack_off(view, hole, raisers, rng)
    if not raisers:
        return unraised(view, hole, others, rng)
    share = read_equity(hole, (), raisers, rng)
    if any(wild(p) for p in raisers):  # a re-raise would be re-raised: all in, or see a flop
        if share >= 0.5 + premium(depth(view)) + LOOK:
            return shove(view)
        return Call() if share >= SEE else Fold()
    if share >= 1.2 / (1 + len(raisers)) and view.raise_bounds is not None:
        return raise_to(view, 1.0)
    return Call() if share >= pot_odds(view) - DEFEND else Fold()


def stack_off(view: HoldemView, hole: Sequence[str], raisers: Sequence[Player], rng: random.Random) -> Message:
    """Facing a shove, or a bet of a third of my stack or more: call (all in, when the betting is open to it and my
    equity is high) when my equity against the raisers' ranges beats the pot odds and the stack's premium."""
    share = read_equity(hole, (), raisers, rng)
    if share < pot_odds(view) + premium(depth(view)):
        return Fold()
    return shove(view) if share >= 0.6 and not any(p.all_in for p in raisers) else Call()


def unraised(view: HoldemView, hole: Sequence[str], others: Sequence[Player], rng: random.Random) -> Message:
    """Nobody has raised: short, shove or fold by the chips that folds and calls win; against a player who re-raises
    every pot, shove what stands that re-raise, see the flop with fair hands (unless its raises are all in), and fold
    the rest; else open the pot (from the button and the small
    blind most hands, every hand against players who fold too much); else check, complete the small blind, or
    fold."""
    big, owe = view.blinds[1], view.to_call
    stack = depth(view)
    if view.raise_bounds is None:
        return Check() if not owe else Call() if owe * 2 <= big else Fold()
    if pot_raiser(others):
        return see_flop(view, hole, others[0], rng) if owe else Check()
    if stack <= SHORT:
        return shove(view) if shove_gains(view, hole, others, rng) else Check() if not owe else Fold()
    maniacs = [p for p in others if wild(p)]
    if maniacs:  # a raise would be re-raised: shove the best hands, see the flop with fair ones
        share = read_equity(hole, (), maniacs, rng)
        sees = all(p.habits.shoves * 2 < p.habits.raises for p in maniacs)  # a shove leaves no flop to see
        if share >= 0.5 + premium(stack) + (LOOK if sees else 0.0):
            return shove(view)
        if not owe:
            return Check()
        return Call() if sees and share >= SEE else Fold()
    strength = top(hole)
    opens = OPEN if len(others) <= 2 else OPEN_EARLY
    if all(folding(p.habits) >= FOLDER for p in others):
        opens = 1.0
    elif not owe:  # the big blind's option, after limps
        opens = min(opens, OPEN_EARLY)
    if strength <= opens:
        least, most = view.raise_bounds
        return Raise(to=max(least, min(most, int(RAISE_BB * big))))
    if not owe:
        return Check()
    return Call() if owe * 2 <= big and strength <= LIMP else Fold()


def shove_gains(view: HoldemView, hole: Sequence[str], behind: Sequence[Player], rng: random.Random) -> bool:
    """A shove wins more than a fold gives up: the pot when everyone behind folds, else my equity against the likely
    caller's range (the share of hands it does not fold) of the pot and the stacks at risk, less the stack's
    premium."""
    if not behind:
        return True
    calls = [1 - folding(p.habits) for p in behind]
    everyone_folds = math.prod(1 - call for call in calls)
    risk = min(view.mine.chips, max(p.chips + p.bet - view.mine.bet for p in behind))
    share = range_equity(hole, (), [max(calls)], rng) - premium(depth(view))
    pot = view.total
    return everyone_folds * pot + (1 - everyone_folds) * (share * (pot + 2 * risk) - risk) > 0


def postflop(view: HoldemView, hole: Sequence[str], rng: random.Random) -> Message:
    """Equity against random hands, one per opponent still in, weighed against the pot odds: a strong hand bets
    two thirds of the pot, and a very strong one raises a bet by as much; against a calling station the bet grows
    with the equity, from a third of the pot at 55 % to the pot at 85 %, and nothing is bluffed; checked to, a fair
    hand bets half the pot half the time, and a weak one bluffs now and then (always against a player who folds too
    much); facing a bet it calls when the odds allow, by how often the bettor bets, and folds otherwise."""
    others = rivals(view)
    if pot_raiser(others):
        return against_pot_raiser(view, hole, others[0], rng)
    if all(wild(p) for p in others):
        return against_wild(view, hole, others, rng)
    share = equity(hole, view.board, len(others), rng)
    owe = view.to_call
    station = all(folding(p.habits) < STATION for p in others)
    if station and not owe:  # bet by how far ahead it is, never bluff: the station pays, and the pots stay its size
        return next((raise_to(view, fraction) for least, fraction in STATION_BETS if share >= least), Check())
    if share >= (RERAISE if owe else VALUE):
        return raise_to(view, 2 / 3)
    if not owe:
        if all(folding(p.habits) >= FOLDER for p in others):
            return raise_to(view, 0.5)
        bets = rng.random() < (0.5 if share >= THIN else BLUFF)
        return raise_to(view, 0.5) if bets else Check()
    bettor = max(others, key=lambda p: p.bet)
    margin = MARGIN * (1 - aggression(bettor.habits))
    if min(owe, view.mine.chips) * 3 >= view.mine.chips + view.mine.bet:
        margin += premium(depth(view))
    return Call() if share >= pot_odds(view) + margin else Fold()


def commit_odds(view: HoldemView, others: Sequence[Player]) -> float:
    """The share of the final pot my chips still to go in make up, if every bet from now on is called until the
    stacks are in: what a hand must win to go to the showdown against players who bet every street."""
    mine = view.mine
    add = min(mine.chips, max(p.chips + p.bet for p in others) - mine.bet)
    theirs = sum(max(0, min(p.chips, mine.bet + add - p.bet)) for p in others)
    return add / (view.total + add + theirs) if add else 0.0


def against_wild(view: HoldemView, hole: Sequence[str], others: Sequence[Player], rng: random.Random) -> Message:
    """After the flop against players who bet or raise far more often than a sound range allows (every street, for
    always-pot): each bet now will be followed by another until the stacks are in, so a hand goes on only if its
    equity against their ranges (any two cards, for a player who raises every time) wins the stacks, by the odds of
    the whole stack (:func:`commit_odds`) and the stack's premium, more on the flop and less on the turn and the
    river (:data:`STREETS`); a very strong hand raises, a fair one lets them bet (pot control: its raise would only
    be re-raised); the rest give up."""
    share = read_equity(hole, view.board, others, rng)
    need = commit_odds(view, others) + premium(depth(view)) + STREETS[len(view.board)]
    if share < need:
        return Fold() if view.to_call else Check()
    if share >= RERAISE:
        return shove(view)
    return Call() if view.to_call else Check()


def pot_raiser(others: Sequence[Player]) -> bool:
    """Heads-up against a seat read as one who raises every time (:func:`wild`), mostly by the pot rather than all
    in: the game :data:`FOLD_VALUES` was solved for."""
    return len(others) == 1 and wild(others[0]) and others[0].habits.shoves * 2 < others[0].habits.raises


def fold_value(depth: float, invested: float) -> float:
    """What folding is worth heads-up against a player who raises the pot every time, on the scale where losing my
    stack is 0 and winning it 1: :data:`FOLD_VALUES` at an effective stack of ``depth`` big blinds as the hand
    began, having put in ``invested`` big blinds, interpolated in both."""
    below = [row for row in FOLD_VALUES if row[0] <= depth] or [FOLD_VALUES[0]]
    above = [row for row in FOLD_VALUES if row[0] >= depth] or [FOLD_VALUES[-1]]
    low, high = below[-1], above[0]
    weight = (depth - low[0]) / (high[0] - low[0]) if high[0] > low[0] else 0.0
    return (1 - weight) * spent_value(low, depth, invested) + weight * spent_value(high, depth, invested)


def spent_value(row: tuple[float | None, ...], depth: float, invested: float) -> float:
    """One row of :data:`FOLD_VALUES` at ``invested`` big blinds put in: between its points, linearly, down to 0 with
    the whole stack (``depth``) in."""
    points: list[tuple[float, float]] = [(spent, value) for spent, value in zip(INVESTED, row[1:])
                                         if value is not None and spent < depth]
    points.append((depth, 0.0))
    if invested <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if invested <= x1:
            return y0 + (y1 - y0) * (invested - x0) / (x1 - x0)
    return 0.0


def starts(view: HoldemView) -> list[int]:
    """Every seat's chips as this hand began (the first hand: an equal share of every chip)."""
    if view.history:
        return list(view.history[-1])
    share = (sum(p.chips for p in view.players) + view.total) // len(view.players)
    return [share] * len(view.players)


def stakes(view: HoldemView, rival: Player) -> tuple[float, float]:
    """Heads-up: the effective stack as this hand began, and what I have put in it so far, in big blinds."""
    began = starts(view)
    big = view.blinds[1]
    return min(began[view.me], began[rival.seat]) / big, (began[view.me] - view.mine.chips) / big


def see_flop(view: HoldemView, hole: Sequence[str], rival: Player, rng: random.Random) -> Message:
    """Before the flop, heads-up against a player who raises the pot every time: a call that puts my stack in goes
    on when my equity against its range beats folding (:func:`fold_value`); else a hand sees the flop (completing
    the small blind, calling the raise) from :data:`SEE_HEADS_UP`, and is never raised: that player puts the chips
    in."""
    if min(view.to_call, view.mine.chips) == view.mine.chips or rival.all_in:  # the stack, so a closer count
        share = read_equity(hole, (), [rival], rng, 4 * SAMPLES)
        return Call() if share >= fold_value(*stakes(view, rival)) else Fold()
    return Call() if read_equity(hole, (), [rival], rng) >= SEE_HEADS_UP else Fold()


def against_pot_raiser(view: HoldemView, hole: Sequence[str], rival: Player, rng: random.Random) -> Message:
    """After the flop, heads-up against a player who raises the pot every time: check to it, and call its bet when
    what the call is worth beats folding (:func:`fold_value`, by what I have put in): a showdown (the call is all in,
    or the river's) is worth my equity against its range; else, for each card to come, the better of my equity then
    and folding then, after the call."""
    if not view.to_call:
        return Check()
    depth, invested = stakes(view, rival)
    call = min(view.to_call, view.mine.chips)
    if call == view.mine.chips or rival.all_in or len(view.board) == 5:
        going = read_equity(hole, view.board, [rival], rng)
    else:
        later = fold_value(depth, invested + call / view.blinds[1])
        known = {*hole, *view.board}
        cards = [card for card in DECK if card not in known]
        going = sum(max(later, read_equity(hole, (*view.board, card), [rival], rng, NEXT_CARDS))
                    for card in cards) / len(cards)
    return Call() if going >= fold_value(depth, invested) else Fold()


def decide(view: HoldemView, seed: int | None) -> Message | None:
    """My move from my view of the game (None when it is not mine to choose): the same for the same view and seed."""
    if not view.my_turn or view.stage not in (Stage.BETTING, Stage.SHOWDOWN):
        return None
    hole = [card for card in view.mine.hole if card is not None]
    if len(hole) < 2:
        return None  # the hand is still being dealt
    rng = random.Random(f"{seed}/{view.hand}/{len(view.board)}/{view.to_call}/{view.mine.bet}/{view.total}")
    if view.stage is Stage.SHOWDOWN:
        return Muck() if view.beaten else Show(positions=list(view.mine.positions))
    return preflop(view, hole, rng) if not view.board else postflop(view, hole, rng)


def player(seed: int | None = None) -> Strategy:
    """The computer at a table: :func:`decide` on the seat's view."""
    def choose(table: Table) -> Message | None:
        state = table.play.state
        if state is None:
            return None
        view = state.view(table.me)
        assert isinstance(view, HoldemView)
        return decide(view, seed)

    return choose
