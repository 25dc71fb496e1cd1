"""A seat in the screen's terms: the fields every game's screen shows, from a Seat and its table's view.

Each game's screen module (discard_tui/discard_screen.py, …) starts from
:func:`seat_view` (typed: a field read or changed by a wrong name is mypy's
error) and adds its own fields with :func:`fields_of`; this module is imported
with the table, after the first frame.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tabletop.shell import Seat
from tabletop.table import TableView

from .view import SeatView


def seat_view(seat: Seat, view: TableView | None = None) -> SeatView[Any]:
    """What every game's screen shows of ``seat`` now."""
    table = seat.table
    view = view or table.view()
    return SeatView(
        phase=view.phase,
        number=view.number,
        me=table.me,
        names=tuple(name if s in table.names else "opponent" for s, name in enumerate(view.names)),
        present=view.present,
        my_turn=view.my_turn,
        log=view.log,
        progress=view.progress,
        link=seat.ledger.link,
        result=view.result,
        verdict=view.verdict,
        problem=view.problem,
        failure=seat.failure,
        transcript=str(seat.transcript_path) if seat.transcript_path else None,
        rematch_offered=view.rematch_offered,
        waiting_since=seat.last_progress if view.awaiting else None,
        moves=view.moves,
        board=view.board,
        last_move=view.last_move,
        ending=view.ending,
        wins=view.wins,
        safety=view.safety,
        replaying=seat.replaying,
        left_at=tuple(table.left_at.get(s) if table.in_game(s) else None for s in range(view.seats)),  # the
        # absence of a seat out of the game (a Hold'em player with no chips) holds nothing up: no trouble, no offer
        link_since=seat.link_since,
        seat_lost=seat.seat_lost,
        store_full=seat.store_full,
        rematch_refusal=table.rematch_refusal(),
        named=tuple(s in table.names for s in range(view.seats)),
        clock=view.clock,
        relay_offset=seat.seen[0] - seat.seen[1] if seat.seen is not None else None,
        history=str(history) if (history := seat.histories.get(view.number)) else None,
        watching=view.watching,
        out=table.me >= 0 and not table.in_game(table.me),
        awaited=tuple(dict.fromkeys(a.seat for a in view.awaiting if a.seat != table.me)),
        owed=tuple(a for a in view.awaiting if a.seat != table.me),
    )


def seat_view_between_deals(seat: Seat) -> SeatView[Any]:
    """:func:`seat_view` for a game of several deals (rounds, hands): while the table shows no board because the next
    deal's deck is being shuffled, the game's own state as this seat sees it, so that the table stays on screen."""
    base = seat_view(seat)
    play = seat.table.play
    if base.board is None and play.state is not None and base.number == play.number:
        return dataclasses.replace(base, board=play.state.view(seat.table.me))
    return base


def fields_of(view: SeatView[Any]) -> dict[str, Any]:
    """The fields of ``view``, to build a game's screen view on it: ``DiscardScreenView(**fields_of(base), …)``."""
    return {field.name: getattr(view, field.name) for field in dataclasses.fields(view)}


def room_choices(seat: Seat) -> tuple[str, dict[str, Any]] | None:
    """Who opened the room and which of its options differ from what I asked for (they are played here)."""
    table = seat.table
    play = table.play
    if table.me == 0 or play.options is None or 0 not in play.hellos:
        return None
    theirs = play.options.model_dump(mode="json")
    changed = {key: value for key, value in theirs.items()
               if key in table.wish.options and table.wish.options[key] != value}
    return (table.name(0), changed) if changed else None
