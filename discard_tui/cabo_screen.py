"""Cabo's table: every player's cards, the piles, the card taken, the round and the totals; keys, hints, refusals.

One cursor moves over every card on the table (← → within a hand, ↑ ↓ from
hand to hand); the card under it is lifted. Enter acts on it: the card taken
replaces it, or it is peeked at, spied on or swapped, as the turn requires
(a swap takes two Enters, on mine then on theirs; Esc puts mine back).
Space marks cards of mine for a claim that they are identical. ``d`` draws,
or discards the card drawn; ``t`` takes the discard; ``s`` stops the round.
Each key's footer label follows what it does now, greyed out while it is
refused (and pressing it says why); the hint line follows each step, and a
refusal goes with the next step that is not refused.

When a round ends the table deals the next at once; the screen holds the
round that ended (:class:`RoundEnd`: every hand face up with its sum, who
called cabo) until a key, or against the computer a few seconds.

``view(seat)`` is this game's side of the app, and :func:`move_for` makes the
move a key asks for on the chosen card; both import the game when called, so
that this module stays as light as the screen. The table judges every move.
"""

from __future__ import annotations

import dataclasses
import math
import time

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import StyleType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Label, Static

from games.cabo.about import Stage

from .table_screen import GameUI, MakeMove, MoveLog, TableScreen
from .view import SeatView
from tabletop.values import Phase
from .widgets import BACK_STYLE, LARGE_SCREEN, CardWidget, DrawPile, ProgressBox, Rows, Scale, StatusBar, back_rows, \
    card_at, card_size, corner_rows, empty_rows, fan, fitting_fan, framed_rows, inside, scale_for, show_text

if TYPE_CHECKING:
    from games.cabo.moves import CaboView, Slot
    from tabletop.shell import Seat
    from tabletop.wire import Message as Move

POWER_NAMES = {7: "pk", 8: "pk", 9: "spy", 10: "spy", 11: "swp", 12: "swp"}  # printed on the cards
VALUE_CHIP = 5  # cells per cabo card in the one-line layout: "[13]" and a space (widgets.CHIP: a playing card);
# 4, without the space, when a hand would not fit otherwise (four cards in a crowded seat at 60 columns)
KEY_ACTIONS: dict[str, dict[Stage | None, str]] = {  # what a key does in each stage of my turn (None: in any other
    # stage, and while it is not my turn)
    "d": {Stage.TAKEN: "discard", None: "draw"},
    "enter": {Stage.TAKEN: "replace", Stage.PEEK: "peek", Stage.SPY: "spy", Stage.SWAP: "swap", None: "replace"},
}
PLAYABLE = (Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING)  # a round's end is held only in these
ROUND_END_SECONDS = 8.0  # against the computer, how long a round's end stays if no key takes it away
KEEP_ROUND_END = frozenset({"question_mark", "q", "x", "tab", "shift+tab", "L"})  # keys that open something over the
# table or leave it (help, quit, leave, the log) keep doing so under a round's end; any other key takes it away


# The rules and the cues (HELP) and a player's keys (KEY_HELP), in markup: the help page (table_screen.help_page
# adds the log's keys and the safety number; a watcher's has its own keys). A paragraph is one line (a "\" at a
# line's end joins the next), wrapped to the screen; a row of keys or cues fits 52 columns, the help's width at 60.
HELP = """\
[b]Cabo[/b]: the lowest sum of cards wins. You have four face \
down and see two as a round starts. On your turn [b]draw[/b], [b]take[/b] \
the discard or [b]stop[/b] (everyone else has one more turn). The \
card taken replaces one of yours, or several [b]identical[/b] ones \
(if they are not, they stay and it joins them); a drawn 7 8 \
[b]peeks[/b] at yours, 9 10 [b]spies[/b] on another's, 11 12 [b]swaps[/b] blind. \
A round's end shows every hand face up until a key; rounds \
add up until a total passes 66 (or --points).

[b]Cues[/b]  chosen: lifted · marked: ╔╗
      ▚▞ a card you have not seen"""

KEY_HELP = """\
[b]Keys[/b]  ← → ↑ ↓ choose a card   Enter act on it
      Space mark   d draw/discard   t take   s stop
      Esc back   n rematch   q quit"""


# -- drawing cards -----------------------------------------------------------------------------------------


def value_rows(value: int, border: StyleType, scale: Scale = Scale.SMALL, double: bool = False) -> Rows:
    """A card whose value is known: the value, and its power if it has one; a double frame when marked."""
    power = POWER_NAMES.get(value, "")
    inner = inside(scale)[0]
    middle = [f"{value:<{inner}}", " " * inner, f"{power:^{inner}}"] if scale is Scale.LARGE else \
        corner_rows(str(value), power, str(value), scale)
    return framed_rows(middle, border, "bold black on white", double)


