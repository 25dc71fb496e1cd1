"""Sit-and-gos on the pure rules, without a relay or cryptography: the computer against fixed policies.

A seeded deck per hand stands in for the mental-poker shuffle, and each seat
decides from its own view, which shows only the faces it has seen (its hole
cards, the board and the hands shown, recorded in the state's ``seen`` as
the table records them), so a policy sees no more than at a real table. ``benchmarks/holdem.py --against`` plays many of these; the tests a
few.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from tabletop.game import Setup
from tabletop.wire import Message

from .game import HoldemOptions, HoldemState
from .moves import Call, Check, Fold, HoldemView, Raise, Show
from .about import Stage
from .rules import DECK, SIZE
from .strategy import decide, raise_to

Policy = Callable[[HoldemView], Message | None]  # a seat's choice from its view (None: nothing to choose)


def showing(view: HoldemView) -> Message | None:
    """At showdown a fixed policy shows its hand (the rules ask nothing else of it there)."""
    return Show(positions=list(view.mine.positions)) if view.stage is Stage.SHOWDOWN else None


def always_all_in(view: HoldemView) -> Message | None:
    """Moves all in whenever it may raise; else calls, or checks."""
    if (shown := showing(view)) is not None:
        return shown
    bounds = view.raise_bounds
    return Raise(to=bounds[1]) if bounds else Call() if view.to_call else Check()


def always_call(view: HoldemView) -> Message | None:
    """The calling station: calls every bet, checks when free, never raises."""
    return showing(view) or (Call() if view.to_call else Check())


def always_pot(view: HoldemView) -> Message | None:
    """Raises the size of the pot whenever it may (all in when that is less); else calls, or checks."""
    return showing(view) or raise_to(view, 1.0)


def always_fold_unless_free(view: HoldemView) -> Message | None:
    """Checks when it costs nothing, folds to any bet."""
    return showing(view) or (Fold() if view.to_call else Check())


POLICIES: Mapping[str, Policy] = {"always-all-in": always_all_in, "always-call": always_call,
                                  "always-pot": always_pot, "always-fold-unless-free": always_fold_unless_free}


def computer(seed: int | None) -> Policy:
    """The computer player (games/holdem/strategy.py) as a policy."""
    return lambda view: decide(view, seed)


def play(policies: Sequence[Policy], seed: int, options: HoldemOptions | None = None, button: int = 0) -> HoldemState:
    """One sit-and-go to its end: seat k plays ``policies[k]``, the first button at ``button``, each hand's deck
    shuffled by ``seed``. Returns the finished state (its ``outcome()`` and ``chips``)."""
    seats = len(policies)
    state = HoldemState(Setup(seats, button, options or HoldemOptions(), DECK, proven=True))
    deck = random.Random(f"deck/{seed}")
    number = -1
    while state.outcome() is None:
        h = state.hand
        if h.number != number:  # a new hand: a new deck, each hole card seen by its owner alone
            number = h.number
            state.faces.update({h.offset + k: card for k, card in enumerate(deck.sample(DECK, SIZE))})
            state.seen.update({pos: {seat} for seat in h.players for pos in h.hole(seat)})
        seat = state.to_move()
        if seat is None:
            raise AssertionError(f"nobody is to move in hand {h.number + 1}")
        move = state.owed(seat) or policies[seat](state.view(seat))
        if move is None:
            raise AssertionError(f"seat {seat} made no move in hand {h.number + 1}")
        state.check(seat, move)
        state.seen.update({show.pos: set(range(seats)) for show in state.shows(seat, move)})
        state.push(seat, move)
    return state
