"""Discard's table: the other player's hand, the piles, my hand; its keys, hints and refusals.

``UI`` is this game's side of the app: ``view(seat)`` builds the screen's
:class:`DiscardScreenView`, with the moves it offers (the draw, a discard of
each card) and the table's refusal of each. It imports the table when called,
so that this module stays as light as the screen.
"""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static

from games.cards import Card

from .table_screen import GameUI, MakeMove, TableScreen, headline
from .view import SeatView
from .widgets import CountLabel, DiscardPile, DrawPile, HandView, OpponentHand, ProgressBox, plural

if TYPE_CHECKING:
    from games.discard.moves import DiscardCard, DiscardView, Draw
    from tabletop.shell import Seat


# The rules and the cues (HELP) and a player's keys (KEY_HELP), in markup: the help page (table_screen.help_page
# adds the log's keys and the safety number; a watcher's has its own keys). A paragraph is one line (a "\" at a
# line's end joins the next), wrapped to the screen; a row of keys or cues fits 52 columns, the help's width at 60.
HELP = """\
[b]Discard[/b]: get rid of all your cards first. On your turn, \
[b]discard[/b] a card matching the [b]suit[/b] or the [b]value[/b] of the top of \
the discard pile (anything goes on an empty pile), or [b]draw[/b]. \
Either ends your turn. If you can do neither, you lose.

[b]Cues[/b]   playable: double frame ╔╗ (chip: underlined)
       the chosen card is lifted (chip: reversed)"""

KEY_HELP = """\
[b]Keys[/b]   ← → h l choose (round the ends)
       Home End 1–9 jump
       Enter Space discard   d draw   n rematch
       x leave (when offered)   q quit
[b]Mouse[/b]  click a card to discard it, the pile to draw"""


@dataclass(frozen=True)
class DiscardScreenView(SeatView["DiscardView"]):
    """Discard's screen: the table's view and the cards, in the screen's terms."""

    hand: tuple[Card, ...] = ()  # face up: mine (a watcher sees none)
    hand_size: int = 0  # a watcher's: the cards of seat 1's hand, which it sees face down
    playable: tuple[bool, ...] = ()
    opponent_hand: int = 0
    draw_pile: int = 0
    discard_top: Card | None = None
    discard_count: int = 0
    deck_size: int = 52
    draw_refusal: str | None = "the game is not under way"  # why I cannot draw now, None if I can
    draw: Draw | None = None  # the draw the pile offers (None: nothing to draw)
    discards: tuple[DiscardCard, ...] = ()  # the discard of each card of my hand
    discard_refusals: tuple[str | None, ...] = ()  # the table's refusal of each of those discards, None if allowed


