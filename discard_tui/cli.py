"""``discard-tui``: play discard in the terminal.

Start-up is ordered for a fast first frame: the flags are checked first (one
line and status 2 if they are bad), Textual is imported, and the app draws
before it imports the table. Ctrl-C at any moment ends with status 130 and no
traceback, a MODP room's process pool included; once the app is up, SIGTERM (kill)
leaves the same way with status 143 (discard_tui/app.py: DiscardApp.stopped).
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import signal
import sys
import time
from typing import TYPE_CHECKING, NoReturn

from . import saves
from .args import OneLineParser, add_game_options, add_think, game_options, trust_relay
from .config import DEFAULT_GAME, DEFAULT_GROUP, GROUPS, SCREENS, THINK, PlayConfig, fresh_room, name_problem, room_problem
from .prefs import Kept, Prefs, load
from .profile import Profile, terminal_profile

if TYPE_CHECKING:
    from .app import DiscardApp

INTERRUPTED = 130  # what a shell reports for a program stopped by Ctrl-C (128 + SIGINT)


def parser() -> argparse.ArgumentParser:
    games = "; ".join(f"{entry.about.name} ({entry.about.title + ', ' if entry.about.title != entry.about.name else ''}"
                      f"{entry.about.players})" for entry in SCREENS.values())
    p = OneLineParser(prog="discard-tui", description="Play card games where nobody deals: the deck is shuffled by "
                      "every player under their own keys and every move is verified. With no options you play "
                      f"{DEFAULT_GAME} against the computer. The games (--game): {games}.")
    p.add_argument("--relay", metavar="URL", help="play a person through this relay, e.g. ws://host:8765 "
                   "(several nodes of one relay: separate them with commas)")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss:// (a self-signed relay)")
    p.add_argument("--room", metavar="NAME", help="the room to meet in (1-64 of A-Z a-z 0-9 . _ -); with --relay "
                   "and no --room, the relay's lobby lists the rooms waiting for players")
    p.add_argument("--watch", metavar="ROOM", help="with --relay: watch a game in ROOM without a seat, read-only "
                   "(you see what every player is shown, never a hidden card; the players see how many watch)")
    p.add_argument("--public", action="store_true", help="list the room you create in the relay's lobby (rooms are "
                   "private by default: only who knows the name joins)")
    p.add_argument("--name", default=None, help="your name at the table, up to 32 characters (default: your login name)")
    p.add_argument("--host", action="store_true", help="run a relay here for a friend and show what they type")
    p.add_argument("--port", type=int, default=None, help="with --host: the port to listen on (default 8765)")
    p.add_argument("--game", choices=sorted(SCREENS), default=None,
                   help=f"the game to play (default {DEFAULT_GAME}); a room you go back to, or one someone else "
                   "opened, plays its own")
    p.add_argument("--seats", type=int, default=None, metavar="N",
                   help="players at the table (default: the game's usual number, or the saved number of the room "
                   "you go back to); against the computer, the others are computer players")
    add_game_options(p, (entry.about for entry in SCREENS.values()))
    p.add_argument("--group", choices=list(GROUPS), default=DEFAULT_GROUP,
                   help=f"the group a new room's cards are encrypted in (default {DEFAULT_GROUP}; a room keeps its own)")
    p.add_argument("--seed", type=int, help="seed the computer opponent's choices (not the crypto)")
    add_think(p, THINK)
    p.set_defaults(think=None)  # not given: the preferences' think time, else THINK
    p.add_argument("--no-bell", dest="bell", action="store_false",
                   help="do not ring the terminal's bell when your turn comes after the others kept you waiting "
                   "(it rings only in a game with people at other terminals)")
    p.add_argument("--games", action="store_true", help="list unfinished games you can go back to, and exit")
    p.add_argument("--replay", metavar="FILE", help="step through the games of a saved transcript on the game's "
                   "table, as a watcher saw them (with the seat's seed beside it, as that seat did; only games that "
                   "discard-verify accepts; a version-3 or 4 transcript, audited, as its seat saw it)")
    p.add_argument("--history", metavar="FILE", help="print the hand history of a saved transcript's Hold'em games "
                   "in the Poker Hand History format (PHH, which PokerKit reads): only games that discard-verify "
                   "accepts, with your own cards when the transcript is yours")
    p.add_argument("--pick", action="store_true", help="choose your name, the game and your opponent (the "
                   "computer, or a room on --relay) on a start screen first")
    return p


def config_from(args: argparse.Namespace, p: argparse.ArgumentParser, profile: Profile, prefs: Prefs = Prefs()
                ) -> PlayConfig:
    """The table the flags describe; what they leave out comes from the player's preferences, then the defaults."""
    if args.relay and args.host:
        p.error("--relay and --host do not go together: either join a relay or host one")
    if args.pick and args.host:
        p.error("--pick and --host do not go together: the start screen plays the computer or a room on --relay")
    if args.public and not (args.relay or args.host):
        p.error("--public lists a room in a relay's lobby: give --relay URL (or --host)")
    if args.room is not None and (problem := room_problem(args.room)):
        p.error(f"--room {args.room!r}: {problem}")
    if args.watch is not None:
        return watch_config(args, p, profile, prefs)
    if args.relay or args.relay_ca:  # the network client is imported only when it is needed (start-up time)
        trust_relay(p, args.relay, args.relay_ca)
    if args.port is not None and not args.host:
        p.error("--port goes with --host, the port your relay listens on")
    port = 8765 if args.port is None else args.port
    if not 0 <= port <= 65535:
        p.error(f"--port {port}: use a port from 0 to 65535")
    name = player_name(args, p, profile, prefs)
    games = profile.games_dir
    relay_key = saves.relay_key(args.relay, args.host, port)
    if args.host:
        room = args.room or saves.saved_room(games, relay_key, name, args.game, args.seats) or fresh_room("table")
    elif args.relay:  # with --pick and no --room, the room is chosen on the start screen
        room = args.room or ""
    else:
        if args.room is not None and saves.load(games, relay_key, args.room, name) is None:
            p.error(f"--room {args.room}: no game against the computer to go back to there as {name} "
                    "(see --games); a new game against the computer needs no --room")
        room = args.room or saves.saved_room(games, relay_key, name, args.game, args.seats) or fresh_room("computer")
    saved = saves.room_terms(games, relay_key, room, name)
    last = prefs.game if prefs.game in SCREENS else DEFAULT_GAME  # the game played last
    flagged = args.game or (saved[0] if saved else last)  # the game the flags are checked against
    about = SCREENS[flagged].about
    if args.seats is not None and args.seats not in about.seats:
        p.error(f"--seats {args.seats}: {flagged} is for {about.players}")
    options = game_options(args, about, (entry.about for entry in SCREENS.values()), p)
    # Going back to a saved seat, its room's game and players win over --game and --seats: the room's first
    # hello fixed them (the table would follow it anyway), and the same command must bring the player back.
    game_name, seats = saved or (flagged, about.default_seats if args.seats is None else args.seats)
    terms = PlayConfig(name=name, room=room, game=game_name, seats=seats,
                       options=options if game_name == flagged else {}, group=args.group,
                       think_time=args.think if args.think is not None else THINK if prefs.think is None else prefs.think,
                       bell=args.bell)
    if args.host:
        return dataclasses.replace(terms, host="0.0.0.0", port=port, public=args.public)
    if args.relay:
        return dataclasses.replace(terms, relay=args.relay, opponent_seed=args.seed, public=args.public)
    return dataclasses.replace(terms, opponent_seed=args.seed)


