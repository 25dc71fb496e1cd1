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
from enum import Enum

from pokerkit import Automation, Mode, NoLimitTexasHoldem, StandardHighHand, State
from pokerkit import Hand as Ranked

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


class Stage(str, Enum):
    BETTING = "betting"
    BOARD = "board"  # the next street's cards are to be shown
    SHOWDOWN = "showdown"
    OVER = "over"


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


def hand_name(hole: Sequence[str], board: Sequence[str]) -> str:
    """The category of the best hand, in words: "two pair", "a flush"."""
    label = best_hand(hole, board).entry.label.value.lower()
    return f"a {label}" if label in {"straight", "flush", "full house", "straight flush"} else label


@dataclass
class Hand:
    """One hand, as one seat knows it."""

    number: int  # from 0: the table's deal number
    players: tuple[int, ...]  # the seats dealt in, in PokerKit's order: left of the button first, the button last
    stacks: tuple[int, ...]  # each player's chips as the hand began (PokerKit's order)
    blinds: tuple[int, int]
    poker: State = field(init=False)
    shown: dict[int, tuple[str, str]] = field(default_factory=dict)  # seat -> hole cards shown at showdown
    mucked: set[int] = field(default_factory=set)
    board_cards: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.poker = NoLimitTexasHoldem.create_state(
            AUTOMATIONS, True, 0, self.blinds, self.blinds[1], self.stacks, len(self.players), mode=Mode.TOURNAMENT)
        while self.poker.can_deal_hole():
            self.poker.deal_hole("??")

    # -- positions ----------------------------------------------------------------------------------------

    @property
    def offset(self) -> int:
        return self.number * SIZE

    @property
    def button(self) -> int:
        return self.players[-1]

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
        return self.button if stage is Stage.BOARD else None

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
        return bool(self.shown) and not any(self.all_in(seat) for seat in self.players)

    def to_call(self) -> int:
        p = self.poker
        return int(p.checking_or_calling_amount or 0) if p.actor_index is not None else 0

    def raise_bounds(self) -> tuple[int, int] | None:
        """The smallest and largest "raise to" allowed now (the smallest is all-in when the stack is short); None
        when the betting is not open to a raise."""
        p = self.poker
        if p.actor_index is None or not p.can_complete_bet_or_raise_to():
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
        self.poker.check_or_call()

    def raise_to(self, amount: int) -> None:
        self.poker.complete_bet_or_raise_to(amount)

    def deal_board(self, cards: Sequence[str]) -> None:
        self.poker.burn_card("??")
        self.poker.deal_board("".join(cards))
        self.board_cards.extend(cards)

    def show(self, seat: int, cards: tuple[str, str]) -> None:
        self.poker.show_or_muck_hole_cards("".join(cards))
        self.shown[seat] = cards

    def muck(self, seat: int) -> None:
        self.poker.show_or_muck_hole_cards(False)
        self.mucked.add(seat)

    def chips(self) -> dict[int, int]:
        """Each player's stack now (after the pots are pushed, once the hand is over)."""
        return {seat: int(self.poker.stacks[i]) for i, seat in enumerate(self.players)}

