"""The table's widgets. Each one shows a slice of the seat's screen view and
sends intents as messages; none of them talks to the table or the network.

Every cue works without colour (``NO_COLOR=1``, colour-blind players): a card
that can be played has a double frame (underlined, as a chip), the chosen card
is lifted (reversed, as a chip), and whose turn it is shows in reverse video.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, ProgressBar, Static

from games.cards import Card

from tabletop.words import progress_words

if TYPE_CHECKING:
    from tabletop.values import Progress

BACK = "▚▞"
LARGE_SCREEN = (100, 34)  # columns, rows from which the table uses large cards
MIN_SCREEN = (60, 20)  # columns, rows below which the table cannot be shown whole
CHIP = 4  # cells per card in the compact chip layout: "10♥" and a space

Rows = list[tuple[str, str]]  # one (text, style) pair per row of a card


def framed_rows(middle: list[str], border: str, ink: str, double: bool = False) -> Rows:
    """A card's rows: ``middle`` (each as wide as the inside) in ``ink``, in a single or double frame."""
    inner = len(middle[0])
    if double:
        return [(f"╔{'═' * inner}╗", border), *((f"║{row}║", ink) for row in middle), (f"╚{'═' * inner}╝", border)]
    return [(f"┌{'─' * inner}┐", border), *((f"│{row}│", ink) for row in middle), (f"└{'─' * inner}┘", border)]


def face_rows(card: Card, border: str, large: bool = False, double: bool = False) -> Rows:
    """A face-up card: rank and suit, in red or black on white; a double frame marks it playable."""
    ink = "bold red on white" if card.red else "bold black on white"
    inner = 5 if large else 3
    rank, suit = card.rank, card.suit
    middle = [f"{rank:<{inner}}", f"{suit:^{inner}}"] + ([f"{rank:>{inner}}"] if large else [])
    return framed_rows(middle, border, ink, double)


def back_rows(large: bool = False) -> Rows:
    """A face-down card with a woven pattern."""
    style = "bright_white on dark_blue"
    inner = 5 if large else 3
    weave = [(BACK * inner)[i % 2:][:inner] for i in range(3)] if large else ["▚▞▚", "▚▞▚"]
    return framed_rows(weave, style, style)


def empty_rows(large: bool = False) -> Rows:
    """The outline of an empty pile."""
    style = "grey50"
    if large:
        return [("┌ ─ ─ ┐", style), *(("       ", style) for _ in range(3)), ("└ ─ ─ ┘", style)]
    return [("┌ ─ ┐", style), ("     ", style), ("     ", style), ("└ ─ ┘", style)]


def card_size(large: bool) -> tuple[int, int]:
    """(width, height) of one card."""
    return (7, 5) if large else (5, 4)


def min_step(large: bool) -> int:
    """The narrowest slice of an overlapped face that still shows its whole rank and suit ("│10", "│ ♥")."""
    return 4 if large else 3


