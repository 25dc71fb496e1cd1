"""War's pure rules: the deal, tricks, wars, a war without the cards for it, the trick limit, outcomes."""

import pytest

from games.cards import FULL_DECK, Card
from games.war.game import Turn, WarOptions, WarState
from games.war.rules import Board
from tabletop.game import RuleViolation, Setup


def card(text: str) -> Card:
    return Card(text[:-1], text[-1])


def board(seat0: list[str], seat1: list[str], limit: int = 500, starter: int = 0) -> Board:
    """A board whose piles hold exactly these cards, top first; every face known (as in the audit's replay)."""
    b = Board(starter, limit, {})
    b.piles = [list(range(len(seat0))), list(range(100, 100 + len(seat1)))]
    b.faces = {**{i: card(c) for i, c in enumerate(seat0)}, **{100 + i: card(c) for i, c in enumerate(seat1)}}
    return b


def turn(b: Board) -> None:
    down, up = b.next_turn()
    b.apply_turn(b.turner, up, down)


def names(b: Board, seat: int) -> list[str]:
    return [str(b.faces[pos]) for pos in b.piles[seat]]


def test_the_deal_gives_the_starter_the_top_half_face_down():
    b = Board(starter=1, limit=500, faces={})
    assert b.piles[1] == list(range(26)) and b.piles[0] == list(range(26, 52))
    assert b.turner == 1 and b.next_turn() == ([], [26, 0])
    assert Board(starter=0, limit=500, faces={}).piles[0] == list(range(26))


def test_the_higher_card_takes_both_to_the_bottom_in_the_order_laid():
    b = board(["7♠", "2♣"], ["K♦", "3♥"])
    turn(b)
    assert names(b, 0) == ["2♣"] and names(b, 1) == ["3♥", "7♠", "K♦"]  # seat 0's card first
    assert b.taker == 1 and b.tricks == 1 and b.turner == 1 and not b.at_war and b.pot == []
    turn(b)  # 2♣ against 3♥: seat 1 again, and seat 0 is out of cards
    assert b.over and b.winner == 1 and b.ending == "{0} ran out of cards: {1} won"
    assert names(b, 1) == ["7♠", "K♦", "2♣", "3♥"]


def test_aces_are_high_and_suits_do_not_matter():
    b = board(["A♣", "5♠", "2♠", "3♠"], ["K♣", "5♥", "2♥", "3♥"])
    turn(b)
    assert b.taker == 0
    turn(b)
    assert b.at_war and b.taker is None and b.pot == [1, 101]


def test_a_war_lays_one_card_face_down_and_the_next_decides_the_whole_pot():
    b = board(["9♠", "2♠", "4♠", "J♠"], ["9♥", "A♥", "Q♥", "3♥"])
    turn(b)
    assert b.at_war and b.pot == [0, 100] and b.next_turn() == ([1, 101], [2, 102])
    turn(b)  # 2♠ and A♥ face down; 4♠ against Q♥
    assert not b.at_war and b.taker == 1 and b.tricks == 1
    assert names(b, 1) == ["3♥", "9♠", "9♥", "2♠", "A♥", "4♠", "Q♥"]
    assert [(laid.pos, laid.up) for laid in b.trick] == [(0, True), (100, True), (1, False), (101, False),
                                                          (2, True), (102, True)]


def test_a_war_repeats_while_the_turned_cards_tie():
    b = board(["5♠", "2♠", "8♠", "3♠", "K♠", "4♠"], ["5♥", "6♥", "8♥", "7♥", "Q♥", "4♥"])
    turn(b)
    turn(b)
    assert b.at_war and len(b.pot) == 6  # 8 against 8: war again
    turn(b)
    assert b.taker == 0 and b.tricks == 1 and names(b, 0)[0] == "4♠" and len(b.piles[0]) == 11


def test_a_player_without_the_two_cards_a_war_needs_loses_and_the_other_takes_the_pot():
    b = board(["6♠", "J♠"], ["6♥", "2♥", "3♥"])
    turn(b)  # a war: seat 0 has one card left, it needs two
    assert b.over and b.winner == 1 and b.ending == "{0} had too few cards for a war: {1} won"
    assert names(b, 1) == ["2♥", "3♥", "6♠", "6♥"] and names(b, 0) == ["J♠"]


def test_a_war_neither_can_fight_goes_to_the_larger_pile_or_is_a_draw():
    b = board(["6♠", "J♠"], ["6♥"])
    turn(b)
    assert b.over and b.winner == 0 and "neither player had the cards for a war" in b.ending
    b = board(["6♠", "J♠"], ["6♥", "2♥"])
    turn(b)
    assert b.over and b.winner is None and b.pot == [0, 100]  # nobody takes it: it stays on the table


def test_the_trick_limit_ends_the_game_with_the_larger_pile_winning():
    b = board(["A♠", "2♠", "3♠"], ["K♥", "Q♥", "J♥"], limit=1)
    turn(b)
    assert b.over and b.winner == 0 and [len(p) for p in b.piles] == [4, 2]
    assert b.ending == "after 1 trick {0} held 4 cards and {1} 2: {0} won"


def test_the_trick_limit_with_equal_piles_is_a_draw():
    b = board(["A♠", "2♠", "3♠"], ["K♥", "Q♥", "J♥"], limit=2)
    turn(b)  # seat 0 takes: 4 to 2
    turn(b)  # Q♥ takes 2♠: 3 to 3
    assert [len(p) for p in b.piles] == [3, 3]
    assert b.over and b.winner is None and b.ending == "after 2 tricks both held 3 cards: a draw"


