"""Cabo's rules: the number deck, one round's table and its turns, the scores. No crypto, no network.

Every deck *position* of a round's deal is in one place: a seat's hand (a row
of slots), the draw pile or the discard pile. ``Round`` knows where, whose
turn it is and what the mover may do next (its ``stage``); every ``check_*``
raises :class:`RuleViolation` (worded to follow the mover's name) and changes
nothing, every ``apply_*`` checks first. The faces a move needs (a discarded
card's power, a claim of identical cards, the final sums) are passed in: they
are public by the time the move is applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tabletop.game import RuleViolation

from .about import Stage

# The deck in card order: two 0s, four of each value from 1 to 12, two 13s (card i has value VALUES[i]).
VALUES: tuple[int, ...] = (0, 0, *(value for value in range(1, 13) for _ in range(4)), 13, 13)
HAND = 4  # cards dealt to each player
LOOKS = 2  # of them, the ones each player sees at the start of a round (the first two)
AVERAGE = sum(VALUES) / len(VALUES)  # 6.5: what an unknown card is worth on average

POWERS = {7: Stage.PEEK, 8: Stage.PEEK, 9: Stage.SPY, 10: Stage.SPY, 11: Stage.SWAP, 12: Stage.SWAP}


def power(value: int) -> Stage | None:
    """What discarding a drawn card of ``value`` lets the player do, if anything."""
    return POWERS.get(value)


def ordinal(slot: int) -> str:
    """A slot of a hand (0-based) as people count it: "card 1"."""
    return f"card {slot + 1}"


@dataclass
class Round:
    """One deal: four cards to each seat, one face up on the discard pile, the rest to draw from.

    ``number`` is the deal's number in the game (0 first), so positions are
    ``number * size`` … ``number * size + size - 1``. The deal goes round from
    ``first``: it gets the first four positions, the next seat the next four, …;
    then the discard pile's first card; the draw pile is the rest, its top first.
    """

    number: int
    seats: int
    first: int
    size: int = len(VALUES)
    hands: list[list[int]] = field(default_factory=list)  # per seat: its slots, left to right
    draw_pile: list[int] = field(default_factory=list)  # top first
    discard_pile: list[int] = field(default_factory=list)  # top last
    turn: int = 0
    stage: Stage = Stage.TURN
    taken: int | None = None  # the card the mover holds (stage TAKEN)
    from_draw: bool = False  # ... taken from the draw pile (else from the discard pile)
    stopper: int | None = None

    def __post_init__(self) -> None:
        if self.hands:
            return
        offset = self.number * self.size
        self.hands = [[] for _ in range(self.seats)]
        for k in range(self.seats):
            start = offset + k * HAND
            self.hands[(self.first + k) % self.seats] = list(range(start, start + HAND))
        after = offset + self.seats * HAND
        self.discard_pile = [after]
        self.draw_pile = list(range(after + 1, offset + self.size))
        self.turn = self.first

    # -- queries ---------------------------------------------------------------------------------------

    @property
    def positions(self) -> range:
        return range(self.number * self.size, (self.number + 1) * self.size)

    @property
    def over(self) -> bool:
        return self.stage is Stage.OVER

    def holder(self, pos: int) -> int | None:
        return next((seat for seat, hand in enumerate(self.hands) if pos in hand), None)

    def slot(self, pos: int) -> str:
        """A held position in words: "card 2" of its holder's hand."""
        seat = self.holder(pos)
        return ordinal(self.hands[seat].index(pos)) if seat is not None else f"card {pos}"

    def to_move(self) -> int | None:
        return None if self.over else self.turn

    def whose(self, pos: int) -> str:
        """A card not in the mover's hand, as a refusal names it: "another player's card" (the same words to the
        mover and to the others)."""
        return "another player's card" if self.holder(pos) is not None else f"card {pos}, which is in nobody's hand"

    def dealt_looks(self) -> list[tuple[int, int]]:
        """(position, seat) for the cards each seat sees at the start of the round."""
        return [(pos, seat) for seat, hand in enumerate(self.hands) for pos in hand[:LOOKS]]

    # -- checks ----------------------------------------------------------------------------------------

    def _check(self, seat: int, stage: Stage, action: str) -> None:
        if self.over:
            raise RuleViolation(f"{action} after the round ended")
        if seat != self.turn:
            raise RuleViolation(f"{action} out of turn")
        if self.stage is not stage:
            raise RuleViolation(f"{action}, but {self.expected()}", rule=self.expected())

    def expected(self) -> str:
        """What the mover has to do now, for a refusal: "they must first take a card or stop"."""
        return {
            Stage.TURN: "a turn begins by drawing, taking the discard or stopping",
            Stage.TAKEN: "the card taken must first replace a card" + (" or be discarded" if self.from_draw else ""),
            Stage.PEEK: "the 7 or 8 discarded means a peek at one's own card first",
            Stage.SPY: "the 9 or 10 discarded means a look at another player's card first",
            Stage.SWAP: "the 11 or 12 discarded means a swap with another player first",
            Stage.SHOWDOWN: "the round is over: every card is to be shown",
            Stage.OVER: "the round is over",
        }[self.stage]

    def check_draw(self, seat: int, pos: int) -> None:
        self._check(seat, Stage.TURN, "tried to draw")
        if not self.draw_pile:
            raise RuleViolation("tried to draw from an empty draw pile")
        if pos != self.draw_pile[0]:
            raise RuleViolation(f"asked to draw card {pos}, but the top of the draw pile is card {self.draw_pile[0]}")

    def check_take(self, seat: int, pos: int) -> None:
        self._check(seat, Stage.TURN, "tried to take the discard")
        if not self.discard_pile:
            raise RuleViolation("tried to take from an empty discard pile")
        if pos != self.discard_pile[-1]:
            raise RuleViolation(f"asked to take card {pos}, but the top of the discard pile is card "
                                f"{self.discard_pile[-1]}")

    def check_stop(self, seat: int) -> None:
        self._check(seat, Stage.TURN, "tried to stop the round")
        if self.stopper is not None:
            raise RuleViolation("tried to stop a round that is already stopping")

    def check_replace(self, seat: int, positions: Sequence[int]) -> None:
        self._check(seat, Stage.TAKEN, "tried to replace a card")
        if not positions:
            raise RuleViolation("tried to replace no card")
        if len(set(positions)) != len(positions):
            raise RuleViolation("named one card twice in a claim of identical cards")
        for pos in positions:
            if pos not in self.hands[seat]:
                raise RuleViolation(f"tried to replace {self.whose(pos)}", rule="the card taken replaces one of yours")

    def check_discard(self, seat: int) -> None:
        self._check(seat, Stage.TAKEN, "tried to discard")
        if not self.from_draw:
            raise RuleViolation("tried to discard the card taken from the discard pile: it must replace a card")

    def check_peek(self, seat: int, pos: int) -> None:
        self._check(seat, Stage.PEEK, "tried to peek")
        if pos not in self.hands[seat]:
            raise RuleViolation(f"tried to peek at {self.whose(pos)}, but a peek is at one's own card",
                                rule="a peek is at one of your own cards")

    def check_spy(self, seat: int, pos: int) -> None:
        self._check(seat, Stage.SPY, "tried to spy")
        holder = self.holder(pos)
        if holder is None:
            raise RuleViolation(f"tried to spy on {self.whose(pos)}")
        if holder == seat:
            raise RuleViolation("tried to spy on one's own card, but a spy looks at another player's card",
                                rule="a spy looks at another player's card")

    def check_swap(self, seat: int, mine: int, theirs: int) -> None:
        self._check(seat, Stage.SWAP, "tried to swap")
        if mine not in self.hands[seat]:
            raise RuleViolation(f"tried to give {self.whose(mine)} in a swap")
        holder = self.holder(theirs)
        if holder is None or holder == seat:
            raise RuleViolation("tried to swap one's own cards, but a swap is with another player" if holder == seat
                                else f"tried to swap with {self.whose(theirs)}", rule="a swap is with another player's card")

    def check_showdown(self, seat: int) -> None:
        self._check(seat, Stage.SHOWDOWN, "showed the hands")

    # -- moves -----------------------------------------------------------------------------------------

    def apply_draw(self, seat: int, pos: int) -> None:
        self.check_draw(seat, pos)
        self.taken, self.from_draw, self.stage = self.draw_pile.pop(0), True, Stage.TAKEN

    def apply_take(self, seat: int, pos: int) -> None:
        self.check_take(seat, pos)
        self.taken, self.from_draw, self.stage = self.discard_pile.pop(), False, Stage.TAKEN

    def apply_stop(self, seat: int) -> None:
        self.check_stop(seat)
        self.stopper = seat
        self._end_turn()

    def apply_replace(self, seat: int, positions: Sequence[int], faces: Mapping[int, int]) -> bool:
        """Replace one card, or several claimed identical, by the card taken; False if the claim failed.

        A failed claim leaves the cards where they are (everyone has now seen them) and the card taken joins
        the hand, face down, as a penalty (the published rules of Cabo).
        """
        self.check_replace(seat, positions)
        assert self.taken is not None
        hand = self.hands[seat]
        held = len({faces[pos] for pos in positions}) == 1
        if held:
            chosen = sorted(positions, key=hand.index)
            hand[hand.index(chosen[0])] = self.taken
            for pos in chosen[1:]:
                hand.remove(pos)
            self.discard_pile.extend(chosen)
        else:
            hand.append(self.taken)
        self._end_turn()
        return held

    def apply_discard(self, seat: int, faces: Mapping[int, int]) -> Stage | None:
        """Discard the drawn card, face up; the power it gives, if any, is the next stage."""
        self.check_discard(seat)
        assert self.taken is not None
        card, self.taken = self.taken, None
        self.discard_pile.append(card)
        given = power(faces[card])
        if given is None:
            self._end_turn()
        else:
            self.stage = given
        return given

    def apply_peek(self, seat: int, pos: int) -> None:
        self.check_peek(seat, pos)
        self._end_turn()

    def apply_spy(self, seat: int, pos: int) -> None:
        self.check_spy(seat, pos)
        self._end_turn()

    def apply_swap(self, seat: int, mine: int, theirs: int) -> None:
        self.check_swap(seat, mine, theirs)
        other = self.holder(theirs)
        assert other is not None
        mine_slot, their_slot = self.hands[seat].index(mine), self.hands[other].index(theirs)
        self.hands[seat][mine_slot], self.hands[other][their_slot] = theirs, mine
        self._end_turn()

    def apply_showdown(self, seat: int, faces: Mapping[int, int]) -> tuple[int, ...]:
        """Every hand is shown: each seat scores the sum of its cards."""
        self.check_showdown(seat)
        self.stage = Stage.OVER
        return self.scores(faces)

    def scores(self, faces: Mapping[int, int]) -> tuple[int, ...]:
        return tuple(sum(faces[pos] for pos in hand) for hand in self.hands)

    def _end_turn(self) -> None:
        """The next seat's turn; the round is over once the turns after a stop are done or nothing is left to draw."""
        self.taken, self.from_draw = None, False
        self.turn = (self.turn + 1) % self.seats
        self.stage = Stage.SHOWDOWN if self.turn == self.stopper or not self.draw_pile else Stage.TURN


def winners(totals: Sequence[int]) -> tuple[int, ...]:
    """The seats with the lowest total (several on a tie)."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


def finished(totals: Sequence[int], rounds: int, limit: int, most: int) -> bool:
    """The game ends once a total passes ``limit``, or after ``most`` rounds (the table's limit on deals)."""
    return any(total > limit for total in totals) or rounds >= most
