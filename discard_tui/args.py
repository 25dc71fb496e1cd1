"""Command-line pieces shared by discard-tui and discard-bot."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn

from tabletop.about import About, OneOf, Option

if TYPE_CHECKING:
    from tabletop.transcript import GameCheck, Transcript


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


def add_game_options(p: argparse.ArgumentParser, games: Iterable[About]) -> None:
    """One flag per option of ``games`` (``--deck``, ``--tricks``, …), each from the game's own declaration; an option
    several games declare (the clock's) is one flag whose help gives each game's default."""
    shared: dict[str, list[tuple[About, Option]]] = {}
    for about in games:
        for option in about.options:
            shared.setdefault(option.name, []).append((about, option))
    for name, declared in shared.items():
        about, option = declared[0]
        whose = f"{about.name}: " if len(declared) == 1 else ""
        defaults = ", ".join(f"{about.name} {option.default}" for about, option in declared) if len(declared) > 1 \
            else str(option.default)
        if isinstance(option, OneOf):
            p.add_argument(f"--{name}", choices=option.choices, default=None,
                           help=f"{whose}{option.help} (default {defaults})")
        else:
            p.add_argument(f"--{name}", type=argument(option.parse), default=None, metavar="N",
                           help=f"{whose}{option.help} (default {defaults})")


def argument(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a parser that raises ValueError with its reason (argparse words ValueError its way)."""

    def parsed(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parsed


def game_options(args: argparse.Namespace, game: About, offered: Iterable[About],
                 p: argparse.ArgumentParser) -> dict[str, str | int]:
    """The options of ``game`` given as flags (of every game ``offered``); another game's flag is an error."""
    options: dict[str, str | int] = {}
    for about in offered:
        for option in about.options:
            value = getattr(args, option.name)
            if value is not None:
                if option.name not in {mine.name for mine in game.options}:
                    p.error(f"--{option.name} is not an option of {game.title}")
                options[option.name] = value
    return options


def checked_transcript(flag: str, path: str) -> tuple[Transcript, list[GameCheck]] | None:
    """The transcript given to ``flag`` (``--replay``, ``--history``), read and checked as discard-verify checks it;
    None, with one line on stderr, when it cannot be read or is not one (exit status 2)."""
    import sys
    from pathlib import Path

    from games import GAMES
    from tabletop import transcript

    try:
        record = transcript.load(Path(path))
        return record, transcript.check(record, GAMES)
    except transcript.NotATranscript as error:
        print(f"discard-tui: {flag} {path}: {error}", file=sys.stderr)
        return None


def nothing_in(flag: str, path: str, what: str, checks: list[GameCheck]) -> int:
    """One line on stderr: the transcript has ``what`` in none of its games, each game's check said; exit status 1."""
    import sys

    lines = [check.line() for check in checks] or ["no game was played"]
    print(f"discard-tui: {flag} {path}: {what}: {'; '.join(lines)}", file=sys.stderr)
    return 1
