"""Hold'em hands as a Poker Hand History: the PHH format (https://phh.readthedocs.io), which PokerKit reads.

One TOML table per finished hand, ``[game1-hand3]``: the fields PHH requires for
no-limit Hold'em (``variant = "NT"``, antes, blinds, the minimum bet, the
starting stacks and the actions in PHH's notation: ``d dh p1 ????`` deals hole
cards, ``d db Jc8d4s`` the board, ``p2 cbr 60`` bets or raises to 60, ``p3 cc``
checks or calls, ``p1 f`` folds, ``p2 sm AsKd`` shows and ``p2 sm`` mucks),
and its optional ones (hand, level, seats, players, finishing stacks,
winnings). PHH's players are in PokerKit's order, the first seat left of the
button first, as the table deals them (``rules.Hand``); ``_button`` is the
seat with the button, dead or not. TOML comments, which every reader skips,
say the same for a person: each seat, its stack and blind, each action in
words, the streets, and who won what.

A move the table made for a seat whose time ran out is the move it is
(``p2 f``), its comment saying so ("bo's time ran out: folded"). A hand that
was void (a seat's keys or shuffle step never came) has no table, since it
was never played to its end; a comment block in its place says so, with its
seats, its actions until then and what became of the chips.

Only what the seat that keeps it saw: its own hole cards, the board and the
hands shown at showdown; every other hole card is ``????``. Names are written
as TOML basic strings (JSON's escapes), so that no name can end a string or a
comment; they are printable (the relay's and the table's rule), so no name
ends a line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pokerkit import BlindOrStraddlePosting

from tabletop.wire import Message

from .moves import Board, Call, Check, Fold, LastHand, Muck, Raise, Show
from .rules import DOUBLING, STREETS, Hand, cards_text


@dataclass(frozen=True)
class Played:
    """A finished hand: its PokerKit hand, every move made in it with its words, and how it ended (in the log's
    words, seats as {0}, {1}…)."""

    hand: Hand
    moves: tuple[tuple[int, Message, str], ...]  # (seat, move, the move in words, after the mover's name)
    last: LastHand
    result: str
    late: frozenset[int] = frozenset()  # the moves (indices of ``moves``) the table made for a seat out of time


@dataclass(frozen=True)
class Voided:
    """A hand that was void: its PokerKit hand as it stood, the moves made in it, those the table made for a seat out
    of time, and what became of the chips: in the log's words for the history, and in fewer for the table's last-hand
    panel (seats as {0}, {1}…); ``last``: the hand as the panel lists it (nothing shown, nothing won)."""

    hand: Hand
    moves: tuple[tuple[int, Message, str], ...]
    late: frozenset[int]
    result: str
    said: str
    last: LastHand


def phhs(played: Sequence[Played], names: Sequence[str], faces: Mapping[int, str], me: int, number: int,
         room: str, ending: Sequence[str] = (), voided: Sequence[Voided] = ()) -> str:
    """Every hand of game ``number`` (a ``.phhs`` file: PHH's several hands), as seat ``me`` saw them, a void hand
    as a comment block in its place; ``ending``: how the game ended, a comment after the last hand."""
    seen = f", as {names[me]} saw it" if 0 <= me < len(names) else ""
    head = comment(f"discard: no-limit Texas Hold'em, game {number} in room {room}{seen}")
    hands: list[Played | Voided] = sorted([*played, *voided], key=lambda hand: hand.hand.number)
    blocks = [block(hand, names, faces, me, number, room) if isinstance(hand, Played) else
              void_block(hand, names, faces, me, number) for hand in hands]
    return "\n\n".join([head, *blocks, *(["\n".join(comment(line) for line in ending)] if ending else [])]) + "\n"


def block(played: Played, names: Sequence[str], faces: Mapping[int, str], me: int, number: int, room: str) -> str:
    """One hand as a PHH table."""
    h, last = played.hand, played.last
    small, big = h.blinds
    forced = [*(h.blinds if h.small_blind is not None else (big,))]
    forced += [0] * (len(h.players) - len(forced))
    lines = [f"[game{number}-hand{h.number + 1}]", *seating(h, names)]
    final = h.chips()
    event = f"discard Hold'em sit-and-go, game {number}"
    lines += [
        'variant = "NT"',
        f"antes = {[0] * len(h.players)}",
        f"blinds_or_straddles = {forced}",
        f"min_bet = {big}",
        f"starting_stacks = {list(h.stacks)}",
        "actions = [",
        *actions(h, played.moves, played.late, names, faces, me),
        "]",
        f"hand = {h.number + 1}",
        f"level = {h.number // DOUBLING + 1}",
        f"seats = {[seat + 1 for seat in h.players]}",
        f"seat_count = {len(names)}",
        f"table = {string(room)}",
        f"event = {string(event)}",
        f"players = [{', '.join(string(names[seat]) for seat in h.players)}]",
        f"finishing_stacks = {[final[seat] for seat in h.players]}",
        f"winnings = {[last.took(seat) for seat in h.players]}",
        f"_button = {h.button + 1}",
        comment(capitalized(played.result.format(*names))),
    ]
    return "\n".join(lines)


def void_block(void: Voided, names: Sequence[str], faces: Mapping[int, str], me: int, number: int) -> str:
    """A void hand as a comment block: no PHH table, since it was never played to its end."""
    h = void.hand
    lines = [f"[game{number}-hand{h.number + 1}] is void: no PHH table, since it was never played to its end",
             *(line.removeprefix("# ") for line in seating(h, names))]
    if void.moves:
        lines += ["Its actions until then:", *actions(h, void.moves, void.late, names, faces, me)]
    lines.append(void.result.format(*names))  # it starts with a name, written as its player chose it
    return "\n".join(comment(line) for line in lines)


def labels(h: Hand) -> dict[int, str]:
    """PHH's name of each player: p1, p2… in PokerKit's order."""
    return {seat: f"p{k}" for k, seat in enumerate(h.players, 1)}


def seating(h: Hand, names: Sequence[str]) -> list[str]:
    """The hand and its seats as comments: the blinds and the button, then each player's label, chips and role."""
    assert h.places is not None
    label = labels(h)
    small, big = h.blinds
    posted = {h.players[op.player_index]: int(op.amount) for op in h.poker.operations
              if isinstance(op, BlindOrStraddlePosting)}
    roles: dict[int, list[str]] = {seat: ["button"] if seat == h.button else [] for seat in h.players}
    for blind, seat in (("small blind", h.small_blind), ("big blind", h.places[2])):
        if seat in posted:
            roles[seat].append(f"{blind} {posted[seat]:,}")
    dead = "" if h.button in h.players else " (out: a dead button)"
    lines = [comment(f"Hand {h.number + 1} · blinds {small:,}/{big:,} · {names[h.button]} on the button{dead}")]
    return lines + [comment(f"{label[seat]} {names[seat]} (seat {seat + 1}): {stack:,} chips"
                            + "".join(f", {role}" for role in roles[seat]))
                    for seat, stack in zip(h.players, h.stacks, strict=True)]


def actions(h: Hand, moves: Sequence[tuple[int, Message, str]], late: frozenset[int], names: Sequence[str],
            faces: Mapping[int, str], me: int) -> list[str]:
    """The hand's actions in PHH's notation, one a line, each with its words (a move the table made for a seat out
    of time says so), and a comment before each street."""
    label = labels(h)
    lines = ["  # Pre-flop"]
    for seat in h.players:
        hole = [faces.get(pos) for pos in h.hole(seat)]
        known = seat == me and None not in hole
        lines.append(action(f"d dh {label[seat]} {''.join(card for card in hole if card) if known else '????'}",
                            f"dealt to {names[seat]}: {cards_text([c for c in hole if c])}" if known else ""))
    streets = iter(STREETS)
    shown = False
    for k, (seat, move, words) in enumerate(moves):
        said = f"{names[seat]}'s time ran out: {words}" if k in late else f"{names[seat]} {words}"
        if isinstance(move, Board):
            cards = [faces[pos] for pos in move.positions]
            lines += [f"  # {next(streets).capitalize()}", action(f"d db {''.join(cards)}", cards_text(cards))]
            continue
        if isinstance(move, (Show, Muck)) and not shown:
            shown = True
            lines.append("  # Showdown")
        if isinstance(move, Fold):
            notation = "f"
        elif isinstance(move, (Check, Call)):
            notation = "cc"
        elif isinstance(move, Raise):
            notation = f"cbr {move.to}"
        elif isinstance(move, Show):
            notation = "sm " + "".join(faces[pos] for pos in h.hole(seat))
        else:
            notation = "sm"
        lines.append(action(f"{label[seat]} {notation}", said))
    return lines


def action(notation: str, words: str) -> str:
    """One action of the array, its words as a comment after it."""
    return f"  {string(notation)}," + (f"  {comment(words)}" if words else "")


def capitalized(text: str) -> str:
    """ "Hand 3 on …", as a sentence starts."""
    return text[:1].upper() + text[1:]


def comment(text: str) -> str:
    """A TOML comment; ``text`` quoted if it is not printable (names are), so that nothing in it ends the line."""
    return f"# {text if text.isprintable() else string(text)}"


def string(text: str) -> str:
    """A TOML basic string: JSON's quoting and escapes are TOML's."""
    return json.dumps(text, ensure_ascii=False)