def unseen_rows(scale: Scale = Scale.SMALL, double: bool = False, border: StyleType | None = None) -> Rows:
    """A face-down card; a double frame when marked."""
    rows = back_rows(scale)
    if not double and border in (None, BACK_STYLE):
        return rows
    return framed_rows([text[1:-1] for text, _ in rows[1:-1]], border or BACK_STYLE, BACK_STYLE, double)


def chip(value: int | None) -> str:
    return f"[{'▚▞' if value is None else f'{value:>2}'}]"


class CaboHand(CardWidget, can_focus=True):
    """One player's cards: the ones this player knows face up, the others face down; the chosen one lifted.

    Too narrow for whole cards, or in a crowded room, the cards become one line of chips: "[ 7] [▚▞]".
    """

    values: reactive[tuple[int | None, ...]] = reactive(())
    positions: reactive[tuple[int, ...]] = reactive(())  # each card's place in the deck: which card it is
    cursor: reactive[int | None] = reactive(None)
    marks: reactive[frozenset[int]] = reactive(frozenset())  # slots marked for a claim or a swap
    compact: reactive[bool] = reactive(False)

    class Chosen(Message):
        """The player clicked the card in ``slot`` of ``seat``'s hand."""

        def __init__(self, seat: int, slot: int) -> None:
            super().__init__()
            self.seat, self.slot = seat, slot

    def __init__(self, seat: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.can_focus = kwargs.get("id") == "hand"  # my hand takes the keys (Tab goes to the log and back)

    def layout_advances(self) -> list[int] | None:
        if self.compact:
            return None
        fitted = self.fitted_fan()
        return None if fitted is None else fitted[1]

    def fitted_fan(self) -> tuple[Scale, list[int]] | None:
        """The size of the cards and the fan of whole cards that fit the width, or None when only chips fit."""
        return None if self.compact else fitting_fan(len(self.values), self.size.width, self.scale, self.cursor)

    def render(self) -> Text:
        if not self.values:
            return Text("(no cards)", style="dim")
        fitted = self.fitted_fan()
        if fitted is None:
            line = Text(no_wrap=True)
            gap = " " * (self.chip_advance() - len(chip(None)))
            for slot, value in enumerate(self.values):
                style = ("reverse " if slot == self.cursor else "") + ("underline" if slot in self.marks else "")
                line.append(chip(value), style.strip() or "bold")
                line.append(gap)
            return line
        scale, advances = fitted
        cards = [unseen_rows(scale, slot in self.marks, self.border(slot, BACK_STYLE)) if value is None else
                 value_rows(value, self.border(slot, "black on white"), scale, slot in self.marks)
                 for slot, value in enumerate(self.values)]
        lifts = [slot == self.cursor for slot in range(len(self.values))]
        return fan(cards, advances, lifts, scale)

    def watch_positions(self, old: tuple[int, ...], new: tuple[int, ...]) -> None:
        """A card replaced or swapped (by anyone) is marked for a moment; so is one just seen."""
        self._changed(old, new)

    def watch_values(self, old: tuple[int | None, ...], new: tuple[int | None, ...]) -> None:
        self._changed(old, new)

    def _changed(self, old: tuple[object, ...], new: tuple[object, ...]) -> None:
        if old and len(old) == len(new) and (slots := [i for i, (a, b) in enumerate(zip(old, new)) if a != b]):
            self.flash(slots)

    def chip_advance(self) -> int:
        """Cells per chip: with a space between them if the whole hand fits so, else without."""
        return VALUE_CHIP if len(self.values) * VALUE_CHIP - 1 <= self.size.width else VALUE_CHIP - 1

    def on_click(self, event: events.Click) -> None:
        advances = self.layout_advances() or [self.chip_advance()] * len(self.values)
        slot = card_at(advances, self.content_x(event.x, sum(advances)))
        if slot is not None:
            self.post_message(self.Chosen(self.seat, slot))


class CardPile(CardWidget):
    """A pile or a card in hand: its top face up when known, face down when not, an outline when empty."""

    value: reactive[int | None] = reactive(None)
    present: reactive[bool] = reactive(False)
    caption: reactive[str] = reactive("")

    class Pressed(Message):
        """The player clicked the pile."""

        def __init__(self, pile: CardPile) -> None:
            super().__init__()
            self.pile = pile

        @property
        def control(self) -> CardPile:
            return self.pile

    def watch_value(self, old: int | None, new: int | None) -> None:
        if new is not None and new != old:
            self.flash()

    def render(self) -> Text:
        if not self.present:
            rows = empty_rows(self.scale)
        elif self.value is None:
            rows = back_rows(self.scale)
        else:
            rows = value_rows(self.value, self.border(0, "black on white"), self.scale)
        text = fan([rows], [card_size(self.scale)[0]], scale=self.scale)
        text.append(f"\n{self.caption}", "bold")
        return text

    def on_click(self) -> None:
        self.post_message(self.Pressed(self))


# -- the screen --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaboScreenView(SeatView["CaboView"]):
    """Cabo's screen: the table's view, whose board (the game's own view) the screen reads as it is, and the
    table's judgement of a move."""

    refusal_of: Callable[[Move], str | None] = field(default=lambda move: "the game is not under way",
                                                     compare=False, repr=False)


@dataclass(frozen=True)
class RoundEnd:
    """A round as it ended: every hand face up, each hand's sum, who called cabo (None: the draw pile ran out), the
    totals after it. The screen holds it while the table deals and plays the next round."""

    number: int  # 1 for the first round
    hands: tuple[tuple[int, ...], ...]  # per seat, left to right
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    stopper: int | None


class CaboTable(TableScreen[CaboScreenView]):
    """Cabo's board: the other players' hands, the piles and the card taken, the round, my hand."""

    CSS_PATH = "cabo.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next_round", "Next round"),  # while a round's end is held (any key takes it away)
        Binding("left,h", "move(-1)", "Left", show=False),
        Binding("right,l", "move(1)", "Right", show=False),
        Binding("up,k", "hand(1)", "Up", show=False),
        Binding("down,j", "hand(-1)", "Down", show=False),
        Binding("d", "draw", "Draw"),
        Binding("d", "discard", "Discard"),
        Binding("t", "take", "Take"),
        Binding("s", "stop", "Stop"),
        Binding("enter", "replace", "Replace"),
        Binding("enter", "peek", "Peek"),
        Binding("enter", "spy", "Spy"),
        Binding("enter", "swap", "Swap"),
        Binding("space", "mark", "Mark", key_display="␣"),
        Binding("escape", "back", "Back"),  # a card of mine chosen for a swap is put back
        # The same keys while what they do now is refused (greyed out above): say why instead of doing nothing.
        Binding("d", "refuse('d')", show=False),
        Binding("t", "refuse('take')", show=False),
        Binding("s", "refuse('stop')", show=False),
        Binding("enter", "refuse('enter')", show=False),
        Binding("space", "refuse('mark')", show=False),
    ]
    actions = ("draw", "discard", "take", "stop", "replace", "peek", "spy", "swap", "mark", "back", "next_round",
               "rematch")

    def __init__(self, leave_grace: float, resumes: bool = True, computers: bool = False) -> None:
        super().__init__(leave_grace, resumes, computers)
        self.target: tuple[int, int] = (0, 0)  # (seat, slot) of the chosen card
        self.marks: frozenset[int] = frozenset()  # positions of my cards marked
        self.stage: Stage | None = None  # the stage of my turn the cursor was placed for
        self.seats_shown: tuple[int, ...] = ()
        self.summary: RoundEnd | None = None  # the round that ended, shown until a key takes it away
        self.last_end: tuple[int, RoundEnd] | None = None  # the last round held, and the moves made when it ended
        self._summary_due: float | None = None  # time.monotonic() when it goes by itself (against the computer)
        self._summary_timer: Timer | None = None

    def compose_board(self) -> ComposeResult:
        yield Horizontal(id="opponents")
        yield Static(classes="spacer")
        with Horizontal(id="middle"):
            yield Static(id="balance")
            yield DrawPile(id="draw")
            yield CardPile(id="discard")
            yield CardPile(id="taken")
            with Vertical(id="info-box"):
                yield Static("", id="info", markup=False)
                yield ProgressBox(id="progress-box")
        yield Static(classes="spacer")
        yield Label("", id="hand-label", classes="label", markup=False)
        yield CaboHand(0, id="hand")

    def on_mount(self) -> None:
        self.query_one("#hand", CaboHand).focus()
        super().on_mount()

    # -- the end of a round ---------------------------------------------------------------------------------

    def update(self, view: CaboScreenView, now: float | None = None, wall: float | None = None) -> None:
        self.hold_round_end(self.view, view)
        super().update(view, now, wall)
        if self.last_end is None or not self.is_mounted or not self.query(StatusBar):
            return
        status = self.query_one(StatusBar)
        moves, ended = self.last_end
        if self.summary is not None or view.moves == moves:  # what happened, not the move that showed the hands,
            status.event = round_line(view, ended)  # until another move is made
        if self.summary is not None:
            status.my_turn = False  # the turn is the next round's, which is not on the screen yet

    def hold_round_end(self, old: CaboScreenView | None, new: CaboScreenView) -> None:
        """Hold a round that ended between ``old`` and ``new``: the next round's deal and turns go on underneath.

        A view that is the first one shown (a game taken back), or one rebuilt from an earlier run, holds nothing;
        a new game, the game's end (the table shows every card then), a violation or a lost relay drop what is held.
        """
        board = new.board
        if board is None or board.over or new.phase not in PLAYABLE or new.failure is not None or (
                old is not None and old.number != new.number):
            self._drop_round_end()
            self.last_end = None
            return
        ended = round_end(new)
        if old is None or ended is None or new.replaying or not self.is_mounted or ended.number <= scored(old):
            return
        self._drop_round_end()
        self.summary, self.last_end = ended, (new.moves, ended)
        if self.computers:  # nobody else waits for me to read it
            self._summary_due = time.monotonic() + ROUND_END_SECONDS
            self._summary_timer = self.set_timer(ROUND_END_SECONDS, self.action_next_round)

    def _drop_round_end(self) -> None:
        self.summary, self._summary_due = None, None
        if self._summary_timer is not None:
            self._summary_timer.stop()
            self._summary_timer = None

    def action_next_round(self) -> None:
        """The round that ended gives way to the table as it is now."""
        if self.summary is None:
            return
        self._drop_round_end()
        for hand in self.query(CaboHand):
            hand.values, hand.positions = (), ()  # the next round's cards come in unmarked, as after a deal
        if self.view is not None:
            self.update(self.view)

    def on_key(self, event: events.Key) -> None:
        """While a round's end is held, a key takes it away and does nothing else: it was not meant for a table the
        player has not seen yet. Help, quit, leave and the log keep their keys; a log being read keeps them all."""
        if self.summary is None or event.key in KEEP_ROUND_END or isinstance(self.focused, MoveLog) or \
                self.has_class("-too-small"):
            return
        event.stop()
        event.prevent_default()
        self.action_next_round()

    def headline(self, view: CaboScreenView) -> str:
        return f"Round {self.summary.number} over" if self.summary is not None else super().headline(view)

    # -- drawing -------------------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        if self.view is not None:
            self.show_board(self.view)

    def show_board(self, view: CaboScreenView) -> None:
        board: CaboView | None = view.board
        others = view.others
        if others != self.seats_shown:
            self.seats_shown = others
            row = self.query_one("#opponents", Horizontal)
            row.remove_children()
            row.mount_all(Vertical(Label("", classes="label seat-label", markup=False), CaboHand(seat),
                                   classes="seat") for seat in others)
            self.call_after_refresh(self.show_board, view)
            return
        self._place_cursor(view)
        crowded = len(others) > 2 and not (self.size.height >= LARGE_SCREEN[1] and len(others) <= 4)
        self.set_class(crowded, "-crowded")
        ended = self.summary
        self.set_class(ended is not None, "-round-end")  # the piles are the next round's: hidden meanwhile
        hands = {hand.seat: hand for hand in self.query(CaboHand) if hand.id != "hand"}
        mine = self.query_one("#hand", CaboHand)
        mine.seat = view.near  # a watcher's: seat 1's hand, face down but for what everyone was shown
        choosing = my_stage(view) in (Stage.TAKEN, Stage.PEEK, Stage.SPY, Stage.SWAP)  # a card to raise; else none
        dealing = view.phase in (Phase.SHUFFLING, Phase.DEALING)  # the round's cards are not dealt yet
        scale = scale_for(self.size.width, self.size.height)
        for seat, hand in [*hands.items(), (view.near, mine)]:
            hand.compact = crowded and hand is not mine
            if ended is not None:  # the round that ended, every card face up
                hand.values, hand.positions, hand.cursor, hand.marks = ended.hands[seat], (), None, frozenset()
                continue
            hand.values = () if dealing else hand_values(view, seat)
            hand.positions = () if dealing or board is None else tuple(slot.pos for slot in board.hands[seat])
            hand.cursor = self.target[1] if choosing and self.target[0] == seat else None
            hand.marks = frozenset(i for i, s in enumerate(board.hands[seat]) if s.pos in self.marks) \
                if board and seat == view.me else frozenset()
        fits = [fitting_fan(len(hand.values), hand.size.width, scale, hand.cursor) for hand in hands.values()]
        theirs = min((fit[0] for fit in fits if fit is not None), default=scale)  # one size for all the others'
        for hand in hands.values():
            hand.scale = theirs
        mine.scale = scale
        for name, seat in zip(self.query(".seat-label").results(Label), others):
            show_text(name, seat_label(view, seat, name.content_size.width or None, ended))
        show_text(self.query_one("#hand-label", Label), seat_label(view, view.near, ended=ended))
        whole = board.deck_size if board else 0  # no deck before the first round's is shuffled
        self.query_one(DrawPile).count = whole if dealing or board is None else board.draw_pile
        discard, taken = self.query_one("#discard", CardPile), self.query_one("#taken", CardPile)
        top = board.discard_top if board and not dealing else None
        discard.present, discard.value = top is not None, top.value if top else None
        discard.caption = f"Discard {board.discard_count if board and not dealing else 0}"
        held = board.taken if board else None
        taken.present, taken.value = held is not None, held.value if held else None
        drawn = board is not None and board.from_draw
        taken.caption = ("You drew" if drawn else "You took") if held is not None and view.my_turn else \
            ("Drawn" if drawn else "Taken")
        show_text(self.query_one("#info", Static),
                  info(view, self.has_class("-short")) if ended is None else
                  round_end_info(view, ended, self.has_class("-short")))
        self.query_one(ProgressBox).show(view.progress if ended is None else None)

    def _place_cursor(self, view: CaboScreenView) -> None:
        """Where the cursor starts for each step of my turn: my hand, or (for a spy) the next player's."""
        board = view.board
        stage = my_stage(view)
        if stage == self.stage:
            seat, slot = self.target
            if board is not None and seat < len(board.hands):
                self.target = (seat, max(0, min(slot, len(board.hands[seat]) - 1)))
            return
        self.stage = stage
        self.marks = frozenset()
        self.target = ((view.me + 1) % len(view.names), 0) if stage is Stage.SPY else (view.me, 0)

    # -- keys ---------------------------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self.view is None or self.view.board is None:
            return
        seat, slot = self.target
        self.target = (seat, max(0, min(slot + step, len(self.view.board.hands[seat]) - 1)))
        self.stepped()

    def action_hand(self, step: int) -> None:
        """Up and down go from hand to hand, but only among the hands this step of my turn can act on."""
        if self.view is None or self.view.board is None:
            return
        stage = my_stage(self.view)
        if stage is not None and stage in OWN_HAND_ONLY:
            self.notice(OWN_HAND_ONLY[stage])
            return
        order = list(self.view.others) if stage is Stage.SPY else [self.view.me, *self.view.others]
        here = order.index(self.target[0]) if self.target[0] in order else -step
        seat = order[(here + step) % len(order)]
        self.target = (seat, min(self.target[1], len(self.view.board.hands[seat]) - 1))
        self.stepped()

    def stepped(self) -> None:
        """A step of mine that makes no move (the cursor moved, a card marked or chosen): the board and the hint
        follow it, and a refusal of an earlier key goes."""
        if self.view is not None:
            self.notice("")
            self.update(self.view)

    def chosen(self) -> Slot | None:
        board = self.view.board if self.view is not None else None
        return slot_at(board, self.target) if board is not None else None

    def action_mark(self) -> None:
        card = self.chosen()
        if card is None:
            return
        if self.view is not None and self.view.board is not None and self.view.board.stage is Stage.SWAP:
            self.marks = frozenset({card.pos})  # one card of mine to give
        else:
            self.marks = self.marks ^ {card.pos}
        self.stepped()

    def play(self, action: str) -> None:
        """Ask for the move ``action`` makes on the chosen card (the table judges it again)."""
        if self.view is None or self.view.board is None:
            return
        move = move_for(self.view, action, self.target, self.marks)
        if move is None:
            self.notice(self.refused(self.view, action) or "")
        else:
            self.post_message(MakeMove(move))

    def action_draw(self) -> None:
        self.play("draw")

    def action_discard(self) -> None:
        self.play("discard")

    def action_take(self) -> None:
        self.play("take")

    def action_stop(self) -> None:
        self.play("stop")

    def action_replace(self) -> None:
        self.play("replace")

    def action_peek(self) -> None:
        self.play("peek")

    def action_spy(self) -> None:
        self.play("spy")

    def action_swap(self) -> None:
        card = self.chosen()
        if card is not None and self.view is not None and self.target[0] == self.view.me:
            self.marks = frozenset({card.pos})  # Enter on one of mine chooses it; then on theirs, swaps
            self.action_hand(1)
            return
        self.play("swap")

    def action_back(self) -> None:
        """Esc during a swap: the card of mine chosen to give is put back, and the cursor goes back to it."""
        view = self.view
        if view is None or view.board is None or not self.marks:
            return
        hand = view.board.hands[view.me]
        self.target = (view.me, next((slot for slot, card in enumerate(hand) if card.pos in self.marks), 0))
        self.marks = frozenset()
        self.stepped()

    def action_refuse(self, action: str) -> None:
        if self.view is not None:
            self.notice(self.refused(self.view, key_action(self.view, action)) or "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action in ("next_round", "back"):  # this screen's own steps: no move, nothing to refuse
            if self.has_class("-too-small") or isinstance(self.focused, MoveLog):
                return False
            if action == "next_round":
                return self.summary is not None
            return self.summary is None and view is not None and my_stage(view) is Stage.SWAP and bool(self.marks)
        if self.summary is not None and (action in self.actions or action == "refuse"):
            return False  # the keys act on the table once the round that ended gives way to it
        if view is not None and action in ("draw", "discard"):
            if key_action(view, "d") != action:
                return False
        if view is not None and action in ("replace", "peek", "spy", "swap"):
            if key_action(view, "enter") != action:
                return False
        if view is not None and action == "mark" and my_stage(view) not in (Stage.TAKEN, Stage.SWAP):
            return False  # marking is part of replacing and swapping only
        if action == "refuse" and view is not None:
            return self.refused(view, key_action(view, str(parameters[0]))) is not None
        return super().check_action(action, parameters)

    @on(CaboHand.Chosen)
    def card_clicked(self, message: CaboHand.Chosen) -> None:
        if self.summary is not None:  # a click, like a key, takes a round's end away
            self.action_next_round()
            return
        self.target = (message.seat, message.slot)
        if self.view is not None:
            self.stepped()
            action = key_action(self.view, "enter")
            if self.refused(self.view, action) is None:
                getattr(self, f"action_{action}")()

    @on(DrawPile.Pressed)
    def draw_clicked(self) -> None:
        if self.summary is None:
            self.play("draw")

    @on(CardPile.Pressed, "#discard")
    def discard_clicked(self) -> None:
        if self.view is not None and self.summary is None:  # the drawn card goes onto it, or its top card is taken
            self.play("discard" if key_action(self.view, "d") == "discard" else "take")

    # -- words ------------------------------------------------------------------------------------------------

    def hint(self, view: CaboScreenView) -> str:
        if self.summary is not None:
            return round_end_hint(view, self.summary, self._summary_due)
        return hint(view, self.marks)

    def refusal(self, view: CaboScreenView, action: str, index: int | None = None) -> str | None:
        return refusal(view, action, self.target, self.marks)


OWN_HAND_ONLY = {  # steps of my turn that act on my own cards only: ↑ ↓ stay in my hand and say why
    Stage.PEEK: "a peek is at one of your own cards: ← → choose it",
    Stage.TAKEN: "the card you took replaces one of yours: ← → choose it",
}


def key_action(view: CaboScreenView, key: str) -> str:
    """What ``key`` does now ("d" draws, or discards a drawn card; Enter replaces, peeks, spies or swaps)."""
    if key not in KEY_ACTIONS:
        return key
    return KEY_ACTIONS[key].get(my_stage(view), KEY_ACTIONS[key][None])


def my_stage(view: CaboScreenView) -> Stage | None:
    """The stage of my turn (taken, peek, …), or None when it is not my turn."""
    board = view.board
    return board.stage if board is not None and view.my_turn else None


def hand_values(view: CaboScreenView, seat: int) -> tuple[int | None, ...]:
    """The values of ``seat``'s cards I know (the round that ended is the screen's own: :class:`RoundEnd`)."""
    board = view.board
    return () if board is None else tuple(slot.value for slot in board.hands[seat])


def seat_label(view: CaboScreenView, seat: int, width: int | None = None, ended: RoundEnd | None = None) -> str:
    """ "bo · 20 pts · stopped" above a hand, "▶ bo · …" while it is bo's turn; mine also says what I know of it.
    Over a round that ended, the hand's sum and who called cabo: "bo · sum 3 · called cabo".

    In ``width`` columns the name is cut first, in its middle ("Comp…r 3 · 34 pts · stopped"): the points and
    the stop matter more, and names often differ at their ends (but "called cabo" is "cabo" before that).
    """
    board = view.board
    name = "You" if seat == view.me else view.names[seat]
    if board is None:
        return name
    turn = view.playing and board.to_move == seat and board.stage not in (Stage.SHOWDOWN, Stage.OVER)
    if ended is not None:
        turn = False
        facts = [f"sum {ended.scores[seat]}", *(["called cabo"] if ended.stopper == seat else [])]
        if width and len(" · ".join([name, *facts])) > width:
            facts[1:] = ["cabo"] * (len(facts) - 1)
    else:
        facts = [f"{board.totals[seat]} pts"]
        if seat == view.me:
            known, unseen = board.known_sum(seat)
            facts.append(f"known {known}" + (f" + {unseen} unseen" if unseen else ""))
        if board.stopper == seat:
            facts.append("stopped")
    marker = "▶ " if turn else ""
    over = len(" · ".join([marker + name, *facts])) - width if width else 0
    if over > 0 and seat != view.me:
        keep = max(len(name) - over - 1, 4)
        name = name[:(keep + 1) // 2] + "…" + name[len(name) - keep // 2:]
    return " · ".join([marker + name, *facts])


def info(view: CaboScreenView, short: bool = False) -> str:
    """The round and the last round's scores; on a short screen, with no label over my hand, what I know of it."""
    board = view.board
    if board is None:
        return ""
    lines = [f"Round {board.round}" + (" · last turns" if board.stopper is not None else "")]
    if short and not view.watcher:  # a watcher knows no card of a hand but those shown to all
        known, unseen = board.known_sum(view.me)
        lines.append(f"You know {known}" + (f" + {unseen} unseen" if unseen else ""))
    if board.last_scores is not None:
        lines.append("Last round: " + " · ".join(
            f"{'you' if s == view.me else view.names[s]} {score}" for s, score in enumerate(board.last_scores)))
    return "\n".join(lines)


def round_end(view: CaboScreenView) -> RoundEnd | None:
    """The last round scored in ``view``, or None before the first is."""
    board = view.board
    if board is None or board.last_scores is None or board.showdown is None:
        return None
    number = board.round if board.stage is Stage.OVER else board.round - 1  # the last round stays on the table
    return RoundEnd(number, board.showdown, board.last_scores, board.totals, board.last_stopper)


def scored(view: CaboScreenView) -> int:
    """How many rounds ``view``'s game has scored: more in the next view means a round just ended."""
    ended = round_end(view)
    return ended.number if ended is not None else 0


def round_line(view: CaboScreenView, ended: RoundEnd, seats: tuple[int, ...] | None = None) -> str:
    """What happened, with the sums of ``seats`` (everyone's, mine first):
    "Round 2: Computer 2 called cabo; you 32, Computer 7, Computer 2 3"."""
    cause = f"{who(view, ended.stopper)} called cabo" if ended.stopper is not None else "the draw pile ran out"
    sums = ", ".join(f"{who(view, seat)} {ended.scores[seat]}" for seat in seats or (view.near, *view.others))
    return f"Round {ended.number}: {cause}; {sums}"


def round_end_info(view: CaboScreenView, ended: RoundEnd, short: bool = False) -> str:
    """In the piles' place while a round's end is held: what happened, and the totals after it. On a short screen
    the others' sums are left to the labels over their hands (mine has none there)."""
    order = (view.near, *view.others)
    totals = " · ".join(f"{who(view, seat)} {ended.totals[seat]}" for seat in order)
    return f"{round_line(view, ended, (view.near,) if short else None)}\nTotals: {totals}"


def round_end_hint(view: CaboScreenView, ended: RoundEnd, due: float | None, now: float | None = None) -> str:
    """What takes a round's end away: "Any key: on to round 3 (your turn) · by itself in 6 s". When the next round
    waits on me, my move's clock already runs (the relay's, not this screen's): "(your turn: your clock runs)"."""
    running = view.clock is not None and any(wait.seat == view.me for wait in view.clock.waits)
    turn = " (your turn: your clock runs)" if running else " (your turn)"
    words = f"Any key: on to round {ended.number + 1}" + (turn if view.my_turn else "")
    left = None if due is None else math.ceil(due - (now or time.monotonic()))
    return words + (f" · by itself in {left} s" if left is not None and left > 0 else "")


def who(view: CaboScreenView, seat: int) -> str:
    """A player in a sentence: "you", or their name as they chose it."""
    return "you" if seat == view.me else view.names[seat]


def hint(view: CaboScreenView, marks: frozenset[int] = frozenset()) -> str:
    """What the player can do now, in one line; during a swap, with the card of mine chosen (``marks``)."""
    board = view.board
    if board is None or not view.my_turn:
        return ""
    stage = board.stage
    top = board.discard_top
    if stage is Stage.TURN:
        take = f", t takes the {top.value}" if top is not None and top.value is not None else ""
        stop = ", s stops the round" if board.stopper is None else " (your last turn)"
        return f"d draws{take}{stop}"
    if stage is Stage.TAKEN:
        from games.cabo.rules import power  # loaded with the table, which made this view

        card = board.taken.value if board.taken is not None else None
        use = power(card) if card is not None and board.from_draw else None
        discard = f" · d: discard{', ' + use.value if use else ''}" if board.from_draw else ""
        return f"Enter: {card} replaces the raised card{discard} · ␣: mark identical ones"
    if stage is Stage.PEEK:
        return "Peek: raise one of your cards (← →) and press Enter"
    if stage is Stage.SPY:
        return "Spy: raise another player's card (↑ ↓ ← →) and press Enter"
    if stage is Stage.SWAP:
        chosen = [slot for slot, card in enumerate(board.hands[view.me]) if card.pos in marks]
        if chosen:
            return f"Swap: your card {chosen[0] + 1} chosen; now Enter on another player's card · Esc: back"
        return "Swap: Enter on one of your cards, then on another player's card"
    return ""


def refusal(view: CaboScreenView, action: str, target: tuple[int, int] = (0, 0),
            marks: frozenset[int] = frozenset()) -> str | None:
    """Why ``action`` on the card at ``target`` cannot be done now; None if it can. The table judges the move it
    would make; marking cards, which makes no move, is the screen's own."""
    board = view.board
    if not view.playing or board is None:
        return "the game is not under way"
    if action == "mark":
        if my_stage(view) not in (Stage.TAKEN, Stage.SWAP):
            return "nothing to mark now: marks choose the cards to replace or to give"
        return None if target[0] == view.me else "only your own cards can be marked"
    move = move_for(view, action, target, marks)
    if move is None:
        return "first choose one of your cards to give (Enter on it)" if action == "swap" else "raise a card first"
    return view.refusal_of(move)


def move_for(view: CaboScreenView, action: str, target: tuple[int, int], marks: frozenset[int]) -> Move | None:
    """The move ``action`` makes on the card at ``target`` (seat, slot), with my ``marks``; None if it has no card.

    Enter on one of my own cards during a swap chooses it to give: the move judged is the swap with another
    player's first card.
    """
    from games.cabo.moves import Discard, Draw, Peek, Replace, Spy, Stop, Swap, Take  # loaded with the table

    board = view.board
    assert board is not None
    seat = target[0]
    card = slot_at(board, target)
    chosen = card.pos if card is not None else None
    if action == "draw":
        return Draw(pos=board.draw_top if board.draw_top is not None else 0)  # an empty pile: the rules say so
    if action == "take":
        return Take(pos=board.discard_top.pos if board.discard_top is not None else 0)
    if action == "stop":
        return Stop()
    if action == "discard":
        return Discard()
    if action == "replace":
        positions = sorted(marks) or ([chosen] if chosen is not None else [])
        return Replace(positions=positions)
    if chosen is None:
        return None
    if action == "peek":
        return Peek(pos=chosen)
    if action == "spy":
        return Spy(pos=chosen)
    if action == "swap":
        if seat == view.me:
            theirs = next((card.pos for other in view.others for card in board.hands[other]), chosen)
            return Swap(mine=chosen, theirs=theirs)
        mine = next(iter(marks), None)
        return Swap(mine=mine, theirs=chosen) if mine is not None else None
    raise ValueError(f"cabo has no move called {action!r}")


def slot_at(board: CaboView, target: tuple[int, int]) -> Slot | None:
    """The card at ``target`` (seat, slot), if that hand has one there."""
    seat, slot = target
    hand = board.hands[seat] if seat < len(board.hands) else ()
    return hand[slot] if slot < len(hand) else None


# -- this game's side of the app (imports the table when called) -------------------------------------------


def view(seat: Seat) -> CaboScreenView:
    """What the cabo table shows of ``seat`` now; between rounds, the new round's table while it is shuffled."""
    from .viewmodel import fields_of, seat_view_between_deals

    base = seat_view_between_deals(seat)
    if base.board is not None and base.board.stage in (Stage.SHOWDOWN, Stage.OVER):
        base = dataclasses.replace(base, my_turn=False)  # the showdown is posted by the table itself
    return CaboScreenView(**fields_of(base), refusal_of=seat.refusal)


UI = GameUI(title="cabo", rules=HELP, keys=KEY_HELP, screen=CaboTable, view=view)
