"""Texas Hold'em's table: every seat (name, chips, bet, button, cards, markers), the board and the pots; the betting keys.

``f`` folds, ``c`` checks or calls, ``a`` goes all in, ``r`` opens the raise:
←/→ change the amount by a big blind, ↑/↓ by ten, digits type it, ``h`` half
the pot, ``p`` the pot, ``a`` all in, Enter sends it, Esc puts it away. Every
cue has a word or a glyph beside its style, so ``NO_COLOR=1`` loses nothing:
"▶" and "to act" for the seat to act, "D" for the button, "folded", "all in",
"out". From 100x34 up the board and my hole cards are drawn as cards too, as
big as on the other tables.

``view(seat)`` is this game's side of the app: it builds the screen's
:class:`HoldemScreenView` with the moves it offers and the table's refusal
of each; it imports the game when called, so that this module stays as light
as the screen. The table judges every move again.
"""

from __future__ import annotations

import dataclasses

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid
from textual.reactive import reactive
from textual.widgets import Static

from games.cards import Card
from games.holdem.about import Stage

from .table_screen import GameUI, MakeMove, TableScreen, capitalized
from .view import SeatView
from .widgets import (CardWidget, ProgressBox, back_rows, card_size, cell, empty_rows, face_rows, fan, fit, show_text,
                      word_lines)

if TYPE_CHECKING:
    from games.holdem.moves import HoldemView, Player
    from tabletop.shell import Seat
    from tabletop.wire import Message as Move

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
GLUE = "\u00a0"  # a space the last-hand panel never breaks a line at (shown as a space)
SEP = GLUE + "· "  # a separator between phrases, which stays on the line of the words before it
RED = {"d", "h"}
SPARKS = "▁▂▃▄▅▆▇█"

# The rules and the cues (HELP) and a player's keys (KEY_HELP), in markup: the help page (table_screen.help_page
# adds the log's keys and the safety number; a watcher's has its own keys). A paragraph is one line (a "\" at a
# line's end joins the next), wrapped to the screen; a row of keys or cues fits 52 columns, the help's width at 60.
HELP = """\
[b]No-limit Texas Hold'em[/b], a sit-and-go: everyone starts with the \
same chips; the blinds double every 10 hands. Two hole cards each, \
five on the board; the best five of seven win. The minimum raise is \
the last bet or raise; all-ins make side pots. At showdown the last \
bettor shows first (else the first seat left of the button). Your \
hand is shown for you when it wins or ties a pot, is the first, or a \
player is all in (TDA rule 16: every hand is shown); a hand that \
loses every pot to one shown may be mucked. The game ends when one \
player has every chip, or after the last hand: the chip leader wins.

[b]Cues[/b]  ▶ to act (reversed)   D the button
      folded · all in · out
      ▚▞ a card you cannot see
      bet: chips in front this street

[b]Secrecy[/b]  Your hole cards are shown to you alone, the board to \
everyone, and at showdown only the hands shown. A folded or mucked \
hand is never shown to anyone, not even after the game: every shuffle \
is proven as it is made, so nothing is published at the end."""

KEY_HELP = """\
[b]Keys[/b]  f fold   c check/call   a all in   r raise:
        ← → ±1 big blind   ↑ ↓ ±10 big blinds
        digits type it   ⌫ deletes
        h ½ pot   p pot   a all in
        Enter send   Esc cancel
      at showdown, a hand that loses every pot:
        c shows   f mucks
      n rematch   q quit"""


@dataclass(frozen=True)
class HoldemScreenView(SeatView["HoldemView"]):
    """Hold'em's screen: the table's view, the betting moves it offers and the table's refusal of each."""

    fold: Move | None = None
    fold_refusal: str | None = "the game is not under way"
    call: Move | None = None  # a check, or a call
    call_refusal: str | None = "the game is not under way"
    all_in: Move | None = None  # the raise to all my chips, or a call of all of them
    all_in_refusal: str | None = "the game is not under way"
    raise_refusal: str | None = "the game is not under way"  # the refusal of the smallest raise
    raising: Callable[[int], Move] | None = field(default=None, compare=False, repr=False)  # a raise to an amount
    refusal_of: Callable[[Move], str | None] = field(default=lambda move: "the game is not under way",
                                                     compare=False, repr=False)


