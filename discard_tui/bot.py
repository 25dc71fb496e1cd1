"""``discard-bot``: the table without a screen, for tests, benchmarks and as a computer player."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time

from games import GAMES
from tabletop import crypto, wire
from tabletop.groups import DEFAULT_GROUP, GROUPS
from tabletop.ledger import RelayError
from tabletop.shell import Seat
from tabletop.table import Strategy, Table
from tabletop.values import Result
from tabletop.words import verdict_words

from . import saves
from .config import PlayConfig, name_problem
from .session import Session
from .args import OneLineParser, add_game_options, add_think, game_options, seconds, trust_relay
from .profile import Profile, terminal_profile


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-bot", description="Play games against other players through a relay, with "
                      "a simple legal strategy, verifying every move.")
    p.add_argument("--relay", required=True, metavar="URL", help="relay address, e.g. ws://127.0.0.1:8765; "
                   "several nodes of one relay separated by commas")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss:// (a self-signed relay)")
    p.add_argument("--room", required=True, help="room name (1-64 of A-Z a-z 0-9 . _ -)")
    p.add_argument("--public", action="store_true", help="list the room in the relay's lobby, if this bot opens it")
    p.add_argument("--name", default="bot", help="name shown to the other players, up to 32 characters (default bot)")
    p.add_argument("--game", choices=sorted(GAMES), default=next(iter(GAMES)),
                   help=f"the game, if this bot opens the room (default {next(iter(GAMES))})")
    p.add_argument("--seats", type=int, default=None, metavar="N", help="players in the room, if this bot opens it "
                   "(default: the game's smallest number)")
    p.add_argument("--games", type=int, default=1, metavar="N", help="games to play, as rematches (default 1)")
    add_game_options(p, GAMES.abouts.values())
    p.add_argument("--group", choices=list(GROUPS), default=DEFAULT_GROUP.name,
                   help=f"the group a new room's cards are encrypted in (default {DEFAULT_GROUP.name}; a room keeps its own)")
    p.add_argument("--timeout", type=seconds(positive=True), default=120.0, metavar="S",
                   help="give up when another player owes a move for this many seconds (default 120: longer than "
                        "any game's clock and bank, so that a player out of time is claimed first)")
    p.add_argument("--seed", type=int, help="seed the strategy's choices (not the crypto)")
    add_think(p, 0.0)
    p.add_argument("--json", action="store_true", help="print one JSON line per finished game")
    return p


def game_record(seat: Seat, number: int) -> dict:
    table = seat.table
    play = table.plays[number - 1]
    timing = seat.timings[number]
    assert play.outcome is not None and timing.started is not None and timing.dealt is not None
    assert timing.ended is not None
    return {"game": number, "result": Result.of(play.outcome.winners, table.me).value,
            "audit": "fair" if play.verdict == [] else "violation", "deck": play.deck.size if play.deck else 0,
            "shuffle_s": round(timing.dealt - timing.started, 3),
            "shuffle_cpu_s": round(timing.dealt_cpu - timing.started_cpu, 3), "game_s": round(timing.ended - timing.started, 3),
            "moves": len(play.moves), "players": play.seats, "scores": list(play.outcome.scores),
            "match": dict(zip((table.name(s) for s in range(play.seats)), table.wins(number), strict=True)),
            "transcript": str(seat.transcript_path) if seat.transcript_path else None,
            **({"history": str(seat.histories[number])} if number in seat.histories else {}),
            **(play.state.record(table.seat_names()) if play.state is not None else {})}


async def next_game(seat: Seat, timeout: float) -> int | None:
    """The number of the next audited game (None if the seat stopped); TimeoutError once the game has not moved
    on for ``timeout`` while another seat owes it something (joining and leaving are no progress). A seat on the
    clock whose time runs out sooner is claimed by the seat's own timer (tabletop/shell.py) instead."""
    while True:
        remaining = seat.last_progress + timeout - time.monotonic()
        if not seat.table.awaiting():  # the move is mine: my own post will come
            remaining = max(remaining, timeout / 10)
        if remaining <= 0:
            raise TimeoutError
        try:
            async with asyncio.timeout(remaining):
                return await seat.completed.get()
        except TimeoutError:
            continue


