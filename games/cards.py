"""Playing cards: ranks, suits, and the decks the games use, in the deck order the protocol fixes."""

from __future__ import annotations

from dataclasses import dataclass

SUITS = "♠♥♦♣"
RED_SUITS = "♥♦"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SHORT_RANKS = ("9", "10", "J", "Q", "K", "A")


@dataclass(frozen=True, order=True)
class Card:
    rank: str
    suit: str

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def value(self) -> int:
        """2 low, ace high: 2 .. 14."""
        return RANKS.index(self.rank) + 2


def deck(ranks: tuple[str, ...] = RANKS) -> tuple[Card, ...]:
    """Rank-major, suits in ♠ ♥ ♦ ♣ order: 2♠ 2♥ 2♦ 2♣ 3♠ … A♣ for the full deck."""
    return tuple(Card(rank, suit) for rank in ranks for suit in SUITS)


FULL_DECK = deck()
SHORT_DECK = deck(SHORT_RANKS)
