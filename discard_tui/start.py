"""The start screen: the player's name, the game, its encryption and whom to play, chosen before the table opens.

A browser visitor always starts here (discard-web); in the terminal
``discard-tui --pick`` does. Whom to play: the computer, or, when a relay is
on offer (``--relay``), people there: the rooms waiting in its lobby (the
default, which lists the games under way to watch too), a room named here, listed in the lobby or not (private,
the default), or a game under way in a room named here, to watch (relay 1.3). What is typed is checked when Play
is pressed (Enter, in any field: a list opens with Space or the arrows); a bad field costs one line and keeps
everything typed. The player's unfinished games (against the computer, or on a relay) are listed first: Enter goes
back to the highlighted one. The app's title (the terminal's, the browser tab's) follows the game chosen.
"""

from __future__ import annotations

import dataclasses
import shlex

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Select

from . import saves
from .config import GROUPS, SCREENS, PlayConfig, fresh_room, name_problem, room_problem
from .profile import Profile
from .widgets import KeysFooter, choosing
from .your_games import YourGames


SPEEDS = {0.0: "at once", 0.3: "quick: 0.3 s a move", 0.6: "steady: 0.6 s a move", 1.5: "slow: 1.5 s a move"}


def speeds(think: float) -> list[tuple[str, float]]:
    """The computer's paces on offer, with ``think`` (from --think or the preferences) among them."""
    offered = dict(SPEEDS)
    offered.setdefault(think, f"{think:g} s a move")
    return [(words, seconds) for seconds, words in sorted(offered.items())]


