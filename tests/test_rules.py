"""Discard's pure rules: cards, matching, the table's moves and their refusals."""

import pytest

from games.cards import FULL_DECK, SHORT_DECK, Card
from games.discard.rules import Board, false_claim, matches, short_mismatch
from tabletop.game import RuleViolation


def test_decks():
    assert len(FULL_DECK) == 52 and len(set(FULL_DECK)) == 52
    assert FULL_DECK[:5] == (Card("2", "♠"), Card("2", "♥"), Card("2", "♦"), Card("2", "♣"), Card("3", "♠"))
    assert len(SHORT_DECK) == 24 and SHORT_DECK[0] == Card("9", "♠") and SHORT_DECK[-1] == Card("A", "♣")
    assert {c.rank for c in SHORT_DECK} == {"9", "10", "J", "Q", "K", "A"}


def test_matching():
    nine_diamonds = Card("9", "♦")
    assert matches(Card("9", "♣"), nine_diamonds)
    assert matches(Card("2", "♦"), nine_diamonds)
    assert not matches(Card("7", "♣"), nine_diamonds)
    assert matches(Card("7", "♣"), None)
    assert short_mismatch(Card("7", "♣"), nine_diamonds) == "7♣ matches neither ♦ nor 9"


def dealt_table(faces: dict[int, Card], starter: int = 0) -> Board:
    return Board(len(SHORT_DECK), starter, 2, dict(faces))


def short_faces() -> dict[int, Card]:
    return dict(enumerate(SHORT_DECK))


def test_deal_gives_starter_first_five():
    table = dealt_table(short_faces())
    assert table.hands == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert table.draw_pile[0] == 10 and table.turn == 0
    assert dealt_table(short_faces(), starter=1).hands == [[5, 6, 7, 8, 9], [0, 1, 2, 3, 4]]


def test_draw_must_be_top_and_in_turn():
    table = dealt_table(short_faces())
    with pytest.raises(RuleViolation, match="out of turn"):
        table.apply_draw(1, 10)
    with pytest.raises(RuleViolation, match="top of the draw pile is card 10"):
        table.apply_draw(0, 11)
    table.apply_draw(0, 10)
    assert 10 in table.hands[0] and table.turn == 1


def test_discard_checks_hand_and_match():
    table = dealt_table(short_faces())
    with pytest.raises(RuleViolation, match="not in their hand"):
        table.apply_discard(0, 5)
    table.apply_discard(0, 0)  # anything goes on an empty pile
    top = table.top
    hand = table.hands[1]
    bad = next(p for p in hand if not matches(table.faces[p], top))
    before = (list(table.hands[1]), list(table.discard_pile), table.turn)
    with pytest.raises(RuleViolation, match=f"^discarded {table.faces[bad]}, which matches neither the suit nor "
                       f"the value of {top}$"):
        table.apply_discard(1, bad)
    assert (table.hands[1], table.discard_pile, table.turn) == before  # a refused move changes nothing


def test_last_card_wins():
    table = dealt_table(short_faces())
    table.hands[0][:] = [0]
    table.apply_discard(0, 0)
    assert table.winner == 0 and table.over


def test_cant_move_only_with_empty_draw_pile():
    table = dealt_table(short_faces())
    with pytest.raises(RuleViolation, match="cards left to draw"):
        table.apply_cant_move(0)
    table.draw_pile.clear()
    with pytest.raises(RuleViolation, match="anything goes on the empty discard pile"):
        table.apply_cant_move(0)
    table.discard_pile.append(table.hands[1].pop())
    table.hands[0][:] = [p for p in table.hands[0] if not matches(table.faces[p], table.top)]
    table.apply_cant_move(0)
    assert table.winner == 1


def test_a_false_cant_move_claim_is_refused_once_every_face_is_known():
    table = dealt_table(short_faces())
    table.draw_pile.clear()
    table.discard_pile.append(table.hands[1].pop())
    held = next(p for p in table.hands[0] if matches(table.faces[p], table.top))
    with pytest.raises(RuleViolation, match=f"held {table.faces[held]}"):
        table.apply_cant_move(0)


def test_false_claim_finds_the_disproof():
    assert false_claim([Card("7", "♣"), Card("9", "♥")], Card("9", "♦")) == Card("9", "♥")
    assert false_claim([Card("7", "♣")], Card("9", "♦")) is None
