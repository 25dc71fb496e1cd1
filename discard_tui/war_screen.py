"""War's table: both face-down piles with their counts, the cards of the trick and any war pot; turn and auto-play.

``view(seat)`` and ``act(seat, intent)`` are this game's side of the app (see
discard_tui/discard_screen.py): the first builds the screen's
:class:`WarScreenView`, the second turns the intent to turn into the move.
They import the table when called, so that this module stays as light as
the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Label, Static

from games.cards import Card
from games.war.about import TRICKS

from .table_screen import GameUI, MakeMove, TableScreen, ToggleAutoplay
from .view import SeatView
from tabletop.values import Phase
from .widgets import (CardWidget, DrawPile, ProgressBox, back_rows, face_rows, fan, fitting_fan,
                      plural, show_text)

if TYPE_CHECKING:
    from games.war.game import Turn, WarView
    from tabletop.shell import Seat


# The rules and the cues (HELP) and a player's keys (KEY_HELP), in markup: the help page (table_screen.help_page
# adds the log's keys and the safety number; a watcher's has its own keys). A paragraph is one line (a "\" at a
# line's end joins the next), wrapped to the screen; a row of keys or cues fits 52 columns, the help's width at 60.
HELP = """\
[b]War[/b]: 26 cards each, face down, unseen even by you. Each trick \
both top cards are [b]turned[/b]: the higher rank (2 low, A high) takes \
both to the bottom of its pile. [b]Equal ranks are a war[/b]: each lays \
one card face down and turns the next; the higher takes the whole \
pot. No cards left, or too few for a war, loses. After the trick \
limit the larger pile wins (equal piles: a draw). Turns alternate.

[b]Cues[/b]   the card that takes a trick: double frame ╔╗"""

KEY_HELP = """\
[b]Keys[/b]   Space (or Enter) turns
       a auto-play to the end (a again stops)
       n rematch   x leave (when offered)   q quit
[b]Mouse[/b]  click your pile to turn"""


@dataclass(frozen=True)
class WarScreenView(SeatView["WarView"]):
    """War's screen: the table's view and the cards, in the screen's terms."""

    piles: tuple[int, ...] = (26, 26)  # per seat
    trick: tuple[tuple[Card | None, ...], ...] = ((), ())  # per seat: this trick's cards in the order laid
    taker: int | None = None  # who took the trick on the table
    war: bool = False  # the last turn tied
    tricks: int = 0  # taken so far
    limit: int = TRICKS.default
    auto: bool = False  # this program is playing my seat to the end of the game
    turn_refusal: str | None = "the game is not under way"  # why I cannot turn now, None if I can
    turn: Turn | None = None  # the move that turns my top cards (None: the game is not under way)


class Trick(CardWidget):
    """One player's cards in the current trick, in the order laid: face up, or face down in a war.

    The card that took the trick has a double frame; when the cards do not fit whole, they show as chips
    ("Q♣ ▚▞ 5♦").
    """

    cards: reactive[tuple[Card | None, ...]] = reactive(())
    took: reactive[bool] = reactive(False)

    def render(self) -> Text:
        if not self.cards:
            return Text("")
        last = len(self.cards) - 1
        fitted = fitting_fan(len(self.cards), self.size.width, self.scale)
        if fitted is None:
            line = Text(no_wrap=True)
            for index, card in enumerate(self.cards):
                if index:
                    line.append(" ")
                if card is None:
                    line.append("▚▞", "bright_white on dark_blue")
                else:
                    style = "bold red on white" if card.red else "bold black on white"
                    line.append(str(card), style + (" underline" if self.took and index == last else ""))
            return line
        scale, advances = fitted
        rows = [back_rows(scale) if card is None else
                face_rows(card, "black on white", scale, double=self.took and index == last)
                for index, card in enumerate(self.cards)]
        return fan(rows, advances, scale=scale)