def fan_advances(count: int, width: int, card_width: int, least: int, whole: int | None = None) -> list[int] | None:
    """How far each card of a fan reaches before the next one covers it, or None if ``width`` is too short.

    The last card, and the ``whole`` one, are never covered; the others get
    the same slice, at least ``least`` cells, at most a card and a gap.
    """
    if count == 0:
        return []
    uncovered = {count - 1} | ({whole} if whole is not None and 0 <= whole < count - 1 else set())
    covered = count - len(uncovered)
    room = width - card_width - (card_width + 1) * (len(uncovered) - 1)
    if room < 0:
        return None
    step = card_width + 1 if covered == 0 else min(card_width + 1, room // covered)
    if step < least:
        return None
    return [card_width if i == count - 1 else card_width + 1 if i in uncovered else step for i in range(count)]


def fan(cards: list[Rows], advances: list[int], lifts: list[bool] | None = None, large: bool = False) -> Text:
    """Lay cards side by side, each reaching ``advances[i]`` cells; a lifted card sits one row higher."""
    card_width, card_height = card_size(large)
    lifts = lifts or [False] * len(cards)
    height = card_height + any(lifts)
    rows = [Text(no_wrap=True) for _ in range(height)]
    for card, lifted, advance in zip(cards, lifts, advances):
        shown = min(advance, card_width)
        top = 0 if lifted or height == card_height else 1
        for row in range(height):
            if top <= row < top + card_height:
                text, style = card[row - top]
                rows[row].append(text[:shown], style)
            else:
                rows[row].append(" " * shown)
            rows[row].append(" " * (advance - shown))
    return Text("\n", no_wrap=True).join(rows)


def chips(cards: tuple[Card, ...], styles: list[str], width: int, height: int, focus: int) -> tuple[Text, int, int]:
    """Cards as compact chips ("10♥"), in rows; returns (text, chips per row, first row shown).

    When the rows outnumber ``height``, the rows around card ``focus`` are shown.
    """
    per_row = max(1, (width + 1) // CHIP)
    rows = [cards[i:i + per_row] for i in range(0, len(cards), per_row)]
    first = min(max(0, focus // per_row - height + 1), max(0, len(rows) - height))
    lines = []
    for number in range(first, min(len(rows), first + height)):
        line = Text(no_wrap=True)
        for offset, card in enumerate(rows[number]):
            if offset:
                line.append(" ")
            line.append(f"{card.rank}{card.suit}".rjust(CHIP - 1), styles[number * per_row + offset])
        lines.append(line)
    return Text("\n", no_wrap=True).join(lines), per_row, first


def card_at(advances: list[int], x: int) -> int | None:
    """The card of a fan (laid out by ``advances``) under column ``x``, if any."""
    reach = 0
    for index, advance in enumerate(advances):
        reach += advance
        if x < reach:
            return index
    return None


def plural(count: int, noun: str) -> str:
    """ "1 card", "2 cards"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class CardWidget(Widget):
    """A widget that draws cards, large when the screen has room for them."""

    large: reactive[bool] = reactive(False)


class HandView(CardWidget, can_focus=True):
    """My hand, face up: overlapping cards while every rank and suit shows, compact chips beyond.

    On my turn the chosen card is lifted and drawn whole, and the playable ones
    have a double frame (as chips: the chosen one reversed, playable underlined).
    """

    cards: reactive[tuple[Card, ...]] = reactive(())
    playable: reactive[tuple[bool, ...]] = reactive(())
    my_turn: reactive[bool] = reactive(False)
    cursor: reactive[int] = reactive(0)

    class CardChosen(Message):
        """The player clicked a card."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, len(self.cards) - 1))

    def watch_cards(self) -> None:
        self.cursor = self.cursor  # clamp to the new hand size

    def watch_playable(self) -> None:
        self._raise_playable()

    def watch_my_turn(self) -> None:
        self._raise_playable()

    def _raise_playable(self) -> None:
        """When my turn comes, lift a card I can play if the one lifted cannot be (a quick Enter then plays)."""
        if self.my_turn and not self.is_playable(self.cursor):
            self.cursor = next((i for i in range(len(self.cards)) if self.is_playable(i)), self.cursor)

    def is_playable(self, index: int) -> bool:
        return self.my_turn and index < len(self.playable) and self.playable[index]

    def layout_advances(self) -> list[int] | None:
        """The fan of whole cards that fits the width, or None when only chips fit."""
        card_width, _ = card_size(self.large)
        whole = self.cursor if self.my_turn else None
        return fan_advances(len(self.cards), self.size.width, card_width, min_step(self.large), whole)

    def render(self) -> Text:
        if not self.cards:
            return Text("(no cards)", style="dim")
        advances = self.layout_advances()
        if advances is None:
            styles = []
            for index, card in enumerate(self.cards):
                style = "bold red on white" if card.red else "bold black on white"
                if self.is_playable(index):
                    style += " underline"
                if self.my_turn and index == self.cursor:
                    style += " reverse"
                styles.append(style)
            text, self._per_row, self._first_row = chips(self.cards, styles, self.size.width, self.size.height,
                                                         self.cursor)
            return text
        frames = []
        for index, card in enumerate(self.cards):
            border = "bold #007000 on white" if self.is_playable(index) else "grey62 on white" if self.my_turn \
                else "black on white"
            frames.append(face_rows(card, border, self.large, double=self.is_playable(index)))
        lifts = [self.my_turn and i == self.cursor for i in range(len(self.cards))]
        return fan(frames, advances, lifts, self.large)

    def index_at(self, x: int, y: int) -> int | None:
        """The card under the cell (x, y) of this widget, if any."""
        advances = self.layout_advances()
        if advances is None:
            per_row, first = getattr(self, "_per_row", 1), getattr(self, "_first_row", 0)
            index = (first + y) * per_row + x // CHIP
            return index if x % CHIP < CHIP - 1 and 0 <= index < len(self.cards) else None
        return card_at(advances, x)

    def on_click(self, event: events.Click) -> None:
        index = self.index_at(event.x, event.y)
        if index is not None:
            self.cursor = index
            self.post_message(self.CardChosen(index))


class OpponentHand(CardWidget):
    """The opponent's cards, face down; a hand too big for the width shows as some backs and a count."""

    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        card_width, card_height = card_size(self.large)
        back = back_rows(self.large)
        advances = fan_advances(self.count, self.size.width, card_width, 2)
        if advances is not None:
            return fan([back] * self.count, advances, large=self.large)
        more = f" +{self.count}"
        shown = max(1, (self.size.width - len(more) - card_width) // 2 + 1)
        text = fan([back] * shown, [2] * (shown - 1) + [card_width], large=self.large)
        lines = text.split("\n")
        middle = card_height // 2
        lines[middle].append(f" +{self.count - shown}", "bold")
        return Text("\n", no_wrap=True).join(lines)


class DrawPile(CardWidget):
    """A face-down pile (the draw pile, or a War player's), captioned with its count; a click posts Pressed."""

    count: reactive[int] = reactive(0)

    class Pressed(Message):
        """The player clicked ``pile``."""

        def __init__(self, pile: DrawPile) -> None:
            super().__init__()
            self.pile = pile

        @property
        def control(self) -> DrawPile:
            return self.pile

    def __init__(self, caption: str = "Draw", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.caption = caption  # "" for none

    def render(self) -> Text:
        rows = back_rows(self.large) if self.count else empty_rows(self.large)
        text = fan([rows], [card_size(self.large)[0]], large=self.large)
        if self.caption:
            text.append(f"\n{self.caption} {self.count}", "bold")
        return text

    def on_click(self) -> None:
        self.post_message(self.Pressed(self))


class DiscardPile(CardWidget):
    """The discard pile: its top card face up."""

    top: reactive[Card | None] = reactive(None)
    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        rows = face_rows(self.top, "black on white", self.large) if self.top else empty_rows(self.large)
        text = fan([rows], [card_size(self.large)[0]], large=self.large)
        text.append(f"\nDiscard {self.count}", "bold")
        return text


class ProgressBox(Vertical):
    """What the table is doing before the game can be played (drawing who starts, shuffling, dealing), with a bar;
    hidden the rest of the time."""

    def compose(self) -> ComposeResult:
        yield Label("", id="progress-label", markup=False)
        yield ProgressBar(total=6, show_eta=False, id="progress")

    def show(self, progress: Progress | None) -> None:
        """The seat view's progress, or None to hide."""
        self.display = progress is not None
        if progress is not None:
            show_text(self.query_one("#progress-label", Label), progress_words(progress))
            self.query_one(ProgressBar).update(progress=progress.done, total=progress.total)


def fit(left: Text, right: Text, width: int) -> Text:
    """One line of ``width`` cells: ``right`` flush right, ``left`` cut with … to make room for it."""
    right = right.copy()
    right.truncate(max(width, 0), overflow="ellipsis")
    room = width - right.cell_len - (1 if right.cell_len else 0)
    left = left.copy()
    left.truncate(max(room, 0), overflow="ellipsis", pad=True)
    line = Text(no_wrap=True)
    line.append_text(left)
    if right.cell_len:
        line.append(" " * (width - left.cell_len - right.cell_len))
        line.append_text(right)
    return line


class StatusBar(Widget):
    """Three lines that never wrap: the match and the link; whose turn and the last move; a notice or a hint."""

    match: reactive[str] = reactive("")  # "ana 2 – 1 bo · game 4"
    link: reactive[str] = reactive("")  # "connected", "Reconnecting…", "bo left 2 min ago"
    headline: reactive[str] = reactive("")  # "Your turn", "bo's turn", "Shuffling"
    my_turn: reactive[bool] = reactive(False)
    event: reactive[str] = reactive("")  # "Computer discarded 8♥"
    notice: reactive[str] = reactive("")  # a refusal: stands until something happens
    hint: reactive[str] = reactive("")  # what I can do now, or what is going on

    def render(self) -> Text:
        width = self.size.width
        link_style = "dim" if self.link == "connected" else "bold yellow"
        header = fit(Text(f" {self.match}"), Text(f"{self.link} ", link_style), width)
        badge = Text(f" ▶ {self.headline} " if self.my_turn else f" {self.headline} ",
                     "bold reverse" if self.my_turn else "bold")
        turn = fit(badge + Text(f"  {self.event}"), Text(), width)
        if self.notice:
            message = Text(f" {self.notice}", "bold yellow")
        else:
            message = Text(f" {self.hint}", "italic")
        return Text("\n", no_wrap=True).join([header, turn, fit(message, Text(), width)])


def show_text(widget: Static, text: str) -> None:
    """``text`` in ``widget``, only if it changed, and without a new layout if the widget's size does not depend on
    its text: laying the screen out again costs a frame tens of milliseconds (benchmarks/draw.py)."""
    if widget.content != text:
        width, height = widget.styles.width, widget.styles.height
        fixed = width is not None and height is not None and not (width.is_auto or height.is_auto)
        widget.update(text, layout=not fixed)


class HelpScreen(ModalScreen[None]):
    """A page of help over the screen that opened it (a game's rules and keys, the lobby's); ?, q or Esc closes it."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, text: Content) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Static(self.text)
        yield Footer()
