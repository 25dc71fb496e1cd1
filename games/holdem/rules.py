"""One hand of no-limit Hold'em: PokerKit's state machine, with the table's deck positions around it.

PokerKit (peer-reviewed, https://github.com/uoftcprg/pokerkit) keeps the
betting, the blinds, the minimum raise, the side pots and the showdown; this
module only says which deck position is which card and who is to act.
Every seat runs its own PokerKit state: hole cards it has not seen are
PokerKit's unknown card ``??``, which is all the betting needs, and a hand
shown at showdown replaces them. The same moves give the same state on every
seat and in the audit's replay.

Positions of hand k (deal k of the table: positions 52k … 52k + 51): with n
players dealt in, in PokerKit's order (the first seat left of the button
first, the button last), player i holds 52k + i and 52k + n + i; the board
is the next five, flop, turn and river. Nothing is burned: no card is
exposed by dealing, so a burn card protects nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pokerkit import Automation, Mode, NoLimitTexasHoldem, StandardHighHand, State
from pokerkit import Hand as Ranked

from .about import Stage

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)  # card i of the unshuffled deck
SIZE = len(DECK)
DOUBLING = 10  # the blinds double every this many hands
STREETS = ("flop", "turn", "river")
STREET_CARDS = ((0, 1, 2), (3,), (4,))  # board cards each street deals
AUTOMATIONS = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
               Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)
SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def card_text(card: str) -> str:
    """A card for people: "10♠", "A♥"."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SYMBOLS[card[1]]


def cards_text(cards: Sequence[str]) -> str:
    return " ".join(card_text(card) for card in cards)


def blinds_at(base: tuple[int, int], hand: int) -> tuple[int, int]:
    """The small and big blind of hand ``hand`` (from 0): ``base``, doubled every :data:`DOUBLING` hands."""
    factor = 2 ** (hand // DOUBLING)
    return base[0] * factor, base[1] * factor


def parse_blinds(text: str) -> tuple[int, int]:
    small, big = text.split("/")
    return int(small), int(big)


def best_hand(hole: Sequence[str], board: Sequence[str]) -> Ranked:
    """The best five of the seven cards (PokerKit's evaluation: comparable, and it knows its category)."""
    return StandardHighHand.from_game("".join(hole), "".join(board))


RANK_NAMES = dict(zip(RANKS, ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen",
                               "King", "Ace"), strict=True))


def plural(rank: str) -> str:
    """ "Sevens", "Sixes"."""
    return RANK_NAMES[rank] + ("es" if rank == "6" else "s")


def hand_parts(hole: Sequence[str], board: Sequence[str]) -> tuple[str, str, tuple[str, ...]]:
    """The best hand as (its category, what makes it, its kickers best first): ("two pair", "Jacks and Tens",
    ("K",)); a straight's or a flush's "what" is its high card, a full house's "Sevens full of Kings"."""
    hand = best_hand(hole, board)
    label = hand.entry.label.value.lower()
    ranks = [str(card.rank.value) for card in hand.cards]
    counts = {rank: ranks.count(rank) for rank in ranks}
    order = sorted(counts, key=lambda rank: (-counts[rank], -RANKS.index(rank)))  # the sets first, then high cards
    if label in {"straight", "straight flush"}:
        high = "5" if set(ranks) == set("A2345") else order[0]
        return label, f"{RANK_NAMES[high]} high", ()
    if label == "flush":
        return label, f"{RANK_NAMES[order[0]]} high", tuple(order[1:])
    if label == "full house":
        return label, f"{plural(order[0])} full of {plural(order[1])}", ()
    if label == "two pair":
        return label, f"{plural(order[0])} and {plural(order[1])}", tuple(order[2:])
    if label == "high card":
        return label, RANK_NAMES[order[0]], tuple(order[1:])
    return label, plural(order[0]), tuple(order[1:])  # one pair, three and four of a kind


def hand_name(hole: Sequence[str], board: Sequence[str], others: Sequence[Sequence[str]] = ()) -> str:
    """The best hand in words, with its ranks and as many kickers as it takes to tell it from ``others`` (other
    hole cards on the same board; one kicker at least): "two pair, Jacks and Tens, King kicker", "a straight, Nine
    high", "a full house, Sevens full of Kings", "a flush, Ace high" (a flush's other cards only when they decide)."""
    label, what, kickers = hand_parts(hole, board)
    shown = 1 if kickers and label != "flush" else 0
    for other in others:
        other_label, other_what, other_kickers = hand_parts(other, board)
        if (other_label, other_what) == (label, what):
            differ = next((k for k, (a, b) in enumerate(zip(kickers, other_kickers, strict=False)) if a != b), None)
            shown = max(shown, len(kickers) if differ is None else differ + 1)
    article = "a " if label in {"straight", "flush", "full house", "straight flush"} else ""
    words = f"{article}{label}, {what}"
    if shown:
        words += f", {', '.join(RANK_NAMES[rank] for rank in kickers[:shown])} kicker{'s' * (shown > 1)}"
    return words