class WarTable(TableScreen[WarScreenView]):
    """War's board: the opponent's pile and cards on top, the trick's state between, mine below."""

    CSS_PATH = "war.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,enter", "turn", "Turn"),
        Binding("a", "autoplay", "Auto-play"),
        # The same keys while they do nothing (greyed out above): say why instead.
        Binding("space,enter", "refuse('turn')", show=False),
        Binding("a", "refuse('autoplay')", show=False),
    ]
    actions = ("turn", "autoplay", "rematch")

    def compose_board(self) -> ComposeResult:
        yield Label("Opponent", id="their-label", classes="label", markup=False)
        with Horizontal(classes="war-row"):
            yield DrawPile("", id="their-pile")
            yield Trick(id="their-trick")
        yield Static(classes="spacer")
        with Horizontal(id="war-middle"):
            yield Label("", id="trick-state", markup=False)
            yield ProgressBox(id="progress-box")
        yield Static(classes="spacer")
        with Horizontal(classes="war-row"):
            yield DrawPile("", id="my-pile")
            yield Trick(id="my-trick")
        yield Label("Your pile", id="my-label", classes="label", markup=False)

    def show_board(self, view: WarScreenView) -> None:
        me, other = view.near, 1 - view.near
        names = (view.opponent_name, f"{view.your} pile")
        for side, seat, name in (("their", other, names[0]), ("my", me, names[1])):
            show_text(self.query_one(f"#{side}-label", Label), f"{name}: {plural(view.piles[seat], 'card')}")
            self.query_one(f"#{side}-pile", DrawPile).count = view.piles[seat]
            trick = self.query_one(f"#{side}-trick", Trick)
            trick.cards, trick.took = view.trick[seat], view.taker == seat
        show_text(self.query_one("#trick-state", Label), trick_state(view))
        self.query_one(ProgressBox).show(view.progress)

    def action_turn(self) -> None:
        if self.view is not None and self.view.turn is not None:
            self.post_message(MakeMove(self.view.turn))

    def action_autoplay(self) -> None:
        self.post_message(ToggleAutoplay())

    @on(DrawPile.Pressed, "#my-pile")
    def pile_clicked(self) -> None:
        if self.view is not None and (reason := self.refused(self.view, "turn")) is not None:
            self.notice(reason)
        else:
            self.action_turn()

    def hint(self, view: WarScreenView) -> str:
        return hint(view)

    def refusal(self, view: WarScreenView, action: str, index: int | None = None) -> str | None:
        return refusal(view, action)



def trick_state(view: WarScreenView) -> str:
    """The two lines between the piles: which trick, and what happened in it."""
    if view.phase not in (Phase.PLAYING, Phase.AUDITING, Phase.OVER) or view.board is None:
        return ""
    pot = sum(len(cards) for cards in view.trick)
    if not view.tricks and not pot:
        return f"At most {view.limit} tricks\nnothing turned yet"
    number = min(view.tricks + (view.taker is None), view.limit)
    where = f"Trick {number} of {view.limit}"
    if view.taker is not None:
        who = "You" if view.taker == view.me else view.names[view.taker]
        return f"{where}\n{who} took {pot} cards"
    if view.war:
        return f"{where}\nWar! {pot} cards in the pot"
    return where


def hint(view: WarScreenView) -> str:
    """What the player can do now, in one line."""
    if view.auto and view.playing:
        return "Auto-playing to the end of the game: a stops"
    if not view.my_turn:
        return ""
    if view.war:
        return "War! Space lays one down each and turns the next"
    return "Space turns both top cards · a auto-plays to the end"


def refusal(view: WarScreenView, action: str) -> str | None:
    """Why ``action`` cannot be done now, in the status bar's words; None if it can (the table checks again)."""
    if not view.playing:
        return "the game is not under way"
    if action == "autoplay":
        return None
    if view.auto:
        return "auto-play turns for you: a stops it"
    if not view.my_turn:
        return f"it is {view.opponent_name}'s turn to turn the cards"
    return view.turn_refusal


# -- this game's side of the app (imports the table when called) -------------------------------------------


def view(seat: Seat) -> WarScreenView:
    """What the war table shows of ``seat`` now, with the turn it offers."""
    from games.war.game import Turn

    from .viewmodel import fields_of, seat_view

    fields = fields_of(base := seat_view(seat))
    board: WarView | None = base.board
    play = seat.table.play
    limit = play.options.tricks if play.options is not None else TRICKS.default
    if board is None:
        return WarScreenView(**fields, limit=limit, auto=seat.autoplay is not None)
    turn = None if board.over else Turn(up=list(board.up), down=list(board.down))
    return WarScreenView(**fields, piles=board.piles, trick=board.trick, taker=board.taker, war=board.war,
                         tricks=board.tricks, limit=board.limit, auto=seat.autoplay is not None,
                         turn_refusal=turn_refusal(seat, turn), turn=turn)


def turn_refusal(seat: Seat, turn: Turn | None) -> str | None:
    if turn is None:
        return "the game is not under way"
    if seat.outbox is not None:
        return "your last turn is still on its way"
    return seat.table.refusal(turn)


UI = GameUI(title="war", rules=HELP, keys=KEY_HELP, screen=WarTable, view=view)
