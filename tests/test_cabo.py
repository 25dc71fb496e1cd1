"""Cabo's rules as pure unit tests, in the manner of python-chess: a state, its legal moves, a move applied, the
outcome. The table is played by hand here: a face is "shown" by writing it into the state, as the table does
once a showing completes.
"""

from __future__ import annotations

import pytest

from games.cabo.game import (CaboOptions, CaboState, Discard, Draw, Peek, Replace, Showdown, Spy, Stop, Swap, Take)
from games.cabo.about import POINTS
from games.cabo.rules import AVERAGE, VALUES, Stage
from tabletop.deck import Show
from tabletop.game import RuleViolation, Setup
from tabletop.wire import MAX_DEALS, Message


def new(seats: int = 3, starter: int = 0, points: int = POINTS.default) -> CaboState:
    return CaboState(Setup(seats, starter, CaboOptions(points=points), VALUES))


def show(state: CaboState, faces: dict[int, int], to: set[int] | None = None) -> None:
    """What the table does when showings complete: the faces, and who has seen them."""
    state.faces.update(faces)
    for pos in faces:
        state.seen.setdefault(pos, set()).update(to if to is not None else range(state.setup.seats))


def play(state: CaboState, seat: int, move: Message, faces: dict[int, int] | None = None) -> str:
    """Check ``move``, show what it shows (with ``faces``), push it; the log line."""
    state.check(seat, move)
    for item in state.shows(seat, move):
        if item.pos in (faces or {}):
            show(state, {item.pos: faces[item.pos]}, None if item.to is None else {item.to})  # type: ignore[index]
    state.push(seat, move)
    return state.describe(seat, move)


def refused(state: CaboState, seat: int, move: Message) -> str:
    with pytest.raises(RuleViolation) as error:
        state.check(seat, move)
    return str(error.value)


# -- the deck and the deal ---------------------------------------------------------------------------------


def test_the_deck_has_two_0s_two_13s_and_four_of_each_value_between():
    assert len(VALUES) == 52 and VALUES == tuple(sorted(VALUES))
    assert {v: VALUES.count(v) for v in set(VALUES)} == {0: 2, 13: 2, **{v: 4 for v in range(1, 13)}}
    assert AVERAGE == 6.5


def test_the_deal_goes_round_from_the_first_player_who_sees_two_of_their_four_cards():
    state = new(seats=3, starter=1)
    r = state.round
    assert r.hands == [[8, 9, 10, 11], [0, 1, 2, 3], [4, 5, 6, 7]]
    assert r.discard_pile == [12] and r.draw_pile == list(range(13, 52))
    assert state.to_move() == 1 and r.stage is Stage.TURN
    assert state.deal() == [Show(8, 0), Show(9, 0), Show(0, 1), Show(1, 1), Show(4, 2), Show(5, 2), Show(12)]
    assert state.deals() == 1


def test_a_turn_begins_with_a_draw_a_take_or_a_stop():
    state = new()
    assert state.legal_moves(0) == [Draw(pos=13), Take(pos=12), Stop()]
    assert state.legal_moves(1) == []
    assert refused(state, 1, Draw(pos=13)) == "tried to draw out of turn"
    assert refused(state, 0, Draw(pos=14)) == "asked to draw card 14, but the top of the draw pile is card 13"
    assert refused(state, 0, Take(pos=11)).endswith("the top of the discard pile is card 12")
    assert refused(state, 0, Discard()).startswith("tried to discard, but a turn begins by drawing")


# -- replacing and claiming --------------------------------------------------------------------------------


def test_a_drawn_card_replaces_one_of_mine_and_the_old_one_goes_face_up_on_the_discard_pile():
    state = new()
    show(state, {12: 9})
    assert play(state, 0, Draw(pos=13), {13: 2}) == "drew 2"
    assert state.seen[13] == {0} and state.round.taken == 13
    moves = state.legal_moves(0)
    assert len([m for m in moves if isinstance(m, Replace)]) == 15 and moves[-1] == Discard()  # every non-empty subset
    assert refused(state, 0, Replace(positions=[4])) == "tried to replace another player's card"
    assert refused(state, 0, Replace(positions=[1, 1])) == "named one card twice in a claim of identical cards"
    assert state.shows(0, Replace(positions=[1])) == [Show(1)]  # everyone sees the card thrown away
    line = play(state, 0, Replace(positions=[1]), {1: 11})
    assert line == "replaced card 2 with 2: 11 to the discard pile"
    assert state.round.hands[0] == [0, 13, 2, 3] and state.round.discard_pile == [12, 1]
    assert state.to_move() == 1 and state.round.stage is Stage.TURN


