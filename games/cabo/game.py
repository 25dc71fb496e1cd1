"""Cabo on the table: its state over rounds (its moves and views are in ``moves``).

Each round is one deal of the 52-card number deck (the table shuffles a new
deck for every round: ``deals()``). Moves name deck positions; what each
shows, and to whom, is in ``shows`` (docs/games.md has the table of moves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from tabletop.deck import Show
from tabletop.game import Game, GameState, Outcome, RuleViolation, Setup, option_field
from tabletop.wire import MAX_DEALS, STRICT, Message

from .about import ABOUT, MOVE_TIME, POINTS, TIME_BANK, Stage
from .moves import MOVES, CaboView, Discard, Draw, Peek, Replace, Showdown, Slot, Spy, Stop, Swap, Take
from .rules import VALUES, Round, finished, ordinal, winners
from .strategy import simple


class CaboOptions(BaseModel):
    model_config = STRICT
    points: int = option_field(POINTS)
    clock: int = option_field(MOVE_TIME)
    bank: int = option_field(TIME_BANK)


@dataclass
class CaboState(GameState[int]):
    round: Round = field(init=False)
    totals: list[int] = field(init=False)
    scores: list[tuple[int, ...]] = field(default_factory=list)  # per finished round
    showdown: tuple[tuple[int, ...], ...] | None = None  # every hand's values at the last round's end
    last_stopper: int | None = None  # who stopped the last round scored (None: its draw pile ran out)
    said: str = ""  # the last move in words, for describe

    def __post_init__(self) -> None:
        self.totals = [0] * self.setup.seats
        self.round = self._new_round(0)

    def _new_round(self, number: int) -> Round:
        s = self.setup
        return Round(number, s.seats, (s.starter + number) % s.seats, len(s.faces))

    @property
    def over(self) -> bool:
        return self.round.over and finished(self.totals, len(self.scores), self.limit, MAX_DEALS)

    @property
    def limit(self) -> int:
        options: CaboOptions = self.setup.options
        return options.points

    # -- the table's side ------------------------------------------------------------------------------

    def deal(self) -> list[Show]:
        r = self.round
        return [Show(pos, seat) for pos, seat in r.dealt_looks()] + [Show(r.discard_pile[-1])]

    def deals(self) -> int:
        return self.round.number + 1

    def to_move(self) -> int | None:
        return self.round.to_move()

    def check(self, seat: int, move: Message) -> None:
        r = self.round
        if isinstance(move, Draw):
            r.check_draw(seat, move.pos)
        elif isinstance(move, Take):
            r.check_take(seat, move.pos)
        elif isinstance(move, Stop):
            r.check_stop(seat)
        elif isinstance(move, Replace):
            r.check_replace(seat, move.positions)
        elif isinstance(move, Discard):
            r.check_discard(seat)
        elif isinstance(move, Peek):
            r.check_peek(seat, move.pos)
        elif isinstance(move, Spy):
            r.check_spy(seat, move.pos)
        elif isinstance(move, Swap):
            r.check_swap(seat, move.mine, move.theirs)
        elif isinstance(move, Showdown):
            r.check_showdown(seat)
        else:
            raise RuleViolation(f"sent {move.type!r}, which is no cabo move")

    def shows(self, seat: int, move: Message) -> list[Show]:
        r = self.round
        if isinstance(move, Draw):
            return [Show(move.pos, seat)]
        if isinstance(move, Replace):
            return [Show(pos) for pos in move.positions]
        if isinstance(move, Discard):
            assert r.taken is not None
            return [Show(r.taken)]
        if isinstance(move, (Peek, Spy)):
            return [Show(move.pos, seat)]
        if isinstance(move, Showdown):
            return [Show(pos) for hand in r.hands for pos in hand]
        return []

    def push(self, seat: int, move: Message) -> None:
        r = self.round
        self.said = self._describe_before(seat, move)
        if isinstance(move, Draw):
            r.apply_draw(seat, move.pos)
        elif isinstance(move, Take):
            r.apply_take(seat, move.pos)
        elif isinstance(move, Stop):
            r.apply_stop(seat)
        elif isinstance(move, Replace):
            taken = self._name(r.taken)
            old = " and ".join(self._name(pos) for pos in move.positions)
            if r.apply_replace(seat, move.positions, self.faces):
                self.said += f" with {taken}: {old} to the discard pile" if len(move.positions) == 1 else \
                    f": {old} to the discard pile, {taken} in their place"
            else:
                self.said += f", but they are {old}: they stay, and {taken} joins the hand as a penalty"
        elif isinstance(move, Discard):
            given = r.apply_discard(seat, self.faces)
            if given is not None:
                self.said += f" to {given.value}"
        elif isinstance(move, Peek):
            r.apply_peek(seat, move.pos)
        elif isinstance(move, Spy):
            r.apply_spy(seat, move.pos)
        elif isinstance(move, Swap):
            r.apply_swap(seat, move.mine, move.theirs)
        else:
            self._score(seat)

    def _score(self, seat: int) -> None:
        scores = self.round.apply_showdown(seat, self.faces)
        self.scores.append(scores)
        self.showdown = tuple(tuple(self.faces[pos] for pos in hand) for hand in self.round.hands)
        self.last_stopper = self.round.stopper
        self.totals = [total + score for total, score in zip(self.totals, scores)]
        each = " · ".join(f"{{{s}}} {score}" for s, score in enumerate(scores))
        totals = " · ".join(f"{{{s}}} {total}" for s, total in enumerate(self.totals))
        self.said = f"showed every hand: round {self.round.number + 1} scores {each}; totals {totals}"
        if not self.over:
            self.round = self._new_round(self.round.number + 1)

    def _name(self, pos: int | None) -> str:
        """A card as this seat knows it: its value, or "the drawn card"."""
        if pos is not None and pos in self.faces:
            return str(self.faces[pos])
        return "the drawn card"

    def _value(self, pos: int) -> str:
        """": 5" if this seat knows the card at ``pos``."""
        return f": {self.faces[pos]}" if pos in self.faces else ""

    def _describe_before(self, seat: int, move: Message) -> str:
        """The move in words, from the state before it is applied (the slots it names are still there)."""
        r = self.round
        if isinstance(move, Draw):
            return f"drew {self.faces[move.pos]}" if move.pos in self.faces else "drew a card"
        if isinstance(move, Take):
            return f"took {self._name(move.pos)} from the discard pile"
        if isinstance(move, Stop):
            return "stopped the round: everyone else has one more turn"
        if isinstance(move, Replace):
            slots = [ordinal(r.hands[seat].index(pos)) for pos in move.positions]
            if len(slots) == 1:
                return f"replaced {slots[0]}"
            return f"claimed {' and '.join(slots)} are identical"
        if isinstance(move, Discard):
            assert r.taken is not None
            return f"discarded {self._name(r.taken)}"
        if isinstance(move, Peek):
            return f"peeked at {r.slot(move.pos)}{self._value(move.pos)}"
        if isinstance(move, Spy):
            return f"spied on {r.slot(move.pos)} held by {{{r.holder(move.pos)}}}{self._value(move.pos)}"
        if isinstance(move, Swap):
            return f"swapped {r.slot(move.mine)} with {r.slot(move.theirs)} held by {{{r.holder(move.theirs)}}}"
        return "showed every hand"

    def describe(self, seat: int, move: Message) -> str:
        return self.said

    def owed(self, seat: int) -> Message | None:
        r = self.round
        return Showdown() if r.stage is Stage.SHOWDOWN and r.turn == seat else None

    def time_out(self, seat: int) -> Message:
        """A seat out of time draws, and discards what it drew (a power it gives is used on the first card it
        may name: its own first card, or the next player's first); a card taken from the discard pile replaces its
        first card; at a round's end it shows its hand as ever."""
        r = self.round
        mine = r.hands[seat]
        if r.stage is Stage.TURN:
            return Draw(pos=r.draw_pile[0])  # a round with nothing to draw is at its showdown
        if r.stage is Stage.TAKEN:
            return Discard() if r.from_draw else Replace(positions=[mine[0]])
        if r.stage is Stage.PEEK:
            return Peek(pos=mine[0])
        theirs = next(hand for k in range(1, r.seats) if (hand := r.hands[(seat + k) % r.seats]))
        if r.stage is Stage.SPY:
            return Spy(pos=theirs[0])
        return Swap(mine=mine[0], theirs=theirs[0]) if r.stage is Stage.SWAP else Showdown()

    def legal_moves(self, seat: int) -> list[Message]:
        r = self.round
        if r.to_move() != seat:
            return []
        mine = r.hands[seat]
        theirs = [pos for other, hand in enumerate(r.hands) if other != seat for pos in hand]
        if r.stage is Stage.TURN:
            moves: list[Message] = []
            if r.draw_pile:
                moves.append(Draw(pos=r.draw_pile[0]))
            if r.discard_pile:
                moves.append(Take(pos=r.discard_pile[-1]))
            if r.stopper is None:
                moves.append(Stop())
            return moves
        if r.stage is Stage.TAKEN:
            claims = [Replace(positions=[mine[i] for i in range(len(mine)) if chosen >> i & 1])
                      for chosen in range(1, 1 << len(mine))]
            return [*claims, *([Discard()] if r.from_draw else [])]
        if r.stage is Stage.PEEK:
            return [Peek(pos=pos) for pos in mine]
        if r.stage is Stage.SPY:
            return [Spy(pos=pos) for pos in theirs]
        if r.stage is Stage.SWAP:
            return [Swap(mine=a, theirs=b) for a in mine for b in theirs]
        return [Showdown()] if r.stage is Stage.SHOWDOWN else []

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        best = winners(self.totals)
        passed = [s for s, total in enumerate(self.totals) if total > self.limit]
        totals = " · ".join(f"{{{s}}} {total}" for s, total in enumerate(self.totals))
        why = f"{joined(passed)} passed {self.limit}" if passed else f"{len(self.scores)} rounds were played"
        lowest = joined(best)
        reason = f"{why} after round {len(self.scores)}; the lowest total wins: {lowest} ({totals})"
        return Outcome(best, tuple(self.totals), reason)

    def forfeit(self, seat: int) -> Outcome:
        """The lowest total among the others wins, as the rounds scored stand (every other seat before any round
        is): every other seat winning would crown the worst total, a win a player with two seats could take by
        stopping one's program."""
        others = [s for s in range(len(self.totals)) if s != seat]
        low = min(self.totals[s] for s in others)
        best = tuple(s for s in others if self.totals[s] == low)
        if not self.scores:
            return Outcome(best, tuple(self.totals), f"{{{seat}}} forfeited: {joined(best)} won")
        totals = " · ".join(f"{{{s}}} {self.totals[s]}" for s in others)
        return Outcome(best, tuple(self.totals), f"{{{seat}}} forfeited after round {len(self.scores)}; the lowest "
                       f"total of the others wins: {joined(best)} ({totals})")

    def view(self, seat: int) -> CaboView:
        r = self.round
        everyone = set(range(self.setup.seats))

        def slot(pos: int) -> Slot:
            return Slot(pos, self.seen_face(seat, pos), self.seen.get(pos, set()) >= everyone)

        return CaboView(
            me=seat, round=r.number + 1, hands=tuple(tuple(slot(pos) for pos in hand) for hand in r.hands),
            deck_size=r.size, draw_pile=len(r.draw_pile), draw_top=r.draw_pile[0] if r.draw_pile else None,
            discard_top=slot(r.discard_pile[-1]) if r.discard_pile else None, discard_count=len(r.discard_pile),
            taken=slot(r.taken) if r.taken is not None else None, from_draw=r.from_draw,
            turn=None if r.over else r.turn, stage=r.stage, stopper=r.stopper, totals=tuple(self.totals),
            last_scores=self.scores[-1] if self.scores else None, showdown=self.showdown, to_move=r.to_move(),
            over=self.over, last_stopper=self.last_stopper)


def joined(seats: Sequence[int]) -> str:
    """Seats as the table names them: "{0}", "{0} and {2}", "{0}, {1} and {2}"."""
    names = [f"{{{seat}}}" for seat in seats]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


class Cabo(Game[int]):
    """Keep the sum of your four face-down cards low; peek, spy and swap; stop the round when you are low."""

    about = ABOUT
    messages: ClassVar[tuple[type[Message], ...]] = MOVES
    Options = CaboOptions

    def faces(self, options: Any, seats: int) -> tuple[int, ...]:
        return VALUES

    def new(self, setup: Setup[int]) -> CaboState:
        return CaboState(setup)

    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        return simple(seed)
