"""The discard screen's view of a seat: the table's view and the game's, in the screen's terms.

The app draws ``GameView`` (discard_tui/view.py); this builds it from a
:class:`~tabletop.shell.Seat` (the shell's link, times and files) and its
table's pure :class:`~tabletop.table.TableView`. It also turns the screen's
intents (the n-th card of my hand, the draw pile) into discard's moves.
"""

from __future__ import annotations

from games.discard.game import DiscardCard, DiscardView, Draw
from tabletop.shell import Seat
from tabletop.table import Phase as TablePhase

from .view import GameView, Phase

PHASES = {
    TablePhase.WAITING: Phase.WAITING, TablePhase.STARTING: Phase.FLIPPING, TablePhase.SHUFFLING: Phase.SHUFFLING,
    TablePhase.DEALING: Phase.DEALING, TablePhase.PLAYING: Phase.PLAYING, TablePhase.AUDITING: Phase.AUDITING,
    TablePhase.OVER: Phase.OVER, TablePhase.VIOLATION: Phase.VIOLATION,
}


def game_view(seat: Seat) -> GameView:
    """What the discard table shows of ``seat`` now."""
    table = seat.table
    view = table.view()
    me, opponent = table.me, 1 - table.me
    board: DiscardView | None = view.board
    play = table.play
    deck = "full" if play.options is None else play.options.deck
    size = board.deck_size if board else (52 if deck == "full" else 24)
    opened_by = 0 if play.hellos.get(0) else None
    return GameView(
        phase=Phase.FAILED if seat.failure else PHASES[view.phase],
        game=view.game,
        my_name=view.names[me],
        opponent_name=view.names[opponent] if opponent in table.names else "opponent",
        opponent_present=view.present[opponent],
        my_turn=view.my_turn,
        hand=tuple(card for _, card in board.hand) if board else (),
        playable=board.playable if board else (),
        opponent_hand=board.hand_sizes[opponent] if board else 0,
        draw_pile=board.draw_pile if board else size,
        discard_top=board.top if board else None,
        discard_count=board.discard_count if board else 0,
        log=view.log,
        progress=view.progress,
        link=seat.ledger.link,
        result=view.result,
        verdict=view.verdict,
        problem=seat.failure or view.problem,
        transcript=str(seat.transcript_path) if seat.transcript_path else None,
        rematch_offered=view.rematch_offered,
        waiting_since=seat.last_progress if view.awaiting else None,
        deck_size=size,
        moves=view.moves,
        last_move=view.last_move,
        score=(view.wins[me], view.wins[opponent]),
        safety=view.safety,
        replaying=seat.replaying,
        opponent_left_at=table.left_at.get(opponent),
        link_since=seat.link_since,
        deck_chosen_by=view.names[0] if opened_by is not None and me != 0
        and table.wish.options.get("deck", "full") != deck else None,
        seat_lost=seat.seat_lost,
        draw_refusal=draw_refusal(seat, board),
        rematch_refusal=table.rematch_refusal(),
    )


def draw_refusal(seat: Seat, board: DiscardView | None) -> str | None:
    if board is None or board.draw_top is None:
        return "the draw pile is empty" if board is not None else "the game is not under way"
    if seat.outbox is not None:
        return "your last move is still on its way"
    return seat.table.refusal(Draw(pos=board.draw_top))


async def discard(seat: Seat, index: int) -> str | None:
    """Discard the ``index``-th card of my hand as the screen shows it; the reason it is refused, or None."""
    board = seat.table.view().board
    if board is None or not 0 <= index < len(board.hand):
        return "no such card in your hand"
    return await seat.move(DiscardCard(pos=board.hand[index][0]))


async def draw(seat: Seat) -> str | None:
    board = seat.table.view().board
    if board is None or board.draw_top is None:
        return draw_refusal(seat, board)
    return await seat.move(Draw(pos=board.draw_top))