class DiscardTable(TableScreen[DiscardScreenView]):
    """Discard's board: the opponent's hand, the piles and the progress, my hand."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1)", "Left", show=False),
        Binding("right,l", "move(1)", "Right", show=False),
        Binding("home", "move_to(0)", "First card", show=False),
        Binding("end", "move_to(-1)", "Last card", show=False),
        *(Binding(str(n), f"move_to({n - 1})", f"Card {n}", show=False) for n in range(1, 10)),
        Binding("enter,space", "discard", "Discard"),
        Binding("d", "draw", "Draw"),
        # The same keys while the move is not allowed (greyed out above): say why instead of doing nothing.
        Binding("enter,space", "refuse('discard')", show=False),
        Binding("d", "refuse('draw')", show=False),
    ]
    actions = ("discard", "draw", "rematch")

    def compose_board(self) -> ComposeResult:
        yield CountLabel(id="opponent-label", classes="label")
        yield OpponentHand(id="opponent")
        yield Static(classes="spacer")
        with Horizontal(id="middle"):
            yield DrawPile(id="draw")
            yield DiscardPile(id="discard")
            yield ProgressBox(id="progress-box")
        yield Static(classes="spacer")
        yield CountLabel(id="hand-label", classes="label")
        yield HandView(id="hand")
        yield OpponentHand(id="watched")  # a watcher's view of seat 1's hand: face down

    def on_mount(self) -> None:
        self.query_one(HandView).focus()
        super().on_mount()

    def show_board(self, view: DiscardScreenView) -> None:
        self.query_one("#opponent-label", CountLabel).show("{}", plural(view.opponent_hand, "card"), view.opponent_name)
        self.query_one("#opponent", OpponentHand).count = view.opponent_hand
        self.query_one(DrawPile).count = view.draw_pile
        discard = self.query_one(DiscardPile)
        discard.top, discard.count = view.discard_top, view.discard_count
        hand = self.query_one(HandView)
        hand.cards, hand.playable, hand.my_turn = view.hand, view.playable, view.my_turn
        self.set_class(view.watcher, "-watcher")
        self.query_one("#watched", OpponentHand).count = view.hand_size
        self.query_one("#hand-label", CountLabel).show("{}'s hand" if view.watcher else "Your hand",
                                                       plural(view.hand_size if view.watcher else len(view.hand), "card"),
                                                       view.names[view.near] if view.watcher else "")
        self.query_one(ProgressBox).show(view.progress)

    def headline(self, view: DiscardScreenView) -> str:
        return headline(view, view.board.turn if view.board is not None else None)  # a watcher's: whose turn

    def action_move(self, step: int) -> None:
        """The next card left or right, round from one end to the other."""
        hand = self.query_one(HandView)
        if hand.cards:
            hand.cursor = (hand.cursor + step) % len(hand.cards)

    def action_move_to(self, index: int) -> None:
        """Card ``index`` of the hand (1 to 9 from the left; -1: the last)."""
        hand = self.query_one(HandView)
        if hand.cards and index < len(hand.cards):  # no hand yet (the shuffle): nothing to jump to
            hand.cursor = index % len(hand.cards)

    def action_discard(self) -> None:
        self.discard(self.query_one(HandView).cursor)

    def action_draw(self) -> None:
        if self.view is not None and self.view.draw is not None:
            self.post_message(MakeMove(self.view.draw))

    def discard(self, index: int) -> None:
        """Discard the ``index``-th card of my hand, if the view offers it."""
        if self.view is not None and 0 <= index < len(self.view.discards):
            self.post_message(MakeMove(self.view.discards[index]))

    def action_refuse(self, action: str) -> None:
        if self.view is not None:
            self.notice(self.refused(self.view, action, self.query_one(HandView).cursor) or "")

    @on(HandView.CardChosen)
    def card_clicked(self, message: HandView.CardChosen) -> None:
        self.discard(message.index)

    @on(DrawPile.Pressed)
    def draw_clicked(self) -> None:
        self.action_draw()

    def hint(self, view: DiscardScreenView) -> str:
        return hint(view)

    def refusal(self, view: DiscardScreenView, action: str, index: int | None = None) -> str | None:
        return refusal(view, action, index)



def article(rank: str) -> str:
    """ "an" before a rank said with a vowel first (an A, an 8), else "a"."""
    return "an" if rank in ("A", "8") else "a"


def hint(view: DiscardScreenView) -> str:
    """What the player can do now, in one line."""
    if not view.my_turn:
        return ""
    top = view.discard_top
    if top is None:
        return "Anything goes on the empty pile: ← → choose, Enter discards"
    if any(view.playable):
        return f"Play a {top.suit} or {article(top.rank)} {top.rank} (double frame), or d to draw"
    if view.draw_pile:
        return f"Nothing matches {top}: press d to draw"
    return "Nothing matches and the draw pile is empty"


def refusal(view: DiscardScreenView, action: str, index: int | None = None) -> str | None:
    """Why ``action`` cannot be done now, in the status bar's words; None if it can (the table checks again)."""
    if not view.playing:
        return "the game is not under way"
    if not view.my_turn:
        return f"it is {view.opponent_name}'s turn"
    if action == "draw" or (view.draw_refusal is not None and view.draw_pile):  # e.g. a move still on its way
        return view.draw_refusal
    top = view.discard_top
    if not any(view.playable):
        assert top is not None  # anything goes on an empty pile
        return f"nothing in your hand matches {top}: press d to draw" if view.draw_pile else \
            f"nothing in your hand matches {top}, and the draw pile is empty"
    if index is not None and 0 <= index < len(view.discard_refusals):
        return view.discard_refusals[index]  # the table's words: "7♣ matches neither ♦ nor 9"
    return None


# -- this game's side of the app (imports the table when called) -------------------------------------------


def view(seat: Seat) -> DiscardScreenView:
    """What the discard table shows of ``seat`` now, with the moves it offers."""
    from games import GAMES
    from games.discard.game import DiscardOptions
    from games.discard.moves import DiscardCard, Draw

    from .viewmodel import fields_of, room_choices, seat_view

    base = seat_view(seat)
    board: DiscardView | None = base.board
    discards = tuple(DiscardCard(pos=pos) for pos, _ in board.hand) if board else ()
    draw = Draw(pos=board.draw_top) if board is not None and board.draw_top is not None else None
    play = seat.table.play
    size = board.deck_size if board else len(GAMES["discard"].faces(play.options or DiscardOptions(), 2))
    opponent = 1 - max(seat.table.me, 0)  # a watcher sees seat 1's hand face down at the bottom, seat 2's above
    choices = room_choices(seat)
    if choices is not None and "deck" in choices[1]:
        base = dataclasses.replace(base, note=f"{choices[0]} opened this room with the {size}-card deck, so it is played here.")
    return DiscardScreenView(
        **fields_of(base),
        hand=tuple(card for _, card in board.hand) if board and seat.table.me >= 0 else (),
        hand_size=board.hand_sizes[1 - opponent] if board else 0,
        playable=board.playable if board else (),
        opponent_hand=board.hand_sizes[opponent] if board else 0,
        draw_pile=board.draw_pile if board else size,
        discard_top=board.top if board else None,
        discard_count=board.discard_count if board else 0,
        deck_size=size,
        draw_refusal=draw_refusal(seat, board, draw),
        draw=draw,
        discards=discards,
        discard_refusals=tuple(seat.refusal(move) for move in discards),
    )


def draw_refusal(seat: Seat, board: DiscardView | None, draw: Draw | None) -> str | None:
    """Why the draw pile's ``draw`` cannot be made now; None if it can."""
    if board is None:
        return "the game is not under way"
    if draw is None:
        return "the draw pile is empty"
    return seat.refusal(draw)


UI = GameUI(title="discard", rules=HELP, keys=KEY_HELP, screen=DiscardTable, view=view)
