"""cabo's facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, Number, clock

POINTS = Number("points", 1, 1000, 66, "the game ends once a total passes N")
ABOUT = About("cabo", "cabo", seats=range(2, 6), default_seats=3, options=(POINTS, *clock(20, 60)))
