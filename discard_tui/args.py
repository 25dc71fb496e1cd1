"""Command-line pieces shared by discard-tui and discard-bot."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag costs one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def trust_relay(p: argparse.ArgumentParser, relay: str | None, relay_ca: str | None) -> None:
    """Check ``--relay`` (if given) and ``--relay-ca``, one line and exit 2 if bad; trust the CA for wss://."""
    from tabletop.ledger import relay_urls, ssl_context, trust

    try:
        relay_urls(relay or "ws://localhost")
    except ValueError as error:
        p.error(f"--relay: {error}")
    try:
        trust(ssl_context(relay_ca))
    except ValueError as error:
        p.error(f"--relay-ca: {error}")


def seconds(positive: bool) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds, above zero or at least zero."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds {'above' if positive else 'from'} 0")
        return value

    return parse


def add_think(p: argparse.ArgumentParser, default: float, whose: str = "") -> None:
    """``--think S``: the computer's pause before each of its moves (``whose``: for whom, in the help)."""
    p.add_argument("--think", type=seconds(positive=False), default=default, metavar="S",
                   help=f"the computer's pause before each of its moves{whose} (default {default:g})")


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from {low} to {high}")
        return value

    return parse


GAME_OPTIONS = ("deck", "tricks", "points")  # the flags of every game's options, named as the options are


def add_game_options(p: argparse.ArgumentParser) -> None:
    """``--deck``, ``--tricks`` and ``--points``: each game's options, for discard-tui and discard-bot."""
    p.add_argument("--deck", choices=["full", "short"], default=None,
                   help="discard: full (52 cards, default) or short (24 cards, 9 to A)")
    p.add_argument("--tricks", type=whole_number(1, 1_000_000), default=None, metavar="N",
                   help="war: end after N tricks, the larger pile winning (default 500)")
    p.add_argument("--points", type=whole_number(1, 1000), default=None, metavar="N",
                   help="cabo: the game ends once a total passes N (default 66)")


def game_options(args: argparse.Namespace, game: str, allowed: Collection[str],
                 p: argparse.ArgumentParser) -> dict[str, str | int]:
    """The options given as flags; a flag that ``game`` does not have (not in ``allowed``) is an error."""
    options: dict[str, str | int] = {}
    for option in GAME_OPTIONS:
        value = getattr(args, option)
        if value is not None:
            if option not in allowed:
                p.error(f"--{option} is not an option of {game}")
            options[option] = value
    return options