def player_name(args: argparse.Namespace, p: argparse.ArgumentParser, profile: Profile, prefs: Prefs) -> str:
    """``--name``, else the name kept from last time, else the login name (one line and exit 2 if it is bad)."""
    name = args.name if args.name is not None else prefs.name if prefs.name and not name_problem(prefs.name) \
        else profile.name
    if problem := name_problem(name):
        p.error(f"--name: {problem}")
    return name


def watch_config(args: argparse.Namespace, p: argparse.ArgumentParser, profile: Profile, prefs: Prefs) -> PlayConfig:
    """``--watch ROOM``: a watcher's table on ``--relay``, which nothing else of a player's goes with."""
    if not args.relay:
        p.error("--watch ROOM watches a game on a relay: give --relay URL too")
    for flag, given in (("--room", args.room), ("--host", args.host), ("--pick", args.pick), ("--public", args.public)):
        if given:
            p.error(f"--watch and {flag} do not go together: a watcher takes no seat")
    if problem := room_problem(args.watch):
        p.error(f"--watch {args.watch!r}: {problem}")
    trust_relay(p, args.relay, args.relay_ca)
    return PlayConfig(relay=args.relay, room=args.watch, name=player_name(args, p, profile, prefs), watch=True,
                      bell=False)


def resume_command(seat: saves.SavedSeat) -> str:
    """The command that takes ``seat`` back, as the README writes commands."""
    words = ["uv", "run", "discard-tui"]
    if seat.relay.startswith("host:"):
        words += ["--host", "--port", seat.relay.split(":", 1)[1]]
    elif seat.relay != saves.LOCAL_RELAY:
        words += ["--relay", seat.relay]
    return shlex.join(words + ["--room", seat.room, "--name", seat.name])


