"""No-limit Texas Hold'em on the table: a sit-and-go of hands (its moves and views are in ``moves``).

Each hand is one deal of the 52-card deck (the table shuffles a new deck for
every hand: ``deals()``). The betting, the pots and the showdown are
PokerKit's (``rules.Hand``); this module checks each move in the table's
words before PokerKit sees it, says what each move shows and to whom, and
keeps the chips from hand to hand. docs/games.md states every rule choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pokerkit import BetCollection, BlindOrStraddlePosting, CheckingOrCalling, ChipsPushing, CompletionBettingOrRaisingTo
from pydantic import BaseModel

from tabletop.deck import Show as Reveal
from tabletop.game import Game, GameState, Outcome, RuleViolation, Setup, option_field
from tabletop.wire import STRICT, Message

from .about import ABOUT, BLINDS, CHIPS, HANDS, MOVE_TIME, TIME_BANK, Stage
from .history import Played, Voided, phhs
from .moves import MOVES, Board, Call, Check, Fold, Habits, HoldemView, LastHand, Muck, Player, Raise, Show, Shown
from .rules import (DECK, STREETS, Hand, blinds_at, cards_text, first_places, hand_name, next_places,
                    parse_blinds)
from .strategy import player

VERBS = {Fold: "fold", Check: "check", Call: "call", Raise: "raise"}
DECISIONS = (*VERBS, Show, Muck)  # a player's own choices (the board is the dealer's forced move)
RECENT = 3  # the most finished hands a seat's view keeps for it to read
POT_SIZED = 1.1  # a raise counts as of the pot when it adds at least 1/1.1 of the pot after the call (habits)


SPARK = "▁▂▃▄▅▆▇█"
SPARK_POINTS = 12  # the most points of a chip graph in the game's ending


def settle(h: Hand) -> LastHand:
    """What a finished hand gave each seat, as a dealer says it: an uncalled bet (the part of a player's chips in
    the hand that nobody matched) is returned; the rest of what a seat took back was won from the pots.

    PokerKit hands an uncalled bet back in two ways: into the stack as it collects the bets (a short all-in called
    a bigger bet) or with the pot (everyone folded to the bet). Either way a seat's chips after the hand are its
    chips before it, less what it put in, plus what it won and what was returned, so that is how they are
    counted."""
    put_in = committed(h)
    pushed: dict[int, dict[int, int]] = {}  # pot index -> seat -> chips of that pot
    for operation in h.poker.operations:
        if isinstance(operation, ChipsPushing):
            pot = pushed.setdefault(operation.pot_index, {})
            for i, amount in enumerate(operation.amounts):
                if amount:
                    pot[h.players[i]] = pot.get(h.players[i], 0) + int(amount)
    final = h.chips()
    returned = {seat: max(0, amount - max((put_in[s] for s in h.players if s != seat), default=0))
                for seat, amount in put_in.items()}
    won = {seat: final[seat] - start + put_in[seat] - returned[seat] for seat, start in zip(h.players, h.stacks,
                                                                                                strict=True)}
    names = {seat: hand_name(cards, h.board_cards, [other for s, other in h.shown.items() if s != seat])
             if len(h.board_cards) == 5 else "" for seat, cards in h.shown.items()}
    pots = tuple((sum(pushed[k].values()), tuple(sorted(pushed[k].items()))) for k in sorted(pushed))
    return LastHand(
        number=h.number + 1, board=tuple(h.board_cards),
        shown=tuple(Shown(seat, cards, names[seat]) for seat, cards in h.shown.items()), mucked=tuple(sorted(h.mucked)),
        won=tuple((seat, amount) for seat, amount in sorted(won.items()) if amount > 0),
        returned=tuple((seat, amount) for seat, amount in sorted(returned.items()) if amount),
        pots=pots if len(pots) > 1 else ())


def committed(h: Hand) -> dict[int, int]:
    """The chips each player put in during the hand (blinds, calls, bets and raises), before anything came back."""
    put_in, street = [0] * len(h.players), [0] * len(h.players)
    for operation in h.poker.operations:
        if isinstance(operation, (BlindOrStraddlePosting, CheckingOrCalling)):
            put_in[operation.player_index] += int(operation.amount)
            street[operation.player_index] += int(operation.amount)
        elif isinstance(operation, CompletionBettingOrRaisingTo):
            put_in[operation.player_index] += int(operation.amount) - street[operation.player_index]
            street[operation.player_index] = int(operation.amount)
        elif isinstance(operation, BetCollection):
            street = [0] * len(h.players)
    return dict(zip(h.players, put_in, strict=True))


def result_words(last: LastHand) -> str:
    """ "hand 3 on A♠ K♦ 7♣ 2♥ 9♠: {1} won 210 with two pair; 200 uncalled returned to {1}": seats as {0}, {1}…"""
    names = {shown.seat: shown.name for shown in last.shown}
    board = f" on {cards_text(last.board)}" if last.board else ""
    won = " and ".join(f"{{{seat}}} won {amount:,}" + (f" with {names[seat]}" if names.get(seat) else "")
                       for seat, amount in last.won)
    pots = "; ".join(f"{pot_label(k, len(last.pots))} {amount:,} to {' and '.join(f'{{{seat}}}' for seat, _ in winners)}"
                     for k, (amount, winners) in enumerate(last.pots))
    returned = "".join(f"; {amount:,} uncalled returned to {{{seat}}}" for seat, amount in last.returned)
    return f"hand {last.number}{board}: {won}" + (f" ({pots})" if pots else "") + returned


def pot_label(k: int, pots: int) -> str:
    """ "main pot", "side pot", or "side pot 2" when there are several."""
    return "main pot" if k == 0 else "side pot" if pots == 2 else f"side pot {k}"


def ordinal(place: int) -> str:
    """ "1st", "2nd", "3rd", "4th"."""
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th')}"


def spark(values: Sequence[int], top: int) -> str:
    """A chip graph in one line: a block per point, as high as the chips (of ``top``)."""
    return "".join(SPARK[min(len(SPARK) - 1, value * len(SPARK) // (top + 1))] for value in values)


class HoldemOptions(BaseModel):
    model_config = STRICT
    chips: int = option_field(CHIPS)
    blinds: Literal["5/10", "10/20", "25/50", "50/100"] = option_field(BLINDS)
    hands: int = option_field(HANDS)
    clock: int = option_field(MOVE_TIME)
    bank: int = option_field(TIME_BANK)


@dataclass
class HoldemState(GameState[str]):
    chips: list[int] = field(init=False)  # every seat's chips as the current hand began (at the end: the final ones)
    hand: Hand = field(init=False)
    history: list[tuple[int, ...]] = field(default_factory=list)  # every seat's chips after each finished hand
    last_result: str = ""  # the last finished hand in words
    last: LastHand | None = None  # the last finished hand: what was shown, who took what
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERBS.values(), 0))  # bet moves made, by kind
    said: str = ""  # the last move in words, for describe
    actions: dict[int, str] = field(default_factory=dict)  # this street: each seat's last action, "Raised to 80"
    habits: dict[int, Habits] = field(default_factory=dict)  # each seat's bet moves so far (none yet: absent)
    played: list[Played] = field(default_factory=list)  # every finished hand, for the hand history
    moves: list[tuple[int, Message, str]] = field(default_factory=list)  # this hand: each move and its words
    late: set[int] = field(default_factory=set)  # this hand: the moves (indices of ``moves``) the table made for a
    # seat whose time ran out
    running_out: int | None = None  # the seat whose next move is the table's, its time having run out (ran_out)
    voided: list[Voided] = field(default_factory=list)  # every hand that was void, for the hand history
    abandoned: bool = False  # the game ended on a void hand (``void``), which never finished
    short: str | None = None  # the last change in a few words for the status line (``brief``), None: its log line

    def __post_init__(self) -> None:
        self.chips = [self.options.chips] * self.setup.seats
        self.hand = self._new_hand(0, self.setup.starter)

    @property
    def options(self) -> HoldemOptions:
        options: HoldemOptions = self.setup.options
        return options

    def _new_hand(self, number: int, button: int) -> Hand:
        """Hand ``number`` with the button at ``button`` and the blinds on the next seats with chips."""
        return self._deal_hand(number, first_places(self.chips, button))

    def _deal_hand(self, number: int, places: tuple[int, int, int]) -> Hand:
        """Hand ``number`` with the button, small and big blind at ``places`` (dead ones on busted seats): every
        seat with chips is dealt in, in PokerKit's order: from the small blind (the big one when the small is dead)
        round the table; heads-up, the big blind and then the button."""
        n = self.setup.seats
        button, small, big = places
        start = small if self.chips[small] > 0 and small != button else big
        players = (big, button) if small == button else \
            tuple(seat for k in range(n) if self.chips[seat := (start + k) % n] > 0)
        hand = Hand(number, players, tuple(self.chips[seat] for seat in players),
                    blinds_at(parse_blinds(self.options.blinds), number), places, tda=self.setup.proven)
        self.moves, self.late = [], set()
        self.actions = {seat: f"{blind} {hand.bet(seat):,}" for seat, blind in
                        ((hand.small_blind, "Small blind"), (places[2], "Big blind")) if seat is not None}
        return hand

    @property
    def over(self) -> bool:
        """The game is over: one seat holds every chip, or the last hand is played (or void)."""
        return self.finished and (
            sum(chips > 0 for chips in self.chips) < 2 or self.hand.number + 1 >= self.options.hands)

    @property
    def finished(self) -> bool:
        """The current hand is over: played to its end, or void (``void``) as the game's last."""
        return self.hand.stage is Stage.OVER or self.abandoned

    # -- the table's side ------------------------------------------------------------------------------

    def deal(self) -> list[Reveal]:
        h = self.hand
        return [Reveal(pos, seat) for seat in h.players for pos in h.hole(seat)]

    def deals(self) -> int:
        return self.hand.number + 1

    def dealers(self) -> tuple[int, ...]:
        """From version 5 a seat with no chips is out of the game for good: it deals no more hands (version 4's
        busted seats shuffled and keyed every deal to the end)."""
        if not self.setup.proven:
            return super().dealers()
        return tuple(seat for seat, chips in enumerate(self.chips) if chips > 0)

    def releases(self, seat: int, move: Message) -> list[int]:
        """A fold opens the folder's keys to the board still to come (version 5), so that it owes the hand nothing
        more: every other player's layer stays on those cards until the board shows them. Showdowns need none of
        its keys (a player who shows opens every key to its own cards: they were sealed to it). The fold that
        leaves one player opens nothing: that hand shows no more board, and the winner, holding its own layer,
        would read the cards never dealt."""
        h = self.hand
        if not self.setup.proven or not isinstance(move, Fold) or h.stage is not Stage.BETTING or h.to_move() != seat:
            return []
        if sum(h.in_hand(s) for s in h.players) - 1 < 2:
            return []
        return list(h.board_positions()[len(h.board_cards):])

    def to_move(self) -> int | None:
        return None if self.abandoned else self.hand.to_move()

    def check(self, seat: int, move: Message) -> None:
        h = self.hand
        stage = h.stage
        if stage is Stage.OVER:
            raise RuleViolation(f"sent {move.type!r} after the game ended")
        if isinstance(move, (Fold, Check, Call, Raise)):
            self._check_bet(seat, move, stage)
        elif isinstance(move, Board):
            if stage is not Stage.BOARD or seat != h.dealer:
                raise RuleViolation("showed board cards out of turn", rule="the board is the button's to show"
                                    if h.dealer == h.button else "the board is shown by the last player still in "
                                    "the hand before the button")
            expected = list(h.next_street())
            if move.positions != expected:
                street = STREETS[h.street_dealt()]
                raise RuleViolation(f"showed cards {move.positions} as the {street}, which is cards {expected}")
        elif isinstance(move, (Show, Muck)):
            what = "showed a hand" if isinstance(move, Show) else "mucked"
            if stage is not Stage.SHOWDOWN or seat != h.to_move():
                raise RuleViolation(f"{what} out of turn", rule="it is not your turn at showdown")
            if isinstance(move, Show) and sorted(move.positions) != sorted(h.hole(seat)):
                raise RuleViolation(f"showed cards {move.positions} at showdown, which are not the hole cards dealt "
                                    f"to them ({list(h.hole(seat))})", rule="show your own hole cards")
            if isinstance(move, Muck) and not h.shown:
                raise RuleViolation("mucked, but the first hand at showdown must be shown",
                                    rule="the first hand at showdown must be shown")
            if isinstance(move, Muck) and not h.may_muck():
                raise RuleViolation("mucked in an all-in showdown, where every hand is shown",
                                    rule="a player is all in: every hand is shown (TDA rule 16)")
        else:
            raise RuleViolation(f"sent {move.type!r}, which is no Hold'em move")

    def _check_bet(self, seat: int, move: Fold | Check | Call | Raise, stage: Stage) -> None:
        h = self.hand
        verb = VERBS[type(move)]
        if stage is not Stage.BETTING or seat != h.to_move():
            raise RuleViolation(f"tried to {verb} out of turn", rule="it is not your turn to bet")
        owe = h.to_call()
        if isinstance(move, Check) and owe:
            raise RuleViolation(f"checked with {owe} to call", rule=f"there is {owe} to call: call, raise or fold")
        if isinstance(move, Call) and not owe:
            raise RuleViolation("called with nothing to call", rule="there is nothing to call: check")
        if isinstance(move, Fold) and not owe:  # PokerKit's tournament mode refuses it too: nothing is given up
            raise RuleViolation("folded with nothing to call", rule="there is nothing to call: check, not fold")
        if isinstance(move, Raise):
            bounds = h.raise_bounds()
            if bounds is None:
                raise RuleViolation("raised, but the betting is not open to a raise",
                                    rule="the betting is closed to raises: call or fold")
            least, most = bounds
            if move.to > most:
                raise RuleViolation(f"bet to {move.to}, beyond their stack: all in is a bet to {most}",
                                    rule=f"the most you can bet is to {most} (all in)")
            if move.to < least:
                raise RuleViolation(f"raised to {move.to}, under the minimum raise to {least}",
                                    rule=f"the smallest raise is to {least}")

    def shows(self, seat: int, move: Message) -> list[Reveal]:
        if isinstance(move, (Board, Show)):
            return [Reveal(pos) for pos in move.positions]
        return []

    def push(self, seat: int, move: Message) -> None:
        h = self.hand
        self.said, self.short = self._describe_before(seat, move), None
        action = self._action(seat, move)
        if type(move) in VERBS:
            self.counts[VERBS[type(move)]] += 1
            was, faced = self.habits.get(seat, Habits()), h.to_call() > 0
            bounds = h.raise_bounds()  # the most a raise may be: all in, or all the others can call
            shoves = isinstance(move, Raise) and bounds is not None and move.to >= bounds[1]
            pot = isinstance(move, Raise) and (shoves or POT_SIZED * (move.to - h.bet(seat) - h.to_call())
                                               >= h.total() + h.to_call())
            passive = isinstance(move, (Check, Call)) and bounds is not None
            self.habits[seat] = Habits(was.moves + 1, was.raises + isinstance(move, Raise), was.faced + faced,
                                       was.folded + (faced and isinstance(move, Fold)), was.shoves + shoves,
                                       was.pots + pot, was.passive + passive)
        if isinstance(move, Fold):
            h.fold()
        elif isinstance(move, (Check, Call)):
            h.check_or_call()
        elif isinstance(move, Raise):
            h.raise_to(move.to)
        elif isinstance(move, Board):
            h.deal_board([self.faces[pos] for pos in move.positions])
        elif isinstance(move, Show):
            first, second = (self.faces[pos] for pos in h.hole(seat))
            h.show(seat, (first, second))
        else:
            h.muck(seat)
        if isinstance(move, Raise) and h.stack(seat) == 0:
            self.said += ", all in"
        if self.running_out == seat:
            self.late.add(len(self.moves))
        self.running_out = None
        self.moves.append((seat, move, self.said))
        if isinstance(move, Board):
            self.actions = {}
        elif type(move) in VERBS:
            self.actions[seat] = action
        if h.stage is Stage.OVER:
            self._finish_hand()

    def _action(self, seat: int, move: Message) -> str:
        """What a seat does, as a poker table shows it under the seat ("Called 20": its bet is now 20); from the state
        before the move and the move's words."""
        h = self.hand
        if isinstance(move, Check):
            return "Checked"
        if isinstance(move, Call):
            return f"Called {min(max(h.poker.bets), h.bet(seat) + h.stack(seat)):,}"
        if isinstance(move, Raise):
            return ("Bet " if self.said.startswith("bet") else "Raised to ") + f"{move.to:,}"
        return ""  # a fold: the seat says "folded"

    def _describe_before(self, seat: int, move: Message) -> str:
        """The move in words, from the state before it is applied."""
        h = self.hand
        if isinstance(move, Call):
            return f"called {min(h.to_call(), h.stack(seat)):,}" + (", all in" if h.to_call() >= h.stack(seat) else "")
        if isinstance(move, Raise):
            return f"bet {move.to:,}" if h.opening() else f"raised to {move.to:,}"
        if isinstance(move, Board):  # a dealer all in or folded only opens its keys: it deals for the table
            cards = [self.faces[pos] for pos in move.positions]
            verb = "dealt" if h.in_hand(seat) and not h.all_in(seat) else "showed, for the table,"
            return f"{verb} the {STREETS[h.street_dealt()]}: {cards_text(cards)}"
        if isinstance(move, Show):
            cards = [self.faces[pos] for pos in h.hole(seat)]
            return f"showed {cards_text(cards)}: {hand_name(cards, h.board_cards, list(h.shown.values()))}" \
                if len(h.board_cards) == 5 \
                else f"showed {cards_text(cards)}"
        return {Fold: "folded", Check: "checked", Muck: "mucked"}[type(move)]

    def _finish_hand(self) -> None:
        """The pots are pushed: the chips move on, and the next hand begins unless the game is over."""
        h = self.hand
        self.last = settle(h)
        for seat, chips in h.chips().items():
            self.chips[seat] = chips
        self.history.append(tuple(self.chips))
        self.last_result = result_words(self.last)
        self.played.append(Played(h, tuple(self.moves), self.last, self.last_result, frozenset(self.late)))
        self.said += f". H{self.last_result[1:]}"
        if not self.over:
            assert h.places is not None
            if self.setup.proven:
                places = next_places(self.chips, h.places)
            else:  # version 4: the button moves to the next seat with chips, the blinds after it
                n = self.setup.seats
                places = first_places(self.chips, next(seat for k in range(1, n + 1)
                                                       if self.chips[seat := (h.button + k) % n] > 0))
            self.hand = self._deal_hand(h.number + 1, places)
            button, small_seat, _ = self.hand.places or h.places
            small, big = self.hand.blinds
            begun = f"Hand {h.number + 2}: the button goes to {{{button}}}"  # the log's; the status line's, short
            self.short = f"Hand {h.number + 2}: button to {{{button}}}"  # enough to keep its first clause whole
            if button not in self.hand.players:  # at 60 columns beside a clock and a long name (brief)
                begun += ", who is out: a dead button (TDA rule 34)"
                self.short += " (a dead button)"
            begun += f", blinds {small}/{big}"
            self.short += f", blinds {small}/{big}"
            if self.hand.small_blind is None:
                begun += f"; no small blind, {{{small_seat}}} being out (TDA rule 34)"
                self.short += "; no small blind"
            self.said += f". {begun}"

    def describe(self, seat: int, move: Message) -> str:
        return self.said

    def void(self, seat: int) -> str:
        """The hand is void (``seat``'s keys or shuffle step never came): every other seat's chips go back to where
        they stood when it began; ``seat`` is out, its whole stack shared equally among the seats still playing,
        the odd chips one each from the first of them left of the button. So vanishing is never better than
        folding. Then the next hand, unless the game is over. The status line reads it short (:meth:`brief`), the
        last-hand panel in a sentence (``Voided.said``)."""
        h, n = self.hand, self.setup.seats
        forfeit, self.chips[seat] = self.chips[seat], 0
        playing = [other for k in range(1, n + 1) if self.chips[other := (h.button + k) % n] > 0]
        share, odd = divmod(forfeit, len(playing))
        gains = {other: share + (k < odd) for k, other in enumerate(playing)}
        for other, gain in gains.items():
            self.chips[other] += gain
        self.history.append(tuple(self.chips))
        shared = ", ".join(f"{gain:,} to {{{other}}}" for other, gain in sorted(gains.items()))
        number = h.number + 1
        self.last_result = f"hand {number} is void: every chip goes back to where it stood when it began, " \
                           f"and out of the game: {{{seat}}}, whose {forfeit:,} chips are shared ({shared})"  # reads for "you" too
        said = self.last_result
        self.short = f"hand {number} void: {{{seat}}} left, {forfeit:,} shared"
        self.voided.append(Voided(
            h, tuple(self.moves), frozenset(self.late),
            f"{{{seat}}}'s time ran out while the deal needed its keys or its shuffle step; {self.last_result}",
            f"hand {number} is void: {{{seat}}} left. Every chip bet goes back; the {forfeit:,} chips {{{seat}}} had "
            f"are shared: {shared}", LastHand(number=number, board=(), shown=(), mucked=(), won=(), returned=())))
        if sum(chips > 0 for chips in self.chips) < 2 or number >= self.options.hands:
            self.abandoned = True
        else:
            assert h.places is not None
            self.hand = self._deal_hand(number, next_places(self.chips, h.places))
            said += f". Hand {number + 1}: the button goes to {{{self.hand.button}}}"
        return said

    def brief(self) -> str | None:
        """A void hand, and a move that ends a hand and deals the next, in a few words for the status line: the
        void's gist ("hand 3 void: cy left, 1,000 shared"), or the new hand ("Hand 4: button to cy, blinds
        10/20": a narrow status line keeps its first clause whole), not the start of a showdown that the last-hand
        panel shows whole; the log says each in full ("Hand 4: the button goes to cy, blinds 10/20")."""
        return self.short

    def ran_out(self, seat: int) -> None:
        """The next move pushed for ``seat`` is the table's: its time ran out (the hand history says so)."""
        self.running_out = seat

    def owed(self, seat: int) -> Message | None:
        """The forced moves: the button shows the next street. At showdown a hand is shown for its player unless it
        is offered the muck (:meth:`offers_muck`): the first hand, every hand in an all-in showdown (TDA rule 16),
        and a hand that wins or ties a pot against every hand shown so far. The rules let a player muck that winner
        too where mucking is allowed (``legal_moves``); its own client does not offer it."""
        h = self.hand
        if h.to_move() != seat:
            return None
        if h.stage is Stage.BOARD:
            return Board(positions=list(h.next_street()))
        if h.stage is Stage.SHOWDOWN and not self.offers_muck(seat) and (not h.may_muck() or self.hole_seen(seat)):
            return Show(positions=list(h.hole(seat)))
        return None

    def hole_seen(self, seat: int) -> tuple[str, str] | None:
        """``seat``'s two hole cards, if this state holds them as ``seat`` has seen them."""
        first, second = (self.seen_face(seat, pos) for pos in self.hand.hole(seat))
        return (first, second) if first is not None and second is not None else None

    def offers_muck(self, seat: int) -> bool:
        """``seat``'s client offers it the muck at showdown: it is ``seat``'s turn, the rules allow it
        (``Hand.may_muck``) and its hand, as ``seat`` has seen it, loses every pot it is in to a hand already shown
        (``Hand.beaten``), so that mucking gives up nothing it could win."""
        h = self.hand
        if h.stage is not Stage.SHOWDOWN or h.to_move() != seat or not h.may_muck():
            return False
        hole = self.hole_seen(seat)
        return hole is not None and h.beaten(seat, hole)

    def time_out(self, seat: int) -> Message:
        """A seat out of time checks, else folds; at showdown it mucks where it may, else shows; the board is
        dealt as ever."""
        h = self.hand
        if h.stage is Stage.BOARD:
            return Board(positions=list(h.next_street()))
        if h.stage is Stage.SHOWDOWN:
            return Muck() if h.shown and h.may_muck() else Show(positions=list(h.hole(seat)))
        return Fold() if h.to_call() else Check()

    def legal_moves(self, seat: int) -> list[Message]:
        h = self.hand
        if h.to_move() != seat:
            return []
        if h.stage is Stage.BOARD:
            return [Board(positions=list(h.next_street()))]
        if h.stage is Stage.SHOWDOWN:
            return [Show(positions=list(h.hole(seat))), *([Muck()] if h.may_muck() else [])]
        moves: list[Message] = [Fold(), Call()] if h.to_call() else [Check()]
        bounds = h.raise_bounds()
        if bounds is not None:
            moves += [Raise(to=amount) for amount in sorted(set(bounds))]
        return moves

    def outcome(self) -> Outcome | None:
        """Every player's chips, most first, each with a chip graph of the game (a line each: the game-over dialog
        shows it at 60x20 too); then who won and why."""
        if not self.over:
            return None
        best = max(self.chips)
        leaders = tuple(seat for seat, chips in enumerate(self.chips) if chips == best)
        winners = () if len(leaders) == len(self.chips) else leaders
        hands = self.hand.number + 1
        if len(leaders) == 1 and best == sum(self.chips):
            why = f"every chip went to {{{leaders[0]}}} in {hands} hand{'s' * (hands > 1)}"
        else:
            why = f"{hands} hand{'s were' if hands > 1 else ' was'} played; the chip lead wins"
            why += f": {' and '.join(f'{{{seat}}}' for seat in leaders)}" if winners else ", and it is shared by all"
        series = [tuple(self.options.chips for _ in self.chips), *self.history]
        if len(series) > SPARK_POINTS:  # evenly spaced points, the first and the last among them
            series = [series[round(k * (len(series) - 1) / (SPARK_POINTS - 1))] for k in range(SPARK_POINTS)]
        top, width = max(max(chips) for chips in series), len(f"{best:,}")
        places = self.places()
        table = [f"{ordinal(places[seat])} {chips:>{width},} {spark([point[seat] for point in series], top)} {{{seat}}}"
                 for seat, chips in sorted(enumerate(self.chips), key=lambda item: places[item[0]])]
        return Outcome(winners, tuple(self.chips), "\n".join([*table, why]))

    def places(self) -> dict[int, int]:
        """Each seat's finishing place (from 1): the players with chips by their chips, then those who busted, the
        last to bust first; two who busted in the same hand by the chips they began it with (as tournaments
        rank them). Equal players share a place."""
        start = [self.options.chips] * self.setup.seats

        def standing(seat: int) -> tuple[int, int, int]:
            if self.chips[seat]:
                return (len(self.history), self.chips[seat], 0)
            busted = next(k for k, chips in enumerate(self.history) if chips[seat] == 0)
            return (busted, (self.history[busted - 1] if busted else start)[seat], 0)

        order = sorted(range(self.setup.seats), key=standing, reverse=True)
        return {seat: 1 + sum(standing(other) > standing(seat) for other in order) for seat in order}

    def record(self, names: Sequence[str]) -> dict[str, Any]:
        """For ``discard-bot --json``: every player's chips, the hands played, and how often each bet move was
        made (every seat's: ``benchmarks/holdem.py`` prints them)."""
        chips = self.chips if self.finished else [self.hand.stack(s) for s in range(self.setup.seats)]
        return {"chips": dict(zip(names, chips, strict=True)), "hands": self.hand.number + 1, "bets": dict(self.counts)}

    def history_file(self, names: Sequence[str], me: int, number: int, room: str) -> tuple[str, str]:
        """Every finished hand as a Poker Hand History (``history.phhs``), with how the game ended if it has."""
        outcome = self.outcome()
        ending = outcome.reason.format(*names).splitlines() if outcome is not None else []
        return ".phhs", phhs(self.played, names, self.faces, me, number, room, ending, self.voided)

    def recent(self, seat: int) -> tuple[tuple[LastHand, str], ...]:
        """The hands finished since ``seat`` last decided something (a bet, a show or a muck), oldest first, each with
        its words: what its player has not had the chance to read yet (the next hand is dealt at once, and may end
        before their turn comes); the last finished hand at least, and at most :data:`RECENT`. A void hand is among
        them, with nothing shown: its words say who left and how their chips were shared."""
        ended: list[Played | Voided] = sorted([*self.played, *self.voided], key=lambda hand: hand.hand.number)
        if not ended:
            return ()
        recent = [ended[-1]]
        if not any(mover == seat and type(move) in DECISIONS for mover, move, _ in self.moves):
            for hand in ended[-2::-1]:
                if any(mover == seat and type(move) in DECISIONS for mover, move, _ in recent[-1].moves):
                    break
                recent.append(hand)
        return tuple((hand.last, hand.result if isinstance(hand, Played) else hand.said) for hand in recent[:RECENT][::-1])

    def view(self, seat: int) -> HoldemView:
        h = self.hand
        over = self.finished

        def player(s: int) -> Player:
            dealt = s in h.players
            return Player(
                seat=s, chips=h.stack(s) if dealt and not over else self.chips[s], bet=0 if over else h.bet(s),
                dealt=dealt and (not over or self.chips[s] > 0),
                folded=dealt and not h.in_hand(s) and s not in h.mucked and s not in h.shown,
                all_in=not over and h.all_in(s),
                hole=tuple(self.seen_face(seat, pos) for pos in h.hole(s)) if dealt else (),
                positions=h.hole(s) if dealt else (), shown=s in h.shown,
                mucked=s in h.mucked, action="" if over else self.actions.get(s, ""),
                habits=self.habits.get(s, Habits()))

        acting = h.to_move() if h.stage is Stage.BETTING else None
        return HoldemView(
            me=seat, hand=h.number + 1, hands=self.options.hands, button=h.button, blinds=h.blinds,
            players=tuple(player(s) for s in range(self.setup.seats)), board=tuple(h.board_cards),
            pots=tuple(h.pots()), total=h.total(), stage=h.stage, to_move=self.to_move(),
            to_call=h.to_call() if acting is not None else 0,
            raise_bounds=h.raise_bounds() if acting is not None else None, history=tuple(self.history),
            last_result=self.last_result, last=self.last, recent=self.recent(seat), over=self.over,
            may_muck=h.stage is Stage.SHOWDOWN and h.may_muck(), beaten=self.offers_muck(seat), opening=h.opening())


class Holdem(Game[str]):
    """No-limit Texas Hold'em for two to six players, a sit-and-go: the last player with chips, or the chip leader
    after the last hand, wins."""

    about = ABOUT
    messages: ClassVar[tuple[type[Message], ...]] = MOVES
    voids_deals = True
    Options = HoldemOptions

    def faces(self, options: Any, seats: int) -> tuple[str, ...]:
        return DECK

    def new(self, setup: Setup[str]) -> HoldemState:
        return HoldemState(setup)

    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        return player(seed)
