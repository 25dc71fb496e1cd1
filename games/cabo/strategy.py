"""The computer's cabo player: simple, legal, and sensible where the choice is obvious.

It remembers every card it has seen (the table keeps them by position, so a
card it peeked at is still known after a swap moves it), counts an unseen
card as the deck's average (6.5), keeps low cards, throws high ones away,
claims identical cards only when it has seen them all, and stops the round
when the sum it expects is low. Ties between equally good choices go to a
seeded random pick.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from tabletop.table import Strategy, Table
from tabletop.wire import Message

from .moves import CaboView, Discard, Draw, Peek, Replace, Showdown, Slot, Spy, Stop, Swap, Take
from .about import Stage
from .rules import AVERAGE, power

T = TypeVar("T")

STOP_AT = 10.0  # stop the round when my hand is expected to be worth this or less
TAKE_GAIN = 3.0  # take the discard when it improves my hand by at least this much
POWER_WORTH = {Stage.PEEK: 1.0, Stage.SPY: 0.5, Stage.SWAP: 1.0}  # a discard with a power beats a small gain


def worth(view: CaboView, seat: int) -> list[float]:
    """What each card of ``seat``'s hand is worth, as far as I know."""
    return [AVERAGE if slot.value is None else float(slot.value) for slot in view.hands[seat]]


def best_replacement(view: CaboView, value: int) -> tuple[float, list[int]]:
    """The most a card of ``value`` can lower my hand by, and the positions it replaces then.

    One card of mine, or a group of cards I have seen and know to be identical.
    """
    hand = view.hands[view.me]
    values = worth(view, view.me)
    options = [(values[i] - value, [hand[i].pos]) for i in range(len(hand))]
    known: dict[int, list[int]] = {}
    for slot in hand:
        if slot.value is not None:
            known.setdefault(slot.value, []).append(slot.pos)
    for same, positions in known.items():
        if len(positions) > 1:
            options.append((same * len(positions) - value, positions))
    gain = max(option[0] for option in options)
    return gain, min((p for g, p in options if g == gain), key=len)


def simple(seed: int | None = None) -> Strategy:
    rng = random.Random(seed)

    def pick(items: Sequence[T]) -> T:
        return rng.choice(items)

    def choose(table: Table) -> Message | None:
        state = table.play.state
        if state is None:
            return None
        view = state.view(table.me)
        assert isinstance(view, CaboView)
        if not view.my_turn:
            return None
        if view.stage is Stage.TURN:
            return turn(view)
        if view.stage is Stage.TAKEN:
            return taken(view)
        mine = view.hands[view.me]
        others = [slot for seat, hand in enumerate(view.hands) if seat != view.me for slot in hand]
        if view.stage is Stage.PEEK:
            unseen = [slot.pos for slot in mine if slot.value is None]
            return Peek(pos=pick(unseen or [slot.pos for slot in mine]))
        if view.stage is Stage.SPY:
            unseen = [slot.pos for slot in others if slot.value is None]
            return Spy(pos=pick(unseen or [slot.pos for slot in others]))
        if view.stage is Stage.SWAP:
            return swap(view, mine, others)
        return Showdown() if view.stage is Stage.SHOWDOWN else None

    def turn(view: CaboView) -> Message:
        expected = sum(worth(view, view.me))
        if view.stopper is None and expected <= STOP_AT:
            return Stop()
        top = view.discard_top
        if top is not None and top.value is not None:
            gain, _ = best_replacement(view, top.value)
            if gain >= TAKE_GAIN or not view.draw_top:
                return Take(pos=top.pos)
        if view.draw_top is not None:
            return Draw(pos=view.draw_top)
        return Stop()

    def taken(view: CaboView) -> Message:
        card = view.taken
        assert card is not None and card.value is not None  # I took it: I know it
        gain, positions = best_replacement(view, card.value)
        given = power(card.value)
        bonus = POWER_WORTH[given] if given is not None else 0.0
        if view.from_draw and gain <= bonus:
            return Discard()
        return Replace(positions=positions)

    def swap(view: CaboView, mine: Sequence[Slot], others: Sequence[Slot]) -> Message:
        values = {slot.pos: AVERAGE if slot.value is None else float(slot.value) for slot in (*mine, *others)}
        pairs = [(values[b.pos] - values[a.pos], a.pos, b.pos) for a in mine for b in others]
        best = min(delta for delta, _, _ in pairs)
        _, a, b = pick([pair for pair in pairs if pair[0] == best])
        return Swap(mine=a, theirs=b)

    return choose