# -- words and cards ----------------------------------------------------------------------------------------


def card(text: str | None) -> Text:
    """A card: "A♠", red suits in red (the suit's glyph says it without colour); "▚▞" for one I cannot see."""
    if text is None:
        return Text("▚▞", "dim")
    rank = "10" if text[0] == "T" else text[0]
    return Text(rank + SUITS[text[1]], "bold red" if text[1] in RED else "bold")


def cards(texts: Sequence[str | None], slots: int = 0) -> Text:
    """Cards side by side, and "··" for each of ``slots`` not dealt yet."""
    line = Text()
    for text in texts:
        line.append_text(card(text))
        line.append(" ")
    for _ in range(slots - len(texts)):
        line.append("·· ", "dim")
    line.rstrip()
    return line


class CardRow(CardWidget):
    """Cards side by side, as big as the screen has room for: each face up (None: one I cannot see), then an
    outline for each of ``slots`` not dealt yet."""

    shown: reactive[tuple[str | None, ...]] = reactive(())
    slots: reactive[int] = reactive(0)

    def render(self) -> Text:
        rows = [back_rows(self.scale) if text is None else face_rows(
            Card("10" if text[0] == "T" else text[0], SUITS[text[1]]), "white", self.scale) for text in self.shown]
        rows += [empty_rows(self.scale)] * (self.slots - len(self.shown))
        return fan(rows, [card_size(self.scale)[0] + 1] * len(rows), scale=self.scale)


def name(view: HoldemScreenView, seat: int) -> str:
    return "You" if seat == view.me else view.names[seat]


def markers(player: Player, board: HoldemView) -> list[str]:
    """What a seat is, in words: "to act", "folded", "all in", "out"."""
    if not player.dealt:
        return ["out"]
    words = []
    if player.seat == board.to_move and board.stage is Stage.BETTING:
        words.append("to act")
    if player.folded or player.mucked:
        words.append("mucked" if player.mucked else "folded")
    if player.all_in:
        words.append("all in")
    return words


SHORT_ACTIONS = {"Small blind": "SB", "Big blind": "BB", "Raised to": "Raise", "Called": "Call", "Checked": "Check"}


def short_action(action: str) -> str:
    """A seat's last action in a poker table's shorthand, for a narrow seat: "Raised to 50" is "Raise 50"."""
    for words, short in SHORT_ACTIONS.items():
        if action.startswith(words):
            return short + action[len(words):]
    return action


def seat_text(view: HoldemScreenView, seat: int, width: int) -> Text:
    """A seat's three lines: "▶ bo D", "980 · bet 20", its cards and markers."""
    board = view.board
    assert board is not None
    player = board.players[seat]
    acting = player.seat == board.to_move and view.playing
    top = Text(no_wrap=True, overflow="ellipsis")
    top.append("▶ " if acting else "  ", "bold")
    top.append(name(view, seat), "reverse bold" if acting else "bold")
    if seat == board.button:
        top.append(" D", "bold")
    doing = player.action or (f"bet {player.bet:,}" if player.bet else "")
    stack = f"  {player.chips:,}" + (f" · {doing}" if doing else "")
    if len(stack) > width:  # a narrow seat keeps the amount: "950 · Raise 50", not "950 · Raised to …"
        stack = f"  {player.chips:,} · {short_action(doing)}"
    middle = Text(stack, no_wrap=True, overflow="ellipsis")
    bottom = Text("  ", no_wrap=True, overflow="ellipsis")
    if player.dealt and not player.folded and not player.mucked:
        bottom.append_text(cards(player.hole))
    words = markers(player, board)
    if words:
        bottom.append(("  " if len(bottom) > 2 else "") + " · ".join(words), "italic")
    for line in (top, middle, bottom):  # each line cut to the seat's width, never wrapped
        line.truncate(width, overflow="ellipsis")
    return Text("\n", no_wrap=True).join([top, middle, bottom])