def test_identical_cards_claimed_are_all_replaced_by_the_one_card():
    state = new()
    show(state, {12: 9})
    play(state, 0, Draw(pos=13), {13: 1})
    assert state.shows(0, Replace(positions=[0, 3])) == [Show(0), Show(3)]
    line = play(state, 0, Replace(positions=[3, 0]), {0: 8, 3: 8})
    assert line == "claimed card 4 and card 1 are identical: 8 and 8 to the discard pile, 1 in their place"
    assert state.round.hands[0] == [13, 1, 2] and state.round.discard_pile == [12, 0, 3]


def test_a_failed_claim_leaves_the_cards_and_adds_the_card_taken_as_a_penalty():
    state = new()
    show(state, {12: 9})
    play(state, 0, Take(pos=12))
    line = play(state, 0, Replace(positions=[0, 1]), {0: 8, 1: 7})
    assert line == "claimed card 1 and card 2 are identical, but they are 8 and 7: they stay, and 9 joins the hand " \
                   "as a penalty"
    assert state.round.hands[0] == [0, 1, 2, 3, 12] and state.round.discard_pile == []
    assert state.to_move() == 1
    view = state.view(1)
    assert [(s.value, s.public) for s in view.hands[0]] == [(8, True), (7, True), (None, False), (None, False),
                                                             (9, True)]
    assert view.discard_top is None and Take(pos=12) not in state.legal_moves(1)


def test_the_card_taken_from_the_discard_pile_cannot_be_discarded_again():
    state = new()
    show(state, {12: 3})
    assert play(state, 0, Take(pos=12)) == "took 3 from the discard pile"
    assert Discard() not in state.legal_moves(0)
    assert refused(state, 0, Discard()).startswith("tried to discard the card taken from the discard pile")


# -- powers ----------------------------------------------------------------------------------------------------


def discard_drawn(state: CaboState, seat: int, value: int) -> str:
    top = state.round.draw_pile[0]
    play(state, seat, Draw(pos=top), {top: value})
    return play(state, seat, Discard(), {top: value})


def test_a_plain_card_discarded_ends_the_turn():
    state = new()
    assert discard_drawn(state, 0, 5) == "discarded 5"
    assert state.round.discard_pile[-1] == 13 and state.to_move() == 1


def test_a_7_or_8_lets_me_peek_at_one_of_my_own_cards():
    state = new()
    assert discard_drawn(state, 0, 8) == "discarded 8 to peek"
    assert state.round.stage is Stage.PEEK and state.legal_moves(0) == [Peek(pos=p) for p in (0, 1, 2, 3)]
    assert refused(state, 0, Peek(pos=4)) == "tried to peek at another player's card, but a peek is at one's own card"
    assert refused(state, 0, Draw(pos=14)).startswith("tried to draw, but the 7 or 8 discarded means a peek")
    assert state.shows(0, Peek(pos=3)) == [Show(3, 0)]  # to me alone
    assert play(state, 0, Peek(pos=3), {3: 4}) == "peeked at card 4: 4"
    assert state.seen[3] == {0} and state.to_move() == 1


def test_a_9_or_10_lets_me_spy_on_another_players_card():
    state = new()
    assert discard_drawn(state, 0, 10) == "discarded 10 to spy"
    assert {m.pos for m in state.legal_moves(0) if isinstance(m, Spy)} == set(range(4, 12))
    assert refused(state, 0, Spy(pos=2)) == "tried to spy on one's own card, but a spy looks at another player's card"
    assert refused(state, 0, Spy(pos=30)) == "tried to spy on card 30, which is in nobody's hand"
    assert state.shows(0, Spy(pos=9)) == [Show(9, 0)]
    assert play(state, 0, Spy(pos=9), {9: 0}).format("you", "bo", "cy") == "spied on card 2 held by cy: 0"


def test_an_11_or_12_swaps_one_of_my_cards_with_another_players_unseen():
    state = new()
    show(state, {0: 1}, {0})
    assert discard_drawn(state, 0, 12) == "discarded 12 to swap"
    assert len(state.legal_moves(0)) == 4 * 8
    assert refused(state, 0, Swap(mine=4, theirs=5)) == "tried to give another player's card in a swap"
    assert refused(state, 0, Swap(mine=0, theirs=1)) == "tried to swap one's own cards, but a swap is with another player"
    assert state.shows(0, Swap(mine=0, theirs=6)) == []  # nothing is shown
    assert play(state, 0, Swap(mine=0, theirs=6)).format("you", "bo", "cy") == "swapped card 1 with card 3 held by bo"
    assert state.round.hands[0] == [6, 1, 2, 3] and state.round.hands[1] == [4, 5, 0, 7]
    assert state.view(0).hands[1][2].value == 1  # I still know the card I gave away


# -- the end of a round, and of the game --------------------------------------------------------------------


