"""The game cannot go on: why, and what r (and, for a full room, c and w; from the lobby, b) does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label

from .violation_screen import KeepsTranscript
from .widgets import KeysFooter

CANNOT_PLAY = 3  # the exit status after a "Cannot play" screen (relay unreachable, room full, game lost)
RETRY = "Press r to try again or q to quit."


class NewRoom(Message):
    """The player asks for another room than the full one (``c``)."""


class WatchInstead(Message):
    """The player asks to watch the full room's game instead of taking a seat (``w``)."""


class BackToLobby(Message):
    """The player asks for the lobby the table was chosen in, instead of trying it again (``b``, Escape)."""


class ProblemScreen(KeepsTranscript):
    """The game cannot go on (relay unreachable, seat lost, room full); say why and what r does, with
    ``new_room`` that c creates another room, and with ``watch`` that w watches this room's game instead; with
    ``lobby`` (the table was chosen in the lobby), b and Escape go back there; with
    ``transcript``, the game so far is kept there (t copies its path, or in a browser, ``download``, downloads
    it). Leaving from here exits with ``CANNOT_PLAY``, the problem left on the terminal (``DiscardApp.cannot_play``)."""

    BINDINGS = [Binding("c", "new_room", "New room"), Binding("w", "watch_instead", "Watch"),  # the screen's own: an
                # app action's key is checked by the app, and showed on every problem (a refused join's too)
                Binding("r", "app.retry", "Retry"), Binding("t", "download", "Transcript"),
                Binding("b", "lobby", "Lobby"), Binding("q", "app.quit", "Quit"),
                Binding("escape", "leave", show=False)]  # one binding: two for one key put it first in the footer

    def __init__(self, problem: str, retry: str | None = None, new_room: bool = False, watch: bool = False,
                 transcript: str | None = None, download: bool = False, lobby: bool = False) -> None:
        """``watch``: the room is full, its game under way; w watches it instead (relay 1.3)."""
        super().__init__()
        self.problem, self.retry, self.new_room, self.offers_watch = problem, retry or RETRY, new_room, watch
        self.transcript, self.download, self.lobby = transcript, download, lobby

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield from self.stopped("Cannot play", self.problem)
            yield Label(self.retry, id="retry", markup=False)
        yield KeysFooter()

    def action_new_room(self) -> None:
        self.post_message(NewRoom())

    def action_watch_instead(self) -> None:
        self.post_message(WatchInstead())

    def action_lobby(self) -> None:
        self.post_message(BackToLobby())

    async def action_leave(self) -> None:
        """Escape: back to the lobby, where the table was chosen there; else as q."""
        if self.lobby:
            self.action_lobby()
        else:
            await self.app.run_action("app.quit")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "new_room":
            return self.new_room
        if action == "lobby":
            return self.lobby
        return self.offers_watch if action == "watch_instead" else super().check_action(action, parameters)
