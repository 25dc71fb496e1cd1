"""cabo's facts, read before its rules are imported (tabletop/about.py), and the stages of a turn, which its screen
compares without importing the rules."""

from enum import Enum

from tabletop.about import About, Number, clock

POINTS = Number("points", 1, 1000, 66, "the game ends once a total passes N")
MOVE_TIME, TIME_BANK = clock(20, 60)  # the action clock: seconds a move, and the bank
ABOUT = About("cabo", "cabo", seats=range(2, 6), default_seats=3, options=(POINTS, MOVE_TIME, TIME_BANK))


class Stage(str, Enum):
    """Where a turn is: what the seat to move (``CaboView.to_move``) is to do."""

    TURN = "turn"  # the mover draws, takes the discard or stops
    TAKEN = "taken"  # the mover holds a card: replace one or more of theirs with it, or (if drawn) discard it
    PEEK = "peek"  # a 7 or 8 was discarded: look at one of your own cards
    SPY = "spy"  # a 9 or 10: look at one card of another player
    SWAP = "swap"  # an 11 or 12: swap one of your cards with one of another player's, unseen
    SHOWDOWN = "showdown"  # the round is over: every hand is to be shown
    OVER = "over"  # shown and scored
