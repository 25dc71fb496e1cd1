"""What calls a player back: the terminal's title, the bell when their turn comes, the card that just changed.

The bell and the title are decided by pure pieces (discard_tui/attention.py) that the app calls with each view;
the flash is a screen's own, shown from the harness (tests/pilot.py): no game is played.
"""

import pytest

from discard_tui import widgets
from discard_tui.app import DiscardApp, PlayConfig
from discard_tui.attention import BELL_AFTER, TurnBell, osc_title, terminal_title, turn_words
from discard_tui.cabo_screen import CaboHand
from discard_tui.discard_screen import DiscardTable
from discard_tui.profile import terminal_profile
from tabletop.values import Phase
from discard_tui.widgets import DiscardPile, HandView
from games.cards import Card
from pilot import TableHarness, seat_view, until
from test_tui import my_turn_view


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bell_rings_when_my_turn_comes_after_a_wait_once_per_turn():
    clock = Clock()
    bell = TurnBell(clock)
    theirs, mine = seat_view(my_turn=False), seat_view(my_turn=True)
    assert not bell.due(theirs)
    clock.now += BELL_AFTER
    assert bell.due(mine)  # the others took their time: call me back
    assert not bell.due(mine)  # a step of the same turn (a card drawn, then placed)
    assert not bell.due(theirs)
    clock.now += BELL_AFTER - 1
    assert not bell.due(mine)  # a quick answer: I am still looking
    clock.now += 60
    assert not bell.due(seat_view(my_turn=False))
    assert not bell.due(seat_view(my_turn=True, replaying=True))  # catching up with the room is not a turn coming
    assert not bell.due(seat_view(my_turn=True, phase=Phase.OVER))


@pytest.mark.parametrize("config, rings", [
    (PlayConfig(relay="ws://127.0.0.1:9", room="r"), True),
    (PlayConfig(relay="ws://127.0.0.1:9", room="r", bell=False), False),  # --no-bell
    (PlayConfig(), False),  # the computer never keeps anyone waiting for long, and nobody calls
])
def test_the_app_rings_only_for_people_elsewhere_and_titles_the_turn(config, rings, monkeypatch):
    app = DiscardApp(config, terminal_profile())
    clock, rung = Clock(), []
    app.turn_bell = TurnBell(clock)
    monkeypatch.setattr(app, "bell", lambda: rung.append(True))
    app.attend(seat_view(my_turn=False), "bo's turn")
    assert app.sub_title == "bo's turn"
    clock.now += 10
    app.attend(seat_view(my_turn=True), "Your turn")
    assert app.sub_title == "▶ Your turn" and terminal_title(app.title, app.sub_title) == "▶ Your turn · discard"
    assert rung == ([True] if rings else [])


def test_the_terminal_title_takes_a_name_literally_but_no_control_character():
    assert terminal_title("cabo", turn_words("bo\x07\x1b]2;pwned's turn", False)) == "bo\x07\x1b]2;pwned's turn · cabo"
    assert osc_title("bo\x07\x1b]2;pwned's turn · cabo") == "\x1b]2;bo]2;pwned's turn · cabo\x07"
    assert terminal_title("discard", "") == "discard"


async def test_a_card_discarded_or_drawn_is_marked_for_a_moment(monkeypatch):
    monkeypatch.setattr(widgets, "FLASH", 0.05)  # the marks are read as soon as a view is shown (its watchers)
    app = TableHarness(DiscardTable(30), my_turn_view())
    async with app.run_test(size=(80, 24)) as pilot:
        pile, hand = app.table.query_one(DiscardPile), app.table.query_one(HandView)
        app.table.settle()  # the first view shown: nothing marked
        assert not pile.has_class("-flash") and not hand.fresh
        view = app.table.view
        app.show(discard_top=Card("9", "♥"), discard_count=2, hand=view.hand[1:], playable=view.playable[1:])
        assert pile.has_class("-flash") and pile.fresh == {0}
        fresh = pile.get_component_rich_style("card--fresh", partial=True)
        assert any(span.style == pile.border(0, "black on white") for span in pile.render().spans)
        assert fresh.bold and not hand.fresh  # a card played from my hand marks nothing there
        await until(pilot, lambda: not pile.has_class("-flash"), "the mark to go")
        drawn = Card("2", "♣")
        app.show(hand=(*app.table.view.hand[:2], drawn, *app.table.view.hand[2:]), playable=(False,) * 5)
        assert hand.fresh == {2} and not pile.has_class("-flash")  # the card drawn, where it went in my hand


def test_a_cabo_card_replaced_or_seen_is_marked():
    hand = CaboHand(1)
    marked: list[list[int]] = []
    hand.flash = lambda cards=(0,): marked.append(list(cards))  # type: ignore[method-assign]
    hand.watch_positions((), (3, 4, 5, 6))  # dealt: nothing to mark
    hand.watch_positions((3, 4, 5, 6), (3, 9, 5, 6))  # card 2 replaced (its value still unknown to me)
    hand.watch_values((None, None, None, None), (None, None, 7, None))  # card 3 seen
    assert marked == [[1], [2]]
