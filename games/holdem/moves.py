"""Hold'em's moves and what a seat sees of the game: what its screen and its computer player need of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from tabletop.wire import Message, Position

from .about import Stage


class Fold(Message):
    """I give up the hand and every chip I have put in."""

    type: Literal["fold"] = "fold"


class Check(Message):
    """Nothing to call: I pass the action on."""

    type: Literal["check"] = "check"


class Call(Message):
    """I match the bet (all I have, if it is less)."""

    type: Literal["call"] = "call"


class Raise(Message):
    """I bet, or raise, to ``to`` chips in front of me this street (all I have is always allowed)."""

    type: Literal["raise"] = "raise"
    to: Annotated[int, Field(ge=1, le=10**12)]


class Board(Message):
    """The betting of a street is over: the next street's cards (``positions``) are shown to everyone.

    The button sends it, as a forced move: it carries no choice.
    """

    type: Literal["board"] = "board"
    positions: Annotated[list[Position], Field(min_length=1, max_length=3)]


class Show(Message):
    """At showdown: my hole cards (``positions``) are shown to everyone."""

    type: Literal["show"] = "show"
    positions: Annotated[list[Position], Field(min_length=2, max_length=2)]


class Muck(Message):
    """At showdown: I give up my claim to the pots without showing my cards."""

    type: Literal["muck"] = "muck"


MOVES: tuple[type[Message], ...] = (Fold, Check, Call, Raise, Board, Show, Muck)


@dataclass(frozen=True)
class Habits:
    """How a seat has bet so far in the game, as every seat saw it: what a poker player reads of an opponent."""

    moves: int = 0  # its folds, checks, calls, bets and raises
    raises: int = 0  # of those, bets and raises (all in included)
    faced: int = 0  # times it had a bet to call
    folded: int = 0  # of those, the times it folded
    shoves: int = 0  # of its bets and raises, those all in (or of all the others can call)
    pots: int = 0  # of its bets and raises, those of the pot or more (after its call), all in included
    passive: int = 0  # its checks and calls when it might have raised


@dataclass(frozen=True)
class Player:
    """One seat as one seat sees it."""

    seat: int
    chips: int  # behind, not counting the bet in front
    bet: int  # in front, this street
    dealt: bool  # in this hand (a seat without chips is out of the game)
    folded: bool
    all_in: bool
    hole: tuple[str | None, ...]  # its two cards, None where unseen; () when not dealt in
    positions: tuple[int, ...]  # their deck positions
    shown: bool  # shown at showdown
    mucked: bool
    action: str = ""  # its last action this street, "Raised to 80", "Big blind 20"; "" for none or a fold
    habits: Habits = Habits()  # how it has bet so far in the game


@dataclass(frozen=True)
class Shown:
    """A hand shown at showdown: its seat, its two cards and its best five of seven in words."""

    seat: int
    cards: tuple[str, str]
    name: str  # "two pair", "a flush"


@dataclass(frozen=True)
class LastHand:
    """The last finished hand as everyone saw it: the board, the hands shown at showdown (in the order shown), the
    seats that mucked, and the chips each seat took back: won from the pots, and its uncalled bet returned."""

    number: int  # from 1
    board: tuple[str, ...]
    shown: tuple[Shown, ...]
    mucked: tuple[int, ...]
    won: tuple[tuple[int, int], ...]  # (seat, chips won from the pots), winners only, in seat order
    returned: tuple[tuple[int, int], ...]  # (seat, its uncalled bet handed back)
    pots: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = ()  # with side pots: each pot (main first), its
    # chips and (seat, chips) of each winner; () when there was one pot

    def took(self, seat: int) -> int:
        """What ``seat`` won from the pots."""
        return dict(self.won).get(seat, 0)


@dataclass(frozen=True)
class HoldemView:
    """What a screen or a computer player needs of the game, for one seat."""

    me: int
    hand: int  # from 1
    hands: int  # the most the game plays
    button: int
    blinds: tuple[int, int]
    players: tuple[Player, ...]  # every seat, in seat order
    board: tuple[str, ...]
    pots: tuple[tuple[int, tuple[int, ...]], ...]  # collected pots (main first) and who can win each
    total: int  # every chip in the middle
    stage: Stage
    to_move: int | None  # the seat to act, to show a street or a hand; None once the game is over
    to_call: int  # for the seat to act
    raise_bounds: tuple[int, int] | None  # the smallest and largest "raise to" for the seat to act
    history: tuple[tuple[int, ...], ...]  # every seat's chips after each finished hand
    last_result: str  # the last finished hand in words, with {0}, {1}… for seats
    last: LastHand | None  # the last finished hand: the showdown's hands, who won what
    recent: tuple[tuple[LastHand, str], ...]  # the hands finished since this seat last decided, oldest first, each
    # with its words ({0}, {1}… for seats): kept until its next decision (the last finished hand at least)
    over: bool
    may_muck: bool = False  # at showdown, a hand may be given up unshown (not the first, not when one is all in)
    beaten: bool = False  # at showdown, mucking is allowed and my hand loses every pot it is in to a hand already
    # shown: only then is the muck offered (any other hand of mine is shown for me, as the game's ``owed`` says)
    opening: bool = False  # a raise now is the street's first bet (after the flop, nothing bet yet): a "bet"

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.me

    def pot_raise(self, fraction: float = 1.0) -> int:
        """A raise, for the seat to act, to its call plus ``fraction`` of the pot after that call (1: a pot-sized
        raise, ½: half the pot); it may lie outside :attr:`raise_bounds`, which a raise is kept within."""
        bet = self.players[self.to_move].bet if self.to_move is not None else 0
        return bet + self.to_call + int(fraction * (self.total + self.to_call))

    @property
    def mine(self) -> Player:
        return self.players[self.me]