def pots_line(view: HoldemScreenView) -> str:
    """ "Pot 180" (every chip in the middle); with side pots each pot and who may win it, and the bets of this
    street: "Main pot 420 (ana, bo, cy) · side pot 200 (bo, cy) · bets 60"."""
    board = view.board
    if board is None:
        return ""
    if len(board.pots) < 2:
        return f"Pot {board.total:,}"
    parts = [f"{'Main pot' if k == 0 else 'side pot' if len(board.pots) == 2 else f'side pot {k}'} {amount:,} "
             f"({', '.join(name(view, s) for s in seats)})" for k, (amount, seats) in enumerate(board.pots)]
    bets = board.total - sum(amount for amount, _ in board.pots)
    return " · ".join(parts + ([f"bets {bets:,}"] if bets else []))


def spark(values: Sequence[int], top: int) -> str:
    """A chip graph in one line: a block per hand, as high as the chips."""
    return "".join(SPARKS[min(len(SPARKS) - 1, value * len(SPARKS) // (top + 1))] for value in values)


def plain_cards(texts: Sequence[str]) -> str:
    return " ".join(card(text).plain for text in texts)


def last_hands(view: HoldemScreenView, width: int) -> list[list[str]]:
    """The hands finished since my last decision (the last one at least), while the next is played, so that one
    ended before my turn came does not hide another, each as its lines: one for a hand nobody had to show (or a void
    one); after a showdown, every hand shown with its name and what it won, who mucked, the pots and an uncalled bet
    returned. A line too long for ``width`` goes on under its own start, broken between words."""
    board = view.board
    if board is None:
        return []
    words = [name(view, s).lower() if s == view.me else view.names[s] for s in range(len(view.names))]
    hands = []
    for last, said in board.recent:
        if not last.shown:
            hands.append(hanging("", capitalized(said.format(*words)), width))
            continue
        lines = hanging("", f"Hand {last.number} on {plain_cards(last.board)}:", width)
        column = min(max(cell_len(name(view, shown.seat)) for shown in last.shown), 14)
        for shown in last.shown:
            took = last.took(shown.seat)
            who = cell(name(view, shown.seat), column).plain  # cut, it says so: "Ana-Maria_Łop…"
            lines += hanging(f"  {who}{' ' * (column - cell_len(who))}  {plain_cards(shown.cards)}  ",
                             shown.name + (f"{SEP}won{GLUE}{took:,}" if took else ""), width)
        lines += [f"  {name(view, seat)} mucked" for seat in last.mucked]
        if last.pots:
            lines += hanging("  ", SEP.join(
                f"{'Main pot' if k == 0 else 'side pot' if len(last.pots) == 2 else f'side pot {k}'} {amount:,} to "
                + " and ".join(words[seat] for seat, _ in winners) for k, (amount, winners) in enumerate(last.pots)),
                width)
        lines += [line for seat, amount in last.returned
                  for line in hanging("  ", f"{amount:,} uncalled returned to {words[seat]}", width)]
        hands.append(lines)
    return hands


def hanging(first: str, text: str, width: int) -> list[str]:
    """``first`` then ``text`` broken between words into ``width`` columns, every further line under the start of
    ``text`` (two columns in when ``first`` is empty or leaves too little room); never at a :data:`GLUE`, so that a
    separator stays with the words before it and "won 40" on one line."""
    indent = cell_len(first) if first and width - cell_len(first) >= 16 else 2
    head = word_lines(text, max(width - cell_len(first), 1))[0]  # word_lines breaks only: head starts text
    rest = text[len(head):].lstrip(" ")
    lines = [first + head, *(" " * indent + line for line in (word_lines(rest, max(width - indent, 1)) if rest else []))]
    return [line.replace(GLUE, " ") for line in lines]


def info(view: HoldemScreenView, width: int, rows: int | None = None) -> str:
    """The hand and the blinds, the last hands (:func:`last_hands`); at the end of the game a chip graph of every
    player. In ``rows`` lines if given: the oldest hands go first (the newest is what the player has not read)."""
    board = view.board
    if board is None:
        return ""
    small, big = board.blinds
    graph = []
    if board.over and board.history:
        top = max(max(chips) for chips in board.history)
        room = max(width - 20, 5)
        for seat in range(len(view.names)):
            series = [chips[seat] for chips in board.history][-room:]
            graph.append(f"{fit(Text(name(view, seat)), Text(), 10).plain} {spark(series, top)} {series[-1]:,}")
    hands = last_hands(view, width)
    while rows is not None and len(hands) > 1 and 1 + sum(map(len, hands)) + len(graph) > rows:
        hands.pop(0)
    return "\n".join([f"Hand {board.hand} of {board.hands} · blinds {small}/{big}", *(line for hand in hands for line in hand), *graph])


def amounts(view: HoldemScreenView) -> tuple[int, int] | None:
    """The smallest and largest raise now (the view's bounds), None when the betting is closed to raises."""
    return view.board.raise_bounds if view.board is not None else None


def hint(view: HoldemScreenView, amount: int | None) -> str:
    """What the player can do now, in one line."""
    board = view.board
    if board is None or not view.my_turn:
        return ""
    if board.stage is Stage.SHOWDOWN:  # only a hand that loses every pot waits for me (showing)
        return "Your hand loses every pot · c shows · f mucks (gives up nothing it could win)"
    bounds = amounts(view)
    if amount is not None and bounds is not None:
        least, most = bounds
        verb = "Bet" if board.opening else "Raise to"
        return f"{verb} {amount:,} · min {least:,} max {most:,} · ←→↑↓ 0-9 h p a · Enter sends"
    call = f"f folds · c calls {min(board.to_call, board.players[view.me].chips):,}" if board.to_call \
        else "c checks"  # with nothing to call there is nothing to fold
    if bounds is None:  # the betting is closed to raises (or I cannot cover the call): no all in beyond a call
        return call
    raise_ = f" · r {'bets' if board.opening else 'raises'} ({bounds[0]:,}–{bounds[1]:,})"
    return f"{call}{raise_} · a all in"


# -- the screen -------------------------------------------------------------------------------------------


AT_SHOWDOWN = {"muck": "fold", "show": "call"}  # the showdown's keys, and the move each makes


class HoldemTable(TableScreen[HoldemScreenView]):
    """Hold'em's board: the seats, the board and the pots, the hand and the blinds."""

    CSS_PATH = "holdem.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "muck", "Muck"),  # at showdown the same keys give up or show my hand
        Binding("c", "show", "Show"),
        Binding("f", "fold", "Fold"),
        Binding("c", "call", "Check/Call"),
        Binding("r", "raise", "Raise"),
        Binding("a", "all_in", "All in"),
        Binding("enter", "send", "Send"),  # the raise (the hint says so): the footer fits 60 columns
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("left", "step(-1)", show=False),
        Binding("right", "step(1)", show=False),
        Binding("down", "step(-10)", show=False),
        Binding("up", "step(10)", show=False),
        Binding("h", "share(0.5)", "½ pot", show=False),
        Binding("p", "share(1)", "Pot", show=False),
        Binding("backspace", "digit(-1)", show=False),
        *(Binding(str(n), f"digit({n})", show=False) for n in range(10)),
        # The same keys while what they do is refused (greyed out above): say why instead of doing nothing.
        Binding("f", "refuse('fold')", show=False),
        Binding("c", "refuse('call')", show=False),
        Binding("r", "refuse('raise')", show=False),
        Binding("a", "refuse('all_in')", show=False),
        Binding("enter", "refuse('send')", show=False),
        *(Binding(key, "refuse('amount')", show=False) for key in ("h", "p", "left", "right", "up", "down")),
        *(Binding(str(n), "refuse('amount')", show=False) for n in range(10)),
    ]
    actions = ("fold", "call", "raise", "all_in", "send", "step", "share", "digit", "rematch")

    def __init__(self, leave_grace: float, resumes: bool = True, computers: bool = False) -> None:
        super().__init__(leave_grace, resumes, computers)
        self.amount: int | None = None  # the raise being chosen, None when no raise is open
        self.typed = False  # the amount was typed: the next digit goes on its end
        self.seats_shown = 0

    def compose_board(self) -> ComposeResult:
        yield Grid(id="seats")
        yield Static("Board", classes="art label", markup=False)
        yield CardRow(id="board-cards", classes="art")
        yield Static("Your hand", id="hole-label", classes="art label", markup=False)
        yield CardRow(id="hole-cards", classes="art")
        yield Static("", id="board", markup=False)
        yield Static("", id="pots", markup=False)
        yield Static("", id="info", markup=False)
        yield ProgressBox(id="progress-box")

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self.set_class(event.size.width < 90, "-narrow")
        if self.view is not None:
            self.call_after_refresh(self.show_board, self.view)

    def show_board(self, view: HoldemScreenView) -> None:
        seats = len(view.names)
        grid = self.query_one("#seats", Grid)
        if seats != self.seats_shown:
            self.seats_shown = seats
            grid.remove_children()
            grid.mount_all(Static("", classes="seat", markup=False) for _ in range(seats))
            self.call_after_refresh(self.show_board, view)
            return
        board = view.board
        if board is None or not board.my_turn or board.raise_bounds is None:
            self.amount = None
        for seat, widget in enumerate(self.query(".seat").results(Static)):
            order = (max(view.me, 0) + seat) % seats  # I sit first, the others round the table after me (a
            # watcher, of no seat, sees seat 1 first)
            widget.set_class(board is not None and order == board.to_move, "-acting")
            show_text(widget, seat_text(view, order, widget.size.width or 20) if board is not None else
                      Text(name(view, order), "bold"))
        shown = self.query_one("#board-cards", CardRow)
        shown.shown, shown.slots = (tuple(board.board), 5) if board is not None else ((), 5)
        hole = board.players[view.near].hole if board is not None and board.players[view.near].dealt else ()
        self.query_one("#hole-cards", CardRow).shown = tuple(hole)
        show_text(self.query_one("#hole-label", Static), f"{view.your} hand")  # a watcher's: "ana's hand"
        community = Text("Board  ")
        community.append_text(cards(board.board, 5) if board is not None else Text(""))
        show_text(self.query_one("#board", Static), community)
        show_text(self.query_one("#pots", Static), pots_line(view))
        panel = self.query_one("#info", Static)
        show_text(panel, info(view, panel.size.width or 40, self.info_rows(panel)))
        self.query_one(ProgressBox).show(view.progress)

    def info_rows(self, panel: Static) -> int | None:
        """The rows the board leaves the last-hand panel (None before the first layout)."""
        play = self.query_one("#play")
        if not play.content_region.height:
            return None
        used = sum(child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
                   for child in play.children if child.display and child is not panel)
        return play.content_region.height - used - panel.styles.margin.top

    # -- keys -------------------------------------------------------------------------------------------

    def post(self, move: Move | None, refusal: str | None) -> None:
        if move is None or refusal is not None:
            self.notice(refusal or "")
            return
        self.amount = None
        self.post_message(MakeMove(move))

    def action_fold(self) -> None:
        if self.view is not None:
            self.post(self.view.fold, self.view.fold_refusal)

    def action_call(self) -> None:
        if self.view is not None:
            self.post(self.view.call, self.view.call_refusal)

    def action_muck(self) -> None:
        self.action_fold()

    def action_show(self) -> None:
        self.action_call()

    def action_all_in(self) -> None:
        if self.view is None:
            return
        if self.amount is not None and (bounds := amounts(self.view)) is not None:
            self.set_amount(bounds[1])
            return
        self.post(self.view.all_in, self.view.all_in_refusal)

    def action_raise(self) -> None:
        bounds = amounts(self.view) if self.view is not None else None
        if bounds is not None:
            self.set_amount(bounds[0])

    def set_amount(self, amount: int, typed: bool = False) -> None:
        bounds = amounts(self.view) if self.view is not None else None
        if bounds is None or self.view is None:
            return
        least, most = bounds
        self.amount, self.typed = (amount if typed else max(least, min(most, amount))), typed
        self.update(self.view)
        self.refresh_bindings()

    def action_step(self, big_blinds: int) -> None:
        if self.amount is not None and self.view is not None and self.view.board is not None:
            self.set_amount(self.amount + big_blinds * self.view.board.blinds[1])

    def action_share(self, fraction: float) -> None:
        board = self.view.board if self.view is not None else None
        if self.amount is not None and board is not None and board.raise_bounds is not None:
            self.set_amount(board.pot_raise(fraction))

    def action_digit(self, digit: int) -> None:
        if self.amount is None:
            return
        text = str(self.amount) if self.typed or digit < 0 else ""  # ⌫ on a preset edits it, a digit replaces it
        text = text[:-1] if digit < 0 else (text + str(digit))[:12]
        self.set_amount(int(text or 0), typed=True)

    def action_send(self) -> None:
        view = self.view
        if view is None or self.amount is None or view.raising is None:
            return
        move = view.raising(self.amount)
        self.post(move, view.refusal_of(move))

    def action_cancel(self) -> None:
        if self.amount is not None and self.view is not None:
            self.amount = None
            self.update(self.view)
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in AT_SHOWDOWN or action in AT_SHOWDOWN.values():
            board = self.view.board if self.view is not None else None
            if (action in AT_SHOWDOWN) != (board is not None and board.stage is Stage.SHOWDOWN):
                return False  # the footer names what f and c do now
            action = AT_SHOWDOWN.get(action, action)
        if action == "raise" and self.amount is not None:
            return False  # open already: the footer's room is the editor's keys (r again would only reset it)
        if action in ("send", "step", "share", "digit", "cancel"):
            return self.amount is not None and super().check_action("raise" if action == "cancel" else action,
                                                                    parameters)
        if action == "refuse" and parameters and parameters[0] in ("send", "amount"):
            return self.amount is None and self.view is not None
        return super().check_action(action, parameters)

    # -- words ------------------------------------------------------------------------------------------------

    def hint(self, view: HoldemScreenView) -> str:
        return hint(view, self.amount)

    def refusal(self, view: HoldemScreenView, action: str, index: int | None = None) -> str | None:
        if action in ("send", "amount"):
            return None if self.amount is not None else "press r to raise first" if view.raise_refusal is None \
                else view.raise_refusal
        if action in ("step", "share", "digit"):
            return None if self.amount is not None else "press r to raise first"
        return {"fold": view.fold_refusal, "call": view.call_refusal, "raise": view.raise_refusal,
                "all_in": view.all_in_refusal}.get(action, super().refusal(view, action, index))


# -- this game's side of the app (imports the table when called) -------------------------------------------


def view(seat: Seat) -> HoldemScreenView:
    """What the Hold'em table shows of ``seat`` now, with the moves it offers; between hands, the new hand's seats
    while its deck is shuffled."""
    from games.holdem.moves import Call, Check, Fold, Muck, Raise, Show

    from .viewmodel import fields_of, seat_view_between_deals

    base = seat_view_between_deals(seat)
    board: HoldemView | None = base.board
    if board is None or not (board.stage is Stage.BETTING or showing(board)):
        base = dataclasses.replace(base, my_turn=False)  # the board and a hand that is shown for me: the table's
    fields = fields_of(base)
    if board is None:
        return HoldemScreenView(**fields, refusal_of=seat.refusal)
    me = board.players[seat.table.me]
    if showing(board):  # my hand loses every pot: c shows it, f mucks it
        shown, muck = Show(positions=list(me.positions)), Muck()
        return HoldemScreenView(**fields, fold=muck, fold_refusal=seat.refusal(muck), call=shown,
                                call_refusal=seat.refusal(shown), raise_refusal="it is the showdown: c shows, f mucks",
                                all_in_refusal="it is the showdown: c shows, f mucks", refusal_of=seat.refusal)
    call = Call() if board.to_call else Check()
    least = Raise(to=board.raise_bounds[0]) if board.raise_bounds else None
    shove = Raise(to=board.raise_bounds[1]) if board.raise_bounds else None
    fold = Fold()
    closed = "the betting is closed to raises: c calls" + (" (all in)" if board.to_call >= me.chips else "") \
        if board.to_call else f"you have {me.chips:,} chips behind and nothing to call: check"
    return HoldemScreenView(
        **fields, fold=fold, fold_refusal=seat.refusal(fold), call=call, call_refusal=seat.refusal(call),
        all_in=shove, all_in_refusal=seat.refusal(shove) if shove else seat.refusal(call) or closed,
        raise_refusal=seat.refusal(least) if least else seat.refusal(call) or
        "the betting is closed to raises: call or fold", raising=lambda to: Raise(to=to), refusal_of=seat.refusal)


def showing(board: HoldemView) -> bool:
    """The showdown waits for my choice: my hand loses every pot it is in to a hand shown, and may be mucked
    (``HoldemView.beaten``). Any other hand of mine is shown for me, with no key to press (the game's ``owed``)."""
    return board.stage is Stage.SHOWDOWN and board.my_turn and board.beaten


UI = GameUI(title="Texas Hold'em", rules=HELP, keys=KEY_HELP, screen=HoldemTable, view=view)
