"""The table's widgets. Each one shows a slice of the engine's ``GameView`` and
sends intents as messages; none of them talks to the engine or the network."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from .rules import Card

BACK = "▚▞"
LARGE_SCREEN = (100, 34)  # columns, rows from which the table uses large cards

Rows = list[tuple[str, str]]  # one (text, style) pair per row of a card


def face_rows(card: Card, border: str, large: bool = False) -> Rows:
    """A face-up card: rank and suit, in red or black on white."""
    ink = "bold red on white" if card.red else "bold black on white"
    if large:
        return [("┌─────┐", border), (f"│{card.rank:<5}│", ink), (f"│  {card.suit}  │", ink),
                (f"│{card.rank:>5}│", ink), ("└─────┘", border)]
    return [("┌───┐", border), (f"│{card.rank:<3}│", ink), (f"│ {card.suit} │", ink), ("└───┘", border)]


def back_rows(large: bool = False) -> Rows:
    """A face-down card with a woven pattern."""
    style = "bright_white on dark_blue"
    inner = 5 if large else 3
    weave = [(BACK * inner)[i % 2:][:inner] for i in range(3)] if large else ["▚▞▚", "▚▞▚"]
    edge = "─" * inner
    return [(f"┌{edge}┐", style), *((f"│{row}│", style) for row in weave), (f"└{edge}┘", style)]


def empty_rows(large: bool = False) -> Rows:
    """The outline of an empty pile."""
    style = "grey50"
    if large:
        return [("┌ ─ ─ ┐", style), *(("       ", style) for _ in range(3)), ("└ ─ ─ ┘", style)]
    return [("┌ ─ ┐", style), ("     ", style), ("     ", style), ("└ ─ ┘", style)]


def card_size(large: bool) -> tuple[int, int]:
    """(width, height) of one card."""
    return (7, 5) if large else (5, 4)


def fan(cards: list[Rows], width: int, lifts: list[bool] | None = None, large: bool = False) -> tuple[Text, int]:
    """Lay cards side by side, overlapping them when ``width`` is short; returns (text, step).

    A lifted card sits one row higher than the rest, so the rendering is one row taller.
    """
    card_width, card_height = card_size(large)
    step = card_width + 1
    if not cards:
        return Text("\n" * card_height), step
    if len(cards) > 1 and len(cards) * step - 1 > width:
        step = max(2, (width - card_width) // (len(cards) - 1))
    lifts = lifts or [False] * len(cards)
    height = card_height + any(lifts)
    rows = [Text() for _ in range(height)]
    for index, (card, lifted) in enumerate(zip(cards, lifts)):
        last = index == len(cards) - 1
        shown = card_width if last else min(step, card_width)
        gap = 0 if last else step - shown
        top = 0 if lifted or height == card_height else 1
        for row in range(height):
            if top <= row < top + card_height:
                text, style = card[row - top]
                rows[row].append(text[:shown], style)
            else:
                rows[row].append(" " * shown)
            rows[row].append(" " * gap)
    return Text("\n").join(rows), step


class CardWidget(Widget):
    """A widget that draws cards, large when the screen has room for them."""

    large: reactive[bool] = reactive(False)


class HandView(CardWidget):
    """My hand, face up. The cursor card is lifted; playable cards have a green frame on my turn."""

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

    def render(self) -> Text:
        frames = []
        for index, card in enumerate(self.cards):
            playable = index < len(self.playable) and self.playable[index]
            if self.my_turn and playable:
                border = "bold green on white"
            elif self.my_turn:
                border = "grey62 on white"
            else:
                border = "black on white"
            frames.append(face_rows(card, border, self.large))
        lifts = [self.my_turn and i == self.cursor for i in range(len(self.cards))]
        text, self._step = fan(frames, self.size.width, lifts, self.large)
        if not self.cards:
            return Text("(no cards)", style="dim")
        return text

    def on_click(self, event: events.Click) -> None:
        if self.cards:
            index = min(event.x // getattr(self, "_step", card_size(self.large)[0] + 1), len(self.cards) - 1)
            self.cursor = index
            self.post_message(self.CardChosen(index))


class OpponentHand(CardWidget):
    """The opponent's cards, face down."""

    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        text, _ = fan([back_rows(self.large) for _ in range(self.count)], self.size.width, large=self.large)
        return text


class DrawPile(CardWidget):
    """A face-down pile; clicking it asks to draw."""

    count: reactive[int] = reactive(0)

    class Pressed(Message):
        """The player clicked the draw pile."""

    def render(self) -> Text:
        rows = back_rows(self.large) if self.count else empty_rows(self.large)
        text, _ = fan([rows], 0, large=self.large)
        text.append(f"\nDraw {self.count}", "bold")
        return text

    def on_click(self) -> None:
        self.post_message(self.Pressed())


class DiscardPile(CardWidget):
    """The discard pile: its top card face up."""

    top: reactive[Card | None] = reactive(None)
    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        rows = face_rows(self.top, "black on white", self.large) if self.top else empty_rows(self.large)
        text, _ = fan([rows], 0, large=self.large)
        text.append(f"\nDiscard {self.count}", "bold")
        return text


class StatusBar(Widget):
    """Whose turn it is, both names, the connection, and a notice line."""

    headline: reactive[str] = reactive("")
    players: reactive[str] = reactive("")
    link: reactive[str] = reactive("")
    notice: reactive[str] = reactive("")
    hint: reactive[str] = reactive("")

    def render(self) -> Text:
        text = Text(overflow="ellipsis", no_wrap=True)
        text.append(f" {self.headline} ", "bold reverse")
        text.append(f"  {self.players}")
        if self.link:
            text.append(f"  · {self.link}", "yellow" if self.link != "connected" else "dim")
        if self.notice:
            text.append(f"\n {self.notice}", "bold yellow")
        elif self.hint:
            text.append(f"\n {self.hint}", "italic")
        return text
