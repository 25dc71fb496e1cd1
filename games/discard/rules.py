"""The discard game's rules: matching and the board. No crypto, no network.

After the shuffle each *position* 0..n-1 of the deck holds one card whose face
one player may or may not know. ``Board`` tracks where every position is
(draw pile, a hand, discard pile) and refuses any move the rules forbid, with
a message that reads after the mover's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.cards import Card
from tabletop.game import RuleViolation

HAND_SIZE = 5


def matches(card: Card, top: Card | None) -> bool:
    """May ``card`` go on ``top``? Anything goes on an empty pile."""
    return top is None or card.suit == top.suit or card.rank == top.rank


def short_mismatch(card: Card, top: Card) -> str:
    """The same, short enough for a status bar: "7♣ matches neither ♦ nor 9"."""
    return f"{card} matches neither {top.suit} nor {top.rank}"


def false_claim(hand: list[Card], top: Card | None) -> Card | None:
    """The card that disproves a can't-move claim, if any."""
    return next((card for card in hand if matches(card, top)), None)


@dataclass
class Board:
    """Where each deck position is. ``faces`` are the cards whose face this player knows.

    Seats take turns in order from the starter. Every ``check_*`` raises
    :class:`RuleViolation` and changes nothing; every ``apply_*`` checks first.
    """

    deck_size: int
    starter: int
    seats: int
    faces: Mapping[int, Card]
    draw_pile: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    turn: int = -1
    winner: int | None = None
    timed_out: bool = False  # the loser's time ran out

    def __post_init__(self) -> None:
        """The deal: the starter takes positions 0..4, the next seat 5..9, …; the starter moves first."""
        self.hands = [[] for _ in range(self.seats)]
        for k in range(self.seats):
            seat = (self.starter + k) % self.seats
            self.hands[seat] = list(range(k * HAND_SIZE, (k + 1) * HAND_SIZE))
        self.draw_pile = list(range(self.seats * HAND_SIZE, self.deck_size))
        self.turn = self.starter

    # -- queries ---------------------------------------------------------------------------------------

    @property
    def top(self) -> Card | None:
        return self.faces[self.discard_pile[-1]] if self.discard_pile else None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def hand_cards(self, player: int) -> list[Card]:
        return [self.faces[pos] for pos in self.hands[player]]

    def knows_hand(self, player: int) -> bool:
        return all(pos in self.faces for pos in self.hands[player])

    def playable(self, player: int) -> list[int]:
        """Positions in ``player``'s hand that may be discarded now (their faces must be known)."""
        return [pos for pos in self.hands[player] if matches(self.faces[pos], self.top)]

    def can_move(self, player: int) -> bool:
        return bool(self.draw_pile) or bool(self.playable(player))

    # -- moves -------------------------------------------------------------------------------------------

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

    def apply_discard(self, player: int, pos: int) -> None:
        self.check_discard(player, pos)
        card, top = self.faces[pos], self.top
        if not matches(card, top):
            assert top is not None
            raise RuleViolation(f"discarded {card}, which matches neither the suit nor the value of {top}")
        self.hands[player].remove(pos)
        self.discard_pile.append(pos)
        if not self.hands[player]:
            self.winner = player
        else:
            self._next_turn()

    def check_cant_move(self, player: int) -> None:
        """What can be checked of a can't-move claim without the claimer's faces."""
        self.check_turn(player, "claimed they cannot move")
        if self.draw_pile:
            raise RuleViolation(f"claimed they cannot move with {len(self.draw_pile)} cards left to draw")
        if not self.discard_pile and self.hands[player]:
            raise RuleViolation("claimed they cannot move, but anything goes on the empty discard pile")

    def apply_cant_move(self, player: int) -> None:
        """``player`` can neither draw nor discard, and loses. With every face of their hand known (version 5 shows
        it with the claim; versions 3 and 4 knew it at the audit's replay) the claim itself is proved or
        disproved."""
        self.check_cant_move(player)
        every_face = all(pos in self.faces for pos in self.hands[player])
        if every_face and (disproof := false_claim(self.hand_cards(player), self.top)) is not None:
            raise RuleViolation(f"claimed they could not move, but held {disproof}, which could go on {self.top}")
        self.winner = (player + 1) % self.seats  # two players: the other one wins

    def apply_time_out(self, player: int) -> None:
        """``player``'s time ran out with nothing left to draw: it loses (its hand stays unseen)."""
        self.check_turn(player, "ran out of time")
        self.winner, self.timed_out = (player + 1) % self.seats, True

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.seats
