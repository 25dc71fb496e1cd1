"""The waiting room before the first game: where we are, who sits where, who is still needed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, LoadingIndicator

from .view import SeatView
from tabletop.values import Phase
from .widgets import CommandLines, KeysFooter, show_text


class ConnectingScreen(Screen[None]):
    """Before the first game, the waiting room: where we are, who sits where, how many more players the room needs,
    and the command a friend types (``c`` copies it). Names, rooms and addresses are shown literally."""

    BINDINGS = [Binding("escape", "app.quit", "Cancel"), Binding("c", "copy_invite", "Copy command")]

    def __init__(self, where: str, invites: list[str] | None = None, note: str = "") -> None:
        super().__init__()
        self.where, self.invites, self.note = where, invites or [], note
        self.view: SeatView | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="connecting", classes="dialog"):
            yield Label(self.where, id="where", markup=False)
            yield Label("", id="seats", markup=False)
            yield Label("Connecting…", id="waiting", markup=False)
            if self.invites:
                yield Label("A friend joins with this command (c copies it):", classes="dim", markup=False)
                yield CommandLines(self.invites[0], id="invite")
                if len(self.invites) > 1:
                    yield Label("or, from another network this machine is on:", classes="dim", markup=False)
                    yield Label("\n".join(self.invites[1:]), id="other-invites", markup=False)
                if self.note:
                    yield Label(self.note, id="note", classes="dim", markup=False)
            yield LoadingIndicator()
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.view is not None:
            self.show_room(self.view)
        self.call_after_refresh(self.refresh_bindings)  # the footer's keys: no widget here takes focus to show them

    def waiting(self, text: str) -> None:
        show_text(self.query_one("#waiting", Label), text)

    def show_room(self, view: SeatView) -> None:
        """Who sits where and how many more players the room waits for."""
        self.view = view
        if not self.is_mounted or not self.query("#seats"):
            return  # composing: on_mount shows it
        seats = self.query_one("#seats", Label)
        show_text(seats, seat_lines(view))
        seats.display = view.phase is Phase.WAITING
        self.waiting(needed_words(view))
        self.query_one(LoadingIndicator).display = view.phase is not Phase.WAITING

    def action_copy_invite(self) -> None:
        if self.invites:
            self.app.copy_to_clipboard(self.invites[0])
            self.notify(f"Copied: {self.invites[0]}", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "copy_invite" and not self.invites)  # False hides the key


def seat_lines(view: SeatView) -> str:
    """Each seat of the room and who sits there: "Seat 1  ana (you)", "Seat 2  bo", "Seat 3  free"."""
    def who(seat: int) -> str:
        named = seat < len(view.named) and view.named[seat]
        if seat == view.me:
            return f"{view.names[seat]} (you)"
        if named:
            return view.names[seat] if view.present[seat] else f"{view.names[seat]} (away)"
        return "someone, joining…" if view.present[seat] else "free"

    return "\n".join(f"Seat {seat + 1}  {who(seat)}" for seat in range(len(view.names)))


def needed_words(view: SeatView) -> str:
    """ "1 more player needed", "2 more players needed", or that everyone is here."""
    from tabletop.ledger import Link  # loaded with the table, which made this view

    if view.link is Link.CONNECTING:
        return "Connecting…"
    named = view.named or (True,) * len(view.names)
    missing = sum(1 for seat in view.others if not view.present[seat] and not named[seat])
    away = [view.names[seat] for seat in view.others if not view.present[seat] and named[seat]]
    if not missing and not away:
        return "Everyone is here; starting…"
    words = [f"{missing} more player{'s' if missing > 1 else ''} needed"] if missing else []
    return " · ".join(words + ([f"waiting for {' and '.join(away)} to come back"] if away else []))