def test_a_war_in_progress_is_finished_before_the_limit_counts():
    b = board(["5♠", "2♠", "9♠", "3♠"], ["5♥", "4♥", "8♥", "7♥"], limit=1)
    turn(b)
    assert b.at_war and not b.over  # no trick taken yet
    turn(b)
    assert b.over and b.winner == 0 and b.tricks == 1 and [len(p) for p in b.piles] == [7, 1]


def test_a_turn_out_of_turn_is_refused_and_changes_nothing():
    b = board(["7♠", "2♣"], ["K♦", "3♥"])
    with pytest.raises(RuleViolation, match="^turned a card out of turn$"):
        b.apply_turn(1, [0, 100], [])
    assert b.piles == [[0, 1], [100, 101]] and b.trick == [] and b.turner == 0


def test_turning_a_card_that_is_not_the_top_of_a_pile_is_refused():
    b = board(["7♠", "2♣"], ["K♦", "3♥"])
    with pytest.raises(RuleViolation) as own:
        b.check_turn(0, [1, 100], [])
    assert str(own.value) == "turned card 1 from their own pile, but its top card is card 0"
    with pytest.raises(RuleViolation) as other:
        b.check_turn(0, [0, 101], [])
    assert str(other.value) == "turned card 101 from the other player's pile, but its top card is card 100"
    with pytest.raises(RuleViolation, match="but this turn turns 2 up and lays 0 face down"):
        b.check_turn(0, [0, 100], [1, 101])


def test_a_war_must_lay_the_top_cards_face_down_and_turn_the_next():
    b = board(["9♠", "2♠", "4♠"], ["9♥", "A♥", "Q♥"])
    turn(b)
    with pytest.raises(RuleViolation, match="lays 2 face down"):
        b.check_turn(1, [1, 101], [])  # turning without the face-down cards
    with pytest.raises(RuleViolation) as down:
        b.check_turn(1, [2, 102], [2, 101])
    assert str(down.value) == "laid card 2 face down from the other player's pile, but its top card is card 1"
    with pytest.raises(RuleViolation) as up:
        b.check_turn(1, [2, 101], [1, 101])
    assert str(up.value) == "turned card 101 from their own pile, but the card after the face-down one is card 102"
    b.check_turn(1, [2, 102], [1, 101])


def test_no_turn_after_the_game_ended():
    b = board(["7♠"], ["K♦"])
    turn(b)
    assert b.over
    with pytest.raises(RuleViolation, match="after the game ended"):
        b.check_turn(b.turner, [0, 100], [])


# -- the game state: moves, outcome, what each seat sees ----------------------------------------------------


def state(limit: int = 500, starter: int = 0) -> WarState:
    return WarState(Setup(2, starter, WarOptions(tricks=limit), FULL_DECK))


def test_the_only_legal_move_is_the_turn_of_whoever_is_to_move():
    s = state(starter=1)
    assert s.deal() == [] and s.to_move() == 1
    assert s.legal_moves(0) == [] and s.legal_moves(1) == [Turn(up=[26, 0], down=[])]
    assert [show.pos for show in s.shows(1, Turn(up=[26, 0]))] == [26, 0]
    assert all(show.to is None for show in s.shows(1, Turn(up=[26, 0])))  # shown to everyone


def test_a_war_move_shows_only_the_turned_cards():
    s = state()
    s.faces.update({0: card("9♠"), 26: card("9♥"), 2: card("4♠"), 28: card("Q♥")})
    s.push(0, Turn(up=[0, 26]))
    [war] = s.legal_moves(1)
    assert war == Turn(up=[2, 28], down=[1, 27])
    assert [show.pos for show in s.shows(1, war)] == [2, 28]  # never the face-down ones
    view = s.view(0)
    assert view.war and view.trick == ((card("9♠"),), (card("9♥"),))
    s.push(1, war)
    assert s.view(1).trick == ((card("9♠"), None, card("4♠")), (card("9♥"), None, card("Q♥")))
    assert s.view(0).taker == 1 and s.view(0).piles == (23, 29)


def test_outcome_scores_are_the_cards_in_each_pile_and_the_loser_starts_the_next_game():
    s = state(limit=1)
    s.faces.update(enumerate(FULL_DECK))  # as in the audit's replay: 2♠ (seat 0) against 8♦ (seat 1)
    assert s.outcome() is None
    s.push(0, Turn(up=[0, 26]))
    outcome = s.outcome()
    assert outcome is not None and outcome.winners == (1,) and outcome.scores == (25, 27)
    assert outcome.next_starter == 0
    assert outcome.reason.format("you", "bo") == "after 1 trick you held 25 cards and bo 27: bo won"
    assert s.describe(0, Turn(up=[0, 26])) == "turned 2♠ against 8♦: 2 cards to {1}"
    assert s.to_move() is None and s.legal_moves(1) == []


def test_a_draw_has_no_winner_and_no_set_starter():
    s = state(limit=2)
    s.board.piles = [[0, 1, 2], [26, 27, 28]]
    s.faces.update({0: card("A♠"), 1: card("2♠"), 26: card("K♥"), 27: card("Q♥")})
    s.push(0, Turn(up=[0, 26]))
    s.push(1, Turn(up=[1, 27]))
    outcome = s.outcome()
    assert outcome is not None and outcome.winners == () and outcome.scores == (3, 3)
    assert outcome.next_starter is None


def test_describe_names_the_movers_card_first_and_a_war():
    s = state()
    s.faces.update({0: card("Q♣"), 26: card("Q♥")})
    s.push(0, Turn(up=[0, 26]))
    assert s.describe(0, Turn(up=[0, 26])) == "turned Q♣ against Q♥: war!"
    assert s.describe(1, Turn(up=[0, 26])) == "turned Q♥ against Q♣: war!"