def first_places(chips: Sequence[int], button: int) -> tuple[int, int, int]:
    """The button, small blind and big blind seats of the first hand: the blinds are the seats with chips after the
    button; heads-up, the button posts the small blind (TDA rule 35)."""
    live = [seat for k in range(1, len(chips) + 1) if chips[seat := (button + k) % len(chips)] > 0]
    if len(live) == 2:
        return button, button, next(seat for seat in live if seat != button)
    return button, live[0], live[1]


def next_places(chips: Sequence[int], places: tuple[int, int, int]) -> tuple[int, int, int]:
    """The button, small blind and big blind seats of the next hand, by TDA rule 34 (dead button): the big blind
    moves to the next seat with chips; the small blind goes to the seat that had the big blind, and the button to
    the seat that had the small blind, even when that seat has busted (then there is no small blind, or the button
    is dead). So nobody skips the big blind or pays it twice. Heads-up (TDA rule 35) the other player has the
    button and posts the small blind."""
    n = len(chips)
    _, small, big = places
    new_big = next(seat for k in range(1, n + 1) if chips[seat := (big + k) % n] > 0)
    live = [seat for seat in range(n) if chips[seat] > 0]
    if len(live) == 2:
        other = next(seat for seat in live if seat != new_big)
        return other, other, new_big
    return small, big, new_big


