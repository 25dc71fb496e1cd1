"""Rock-paper-scissors on the table: no deck and no moves, only a commit–reveal choice per throw."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from tabletop.game import TIMED_OUT, Choice, Game, GameState, Outcome, RuleViolation, Setup, option_field
from tabletop.wire import STRICT, Message

from .about import ABOUT, MOVE_TIME, TIME_BANK
from .rules import SEATS, THROWS, Match, Throw
from .strategy import random_throws


class RpsOptions(BaseModel):
    """Only the clock's: rock-paper-scissors has no options of its own."""

    model_config = STRICT
    clock: int = option_field(MOVE_TIME)
    bank: int = option_field(TIME_BANK)


@dataclass(frozen=True)
class RpsView:
    """The match as a screen or a computer player sees it (the same for every seat: nothing is hidden)."""

    throws: tuple[Throw, ...]  # every throw revealed so far, equal ones included
    scores: tuple[int, ...]  # throws won, per seat
    target: int  # won throws that win the match
    label: str | None  # the throw under way ("throw-4"), None once the match is over
    awaiting: tuple[int, ...]  # the seats whose throw the game waits for
    winner: int | None

    @property
    def number(self) -> int:
        """The number of the throw under way, or of the last one once the match is over."""
        return len(self.throws) + (self.label is not None)


@dataclass
class RpsState(GameState[str]):
    match: Match = field(default_factory=Match)

    @property
    def label(self) -> str:
        """The commit–reveal label of the throw under way: unique in the game, so every nonce is fresh."""
        return f"throw-{self.match.number}"

    def to_move(self) -> int | None:
        """None: nobody moves, both throw at once. Each throw is a :meth:`choice` of both seats, and the table's own
        commit–reveal round says who still owes what (``Table.owed``, ``Table.awaiting``: a commitment, then a
        reveal), so a throw has no mover for the screens to name."""
        return None

    def check(self, seat: int, move: Message) -> None:
        raise RuleViolation(f"sent {move.type!r}, but rock-paper-scissors has no moves, only throws")

    def push(self, seat: int, move: Message) -> None:
        self.check(seat, move)

    def legal_moves(self, seat: int) -> list[Message]:
        return []

    def choice(self) -> Choice | None:
        return None if self.match.over else Choice(self.label, tuple(range(SEATS)), THROWS,
                                                   title=f"throw {self.match.number}")

    def choose(self, values: dict[int, str]) -> None:
        """Both throws; or a seat whose time ran out (TIMED_OUT), which loses the throw: whoever withholds a throw,
        or its reveal once the other's is out, gains nothing by it."""
        late = next((seat for seat, value in values.items() if value == TIMED_OUT), None)
        if late is None:
            self.match.play(values)
        else:
            self.match.forfeit(late)

    def outcome(self) -> Outcome | None:
        winner = self.match.winner
        if winner is None:
            return None
        scores = self.match.scores
        loser = 1 - winner
        # No name first: screens capitalize a reason's first letter, and a name is shown as its owner wrote it.
        reason = f"the match went to {{{winner}}}, {scores[winner]} throws to {scores[loser]}"
        return Outcome((winner,), scores, reason, next_starter=loser)

    def describe(self, seat: int, move: Message) -> str:
        return f"sent {move.type!r}"  # never logged: check refuses every move

    def view(self, seat: int) -> RpsView:
        m = self.match
        choice = self.choice()
        return RpsView(throws=tuple(m.throws), scores=m.scores, target=m.target,
                       label=choice.label if choice else None, awaiting=choice.seats if choice else (),
                       winner=m.winner)


class Rps(Game[str]):
    """Rock-paper-scissors, first to three won throws, each throw by commit–reveal."""

    about = ABOUT
    messages: ClassVar[tuple[type[Message], ...]] = ()
    tally: ClassVar[tuple[str, str]] = ("throw", "throws")
    has_starter: ClassVar[bool] = False  # both throw at once: the table's log names no starter
    Options = RpsOptions

    def faces(self, options: Any, seats: int) -> tuple[str, ...]:
        return ()

    def new(self, setup: Setup[str]) -> RpsState:
        return RpsState(setup)

    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        return random_throws(seed)
