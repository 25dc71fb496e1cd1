"""War's rules: two face-down piles, tricks, wars and the trick limit. No crypto, no network.

After the shuffle each *position* 0..51 of the deck holds one card. The
starter's pile is positions 0–25 (0 on top), the other player's 26–51 (26
on top); nobody has seen any of them. A *turn* lays the top card of each pile
face up (in a war, first one card of each pile face down). ``Board`` tracks
where every position is and refuses any turn the rules forbid, with a message
that reads after the mover's name ("bo" + " turned a card out of turn").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.cards import Card
from tabletop.game import RuleViolation

SEATS = 2
PILE = 26
WAR_CARDS = 2  # a war needs one card face down and one to turn


@dataclass(frozen=True)
class Laid:
    """A card on the table in the current trick: whose, which position, and whether it is face up."""

    seat: int
    pos: int
    up: bool


@dataclass
class Board:
    """The piles, the trick on the table, whose turn it is, and how the game ended.

    ``faces`` are the positions whose face is known (every turned card, for everyone).
    Every ``check_*`` raises :class:`RuleViolation` and changes nothing; ``apply_turn`` checks first.
    """

    starter: int
    limit: int  # tricks; once this many are taken, the larger pile wins
    faces: Mapping[int, Card]
    piles: list[list[int]] = field(default_factory=list)  # per seat, top first
    trick: list[Laid] = field(default_factory=list)  # this trick's cards in the order laid (kept once taken)
    taker: int | None = None  # who took the trick on the table; None while it is undecided
    at_war: bool = False  # the last turn tied: the next turn is a war
    tricks: int = 0  # tricks taken
    turner: int = 0  # who makes the next turn
    over: bool = False
    winner: int | None = None  # None once over: a draw
    ending: str = ""  # how it ended, with {0}, {1} for the seats (see tabletop.game.Outcome)

    def __post_init__(self) -> None:
        other = (self.starter + 1) % SEATS
        self.piles = [[], []]
        self.piles[self.starter] = list(range(PILE))
        self.piles[other] = list(range(PILE, 2 * PILE))
        self.turner = self.starter

    # -- queries ---------------------------------------------------------------------------------------

    @property
    def pot(self) -> list[int]:
        """The positions on the table that nobody has taken yet, in the order they were laid."""
        return [] if self.taker is not None else [laid.pos for laid in self.trick]

    def next_turn(self) -> tuple[list[int], list[int]]:
        """(down, up) of the next turn, in seat order: a war lays each pile's top face down and turns the next."""
        if self.at_war:
            return [pile[0] for pile in self.piles], [pile[1] for pile in self.piles]
        return [], [pile[0] for pile in self.piles]

    # -- the one move ----------------------------------------------------------------------------------

    def check_turn(self, seat: int, up: list[int], down: list[int]) -> None:
        if self.over:
            raise RuleViolation("turned a card after the game ended")
        if seat != self.turner:
            raise RuleViolation("turned a card out of turn")
        want_down, want_up = self.next_turn()
        if len(up) != SEATS or len(down) != len(want_down):
            raise RuleViolation(f"turned {len(up)} cards up and laid {len(down)} face down, but this turn "
                                f"turns {SEATS} up and lays {len(want_down)} face down")
        for s in range(SEATS):
            whose = "their own pile" if s == seat else "the other player's pile"
            if down and down[s] != want_down[s]:
                raise RuleViolation(f"laid card {down[s]} face down from {whose}, but its top card is card "
                                    f"{want_down[s]}")
            if up[s] != want_up[s]:
                where = "the card after the face-down one" if self.at_war else "its top card"
                raise RuleViolation(f"turned card {up[s]} from {whose}, but {where} is card {want_up[s]}")

    def apply_turn(self, seat: int, up: list[int], down: list[int]) -> None:
        """Lay the cards (the turned ones' faces must be known), then settle the trick or start a war."""
        self.check_turn(seat, up, down)
        if self.taker is not None:  # the last trick was taken: clear the table
            self.trick, self.taker = [], None
        for s, pos in enumerate(down):
            self.piles[s].remove(pos)
            self.trick.append(Laid(s, pos, False))
        for s, pos in enumerate(up):
            self.piles[s].remove(pos)
            self.trick.append(Laid(s, pos, True))
        self.turner = (self.turner + 1) % SEATS
        values = [self.faces[pos].value for pos in up]
        if values[0] != values[1]:
            self._take(values.index(max(values)))
            self._after_trick()
            return
        self.at_war = True
        short = [s for s in range(SEATS) if len(self.piles[s]) < WAR_CARDS]
        if len(short) == 1:
            self._end(1 - short[0], "{%d} had too few cards for a war: {%d} won" % (short[0], 1 - short[0]))
            self._take(1 - short[0])
        elif short:
            sizes = [len(pile) for pile in self.piles]
            if sizes[0] == sizes[1]:
                self._end(None, "neither player had the cards for a war: a draw")
            else:
                more = sizes.index(max(sizes))
                self._end(more, "neither player had the cards for a war: {%d}, with more, won" % more)
                self._take(more)

    def _take(self, seat: int) -> None:
        """``seat`` takes the pot to the bottom of its pile, in the order the cards were laid."""
        self.piles[seat].extend(self.pot)
        self.taker = seat
        self.at_war = False
        self.tricks += 1

    def _after_trick(self) -> None:
        empty = [s for s in range(SEATS) if not self.piles[s]]
        if empty:
            loser = empty[0]
            self._end(1 - loser, "{%d} ran out of cards: {%d} won" % (loser, 1 - loser))
        elif self.tricks >= self.limit:
            sizes = [len(pile) for pile in self.piles]
            tricks = f"{self.tricks} trick{'s' * (self.tricks != 1)}"
            if sizes[0] == sizes[1]:
                self._end(None, f"after {tricks} both held {sizes[0]} cards: a draw")
            else:
                more = sizes.index(max(sizes))
                self._end(more, f"after {tricks} {{0}} held {sizes[0]} cards and {{1}} {sizes[1]}: {{{more}}} won")

    def _end(self, winner: int | None, ending: str) -> None:
        self.over, self.winner, self.ending = True, winner, ending