def score_every_hand(state: CaboState, hands: list[list[int]]) -> None:
    """Give each seat's cards the values ``hands`` lists, as the showdown shows them."""
    show(state, {pos: value for hand, values in zip(state.round.hands, hands) for pos, value in zip(hand, values)})


def test_after_a_stop_everyone_else_has_one_more_turn_then_the_stopper_shows_every_hand():
    state = new()
    assert play(state, 0, Stop()) == "stopped the round: everyone else has one more turn"
    assert state.round.stopper == 0
    discard_drawn(state, 1, 3)
    assert Stop() not in state.legal_moves(2)
    assert refused(state, 2, Stop()) == "tried to stop a round that is already stopping"
    discard_drawn(state, 2, 4)
    assert state.round.stage is Stage.SHOWDOWN and state.to_move() == 0
    assert state.owed(0) == Showdown() and state.owed(1) is None and state.legal_moves(0) == [Showdown()]
    assert state.shows(0, Showdown()) == [Show(p) for p in range(12)]
    score_every_hand(state, [[1, 2, 3, 4], [5, 5, 5, 5], [0, 13, 0, 0]])
    line = play(state, 0, Showdown()).format("you", "bo", "cy")
    assert line == "showed every hand: round 1 scores you 10 · bo 20 · cy 13; totals you 10 · bo 20 · cy 13"
    # The next round: a new deal (positions 52 on), started by the next seat; the table shuffles a new deck.
    assert state.deals() == 2 and state.outcome() is None
    r = state.round
    assert (r.number, r.first, r.turn, r.stopper) == (1, 1, 1, None)
    assert r.hands == [[60, 61, 62, 63], [52, 53, 54, 55], [56, 57, 58, 59]] and r.discard_pile == [64]
    assert state.deal()[-1] == Show(64)
    view = state.view(0)
    assert (view.round, view.totals, view.last_scores) == (2, (10, 20, 13), (10, 20, 13))
    assert view.showdown == ((1, 2, 3, 4), (5, 5, 5, 5), (0, 13, 0, 0)) and view.last_stopper == 0  # for the screen


def test_a_round_ends_when_the_draw_pile_runs_out():
    state = new(seats=2)
    while state.round.stage is Stage.TURN:
        discard_drawn(state, state.to_move(), 4)
    assert not state.round.draw_pile and state.round.stage is Stage.SHOWDOWN
    assert len(state.round.discard_pile) == 52 - 8


def test_the_game_ends_once_a_total_passes_66_and_the_lowest_total_wins():
    state = new()
    for k in range(3):
        play(state, state.to_move(), Stop())
        while state.round.stage is not Stage.SHOWDOWN:
            discard_drawn(state, state.to_move(), 5)
        score_every_hand(state, [[5, 5, 5, 5], [13, 13, 0, 0] if k < 2 else [13, 13, 1, 0], [1, 1, 1, 1]])
        play(state, state.to_move(), Showdown())
    assert state.totals == [60, 79, 12] and state.outcome() is not None
    outcome = state.outcome()
    assert outcome.winners == (2,) and outcome.scores == (60, 79, 12) and outcome.next_starter is None
    assert outcome.reason.format("you", "bo", "cy") == \
        "bo passed 66 after round 3; the lowest total wins: cy (you 60 · bo 79 · cy 12)"
    assert state.deals() == 3 and state.to_move() is None and state.legal_moves(0) == []


def test_66_itself_does_not_end_the_game_and_equal_lowest_totals_share_the_win():
    state = new(seats=2, points=10)
    play(state, 0, Stop())
    discard_drawn(state, 1, 5)
    score_every_hand(state, [[4, 3, 3, 0], [6, 4, 0, 0]])
    play(state, 0, Showdown())
    assert state.totals == [10, 10] and state.outcome() is None  # 10 is not past 10
    play(state, 1, Stop())
    discard_drawn(state, 0, 5)
    score_every_hand(state, [[1, 0, 0, 0], [1, 0, 0, 0]])
    play(state, 1, Showdown())
    outcome = state.outcome()
    assert outcome.winners == (0, 1) and outcome.reason.format("you", "bo").startswith("you and bo passed 10")


def test_the_game_stops_at_the_tables_limit_on_deals():
    state = new(seats=2, points=1000)
    for _ in range(MAX_DEALS):
        play(state, state.to_move(), Stop())
        discard_drawn(state, state.to_move(), 5)
        score_every_hand(state, [[0, 0, 0, 1], [0, 0, 1, 1]])
        play(state, state.to_move(), Showdown())
    assert state.deals() == MAX_DEALS and state.outcome().winners == (0,)
    assert state.outcome().reason.startswith(f"{MAX_DEALS} rounds were played")