def room_computer(seed: int | None) -> Strategy:
    """The computer of the game the room plays, whichever that is: a bot that joins a room someone else opened plays
    the room's game (its first hello decides), not the one its own ``--game`` names."""
    made: dict[str, Strategy] = {}

    def strategy(table: Table) -> wire.Message | str | None:
        game = table.play.game
        if game is None:
            return None
        if game.name not in made:
            made[game.name] = game.computer(seed)
        return made[game.name](table)

    return strategy


async def play(args: argparse.Namespace, config: PlayConfig, strategy: Strategy, profile: Profile) -> str | None:
    """Play the games; the reason for failing, or None when every game finished fair."""
    session = Session(config, profile, strategy)
    try:
        await session.sit_down(await session.open_relay())
    except RelayError as error:
        await session.close()
        return str(error)
    except OSError as error:
        await session.close()
        return (f"cannot keep the saved game in {profile.data_dir}: {error.strerror or error}; "
                "set DISCARD_DATA_DIR to a writable directory")
    seat = session.seat
    assert seat is not None
    saved = saves.saved(seat)
    reported = saved.reported if saved else 0  # games whose line an earlier run wrote
    runner = asyncio.create_task(session.run())
    failure = None
    finished = False  # done with this room: forget the saved seat
    try:
        while True:
            try:
                number = await next_game(seat, args.timeout)
            except TimeoutError:
                failure = seat.give_up(args.timeout)
                if seat.transcript_path:
                    failure += f"; transcript: {seat.transcript_path}"
                failure += "; run the same command to resume"
                break
            finished = number is None or number >= args.games
            if number is None:
                failure = seat.table.problem or seat.failure or "the game stopped"
                if seat.transcript_path:
                    failure += f" (transcript: {seat.transcript_path})"
                break
            record = game_record(seat, number)
            if args.json and number > reported:  # reported once its line is written, not once played
                print(json.dumps(record), flush=True)
                reported = number
                saves.mark(seat, reported=reported)
            if record["audit"] != "fair":
                verdict = seat.table.verdict(seat.table.plays[number - 1])
                assert verdict is not None
                failure = f"game {number}: {verdict_words(verdict, seat.table.seat_names(), seat.table.me)}"
                finished = True
                break
            if finished:
                break
            await seat.rematch()  # refused harmlessly if a resumed ledger already holds it
    finally:
        if finished:
            session.forget_room()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await session.close()
    return failure


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be 1 or more")
    if problem := name_problem(args.name):
        p.error(f"--name: {problem}")
    game = GAMES[args.game]
    seats = args.seats if args.seats is not None else game.seats.start
    if seats not in game.seats:
        p.error(f"--seats {seats}: {game.title} is for {game.about.players}")
    config = PlayConfig(relay=args.relay, room=args.room, name=args.name, game=game.name, seats=seats,
                        options=game_options(args, game.about, GAMES.abouts.values(), p), group=args.group,
                        think_time=args.think, public=args.public)
    trust_relay(p, args.relay, args.relay_ca)

    def stop(signum: int, frame: object) -> None:
        """SIGINT or SIGTERM: leave at once, with the shell's status for the signal (130, 143) and no line.

        Nothing is lost: every line printed was flushed, and a game's line is marked reported only once it
        is. The pool's workers leave with this process, as after SIGKILL (``crypto._exit_with_parent``).
        Not through asyncio.run's own shutdown: it waits for every task to end, and one stopped mid-join
        once in a few dozen stops never did."""
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        failure = asyncio.run(play(args, config, room_computer(args.seed), terminal_profile()))
    finally:
        crypto.shutdown_pool()
    if failure:
        print(f"discard-bot: {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
