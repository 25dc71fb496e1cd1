"""The table's widgets. Each one shows a slice of the engine's ``GameView`` and
sends intents as messages; none of them talks to the engine or the network."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from .rules import Card

CARD_WIDTH = 5
BACK = "▚▞▚"


def face_rows(card: Card, border: str) -> list[tuple[str, str]]:
    """The four rows of a face-up card, as (text, style) pairs per row segment."""
    ink = "bold red on white" if card.red else "bold black on white"
    return [
        ("┌───┐", border),
        (f"│{card.rank:<3}│", ink),
        (f"│ {card.suit} │", ink),
        ("└───┘", border),
    ]


def back_rows() -> list[tuple[str, str]]:
    style = "bright_white on dark_blue"
    return [("┌───┐", style), (f"│{BACK}│", style), (f"│{BACK[::-1]}│", style), ("└───┘", style)]


def empty_rows() -> list[tuple[str, str]]:
    style = "grey50"
    return [("┌ ─ ┐", style), ("     ", style), ("     ", style), ("└ ─ ┘", style)]


def fan(cards: list[list[tuple[str, str]]], width: int, lifts: list[bool] | None = None) -> tuple[Text, int]:
    """Lay cards side by side, overlapping them when ``width`` is short; returns (text, step).

    A lifted card sits one row higher than the rest, so the rendering has five rows.
    """
    if not cards:
        return Text("\n" * 4), CARD_WIDTH + 1
    step = CARD_WIDTH + 1
    if len(cards) > 1 and len(cards) * step - 1 > width:
        step = max(2, (width - CARD_WIDTH) // (len(cards) - 1))
    lifts = lifts or [False] * len(cards)
    height = 5 if any(lifts) else 4
    rows = [Text() for _ in range(height)]
    for index, (card, lifted) in enumerate(zip(cards, lifts)):
        last = index == len(cards) - 1
        shown = CARD_WIDTH if last else min(step, CARD_WIDTH)
        gap = 0 if last else step - shown
        top = 0 if lifted or height == 4 else 1
        for row in range(height):
            if top <= row < top + 4:
                text, style = card[row - top]
                rows[row].append(text[:shown], style)
            else:
                rows[row].append(" " * shown)
            rows[row].append(" " * gap)
    return Text("\n").join(rows), step


class HandView(Widget):
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
            frames.append(face_rows(card, border))
        lifts = [self.my_turn and i == self.cursor for i in range(len(self.cards))]
        text, self._step = fan(frames, self.size.width, lifts)
        if not self.cards:
            return Text("(no cards)", style="dim")
        return text

    def on_click(self, event: events.Click) -> None:
        if self.cards:
            index = min(event.x // getattr(self, "_step", CARD_WIDTH + 1), len(self.cards) - 1)
            self.cursor = index
            self.post_message(self.CardChosen(index))


class OpponentHand(Widget):
    """The opponent's cards, face down."""

    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        text, _ = fan([back_rows() for _ in range(self.count)], self.size.width)
        return text


class DrawPile(Widget):
    """A face-down pile; clicking it asks to draw."""

    count: reactive[int] = reactive(0)

    class Pressed(Message):
        """The player clicked the draw pile."""

    def render(self) -> Text:
        rows = back_rows() if self.count else empty_rows()
        text, _ = fan([rows], CARD_WIDTH)
        text.append(f"\nDraw {self.count}", "bold")
        return text

    def on_click(self) -> None:
        self.post_message(self.Pressed())


class DiscardPile(Widget):
    """The discard pile: its top card face up."""

    top: reactive[Card | None] = reactive(None)
    count: reactive[int] = reactive(0)

    def render(self) -> Text:
        rows = face_rows(self.top, "black on white") if self.top else empty_rows()
        text, _ = fan([rows], CARD_WIDTH)
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
