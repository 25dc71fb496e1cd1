"""rock-paper-scissors' facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, clock

THROWS = ("rock", "paper", "scissors")  # the values a seat chooses from, in the order of the screen's keys
UNTHROWN = "—"  # a throw's value where a seat's time ran out during it (the other seat won it)
MOVE_TIME, TIME_BANK = clock(15, 30)  # the action clock: seconds a move, and the bank
ABOUT = About("rps", "rock-paper-scissors", seats=range(2, 3), default_seats=2, options=(MOVE_TIME, TIME_BANK))
