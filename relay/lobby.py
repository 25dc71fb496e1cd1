"""The lobby: rooms that chose to be listed, and what each chose to show (protocol 1.2, docs/relay-protocol.md).

Guarantees:

* A room is listed only if the join that created it carried ``"public"``; the relay shows that object, the
  room's size, the names of the seats given out and how long it has waited, and nothing else: never a token,
  never a post.
* ``"public"`` comes from an untrusted client, so it is bounded like every other field: a flat object of at most
  ``MAX_FIELDS`` fields, keys of 1 to 32 characters from ``A-Z a-z 0-9 _ -``, values strings of at most 64
  printable characters, whole numbers within ±2**53, or booleans. A listing page holds at most ``MAX_PAGE`` rooms.
* A listed room is shown while it is open: not full (seats are never given back, so a room fills when its
  game starts) and with at least one seat held by a connection. It shows again if its last player comes back.
* Pages are in the order the rooms were listed, oldest first; a page's ``next`` cursor is the position after its
  last room, so a room listed or gone meanwhile never shifts a later page.
"""

from __future__ import annotations

import re

from .ledger import Listing, Refused, to_json

MAX_FIELDS = 8
MAX_TEXT = 64
MAX_NUMBER = 2**53
MAX_PAGE = 50  # rooms in one page at most
DEFAULT_PAGE = 20
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
CURSOR_PATTERN = re.compile(r"\d{13}:[A-Za-z0-9._-]{1,64}")  # the listing time in ms, then the room


def public_json(value: object) -> str:
    """The join's ``"public"`` object as compact JSON, or :class:`Refused` saying which rule it breaks."""
    if not isinstance(value, dict) or not 1 <= len(value) <= MAX_FIELDS:
        raise Refused("bad_request", f'"public" must be an object of 1 to {MAX_FIELDS} fields')
    for key, field in value.items():
        if not KEY_PATTERN.fullmatch(key):
            raise Refused("bad_request", '"public" keys must be 1 to 32 characters from A-Z a-z 0-9 _ -')
        if isinstance(field, str):
            if len(field) > MAX_TEXT or not field.isprintable():
                raise Refused("bad_request", f'"public" texts must be 0 to {MAX_TEXT} printable characters')
        elif isinstance(field, bool):
            pass
        elif type(field) is not int or abs(field) > MAX_NUMBER:
            raise Refused("bad_request", '"public" values must be texts, whole numbers within 2**53, or true/false')
    return to_json(value)


def page_request(request: dict) -> tuple[str | None, int, bool]:
    """The ``list`` frame's cursor (None: from the start), page size, and whether it asks for the rooms under way
    (1.3) instead of the open ones; or :class:`Refused`."""
    after, limit, under_way = request.get("after"), request.get("limit"), request.get("under_way")
    if under_way not in (None, False, True):
        raise Refused("bad_request", '"under_way" must be true, false or null')
    limit = DEFAULT_PAGE if limit is None else limit
    if after is not None and (not isinstance(after, str) or not CURSOR_PATTERN.fullmatch(after)):
        raise Refused("bad_request", '"after" must be null or the "next" of an earlier "rooms" frame')
    if type(limit) is not int or not 1 <= limit <= MAX_PAGE:
        raise Refused("bad_request", f'"limit" must be a whole number from 1 to {MAX_PAGE}')
    return after, limit, bool(under_way)


def rooms_frame(listings: list[Listing], more: bool, now_ms: int, under_way: bool = False) -> str:
    """The ``rooms`` frame answering a ``list``: ``more`` when rooms may follow the last one; rows of rooms under
    way (1.3) say how many watch them."""
    watching = (lambda item: f',"watching":{item.watching}') if under_way else (lambda item: "")
    rows = [f'{{"room":"{item.room}","seats":{item.seats},"taken":{len(item.names)},'
            f'"names":{to_json(item.names)},"waited":{max(0, now_ms - int(item.key[:13])) // 1000},'
            f'"public":{item.public_json}{watching(item)}}}' for item in listings]
    following = to_json(listings[-1].key) if more and listings else "null"
    return f'{{"type":"rooms","rooms":[{",".join(rows)}],"next":{following}}}'
