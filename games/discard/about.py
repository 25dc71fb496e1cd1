"""discard's facts, read before its rules are imported (tabletop/about.py)."""

from tabletop.about import About, OneOf, clock

DECK = OneOf("deck", ("full", "short"), "full", "full (52 cards) or short (24 cards, 9 to A)")
ABOUT = About("discard", "discard", seats=range(2, 3), default_seats=2, options=(DECK, *clock(20, 60)))
