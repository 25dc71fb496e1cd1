"""Texas Hold'em's facts, read before its rules are imported (tabletop/about.py), and the stages of a hand, which
its screen compares without importing PokerKit."""

from enum import Enum

from tabletop.about import About, Number, OneOf, clock

CHIPS = Number("chips", 100, 1_000_000, 1000, "every player starts with N chips")
BLINDS = OneOf("blinds", ("5/10", "10/20", "25/50", "50/100"), "10/20",
               "the first small/big blinds; they double every 10 hands")
HANDS = Number("hands", 1, 100, 50, "the game ends after N hands at most, the chip leader winning")
MOVE_TIME, TIME_BANK = clock(30, 60)  # the action clock, an online sit-and-go's: seconds a move, and the bank
ABOUT = About("holdem", "Texas Hold'em", seats=range(2, 7), default_seats=3,
              options=(CHIPS, BLINDS, HANDS, MOVE_TIME, TIME_BANK))


class Stage(str, Enum):
    """Where a hand is: what the seat to move (``HoldemView.to_move``) is to do."""

    BETTING = "betting"
    BOARD = "board"  # the next street's cards are to be shown
    SHOWDOWN = "showdown"
    OVER = "over"
