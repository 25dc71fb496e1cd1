"""The table's widgets. Each one shows a slice of the seat's screen view and
sends intents as messages; none of them talks to the table or the network.

Every cue works without colour (``NO_COLOR=1``, colour-blind players): a card
that can be played has a double frame (underlined, as a chip), the chosen card
is lifted (reversed, as a chip), and whose turn it is shows in reverse video.
"""

from __future__ import annotations

import re

from collections.abc import Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len, chop_cells
from rich.style import Style, StyleType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Label, ProgressBar, Select, Static
from textual.widgets._footer import FooterKey

from games.cards import Card

from tabletop.words import progress_words

if TYPE_CHECKING:
    from tabletop.values import Progress

BACK = "▚▞"
BACK_STYLE = "bright_white on dark_blue"  # a face-down card
MIN_SCREEN = (60, 20)  # columns, rows below which the table cannot be shown whole
CHIP = 4  # cells per card in the compact chip layout: "10♥" and a space

Rows = list[tuple[str, StyleType]]  # one (text, style) pair per row of a card
FLASH = 0.8  # seconds a card that just changed stays marked (CardWidget.flash)


class Scale(IntEnum):
    """How big a card is drawn: the screen chooses the largest its size allows (:func:`scale_for`), and a hand
    too long for its width steps down before it turns into chips."""

    SMALL = 0  # 5x4: rank, suit
    LARGE = 1  # 7x5: rank, suit, rank
    HUGE = 2  # 9x7: rank, suit in the middle, rank, with room around the suit


LARGE_SCREEN = (100, 34)  # columns, rows from which the table uses large cards
HUGE_SCREEN = (120, 40)  # and huge ones
SCREENS = {Scale.HUGE: HUGE_SCREEN, Scale.LARGE: LARGE_SCREEN}


def scale_for(width: int, height: int) -> Scale:
    """The card size a ``width`` x ``height`` terminal has room for."""
    return next((scale for scale, (w, h) in SCREENS.items() if width >= w and height >= h), Scale.SMALL)


def framed_rows(middle: list[str], border: StyleType, ink: StyleType, double: bool = False) -> Rows:
    """A card's rows: ``middle`` (each as wide as the inside) in ``ink``, in a single or double frame."""
    inner = len(middle[0])
    if double:
        return [(f"╔{'═' * inner}╗", border), *((f"║{row}║", ink) for row in middle), (f"╚{'═' * inner}╝", border)]
    return [(f"┌{'─' * inner}┐", border), *((f"│{row}│", ink) for row in middle), (f"└{'─' * inner}┘", border)]


def card_size(scale: Scale) -> tuple[int, int]:
    """(width, height) of one card."""
    return ((5, 4), (7, 5), (9, 7))[scale]


def inside(scale: Scale) -> tuple[int, int]:
    """(width, height) of a card inside its frame."""
    width, height = card_size(scale)
    return width - 2, height - 2


