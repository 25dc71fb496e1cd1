"""rock-paper-scissors' facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About

THROWS = ("rock", "paper", "scissors")  # the values a seat chooses from, in the order of the screen's keys
ABOUT = About("rps", "rock-paper-scissors", seats=range(2, 3), default_seats=2)
