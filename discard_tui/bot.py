"""``discard-bot``: the engine without a screen, for tests, benchmarks and as the computer opponent."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import signal
import sys
import time
from collections.abc import Callable

from . import crypto, saves
from .cli import OneLineParser
from .crypto import GROUPS
from .engine import Game, Session, Strategy
from .net import RelayError, ssl_context, trust
from .paths import data_dir, transcripts_dir
from .rules import DeckKind, matches


def simple_strategy(seed: int | None = None) -> Strategy:
    """Discard a random playable card (seeded), else draw."""
    rng = random.Random(seed)

    def choose(session: Session) -> int | None:
        table = session.game.table
        assert table is not None
        playable = [i for i, (_, card) in enumerate(session.hand()) if matches(card, table.top)]
        return rng.choice(playable) if playable else None

    return choose


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


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-bot", description="Play discard games against another player through a "
                      "relay, with a simple legal strategy, verifying every move.")
    p.add_argument("--relay", required=True, metavar="URL", help="relay address, e.g. ws://127.0.0.1:8765; "
                   "several nodes of one relay separated by commas")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss:// (a self-signed relay)")
    p.add_argument("--room", required=True, help="room name (1-64 of A-Z a-z 0-9 . _ -)")
    p.add_argument("--name", default="bot", help="name shown to the other player (default bot)")
    p.add_argument("--games", type=int, default=1, metavar="N", help="games to play, as rematches (default 1)")
    p.add_argument("--deck", choices=[k.value for k in DeckKind], default="full",
                   help="full (52 cards, default) or short (24 cards, 9 to A)")
    p.add_argument("--group", choices=sorted(GROUPS), default="modp2048", help="RFC 3526 group (default modp2048)")
    p.add_argument("--timeout", type=seconds(positive=True), default=60.0, metavar="S",
                   help="give up when the opponent is silent this many seconds (default 60)")
    p.add_argument("--seed", type=int, help="seed the strategy's choices (not the crypto)")
    p.add_argument("--think", type=seconds(positive=False), default=0.0, metavar="S", help="pause before each move (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON line per finished game")
    return p


def game_record(session: Session, g: Game) -> dict:
    assert g.table is not None and g.dealt_at is not None and g.ended_at is not None
    return {"game": g.number, "result": "win" if g.table.winner == session.seat else "loss",
            "audit": "fair" if g.verdict == [] else "violation", "deck": g.size,
            "shuffle_s": round(g.dealt_at - g.started, 3), "game_s": round(g.ended_at - g.started, 3),
            "moves": len(g.moves)}


async def next_game(session: Session, timeout: float) -> Game | None:
    """The next audited game (None if the session stopped); TimeoutError once the ledger is quiet for ``timeout``."""
    while True:
        remaining = session.last_activity + timeout - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            return await asyncio.wait_for(session.completed.get(), remaining)
        except TimeoutError:
            continue


async def play(args: argparse.Namespace) -> str | None:
    """Play the games; the reason for failing, or None when every game finished fair."""
    await crypto.warm_up()
    try:
        session, _ = await saves.resume_or_join(
            args.relay, args.room, args.name, deck=DeckKind(args.deck), group=GROUPS[args.group],
            autoplay=simple_strategy(args.seed), think_time=args.think, transcript_dir=transcripts_dir())
    except RelayError as error:
        return str(error)
    except OSError as error:
        return f"cannot keep the saved game in {data_dir()}: {error.strerror or error}; set DISCARD_DATA_DIR to a writable directory"
    runner = asyncio.create_task(session.run())
    failure = None
    finished = False  # done with this room: forget the saved seat
    try:
        while True:
            try:
                game = await next_game(session, args.timeout)
            except TimeoutError:
                failure = f"opponent silent for {args.timeout:g} s; giving up (run the same command to resume)"
                break
            finished = game is None or game.number >= args.games
            if game is None:
                failure = session.problem or "the game stopped"
                if session.transcript_path:
                    failure += f" (transcript: {session.transcript_path})"
                break
            record = game_record(session, game)
            if args.json and not game.replayed:  # a replayed game was reported by the run that played it
                print(json.dumps(record), flush=True)
            if record["audit"] != "fair":
                failure = f"game {game.number} failed its audit: {'; '.join(game.verdict or [])}"
                finished = True
                break
            if finished:
                break
            await session.rematch()  # refused harmlessly if a resumed ledger already holds it
    finally:
        if finished:
            saves.remove(args.relay, args.room, args.name)
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await session.ledger.close()
    return failure


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.games < 1:
        parser().error("--games must be 1 or more")
    try:
        trust(ssl_context(args.relay_ca))
    except ValueError as error:
        parser().error(f"--relay-ca: {error}")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop as cleanly as on Ctrl-C
    try:
        failure = asyncio.run(play(args))
    except KeyboardInterrupt:
        failure = "interrupted"
    finally:
        crypto.shutdown_pool()
    if failure:
        print(f"discard-bot: {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
