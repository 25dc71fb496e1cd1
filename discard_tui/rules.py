"""The discard game's rules: cards, matching and the table. No crypto, no network.

A deck is a fixed list of cards; after the shuffle, each *position* 0..n-1 of
the shuffled deck holds one card whose face may or may not be known to us.
``Table`` tracks where every position is (draw pile, a hand, discard pile) and
refuses any move the rules forbid, with a message that names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

SUITS = "♠♥♦♣"
RED_SUITS = "♥♦"
FULL_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SHORT_RANKS = ("9", "10", "J", "Q", "K", "A")
HAND_SIZE = 5


@dataclass(frozen=True, order=True)
class Card:
    rank: str
    suit: str

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS


class DeckKind(str, Enum):
    FULL = "full"
    SHORT = "short"

    @property
    def cards(self) -> tuple[Card, ...]:
        ranks = FULL_RANKS if self is DeckKind.FULL else SHORT_RANKS
        return tuple(Card(rank, suit) for rank in ranks for suit in SUITS)


def matches(card: Card, top: Card | None) -> bool:
    """May ``card`` go on ``top``? Anything goes on an empty pile."""
    return top is None or card.suit == top.suit or card.rank == top.rank


def short_mismatch(card: Card, top: Card) -> str:
    """The same, short enough for a status bar: "7♣ matches neither ♦ nor 9"."""
    return f"{card} matches neither {top.suit} nor {top.rank}"


class RuleViolation(Exception):
    """A move the rules forbid. The message reads after the mover's name:
    "opponent" + " discarded 7♣, which matches neither ..."."""


@dataclass
class Table:
    """Where each deck position is, from the point of view of one player.

    Players are numbered by seat (0, 1). ``faces`` holds the cards whose face
    this player knows. Every ``apply_*`` method checks the move first and
    changes nothing when it raises :class:`RuleViolation`.
    """

    deck_size: int
    starter: int
    draw_pile: list[int] = field(default_factory=list)
    hands: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    discard_pile: list[int] = field(default_factory=list)
    faces: dict[int, Card] = field(default_factory=dict)
    turn: int = -1
    winner: int | None = None

    def __post_init__(self) -> None:
        if not self.draw_pile and not any(self.hands) and not self.discard_pile:
            self.draw_pile = list(range(self.deck_size))

    # -- dealing -------------------------------------------------------------

    def deal(self) -> None:
        """The starter takes positions 0..4, the other player 5..9; the starter moves first."""
        for player in (self.starter, 1 - self.starter):
            for _ in range(HAND_SIZE):
                self.hands[player].append(self.draw_pile.pop(0))
        self.turn = self.starter

    # -- queries ---------------------------------------------------------------

    @property
    def top(self) -> Card | None:
        return self.faces[self.discard_pile[-1]] if self.discard_pile else None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def hand_cards(self, player: int) -> list[Card]:
        return [self.faces[pos] for pos in self.hands[player]]

    def playable(self, player: int) -> list[int]:
        """Positions in ``player``'s hand that may be discarded now (faces must be known)."""
        return [pos for pos in self.hands[player] if matches(self.faces[pos], self.top)]

    def can_move(self, player: int) -> bool:
        return bool(self.draw_pile) or bool(self.playable(player))

    # -- moves -----------------------------------------------------------------

    def check_turn(self, player: int, action: str) -> None:
        if self.over:
            raise RuleViolation(f"{action} after the game ended")
        if self.turn != player:
            raise RuleViolation(f"{action} out of turn")

    def check_draw(self, player: int, pos: int) -> None:
        self.check_turn(player, "tried to draw")
        if not self.draw_pile:
            raise RuleViolation("tried to draw from an empty draw pile")
        if pos != self.draw_pile[0]:
            raise RuleViolation(f"asked to draw card {pos}, but the top of the draw pile is card {self.draw_pile[0]}")

    def apply_draw(self, player: int, pos: int) -> None:
        self.check_draw(player, pos)
        self.hands[player].append(self.draw_pile.pop(0))
        self._next_turn()

    def check_discard(self, player: int, pos: int) -> None:
        """Checks that need no face: turn, and that the card is in the hand."""
        self.check_turn(player, "tried to discard")
        if pos not in self.hands[player]:
            raise RuleViolation(f"discarded card {pos}, which is not in their hand")

    def apply_discard(self, player: int, pos: int, card: Card) -> None:
        self.check_discard(player, pos)
        top = self.top
        if not matches(card, top):
            assert top is not None
            raise RuleViolation(f"discarded {card}, which matches neither the suit nor the value of {top}")
        self.faces[pos] = card
        self.hands[player].remove(pos)
        self.discard_pile.append(pos)
        if not self.hands[player]:
            self.winner = player
        else:
            self._next_turn()

    def apply_cant_move(self, player: int) -> None:
        """``player`` declares that they can neither draw nor discard, and loses.

        With an empty draw pile the claim can only be checked once the hand's
        faces are known (the end-of-game audit); see :meth:`false_claim`.
        """
        self.check_turn(player, "claimed they cannot move")
        if self.draw_pile:
            raise RuleViolation(f"claimed they cannot move with {len(self.draw_pile)} cards left to draw")
        if not self.discard_pile and self.hands[player]:
            raise RuleViolation("claimed they cannot move, but anything goes on the empty discard pile")
        self.winner = 1 - player

    def _next_turn(self) -> None:
        self.turn = 1 - self.turn


def false_claim(hand: list[Card], top: Card | None) -> Card | None:
    """The card that disproves a can't-move claim, if any."""
    return next((card for card in hand if matches(card, top)), None)
