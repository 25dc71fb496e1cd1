"""rock-paper-scissors' facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, clock

THROWS = ("rock", "paper", "scissors")  # the values a seat chooses from, in the order of the screen's keys
UNTHROWN = "—"  # a throw's value where a seat's time ran out during it (the other seat won it)
ABOUT = About("rps", "rock-paper-scissors", seats=range(2, 3), default_seats=2, options=clock(15, 30))
