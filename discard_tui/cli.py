"""``discard-tui``: play discard in the terminal."""

from __future__ import annotations

import argparse
import getpass
import re
import secrets
import shlex
import sys
import time

from . import crypto, saves
from .net import relay_urls, ssl_context, trust
from .rules import DeckKind

ROOM = re.compile(r"[A-Za-z0-9._-]{1,64}")


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag costs one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="discard-tui", description="Play discard, a card game where nobody deals: the deck is "
                      "shuffled by both players under their own keys and every move is verified. With no "
                      "options you play the computer.")
    p.add_argument("--relay", metavar="URL", help="play a person through this relay, e.g. ws://host:8765 "
                   "(several nodes of one relay: separate them with commas)")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss:// (a self-signed relay)")
    p.add_argument("--room", metavar="NAME", help="the room to meet in (1-64 of A-Z a-z 0-9 . _ -)")
    p.add_argument("--name", default=None, help="your name at the table (default: your login name)")
    p.add_argument("--host", action="store_true", help="run a relay here for a friend and show what they type")
    p.add_argument("--port", type=int, default=None, help="with --host: the port to listen on (default 8765)")
    p.add_argument("--deck", choices=[k.value for k in DeckKind], default="full",
                   help="full (52 cards, default) or short (24 cards, 9 to A)")
    p.add_argument("--seed", type=int, help="seed the computer opponent's choices (not the crypto)")
    p.add_argument("--games", action="store_true", help="list unfinished games you can go back to, and exit")
    return p


def default_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = "".join(ch for ch in name if ch.isprintable())[:32]
    return name or "player"


def config_from(args: argparse.Namespace, p: argparse.ArgumentParser):
    from .app import PlayConfig

    if args.relay and args.host:
        p.error("--relay and --host do not go together: either join a relay or host one")
    if args.relay and not args.room:
        p.error("--relay needs --room NAME, the room your opponent joins too")
    if args.room is not None and not ROOM.fullmatch(args.room):
        p.error(f"--room {args.room!r}: use 1 to 64 of A-Z a-z 0-9 . _ -")
    if args.relay:
        try:
            relay_urls(args.relay)
        except ValueError as error:
            p.error(f"--relay: {error}")
    try:
        trust(ssl_context(args.relay_ca))
    except ValueError as error:
        p.error(f"--relay-ca: {error}")
    if args.port is not None and not args.host:
        p.error("--port goes with --host, the port your relay listens on")
    if args.room is not None and not (args.relay or args.host):
        p.error("--room goes with --relay or --host; against the computer the room is chosen for you")
    port = 8765 if args.port is None else args.port
    if not 0 <= port <= 65535:
        p.error(f"--port {port}: use a port from 0 to 65535")
    name = args.name if args.name is not None else default_name()
    if not 1 <= len(name) <= 32 or not name.isprintable():
        p.error("--name: use 1 to 32 printable characters")
    deck = DeckKind(args.deck)
    if args.host:
        room = args.room or saved_room(f"host:{port}", name) or f"table-{secrets.token_hex(3)}"
        return PlayConfig(room=room, name=name, deck=deck, host="0.0.0.0", port=port)
    if args.relay:
        return PlayConfig(relay=args.relay, room=args.room, name=name, deck=deck)
    room = saved_room(saves.LOCAL_RELAY, name) or f"computer-{secrets.token_hex(4)}"
    return PlayConfig(room=room, name=name, deck=deck, opponent_seed=args.seed)


def saved_room(relay_key: str, name: str) -> str | None:
    """The room of the newest unfinished game on our own relay, to go back to."""
    rooms = [seat.room for seat in saves.unfinished() if seat.relay == relay_key and seat.name == name]
    return rooms[-1] if rooms else None


def list_games() -> None:
    seats = saves.unfinished()
    if not seats:
        print("No unfinished games.")
        return
    print("Unfinished games (run the command to go back):")
    for seat in seats:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(seat.saved_at))
        if seat.relay == saves.LOCAL_RELAY:
            command = "discard-tui" + ("" if seat.name == default_name() else f" --name {shlex.quote(seat.name)}")
        elif seat.relay.startswith("host:"):
            command = f"discard-tui --host --port {seat.relay.split(':', 1)[1]}"
        else:
            command = f"discard-tui --relay {seat.relay} --room {seat.room} --name {shlex.quote(seat.name)}"
        print(f"  {when}  room {seat.room} as {seat.name}:  {command}")


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    if args.games:
        list_games()
        return
    config = config_from(args, p)
    from .app import DiscardApp

    crypto.start_pool()
    try:
        DiscardApp(config).run()
    finally:
        crypto.shutdown_pool()
    sys.exit(0)


if __name__ == "__main__":
    main()
