"""Rock-paper-scissors' table: the last throw of each player, the score, the history, and the three throws to choose.

``view(seat)`` is this game's side of the app (see
discard_tui/discard_screen.py): it builds the screen's :class:`RpsScreenView`;
a key or a click chooses one of the game's THROWS. It imports the table when
called, so that this module stays as light as the screen.
"""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Label, Static

from games.rps.about import THROWS, UNTHROWN

from .table_screen import Choose, GameUI, TableScreen, capitalized, headline
from .view import SeatView
from tabletop.values import Phase
from .widgets import show_text
from tabletop.words import progress_words

if TYPE_CHECKING:
    from games.rps.game import RpsView
    from tabletop.shell import Seat
BEFORE_THE_GAME = (Phase.WAITING, Phase.STARTING, Phase.SHUFFLING, Phase.DEALING)
KEYS = tuple(throw[0] for throw in THROWS)  # r, p, s
MARKS = {"won": "✓", "lost": "✗", "equal": "="}  # a throw's result for me, in the history line


# The rules and the cues (HELP) and a player's keys (KEY_HELP), in markup: the help page (table_screen.help_page
# adds the log's keys and the safety number; a watcher's has its own keys). A paragraph is one line (a "\" at a
# line's end joins the next), wrapped to the screen; a row of keys or cues fits 52 columns, the help's width at 60.
HELP = """\
[b]Rock-paper-scissors[/b]: the first to win [b]3 throws[/b] wins the game. \
Both choose each throw at once: rock blunts scissors, scissors \
cut paper, paper covers rock. Equal throws are thrown again. \
Throws are committed before they are shown: nobody, the relay \
included, sees yours before both have chosen, or can change it.

[b]Cues[/b]   your chosen throw: a double frame ╔╗, its
       name reversed; the last throw's winner: a
       double frame. History: yours/theirs, ✓ won,
       ✗ lost, = equal."""

KEY_HELP = """\
[b]Keys[/b]   r rock   p paper   s scissors (or click one)
       n rematch   x leave (when offered)   q quit"""


@dataclass(frozen=True)
class RpsScreenView(SeatView["RpsView"]):
    """Rock-paper-scissors' screen: the table's view of the match, from my side."""

    throws: tuple[tuple[str, str, str], ...] = ()  # every throw revealed: (mine, theirs, "won" | "lost" | "equal")
    scores: tuple[int, int] = (0, 0)  # throws won: (mine, theirs)
    target: int = 3
    throw: int = 0  # the throw under way (or the last one, once the match is over); 0 before the game
    chosen: str | None = None  # my throw for the throw under way, hidden from the others until all have chosen
    opponent_chosen: bool = False  # the other player is committed to this throw
    throw_refusal: str | None = "the game is not under way"  # why I cannot choose a throw now, None if I can