def corner_rows(top: str, middle: str, bottom: str, scale: Scale) -> list[str]:
    """The inside of a card: ``top`` at the top left, ``middle`` centred, ``bottom`` at the bottom right (a
    small card has room for the first two only)."""
    width, height = inside(scale)
    if scale is Scale.SMALL:
        return [f"{top:<{width}}", f"{middle:^{width}}"]
    blank = [" " * width] * (height - 3)
    return [f"{top:<{width}}", *blank[:len(blank) // 2], f"{middle:^{width}}", *blank[len(blank) // 2:],
            f"{bottom:>{width}}"]


def face_rows(card: Card, border: StyleType, scale: Scale = Scale.SMALL, double: bool = False) -> Rows:
    """A face-up card: rank and suit, in red or black on white; a double frame marks it playable."""
    ink = "bold red on white" if card.red else "bold black on white"
    return framed_rows(corner_rows(card.rank, card.suit, card.rank, scale), border, ink, double)


def back_rows(scale: Scale = Scale.SMALL) -> Rows:
    """A face-down card with a woven pattern."""
    style = BACK_STYLE
    width, height = inside(scale)
    weave = ["▚▞▚", "▚▞▚"] if scale is Scale.SMALL else [(BACK * width)[i % 2:][:width] for i in range(height)]
    return framed_rows(weave, style, style)


def empty_rows(scale: Scale = Scale.SMALL) -> Rows:
    """The outline of an empty pile."""
    style = "grey50"
    width, height = inside(scale)
    dashes = " ".join("─" * ((width - 1) // 2))
    return [(f"┌ {dashes} ┐", style), *((" " * (width + 2), style) for _ in range(height)), (f"└ {dashes} ┘", style)]


def min_step(scale: Scale) -> int:
    """The narrowest slice of an overlapped face that still shows its whole rank and suit ("│10", "│ ♥")."""
    return 3 if scale is Scale.SMALL else 4


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


def fitting_fan(count: int, width: int, scale: Scale, whole: int | None = None) -> tuple[Scale, list[int]] | None:
    """The largest cards, up to ``scale``, whose fan fits ``width`` with every rank showing, and its advances;
    None when only chips fit."""
    for smaller in sorted((s for s in Scale if s <= scale), reverse=True):
        advances = fan_advances(count, width, card_size(smaller)[0], min_step(smaller), whole)
        if advances is not None:
            return smaller, advances
    return None


def fan(cards: list[Rows], advances: list[int], lifts: list[bool] | None = None, scale: Scale = Scale.SMALL) -> Text:
    """Lay cards side by side, each reaching ``advances[i]`` cells; a lifted card sits one row higher."""
    card_width, card_height = card_size(scale)
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
    """A widget that draws cards, as big as the screen has room for (``scale``).

    Its cards are placed as its CSS says (``content-align-horizontal``: :meth:`content_x` reads a click in the
    cards' own columns), and a card that just changed is marked for a moment (:meth:`flash`): its frame in
    the ``card--fresh`` style, and the widget has the ``-flash`` class.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"card--fresh"}

    scale: reactive[Scale] = reactive(Scale.SMALL)
    fresh: reactive[frozenset[int]] = reactive(frozenset())  # the cards (by index) that just changed
    _flash_timer: Timer | None = None

    def flash(self, cards: Iterable[int] = (0,)) -> None:
        """Mark ``cards`` as just changed, for :data:`FLASH` seconds."""
        if not self.is_mounted:
            return
        self.fresh = frozenset(cards)
        self.add_class("-flash")
        if self._flash_timer is not None:
            self._flash_timer.stop()
        self._flash_timer = self.set_timer(FLASH, self.unflash)

    def unflash(self) -> None:
        """The marked cards are plain again."""
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        self.fresh = frozenset()
        self.remove_class("-flash")

    def border(self, index: int, style: str) -> StyleType:
        """The frame of card ``index`` in ``style``, or, while the card is marked, in the ``card--fresh`` style."""
        if index not in self.fresh:
            return style
        return Style.parse(style) + self.get_component_rich_style("card--fresh", partial=True)

    def content_x(self, x: int, shape_width: int) -> int:
        """Column ``x`` of the widget in the columns of the cards it drew, ``shape_width`` wide and placed by its
        CSS (centred, say)."""
        spare = max(0, self.size.width - shape_width)
        align = self.styles.content_align_horizontal
        return x - (spare // 2 if align == "center" else spare if align == "right" else 0)


def added(old: tuple[Any, ...], new: tuple[Any, ...]) -> list[int]:
    """Where ``new`` has the one item ``old`` did not (a card drawn), or [] for any other change (a deal)."""
    if not old or len(new) != len(old) + 1:
        return []
    return [next((i for i, (was, now) in enumerate(zip(old, new)) if was != now), len(old))]


class HandView(CardWidget, can_focus=True):
    """My hand, face up: overlapping cards while every rank and suit shows (smaller cards before), chips beyond.

    On my turn the chosen card is lifted and drawn whole, and the playable ones
    have a double frame (as chips: the chosen one reversed, playable underlined).
    A card drawn is marked for a moment.
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

    def watch_cards(self, old: tuple[Card, ...], new: tuple[Card, ...]) -> None:
        self.cursor = self.cursor  # clamp to the new hand size
        if fresh := added(old, new):
            self.flash(fresh)

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

    def fitted_fan(self) -> tuple[Scale, list[int]] | None:
        """The size of the cards and the fan of whole cards that fit the width, or None when only chips fit."""
        return fitting_fan(len(self.cards), self.size.width, self.scale, self.cursor if self.my_turn else None)

    def layout_advances(self) -> list[int] | None:
        fitted = self.fitted_fan()
        return None if fitted is None else fitted[1]

    def render(self) -> Text:
        if not self.cards:
            return Text("(no cards)", style="dim")
        fitted = self.fitted_fan()
        if fitted is None:
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
        scale, advances = fitted
        frames = []
        for index, card in enumerate(self.cards):
            border = "bold #007000 on white" if self.is_playable(index) else "grey62 on white" if self.my_turn \
                else "black on white"
            frames.append(face_rows(card, self.border(index, border), scale, double=self.is_playable(index)))
        lifts = [self.my_turn and i == self.cursor for i in range(len(self.cards))]
        return fan(frames, advances, lifts, scale)

    def index_at(self, x: int, y: int) -> int | None:
        """The card under the cell (x, y) of this widget, if any."""
        advances = self.layout_advances()
        if advances is None:
            per_row, first = getattr(self, "_per_row", 1), getattr(self, "_first_row", 0)
            x = self.content_x(x, min(per_row, len(self.cards)) * CHIP - 1)
            index = (first + y) * per_row + x // CHIP
            return index if 0 <= x and x % CHIP < CHIP - 1 and 0 <= index < len(self.cards) else None
        x = self.content_x(x, sum(advances))
        return card_at(advances, x) if x >= 0 else None

    def on_click(self, event: events.Click) -> None:
        index = self.index_at(event.x, event.y)
        if index is not None:
            self.cursor = index
            self.post_message(self.CardChosen(index))


class OpponentHand(CardWidget):
    """The opponent's cards, face down; a hand too big for the width shows as some backs and a count."""

    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        card_width, card_height = card_size(self.scale)
        back = back_rows(self.scale)
        advances = fan_advances(self.count, self.size.width, card_width, 2)
        if advances is not None:
            return fan([back] * self.count, advances, scale=self.scale)
        more = f" +{self.count}"
        shown = max(1, (self.size.width - len(more) - card_width) // 2 + 1)
        text = fan([back] * shown, [2] * (shown - 1) + [card_width], scale=self.scale)
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
        rows = back_rows(self.scale) if self.count else empty_rows(self.scale)
        text = fan([rows], [card_size(self.scale)[0]], scale=self.scale)
        if self.caption:
            text.append(f"\n{self.caption} {self.count}", "bold")
        return text

    def on_click(self) -> None:
        self.post_message(self.Pressed(self))


class DiscardPile(CardWidget):
    """The discard pile: its top card face up, marked for a moment when it changes."""

    top: reactive[Card | None] = reactive(None)
    count: reactive[int] = reactive(0)

    def watch_top(self, old: Card | None, new: Card | None) -> None:
        if new is not None and new != old:
            self.flash()

    def render(self) -> Text:
        rows = face_rows(self.top, self.border(0, "black on white"), self.scale) if self.top else \
            empty_rows(self.scale)
        text = fan([rows], [card_size(self.scale)[0]], scale=self.scale)
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


WORD_BACK = 12  # how many cells a cut line may give back to end at a word ("you 2…" read as a score of 2)


def fit(left: Text, right: Text, width: int) -> Text:
    """One line of ``width`` cells: ``right`` flush right, ``left`` cut with … to make room for it, after a whole
    word when one ends near the cut."""
    right = right.copy()
    right.truncate(max(width, 0), overflow="ellipsis")
    room = max(width - right.cell_len - (1 if right.cell_len else 0), 0)
    left = left.copy()
    if left.cell_len > room > 1:
        left.truncate(room - 1)
        plain = left.plain.rstrip()
        space = plain.rfind(" ")  # not the two between a line's parts: that would cut the last part whole
        if space > 0 and plain[space - 1] != " " and left.cell_len - cell_len(plain[:space]) <= WORD_BACK:
            left = left[:space]
        left.append("…")
    left.truncate(room, overflow="ellipsis", pad=True)
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
    shorter: reactive[tuple[tuple[str, str, str, str], ...]] = reactive(())  # the match, link, headline and clock
    # with the names cut, shorter and shorter: the first that fits is shown, so that a long name never cuts the
    # score, the game's number nor the time left
    headline: reactive[str] = reactive("")  # "Your turn", "bo's turn", "Shuffling"
    my_turn: reactive[bool] = reactive(False)
    event: reactive[str] = reactive("")  # "Computer discarded 8♥"
    names: reactive[tuple[str, ...]] = reactive(())  # the players', which the event shows cut as the rest when the
    # line is too short for them whole ("Hand 2 void: Cyrano-de… left, 1,000 shared")
    clock: reactive[str] = reactive("")  # the clock of whoever the game waits on: "bo 0:23 · bank 1:00"
    hurry: reactive[bool] = reactive(False)  # ... mine, nearly out
    notice: reactive[str] = reactive("")  # a refusal: stands until something happens, a few seconds at most
    hint: reactive[str] = reactive("")  # what I can do now, or what is going on
    shorter_hints: reactive[tuple[str, ...]] = reactive(())  # the hint in fewer words, in the order tried: the first
    # that fits is shown, else the last, cut

    def render(self) -> Text:
        width = self.size.width
        link_style = "dim" if self.link == "connected" else "bold yellow"
        whole = (self.match, self.link, self.headline, self.clock)
        tries = (whole, *self.shorter)
        match, link = next(((m, k) for m, k, _, _ in tries if cell_len(f" {m} {k} ") <= width), tries[-1][:2])
        header = fit(Text(f" {match}"), Text(f"{link} ", link_style), width)
        events = (self.event, *(names_cut_in(self.event, self.names, cells) for cells in NAME_CUTS))
        turns = [self.turn_line(h, c, event) for (_, _, h, c), event in zip(tries, events, strict=False)]
        turn = next((line for line in turns if line.cell_len <= width), None)  # the event whole
        if turn is None:  # else its first clauses, whole: "Hand 2 void: bo left" of "…, 1,040 shared"
            turn = next((line for (_, _, h, c), event in zip(tries, events, strict=False)
                         for short in clauses(event, self.names) if (line := self.turn_line(h, c, short)).cell_len <= width),
                        None)
        if turn is None:  # else the headline and the clock whole if they fit, the event's names cut as theirs and
            headline, time_left, event = next(((h, c, e) for (_, _, h, c), e in zip(tries, events, strict=False)
                                               if cell_len(f" ▶ {h}  ⏱ {c}") <= width), (*tries[-1][2:], events[-1]))
            room = width - self.turn_line(headline, time_left, "").cell_len  # as many of its words as fit, whole
            turn = self.turn_line(headline, time_left, whole_words(event, room))
        if self.notice:
            message = Text(f" {self.notice}", "bold yellow")
        else:
            hints = (self.hint, *self.shorter_hints)
            message = Text(" " + next((hint for hint in hints if cell_len(f" {hint}") <= width), hints[-1]), "italic")
        return Text("\n", no_wrap=True).join([header, fit(turn, Text(), width), fit(message, Text(), width)])

    def turn_line(self, headline: str, time_left: str, event: str) -> Text:
        """The second line: whose turn (reversed when mine), the clock, the last event."""
        badge = Text(f" ▶ {headline} " if self.my_turn else f" {headline} ", "bold reverse" if self.my_turn else "bold")
        clock = Text(f" ⏱ {time_left}", "bold red" if self.hurry else "dim") if time_left else Text()
        return badge + clock + Text(f"  {event}")


def clauses(text: str, names: Iterable[str] = ()) -> list[str]:
    """``text`` without its last clauses, longest first: each start of it that ends before a ", " or a "; " (not
    inside one of ``names``, which are shown whole or cut with "…", never silently)."""
    inside = {k for name in names if name for found in re.finditer(re.escape(name), text)
              for k in range(found.start(), found.end())}
    return [text[:found.start()] for found in reversed(list(re.finditer(r"[,;] ", text)))
            if found.start() > 0 and found.start() not in inside]


def whole_words(text: str, cells: int) -> str:
    """``text`` in ``cells`` columns: whole, or its first words with "…" ("Hand 2: the…"), never a word cut ("H…");
    "" if not even its first word fits."""
    if cell_len(text) <= cells:
        return text
    spaces = [found.start() for found in re.finditer(" ", text)]
    starts = (text[:space].rstrip(",;:· ") for space in reversed(spaces))
    return next((start + "…" for start in starts if start and cell_len(start) < cells), "")


NAME_CUTS = (16, 10, 6)  # the names' widths the status bar tries, in turn, when a line does not fit them whole


def names_cut_in(text: str, names: Iterable[str], cells: int) -> str:
    """``text`` with each of ``names`` longer than ``cells`` columns cut to them with an ellipsis (the longest
    first, so that a name inside another is not cut in it)."""
    for name in sorted(names, key=cell_len, reverse=True):
        if cell_len(name) > cells:
            text = text.replace(name, cell(name, cells).plain)
    return text


class CountLabel(Widget):
    """A label naming a hand and counting its cards ("Your hand: 7 cards", "bo: 5 cards"), shown literally: when its
    width is short, the player's name is cut first ("Bartholomew…'s hand: 7 cards"), then the words go, never the
    count."""

    words: reactive[str] = reactive("")  # the words, "{}" where the name goes: "{}'s hand", "Your hand"
    who: reactive[str] = reactive("")  # the name, as its player chose it
    count: reactive[str] = reactive("")  # "7 cards"

    def show(self, words: str, count: str, who: str = "") -> None:
        self.words, self.count, self.who = words, count, who

    def render(self) -> Content:
        return Content(counted(self.words, self.who, self.count, self.content_region.width))


def counted(words: str, who: str, count: str, width: int) -> str:
    """``words`` (``who`` in place of "{}"), a colon and ``count`` in ``width`` columns: ``who`` cut with an ellipsis
    first, else the count alone."""
    tail = f": {count}"
    whole = words.format(who) + tail
    if cell_len(whole) <= width:
        return whole
    room = width - cell_len(words.format("") + tail)
    return words.format(cell(who, room).plain) + tail if who and room >= 2 else count


def show_text(widget: Static, text: str | Text) -> None:
    """``text`` in ``widget``, only if it changed, and without a new layout if the widget's size does not depend on
    its text: laying the screen out again costs a frame tens of milliseconds (benchmarks/draw.py)."""
    if not same_text(widget.content, text):
        width, height = widget.styles.width, widget.styles.height
        fixed = width is not None and height is not None and not (width.is_auto or height.is_auto)
        widget.update(text, layout=not fixed)


def same_text(shown: object, text: str | Text) -> bool:
    """``text`` would show what ``shown`` does: the same string, or the same Rich text in the same styles (a Rich
    text's ``==`` leaves out its own style)."""
    if isinstance(text, Text):
        return isinstance(shown, Text) and (shown.plain, shown.spans, shown.style, shown.justify, shown.overflow,
                                            shown.no_wrap, shown.end) == (text.plain, text.spans, text.style,
                                                                          text.justify, text.overflow, text.no_wrap,
                                                                          text.end)
    return isinstance(shown, str) and shown == text


NARROW = 80  # columns below which a footer is compact, without the command palette's key (KeysFooter)


class KeysFooter(Footer):
    """Textual's footer, with every key's word whole in a narrow terminal: below :data:`NARROW` columns it is compact
    (a space less a key) and leaves out the command palette's key (Ctrl+P still opens it), so that a screen's keys
    fit 60 columns where they fit 80 with the palette's. ``always_compact``: compact at every width (the replay's)."""

    always_compact = False
    _composed: tuple[object, ...] | None = None  # what the keys shown were composed from (recompose)

    def compose(self) -> ComposeResult:
        """Textual's keys, each born as compact as it is going to be: a key is compact by default and follows the
        footer once mounted (the palette's stays compact), and each change restyles it (a CSS update of its own),
        twice per key on every rebuild."""
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                compact = self.compact or widget.has_class("-command-palette")
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        """Rebuilt only when what it shows changed: Textual rebuilds a footer (every key unmounted, mounted and
        styled again, and a new layout) whenever a screen's bindings are refreshed, also when no key changed."""
        if not self.is_attached or self._pruning:  # as Widget.recompose: its screen may be going
            return
        keys = () if not self._bindings_ready else tuple(  # as Textual's compose: a screen's check_action may look
            (key, active.binding, active.enabled, active.tooltip)  # for widgets not mounted before then
            for key, active in self.screen.active_bindings.items())
        shows = (self._bindings_ready, self.compact, self.show_command_palette, keys)
        if shows != self._composed:
            self._composed = shows
            await super().recompose()

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.width)

    def fit(self, width: int) -> None:
        """Compact, without the palette's key, if ``width`` is narrow (or always_compact): rebuilt if that changes."""
        compact = self.always_compact or width < NARROW
        if (self.compact, self.show_command_palette) != (compact, not compact):
            # not through the reactives: the keys bound to ``compact`` would each restyle, only to be rebuilt
            self.set_reactive(Footer.compact, compact)
            self.set_reactive(Footer.show_command_palette, not compact)
            self.set_class(compact, "-compact")
            self.refresh(recompose=True)


class HelpScreen(ModalScreen[None]):
    """A page of help over the screen that opened it (a game's rules and keys, the lobby's); ?, q or Esc closes it."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, text: Content) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Static(self.text)
        yield KeysFooter()


class CommandLines(Widget):
    """A shell command shown whole, for a person to copy with the mouse: on one line when the width allows, else
    broken only between its words with the shell's " \\" at each line's end, never inside a word (an address or a
    room name cut in two would be copied wrong). The text is shown literally (it holds names from outside)."""

    DEFAULT_CSS = "CommandLines { height: auto; text-wrap: nowrap; text-style: bold; }"

    command: reactive[str] = reactive("", layout=True)

    def __init__(self, command: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(CommandLines.command, command)

    def lines(self, width: int) -> list[str]:
        from .invite import shell_lines

        return shell_lines(self.command, max(width, 1)) if self.command else []

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n".join(self.lines(self.content_region.width or self.size.width)))


class PathLines(CommandLines):
    """A file's path shown whole, for a person to select with the mouse: on one line when the width allows, else
    broken only after a "/" (or, in a name longer than a line, after a "-"), never inside a word."""

    def lines(self, width: int) -> list[str]:
        return path_lines(self.command, max(width, 1)) if self.command else []


def path_lines(path: str, width: int) -> list[str]:
    """``path`` on lines of at most ``width`` columns, each broken after a "/", a name too long for a line after a
    "-", and only what is still too long (no "/" nor "-" in a line's width) inside a word."""
    return filled([("", part) for piece in re.findall(r"[^/]*/|[^/]+", path) for part in hyphenated(piece, width)],
                  width)


def word_lines(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` columns, broken between words; a word too long for a line after a "-"
    ("rock-paper-" / "scissors"), and only what is still too long inside a word."""
    return filled([(" " if n and not k else "", part) for n, word in enumerate(text.split(" "))
                   for k, part in enumerate(hyphenated(word, width))], width) or [""]


def hyphenated(word: str, width: int) -> list[str]:
    """``word`` whole if it fits in ``width``, else in pieces each ending after a "-"."""
    return [word] if cell_len(word) <= width else re.findall(r"[^-]*-|[^-]+", word)


def filled(parts: list[tuple[str, str]], width: int) -> list[str]:
    """Lines of at most ``width`` columns of ``parts`` (what goes before each when it does not start a line, the
    part), as many parts to a line as fit; a part longer than a line is cut."""
    lines: list[str] = []
    line = ""
    for before, part in parts:
        if line and cell_len(line + before + part) > width:
            lines.append(line)
            line = ""
        line += before + part if line else part
        if cell_len(line) > width:
            *cut, line = chop_cells(line, width)
            lines += cut
    return [*lines, line] if line else lines


def cell(text: str, width: int) -> Text:
    """A table cell showing ``text`` literally, cut with an ellipsis to ``width`` columns."""
    shown = Text(text, no_wrap=True, overflow="ellipsis")
    shown.truncate(max(width, 1), overflow="ellipsis")
    return shown


def choosing(screen: Screen[Any]) -> bool:
    """A list of ``screen``'s is open: Enter picks in it (rather than playing, or creating a room)."""
    return any(select.expanded for select in screen.query(Select))
