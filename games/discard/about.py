"""discard's facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, OneOf, clock

DECK = OneOf("deck", ("full", "short"), "full", "full (52 cards) or short (24 cards, 9 to A)")
MOVE_TIME, TIME_BANK = clock(20, 60)  # the action clock: seconds a move, and the bank
ABOUT = About("discard", "discard", seats=range(2, 3), default_seats=2, options=(DECK, MOVE_TIME, TIME_BANK))