def frame(width: int, height: int, top: str, middle: str, bottom: str, double: bool, style: str) -> Text:
    """A box of ``width`` × ``height`` cells: ``top`` and ``bottom`` set into its edges, ``middle`` centred inside."""
    tl, tr, bl, br, edge, side = ("╔", "╗", "╚", "╝", "═", "║") if double else ("┌", "┐", "└", "┘", "─", "│")
    inner = max(width - 2, 1)

    def edge_line(left: str, label: str, right: str) -> str:
        room = inner - 4  # an edge cell at either end, a space either side of the label
        if cell_len(label) > room:
            label = set_cell_size(label, room - 1) + "…" if room > 1 else ""
        label = f" {label} " if label else ""
        return left + edge + label + edge * (inner - 1 - cell_len(label)) + right

    rows = [edge_line(tl, top, tr)]
    body = max(height - 2, 1)
    for row in range(body):
        text = middle if row == (body - 1) // 2 else ""
        rows.append(side + set_cell_size(" " * ((inner - cell_len(text)) // 2) + text, inner) + side)
    rows.append(edge_line(bl, bottom, br))
    return Text("\n".join(rows), style=style, no_wrap=True, overflow="crop")


class ThrowCard(Widget):
    """One player's last throw, in a box captioned with their name; a double frame if it won."""

    caption: reactive[str] = reactive("")
    throw: reactive[str] = reactive("")  # "" before the first throw
    result: reactive[str] = reactive("")  # "won" | "lost" | "equal", for this player; "" before the first throw

    def render(self) -> Text:
        middle = self.throw.upper() if self.throw else "·"
        return frame(self.size.width, self.size.height, self.caption, middle, self.result,
                     self.result == "won", "bold" if self.result == "won" else "")


class ThrowButton(Widget):
    """One of the three throws: its key in the frame, its name inside; chosen: a double frame and reversed."""

    available: reactive[bool] = reactive(False)  # I may choose a throw now
    chosen: reactive[bool] = reactive(False)  # my throw for the throw under way

    class Pressed(Message):
        """The player clicked this throw."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(id=f"throw-{THROWS[index]}", classes="throw")
        self.index = index

    def render(self) -> Text:
        name = THROWS[self.index].capitalize()
        text = frame(self.size.width, self.size.height, KEYS[self.index], name, "chosen" if self.chosen else "",
                     self.chosen, "" if self.available or self.chosen else "dim")
        start = text.plain.find(name)
        if start >= 0 and (self.chosen or self.available):
            text.stylize("bold reverse" if self.chosen else "bold", start, start + len(name))
        return text

    def on_click(self, event: events.Click) -> None:
        self.post_message(self.Pressed(self.index))


class History(Widget):
    """Every throw as "R/S✓" (mine/theirs, then won ✓, lost ✗ or equal =): the latest ones that fit."""

    throws: reactive[tuple[tuple[str, str, str], ...]] = reactive(())

    def render(self) -> Text:
        return Text(history_line(self.throws, self.size.width), no_wrap=True, overflow="ellipsis")


class RpsTable(TableScreen[RpsScreenView]):
    """The score, the last throw of each player and their history, and my three throws."""

    CSS_PATH = "rps.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"throw({index})", name.capitalize()) for index, (key, name) in enumerate(zip(KEYS, THROWS))),
        # The same keys while no throw can be chosen (greyed out above): say why instead of doing nothing.
        *(Binding(key, "refuse('throw')", show=False) for key in KEYS),
    ]
    actions = ("throw", "rematch")
    always_shown = ("throw",)  # the footer says which keys throw from the first frame, before the game is ready

    def compose_board(self) -> ComposeResult:
        yield Label("", id="rps-score", classes="label", markup=False)
        yield Static(classes="spacer")
        with Horizontal(id="last-throws"):
            yield ThrowCard(id="my-throw")
            yield Static("vs", id="versus")
            yield ThrowCard(id="their-throw")
        yield Label("", id="rps-result", classes="label", markup=False)
        yield History(id="rps-history")
        yield Static(classes="spacer")
        yield Label("", id="rps-prompt", classes="label", markup=False)
        with Horizontal(id="throw-buttons"):
            for index in range(len(THROWS)):
                yield ThrowButton(index)

    def show_board(self, view: RpsScreenView) -> None:
        other = view.opponent_name
        mine, theirs = self.query_one("#my-throw", ThrowCard), self.query_one("#their-throw", ThrowCard)
        mine.caption, theirs.caption = view.you, other
        last = view.throws[-1] if view.throws else ("", "", "")
        mine.throw, theirs.throw = last[0], last[1]
        mine.result, theirs.result = last[2], {"won": "lost", "lost": "won"}.get(last[2], last[2])
        show_text(self.query_one("#rps-score", Label), f"First to {view.target}: {view.you} {view.scores[0]} – {view.scores[1]} {other}")
        show_text(self.query_one("#rps-result", Label), result_line(view))
        self.query_one(History).throws = view.throws
        show_text(self.query_one("#rps-prompt", Label), prompt(view))
        for button in self.query(ThrowButton):
            button.available = view.throw_refusal is None
            button.chosen = view.chosen == THROWS[button.index]

    def action_throw(self, index: int) -> None:
        self.post_message(Choose(THROWS[index]))

    @on(ThrowButton.Pressed)
    def throw_clicked(self, message: ThrowButton.Pressed) -> None:
        if self.view is not None and (reason := self.refused(self.view, "throw")) is not None:
            self.notice(reason)
        else:
            self.action_throw(message.index)

    def headline(self, view: RpsScreenView) -> str:
        if view.playing:
            return "Your throw" if view.my_turn else f"Waiting for {view.opponent_name}"
        return headline(view)

    def hint(self, view: RpsScreenView) -> str:
        return hint(view)

    def refusal(self, view: RpsScreenView, action: str, index: int | None = None) -> str | None:
        if view.phase in BEFORE_THE_GAME and view.result is None:
            return "you can throw once the game has started"
        return view.throw_refusal



# -- what the board and the status bar say: pure functions of the view --------------------------------------


def throw_sentence(mine: str, theirs: str, result: str, other: str, you: str = "you") -> str:
    """ "paper covers rock: you win" (``you``: a watcher's "ana wins"), "both threw rock: throw again"."""
    from games.rps.rules import how  # loaded with the table, which made this view

    if result == "equal":
        return f"both threw {mine}: throw again"
    if result == "won":
        return f"{how(mine, theirs)}: {you} win{'s' * (you != 'you')}"
    return f"{how(theirs, mine)}: {other} wins"


def result_line(view: RpsScreenView) -> str:
    """The last throw in words, or what is going on before and after the throws."""
    if view.progress is not None and not view.playing:
        return f"{progress_words(view.progress)}…"
    if not view.throws:
        return "No throw yet." if view.playing else ""
    mine, theirs, result = view.throws[-1]
    return capitalized(throw_sentence(mine, theirs, result, view.opponent_name, view.you), view.names)


def history_line(throws: tuple[tuple[str, str, str], ...], width: int) -> str:
    """The history in ``width`` cells: "History: R/S✓ P/P= …", the oldest throws left out first."""
    if not throws:
        return ""
    head = "History: "
    tokens = [f"{mine[0].upper()}/{theirs[0].upper()}{MARKS[result]}" for mine, theirs, result in throws]
    shown: list[str] = []
    for token in reversed(tokens):
        cut = len(shown) + 1 < len(tokens)
        if cell_len(head + ("… " if cut else "") + " ".join([token, *shown])) > width:
            break
        shown.insert(0, token)
    return head + ("… " if len(shown) < len(tokens) else "") + " ".join(shown)


def prompt(view: RpsScreenView) -> str:
    """Above the three throws: which throw it is and who has chosen."""
    if not view.playing:
        return "The match is over." if view.result else "Your throws, once the game starts:"
    if view.chosen is not None:
        return f"Throw {view.throw} · " + ("both have chosen: revealing…" if view.opponent_chosen
                                            else f"you chose {view.chosen}")
    if view.opponent_chosen:
        return f"Throw {view.throw} · {view.opponent_name} has chosen"
    return f"Throw {view.throw} · nobody has chosen yet"


def hint(view: RpsScreenView) -> str:
    """What the player can do now, in one line."""
    if view.my_turn:
        if view.throws and view.throws[-1][2] == "equal":
            return "Equal, so throw again: r rock, p paper, s scissors"
        return "r rock, p paper, s scissors, or click one"
    if view.chosen is not None:
        return f"{view.chosen.capitalize()} stays hidden until {view.opponent_name} has chosen too"
    return ""


# -- this game's side of the app (imports the table when called) -------------------------------------------


def view(seat: Seat) -> RpsScreenView:
    """What the rock-paper-scissors table shows of ``seat`` now."""
    from .viewmodel import fields_of, seat_view

    base = seat_view(seat)
    board: RpsView | None = base.board
    me = max(seat.table.me, 0)  # a watcher sees the match from seat 1's side
    other = 1 - me
    throws: tuple[tuple[str, str, str], ...] = ()
    if board is not None:
        throws = tuple((t.values[me], t.values[other], "equal" if t.winner is None else
                        "won" if t.winner == me else "lost") for t in board.throws)
        if throws:  # a revealed throw is this game's move: it also ends a refusal shown in the status bar
            said = base.last_move if throws[-1][1] == UNTHROWN else \
                f"throw {len(throws)}: {base.names[other]} threw {throws[-1][1]}"  # a time out: the table's words
            base = dataclasses.replace(base, last_move=said, moves=len(throws))
    shown = board is not None and base.number == seat.table.play.number  # not a finished game kept on screen
    chosen, opponent_chosen = seat.table.my_choice() if shown else (None, False)
    refusal = seat.table.choice_refusal()
    return RpsScreenView(
        **fields_of(dataclasses.replace(base, my_turn=refusal is None)),
        throws=throws,
        scores=(board.scores[me], board.scores[other]) if board else (0, 0),
        target=board.target if board else 3,
        throw=board.number if board else 0,
        chosen=chosen,
        opponent_chosen=opponent_chosen,
        throw_refusal=refusal,
    )


UI = GameUI(title="rock-paper-scissors", rules=HELP, keys=KEY_HELP, screen=RpsTable, view=view)
