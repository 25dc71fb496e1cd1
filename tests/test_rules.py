"""The pure rules: cards, matching, the table's moves and their refusals."""

import pytest

from discard_tui.rules import Card, DeckKind, RuleViolation, Table, false_claim, matches, short_mismatch


def test_decks():
    assert len(DeckKind.FULL.cards) == 52 and len(set(DeckKind.FULL.cards)) == 52
    assert len(DeckKind.SHORT.cards) == 24
    assert {c.rank for c in DeckKind.SHORT.cards} == {"9", "10", "J", "Q", "K", "A"}


def test_matching():
    nine_diamonds = Card("9", "♦")
    assert matches(Card("9", "♣"), nine_diamonds)
    assert matches(Card("2", "♦"), nine_diamonds)
    assert not matches(Card("7", "♣"), nine_diamonds)
    assert matches(Card("7", "♣"), None)
    assert short_mismatch(Card("7", "♣"), nine_diamonds) == "7♣ matches neither ♦ nor 9"


def dealt_table(faces: dict[int, Card]) -> Table:
    table = Table(len(DeckKind.SHORT.cards), starter=0)
    table.faces = dict(faces)
    table.deal()
    return table


def short_faces() -> dict[int, Card]:
    return dict(enumerate(DeckKind.SHORT.cards))


def test_deal_gives_starter_first_five():
    table = dealt_table(short_faces())
    assert table.hands == ([0, 1, 2, 3, 4], [5, 6, 7, 8, 9])
    assert table.draw_pile[0] == 10 and table.turn == 0


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
        table.apply_discard(0, 5, table.faces[5])
    table.apply_discard(0, 0, table.faces[0])  # anything goes on an empty pile
    top = table.top
    hand = table.hands[1]
    bad = next(p for p in hand if not matches(table.faces[p], top))
    before = (list(table.hands[1]), list(table.discard_pile), table.turn)
    with pytest.raises(RuleViolation, match=f"^discarded {table.faces[bad]}, which matches neither the suit nor "
                       f"the value of {top}$"):
        table.apply_discard(1, bad, table.faces[bad])
    assert (table.hands[1], table.discard_pile, table.turn) == before  # a refused move changes nothing


def test_last_card_wins():
    table = dealt_table(short_faces())
    table.hands[0][:] = [0]
    table.apply_discard(0, 0, table.faces[0])
    assert table.winner == 0 and table.over


def test_cant_move_only_with_empty_draw_pile():
    table = dealt_table(short_faces())
    with pytest.raises(RuleViolation, match="cards left to draw"):
        table.apply_cant_move(0)
    table.draw_pile.clear()
    with pytest.raises(RuleViolation, match="anything goes on the empty discard pile"):
        table.apply_cant_move(0)
    table.discard_pile.append(table.hands[1].pop())
    table.apply_cant_move(0)
    assert table.winner == 1


def test_false_claim_finds_the_disproof():
    assert false_claim([Card("7", "♣"), Card("9", "♥")], Card("9", "♦")) == Card("9", "♥")
    assert false_claim([Card("7", "♣")], Card("9", "♦")) is None