class StartScreen(Screen[PlayConfig]):
    """Choose, then Play (Enter in any field): the screen dismisses itself with the table to open."""

    BINDINGS = [Binding("enter", "go_back", "Return", priority=True),
                Binding("enter", "play", "Play", priority=True),  # before a field's own Enter (a list would open)
                Binding("escape", "app.quit", "Quit"),
                Binding("q", "app.quit", "Quit", show=False)]  # the footer's Quit is Esc, which works in a field too

    def __init__(self, config: PlayConfig, profile: Profile) -> None:
        super().__init__()
        self.config, self.profile = config, profile
        self.relay = config.relay  # the relay on offer, if any
        self.saved = saves.returnable(profile.games_dir) if profile.resumes else []  # newest first

    def compose(self) -> ComposeResult:
        c = self.config
        with Vertical(id="start", classes="dialog"):
            yield Label("[b]discard[/b]: nobody deals, every move is checked.")
            if self.saved:
                yield Label("", id="yours-detail", markup=False)
                yield YourGames(self.saved, id="yours")
            with Grid(id="start-form"):
                yield Label("Name")
                yield Input(c.name, placeholder="your name at the table", max_length=32, id="name", compact=True)
                yield Label("Game")
                yield Select([(name, name) for name in SCREENS], value=c.game, allow_blank=False, id="game",
                             compact=True)
                if self.relay is not None:
                    yield Label("Opponent")
                    yield Select([("the computer", "computer"), ("people: the rooms in the relay's lobby", "lobby"),
                                  ("a person, in a room on the relay", "person"),
                                  ("nobody: watch a game in a room on the relay", "watch")],
                                 value="person" if c.room else "lobby", allow_blank=False, id="opponent",
                                 compact=True)
                    yield Label("Room", id="room-label")
                    yield Input(c.room or fresh_room("table"), max_length=64, id="room", compact=True)
                    yield Label("", id="public-label")
                    yield Checkbox("list it in the lobby", c.public, id="public", compact=True)
                yield Label("Computer", id="speed-label")
                yield Select(speeds(c.think_time), value=c.think_time, allow_blank=False, id="speed", compact=True)
                yield Label("Encryption")
                yield Select([(title, name) for name, title in GROUPS.items()], value=c.group, allow_blank=False,
                             id="group", compact=True)
            yield Label("", id="invite", classes="dim", markup=False)
            if self.profile.browser:
                yield Label("Your cards are dealt to a program on this web server: whoever runs it, and the "
                            "network to it, can see them.", id="trust", classes="dim", markup=False)
            yield Label("", id="problem", markup=False)
            yield Button("Play", id="play", compact=True)  # drawn like the fields: marked only when it has the focus
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        self.show_room()
        if self.saved:
            self.show_saved()
            self.query_one(YourGames).focus()

    def show_saved(self, now: float | None = None) -> None:
        """My unfinished games: the game, the other players, the score or the game under way, when last played."""
        self.query_one(YourGames).fill(78, now)  # the dialog's width
        self.show_own()

    @on(DataTable.RowHighlighted, "#yours")
    def show_own(self) -> None:
        seat = self.own
        if seat is not None:
            where = "against the computer" if seat.relay == saves.LOCAL_RELAY else f"in room {seat.room}"
            self.query_one("#yours-detail", Label).update(
                f"Your game {where} is waiting: Enter returns to it (Tab: a new game).")

    @property
    def own(self) -> saves.SavedSeat | None:
        """The highlighted game of mine, if any."""
        return self.query_one(YourGames).highlighted if self.saved else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter goes back to a game of mine while my games have the focus; elsewhere it plays (the fields')."""
        if action == "go_back":
            return self.focused is not None and self.focused.id == "yours"
        if action == "play":
            return not (self.focused is not None and self.focused.id == "yours") and not choosing(self)
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def action_go_back(self) -> None:
        seat = self.own
        if seat is not None:
            self.dismiss(saves.back_to(self.config, self.profile.games_dir, seat))

    @property
    def through_relay(self) -> bool:
        return self.relay is not None and self.query_one("#opponent", Select).value == "person"

    @property
    def to_watch(self) -> bool:
        return self.relay is not None and self.query_one("#opponent", Select).value == "watch"

    @property
    def to_lobby(self) -> bool:
        return self.relay is not None and self.query_one("#opponent", Select).value == "lobby"

    @on(Select.Changed, "#game")
    def show_game(self) -> None:
        """The app's title says the game chosen (the table's screen keeps it)."""
        self.app.title = SCREENS[str(self.query_one("#game", Select).value)].about.title

    @on(Select.Changed, "#opponent")
    @on(Input.Changed, "#room")
    def show_room(self) -> None:
        """The room and the command a friend in a terminal types only matter when meeting a person."""
        through, watch = self.through_relay, self.to_watch
        for widget in self.query("#room-label, #room"):
            widget.display = through or watch
        for widget in self.query("#public-label, #public"):
            widget.display = through
        for widget in self.query("#speed-label, #speed"):  # how fast the computer plays: only against it
            widget.display = self.relay is None or self.query_one("#opponent", Select).value == "computer"
        invite = self.query_one("#invite", Label)
        invite.display = through
        if through:
            room = self.query_one("#room", Input).value
            command = shlex.join(["uv", "run", "discard-tui", "--relay", str(self.relay), "--room", room])
            invite.update(f"A friend in a terminal joins with: {command}")

    @on(Button.Pressed, "#play")
    def action_play(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        room = self.query_one("#room", Input).value.strip() if self.through_relay or self.to_watch else None
        problem = name_problem(name) and f"Name: {name_problem(name)}"
        if problem is None and room is not None:
            problem = room_problem(room) and f"Room: {room_problem(room)}"
        if problem is not None:
            self.query_one("#problem", Label).update(problem)
            return
        game, group = str(self.query_one("#game", Select).value), str(self.query_one("#group", Select).value)
        if self.to_watch and room is not None:  # no seat: the room's game is its own
            self.dismiss(dataclasses.replace(self.config, name=name, relay=self.relay, host=None, room=room,
                                             watch=True, bell=False, public=False))
            return
        if self.to_lobby:  # the app shows the lobby: a room is joined or created there
            self.dismiss(dataclasses.replace(self.config, name=name, game=game, group=group, relay=self.relay,
                                             host=None, room=""))
            return
        chosen = choose(self.config, self.profile, name, game, self.relay if room is not None else None, room)
        public = room is not None and self.query_one("#public", Checkbox).value
        think = float(str(self.query_one("#speed", Select).value))
        self.dismiss(dataclasses.replace(chosen, group=group, public=public, think_time=think))


def choose(base: PlayConfig, profile: Profile, name: str, game: str, relay: str | None, room: str | None
           ) -> PlayConfig:
    """The table the choices describe: ``room`` on ``relay``, or (both None) a game against the computer.

    Another game than the command line's gets its own usual seats and options. Against the computer, the
    newest unfinished game of that game is taken back; a room this player has a saved seat in is taken
    back with its own game and number of players (its first hello fixed them).
    """
    from . import saves

    if relay is None or room is None:  # against the computer
        relay, relay_key = None, saves.LOCAL_RELAY
        room = (saves.saved_room(profile.games_dir, relay_key, name, game) if profile.resumes else None) \
            or fresh_room("computer")
    else:
        relay_key = relay
    terms = dataclasses.replace(base, name=name, game=game, relay=relay, host=None, room=room)
    if game != base.game:
        terms = dataclasses.replace(terms, seats=SCREENS[game].about.default_seats, options={})
    saved = saves.room_terms(profile.games_dir, relay_key, room, name) if profile.resumes else None
    if saved is not None:
        terms = dataclasses.replace(terms, game=saved[0], seats=saved[1],
                                    options=terms.options if saved[0] == game else {})
    return terms