@dataclass
class Hand:
    """One hand, as one seat knows it."""

    number: int  # from 0: the table's deal number
    players: tuple[int, ...]  # the seats dealt in, in PokerKit's order: the small blind (else the big) first, the
    # last to act after the flop last (the button, or the seat before a dead button)
    stacks: tuple[int, ...]  # each player's chips as the hand began (PokerKit's order)
    blinds: tuple[int, int]
    places: tuple[int, int, int] | None = None  # the button, small and big blind seats (a busted one when dead);
    # None: the button is the last player, the blinds the first two
    tda: bool = True  # TDA rules 16 and 47 and the dealer still in the hand (version 5); a version-4 transcript is
    # replayed by version 4's rules
    poker: State = field(init=False)
    shown: dict[int, tuple[str, str]] = field(default_factory=dict)  # seat -> hole cards shown at showdown
    mucked: set[int] = field(default_factory=set)
    board_cards: list[str] = field(default_factory=list)
    acted: dict[int, int] = field(default_factory=dict)  # this street: seat -> the highest bet when it last acted
    full: int = 0  # this street: the last full bet or raise (what it added), for TDA rule 47

    def __post_init__(self) -> None:
        if self.places is None:
            n = len(self.players)
            self.places = (self.players[-1], self.players[-1 if n == 2 else 0], self.players[0 if n == 2 else 1])
        blinds: tuple[int, ...] = self.blinds if self.small_blind is not None else (self.blinds[1],)
        self.poker = NoLimitTexasHoldem.create_state(
            AUTOMATIONS, True, 0, blinds, self.blinds[1], self.stacks, len(self.players), mode=Mode.TOURNAMENT)
        while self.poker.can_deal_hole():
            self.poker.deal_hole("??")
        self.full = self.blinds[1]

    # -- positions ----------------------------------------------------------------------------------------

    @property
    def offset(self) -> int:
        return self.number * SIZE

    @property
    def button(self) -> int:
        """The seat with the button: a busted seat's when the button is dead (TDA rule 34)."""
        assert self.places is not None
        return self.places[0]

    @property
    def small_blind(self) -> int | None:
        """The seat that posts the small blind; None when it is dead (its seat busted: TDA rule 34)."""
        assert self.places is not None
        small = self.places[1]
        return small if small in self.players else None

    @property
    def dealer(self) -> int:
        """The seat that shows each street: the last player still in the hand in the order of acting after the flop
        (the button, unless it is dead or folded), so that a player who folds owes the hand nothing more once it
        has opened its keys to the board. Version 4 kept the last to act after the flop, folded or not."""
        if not self.tda:
            return self.players[-1]
        return next(seat for seat in reversed(self.players) if self.in_hand(seat))

    def index(self, seat: int) -> int:
        return self.players.index(seat)

    def hole(self, seat: int) -> tuple[int, int]:
        """The deck positions of ``seat``'s two hole cards."""
        i, n = self.index(seat), len(self.players)
        return self.offset + i, self.offset + n + i

    def board_positions(self) -> tuple[int, ...]:
        """The positions of the five board cards, dealt or not."""
        start = self.offset + 2 * len(self.players)
        return tuple(range(start, start + 5))

    def next_street(self) -> tuple[int, ...]:
        """The positions the next street shows."""
        board = self.board_positions()
        return tuple(board[k] for k in STREET_CARDS[self.street_dealt()])

    def street_dealt(self) -> int:
        """Streets dealt so far: 0 before the flop, 3 once the river is out."""
        return {0: 0, 3: 1, 4: 2, 5: 3}[len(self.board_cards)]

    # -- who is to act ------------------------------------------------------------------------------------

    @property
    def stage(self) -> Stage:
        p = self.poker
        if not p.status:
            return Stage.OVER
        if p.actor_index is not None:
            return Stage.BETTING
        if p.showdown_index is not None:
            return Stage.SHOWDOWN
        assert p.can_burn_card(), "PokerKit waits for nothing this table knows"
        return Stage.BOARD

    def to_move(self) -> int | None:
        """The seat to act: the bettor, the next hand at showdown, or the button to show the next street."""
        stage, p = self.stage, self.poker
        if stage is Stage.BETTING:
            assert p.actor_index is not None
            return self.players[p.actor_index]
        if stage is Stage.SHOWDOWN:
            assert p.showdown_index is not None
            return self.players[p.showdown_index]
        return self.dealer if stage is Stage.BOARD else None

    def in_hand(self, seat: int) -> bool:
        """Dealt in and not folded (nor mucked)."""
        return seat in self.players and bool(self.poker.statuses[self.index(seat)])

    def stack(self, seat: int) -> int:
        return int(self.poker.stacks[self.index(seat)]) if seat in self.players else 0

    def bet(self, seat: int) -> int:
        return int(self.poker.bets[self.index(seat)]) if seat in self.players else 0

    def all_in(self, seat: int) -> bool:
        return self.in_hand(seat) and self.stack(seat) == 0

    def may_muck(self) -> bool:
        """A hand at showdown may be given up unshown: once the first is shown, and never when a player in the
        hand is all in (TDA rule 16: all cards are turned face up once a player is all in and the betting is
        over)."""
        return bool(self.shown) and not (self.tda and any(self.all_in(seat) for seat in self.players))

    def beaten(self, seat: int, cards: Sequence[str]) -> bool:
        """At showdown, ``seat``'s hand (its hole ``cards``) loses every pot it may win to a better hand already
        shown: it can win nothing by showing (a tie is no loss). False before the board is out."""
        if len(self.board_cards) < 5:
            return False
        mine = best_hand(cards, self.board_cards)
        better = {shower for shower, shown in self.shown.items() if best_hand(shown, self.board_cards) > mine}
        pots = [set(seats) for _, seats in self.pots() if seat in seats]
        return bool(pots) and all(better & pot for pot in pots)

    def to_call(self) -> int:
        p = self.poker
        return int(p.checking_or_calling_amount or 0) if p.actor_index is not None else 0

    def opening(self) -> bool:
        """A raise now would be the street's first bet: after the flop, with nothing bet yet."""
        return self.stage is Stage.BETTING and self.street_dealt() > 0 and not any(self.poker.bets)

    def reopened(self, seat: int) -> bool:
        """TDA rule 47: a player who has acted this street may raise again only when the bets since (one full raise,
        or several short all-ins that add up to one) are at least the last full bet or raise."""
        faced = self.acted.get(seat)
        return not self.tda or faced is None or max(self.poker.bets) - faced >= max(self.full, self.blinds[1])

    def raise_bounds(self) -> tuple[int, int] | None:
        """The smallest and largest "raise to" allowed now (the smallest is all-in when the stack is short); None
        when the betting is not open to a raise."""
        p = self.poker
        if p.actor_index is None or not self.reopened(self.players[p.actor_index]):
            return None
        if not p.can_complete_bet_or_raise_to():
            return None
        most = int(p.max_completion_betting_or_raising_to_amount or 0)
        least = int(p.min_completion_betting_or_raising_to_amount or 0)
        return min(least, most), most

    def pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """The pots collected so far (main first), each with the seats that can win it."""
        return [(int(pot.amount), tuple(self.players[i] for i in pot.player_indices)) for pot in self.poker.pots]

    def total(self) -> int:
        """Every chip in the middle: the pots and the bets of this street."""
        return int(self.poker.total_pot_amount)

    # -- moves (checked by the caller) ---------------------------------------------------------------------

    def fold(self) -> None:
        self.poker.fold()

    def check_or_call(self) -> None:
        seat = self.to_move()
        assert seat is not None
        self.acted[seat] = max(self.poker.bets)
        self.poker.check_or_call()

    def raise_to(self, amount: int) -> None:
        seat = self.to_move()
        assert seat is not None
        added = amount - max(self.poker.bets)
        if added >= max(self.full, self.blinds[1]):
            self.full = added
        self.acted[seat] = amount
        self.poker.complete_bet_or_raise_to(amount)
        # Rule 47 is ours (reopened): PokerKit's own sums every short all-in since the last full raise, for every
        # player alike, where the rule counts what each player faces since it last acted. (Version 4 kept PokerKit's.)
        if self.tda:
            self.poker.consecutive_short_all_in_amounts.clear()

    def deal_board(self, cards: Sequence[str]) -> None:
        self.poker.burn_card("??")
        self.poker.deal_board("".join(cards))
        self.board_cards.extend(cards)
        self.acted.clear()
        self.full = 0

    def show(self, seat: int, cards: tuple[str, str]) -> None:
        self.poker.show_or_muck_hole_cards("".join(cards))
        self.shown[seat] = cards

    def muck(self, seat: int) -> None:
        self.poker.show_or_muck_hole_cards(False)
        self.mucked.add(seat)

    def chips(self) -> dict[int, int]:
        """Each player's stack now (after the pots are pushed, once the hand is over)."""
        return {seat: int(self.poker.stacks[i]) for i, seat in enumerate(self.players)}

