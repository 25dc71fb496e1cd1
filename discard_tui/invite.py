"""What a host's friend types: the command, with addresses of this machine that another one can reach."""

from __future__ import annotations

import shlex
import socket

import psutil

UNSPECIFIED = ("0.0.0.0", "::", "")


def outgoing_address() -> str | None:
    """The address of the interface that carries traffic off this machine (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only the routing table is asked
            return str(probe.getsockname()[0])
        except OSError:
            return None


def interface_addresses() -> list[str]:
    """Every IPv4 address of an interface that is up, loopback and link-local left out."""
    stats = psutil.net_if_stats()
    found = []
    for interface, entries in psutil.net_if_addrs().items():
        if interface in stats and not stats[interface].isup:
            continue
        for entry in entries:
            if entry.family == socket.AF_INET and not entry.address.startswith(("127.", "169.254.")):
                found.append(entry.address)
    return found


def addresses(host: str) -> list[str]:
    """Where a friend can reach a relay listening on ``host``: the outgoing interface's address first.

    A named listen address is used as it is. With no address at all (no network),
    the host name, which may only work on this machine.
    """
    if host not in UNSPECIFIED:
        return [host]
    first = outgoing_address()
    found = ([first] if first else []) + [a for a in interface_addresses() if a != first]
    return found or [socket.gethostname()]


def relay_command(url: str, room: str, game: str, seats: int) -> str:
    """What a friend types to join ``room`` on the relay at ``url`` (several nodes: as given, comma-separated). It
    names the room's game and seats, so that the friend's own preferences (another game, another number of players,
    kept from their last game) cannot make the relay refuse the join."""
    return shlex.join(["uv", "run", "discard-tui", "--relay", url, "--room", room, "--game", game,
                       "--seats", str(seats)])


LOOPBACK = ("localhost", "::1", "[::1]")


def loopback_only(url: str) -> bool:
    """Whether every node of ``url`` is this machine's loopback (127.x, localhost, ::1): no other machine reaches it."""
    from urllib.parse import urlsplit

    def local(node: str) -> bool:
        try:
            host = urlsplit(node.strip()).hostname or ""
        except ValueError:
            return False
        return host.startswith("127.") or host in LOOPBACK

    return all(local(node) for node in url.split(","))


def shell_lines(command: str, width: int) -> list[str]:
    """``command`` on lines of at most ``width`` columns, broken only between its words, each line but the last
    ending in " \\" (a shell reads them as one command, so copying them whole works); a word longer than a line
    gets a line of its own, never broken inside."""
    if len(command) <= width:
        return [command]
    words = [shlex.quote(word) for word in shlex.split(command)]
    lines, line = [], words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) + 2 <= width:
            line += " " + word
        else:
            lines.append(line + " \\")
            line = "  " + word
    return [*lines, line]
