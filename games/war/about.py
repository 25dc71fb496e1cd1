"""war's facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, Number, clock

TRICKS = Number("tricks", 1, 1_000_000, 500, "end after N tricks, the larger pile winning")
MOVE_TIME, TIME_BANK = clock(10, 30)  # the action clock: seconds a move, and the bank
ABOUT = About("war", "war", seats=range(2, 3), default_seats=2, options=(TRICKS, MOVE_TIME, TIME_BANK))
