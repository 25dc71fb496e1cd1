"""Cabo's table screen alone (tests/pilot.py's harness): no relay, no crypto, a view from the game's pure state."""

from __future__ import annotations

import dataclasses

from discard_tui.cabo_screen import CaboHand, CaboScreenView, CaboTable, seat_label
from tabletop.values import Phase
from discard_tui.widgets import DrawPile, StatusBar
from games.cabo.game import CaboOptions, CaboState
from games.cabo.rules import VALUES
from pilot import TableHarness, seat_view, text_of, until
from tabletop.game import Setup

NAMES = ("you", "Computer", "Computer 2", "Computer 3", "Computer 4")


def five_seats(phase: Phase) -> CaboScreenView:
    """A new round at a five-seat table, as seat 0 sees it, in ``phase``."""
    board = CaboState(Setup(5, 1, CaboOptions(), VALUES)).view(0)
    return seat_view(CaboScreenView, phase=phase, board=board, names=NAMES, present=(True,) * 5)


def test_a_name_too_long_for_its_seat_is_cut_in_its_middle_and_the_points_stay():
    view = five_seats(Phase.PLAYING)
    labels = [seat_label(view, seat, 16) for seat in range(2, 5)]
    assert labels == ["Comp…r 2 · 0 pts", "Comp…r 3 · 0 pts", "Comp…r 4 · 0 pts"]  # still three players
    assert seat_label(view, 1, 16) == "▶ Com…er · 0 pts"  # the turn marker stays whole
    assert seat_label(view, 1, 18) == "▶ Computer · 0 pts"  # it fits: uncut


async def test_while_a_round_is_shuffled_no_hand_is_dealt_and_the_deck_is_whole():
    app = TableHarness(CaboTable(30.0, resumes=True), five_seats(Phase.SHUFFLING))
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.table
        await until(pilot, lambda: screen.view is not None and screen.seats_shown == (1, 2, 3, 4), "the seats")
        screen.update(app.view)
        await pilot.pause()
        assert screen.query_one(DrawPile).count == 52
        assert text_of(screen, "#discard").count("Discard 0") == 1
        assert "(no cards)" in text_of(screen, "#hand")
        screen.update(five_seats(Phase.PLAYING))
        await pilot.pause()
        assert screen.query_one(DrawPile).count == 52 - 5 * 4 - 1  # dealt: four each, one turned up


async def test_in_a_crowded_seat_at_60_columns_every_card_of_a_hand_shows():
    """Four cards are one line of chips, "[▚▞] [▚▞] [▚▞] [▚▞]" (19 cells); a seat in the two-column grid has 18:
    the chips close up rather than lose the last card (at a round's end it is a value)."""
    app = TableHarness(CaboTable(30.0, resumes=True), five_seats(Phase.PLAYING))
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.table
        await until(pilot, lambda: screen.seats_shown == (1, 2, 3, 4), "the seats")
        screen.update(app.view)
        await pilot.pause()
        for hand in screen.query(CaboHand):
            if hand.id != "hand":
                line = hand.render().plain.rstrip()
                assert hand.compact and line.count("[") == 4 and len(line) <= hand.size.width, (line, hand.size)


async def test_a_round_s_end_shows_names_as_their_players_wrote_them_and_hands_of_any_length():
    """Round 1 ends (bo called cabo; a claim left one hand with one card, a penalty another with five): its line,
    the labels and the totals name players literally, markup and all."""
    names = ("you", "[b]bo[/b]", "cy")
    board = CaboState(Setup(3, 1, CaboOptions(), VALUES)).view(0)
    playing = seat_view(CaboScreenView, board=board, names=names, present=(True,) * 3)
    ended = dataclasses.replace(board, round=2, last_scores=(5, 7, 30), totals=(5, 7, 30), last_stopper=1,
                                showdown=((1, 4), (7,), (9, 0, 13, 8, 0)))
    app = TableHarness(CaboTable(30.0), playing)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.table
        await until(pilot, lambda: screen.seats_shown == (1, 2), "the seats")
        screen.update(dataclasses.replace(playing, board=ended, phase=Phase.SHUFFLING))
        await pilot.pause()
        assert screen.summary is not None
        assert text_of(screen, "#info").splitlines() == ["Round 1: [b]bo[/b] called cabo; you 5, [b]bo[/b] 7, cy 30",
                                                         "Totals: you 5 · [b]bo[/b] 7 · cy 30"]
        assert screen.query_one(StatusBar).event == "Round 1: [b]bo[/b] called cabo; you 5, [b]bo[/b] 7, cy 30"
        assert [label.render().plain for label in screen.query(".seat-label")] == \
            ["[b]bo[/b] · sum 7 · cabo", "cy · sum 30"]  # "called cabo" does not fit
        assert [hand.values for hand in screen.query(CaboHand)] == [(7,), (9, 0, 13, 8, 0), (1, 4)]


def test_a_status_line_cut_short_ends_after_a_whole_word_so_no_score_reads_smaller():
    """At 80 columns cabo's round end read "round 1 scores bot 12 · you 2…" of a score of 22."""
    from rich.text import Text

    from discard_tui.widgets import fit

    event = " round 1 scores bot 12 · you 22; totals bot 12 · you 22"
    assert fit(Text(event), Text(), 31).plain == " round 1 scores bot 12 · you…  "
    assert fit(Text(" " + "x" * 40), Text(), 20).plain == " " + "x" * 18 + "…"  # one long word: cut inside it