def list_games(profile: Profile, now: float | None = None) -> None:
    """Each unfinished game, newest first: what it is (the game, the other players, the score or how far it got,
    when it was last played), then the command that goes back to it."""
    seats = saves.unfinished(profile.games_dir)[::-1]
    if not seats:
        print("No unfinished games.")
        return
    now = time.time() if now is None else now
    print("Unfinished games, newest first (run the command to go back):")
    for seat in seats:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(seat.last_played))
        print(f"  {saves.summary(seat, now)} ({when})\n    {resume_command(seat)}")


def play(argv: list[str] | None) -> int:
    """Check the flags, start the pool in the background, run the app; the exit status."""
    p = parser()
    args = p.parse_args(argv)
    profile = terminal_profile()
    if args.games:
        list_games(profile)
        return 0
    if args.replay is not None:
        from .replay import replay

        return replay(args.replay)
    if args.history is not None:
        from .history import history

        return history(args.history)
    kept = load(profile.config_dir)
    if kept.problem:  # before the app: the line stays in the terminal once it closes
        print(f"discard-tui: {kept.problem}", file=sys.stderr)
    return run(config_from(args, p, profile, kept.prefs), profile, pick=args.pick, kept=kept)


def run(config: PlayConfig, profile: Profile, pick: bool, kept: Kept | None = None) -> int:
    """Run the app; the exit status (a crash: one line on stderr)."""
    from .app import DiscardApp

    app = DiscardApp(config, profile, pick=pick, kept=kept)
    try:
        app.run()
    finally:
        from tabletop import crypto

        crypto.shutdown_pool()  # if a MODP room started it
    if app.crash:
        print(f"discard-tui: {app.crash}", file=sys.stderr)
        return app.return_code or 0
    if app.cannot_play:
        print(f"discard-tui: cannot play: {app.cannot_play}", file=sys.stderr)
    for line in leaving_lines(unfinished_seat(app, profile), app.waiting_invite, app.config, app.left_transcript):
        print(line)
    return app.return_code or 0


def leaving_lines(kept: saves.SavedSeat | None, invite: str | None, config: PlayConfig,
                  transcript: str | None = None) -> list[str]:
    """What the shell is left with: the command that comes back to a kept seat, and, leaving a room that waits for
    players, the one a friend types to join it (a hosted room's relay goes with its host: once they are back);
    leaving a game under way while the relay was out of reach, where its ``transcript`` so far is kept."""
    lines = []
    if kept is not None:
        what = "seat" if kept.stage == "waiting" else "game"
        lines.append(f"Your {what} in room {kept.room} waits for you: {resume_command(kept)}")
    if transcript is not None:
        lines.append(f"The relay was out of reach: the game so far is kept, for discard-verify: {transcript}")
    if invite is not None and config.host is not None and kept is not None:
        lines.append(f"Once you are back, a friend joins with: {invite}")
    elif invite is not None and config.relay:
        lines.append(f"A friend joins room {config.room} with: {invite}")
    return lines


def unfinished_seat(app: DiscardApp, profile: Profile) -> saves.SavedSeat | None:
    """The seat the player left a game under way in, if any (a finished or abandoned game keeps none)."""
    c = app.config
    seat = saves.load(profile.games_dir, saves.relay_key(c.relay, c.host is not None, c.port), c.room, c.name) \
        if c.room and not c.watch else None  # a watcher has no seat to come back to
    return seat if seat is not None and seat.stage != "over" else None


def main(argv: list[str] | None = None) -> NoReturn:
    try:
        status = play(argv)
    except KeyboardInterrupt:  # Ctrl-C outside the app's own keyboard handling (it exits with 130 itself)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second one while leaving changes nothing
        status = INTERRUPTED
    sys.exit(status)


if __name__ == "__main__":
    main()
