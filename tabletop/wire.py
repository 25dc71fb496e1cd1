"""The wire: signed envelopes around messages from an open registry.

A relay ``post`` body is an envelope::

    {"game": 1, "n": 3, "msg": {"type": ...}, "shares": {...}?, "sig": "…"}

``game`` numbers the games of a room, ``n`` counts one sender's posts in a
game (1, 2, 3, …), ``msg`` is one message whose ``type`` a :class:`Registry`
knows, ``shares`` (absent when empty) carries key material for reveals, and
``sig`` is an Ed25519 signature over the canonical JSON of everything else
plus the room and the sender's seat.

Every model is strict (an int is an int: no ``2.0``, ``"2"`` or ``true``),
and a body is accepted only if it is already in canonical form: the
signature covers exactly what was received, never a coerced copy of it.

The table owns the envelope, :class:`Hello`, :class:`Share`,
:class:`Audit`, :class:`Stopped` and :class:`TimeOut`; the deck, commit–reveal and each game register their own
message models. See docs/protocol.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from .words import clip

PROTOCOL_VERSION = 5  # 5: every shuffle step carries a proof, keys are committed as d·G, the audit publishes nothing
READ_ONLY_VERSIONS = (3, 4)  # an observer (discard-verify, --replay) still reads transcripts of these
PROVEN = 5  # the first version whose shuffle steps are proven on receipt
HEX_DIGITS = 768  # a 3072-bit number
MAX_SEATS = 6
def printable(text: str) -> str:
    """``text`` if every character of it is printable (Python's ``str.isprintable``: no control, format, private
    or unassigned character and no separator but the space), the relay's rule for names; ValueError otherwise.
    A right-to-left override (U+202E) in a name could make it show as another player's."""
    if not text.isprintable():
        raise ValueError("not printable")
    return text


STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)

Hex = Annotated[str, Field(pattern=rf"^(0|[1-9a-f][0-9a-f]{{0,{HEX_DIGITS - 1}}})$")]
Element = Annotated[str, Field(pattern=rf"^[0-9a-f]{{1,{HEX_DIGITS}}}$")]  # its group checks the canonical form
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Counter = Annotated[int, Field(ge=1, le=1_000_000)]
Seat = Annotated[int, Field(ge=0, lt=MAX_SEATS)]
MAX_DEALS = 100  # decks one game may deal (a game of rounds deals once a round)
Position = Annotated[int, Field(ge=0, lt=MAX_DEALS * 1000)]
Name = Annotated[str, Field(min_length=1, max_length=32), AfterValidator(printable)]
Word = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")]


class Message(BaseModel):
    """One message; subclasses set ``type`` to a Literal that names them on the wire."""

    model_config = STRICT
    type: str


def message_type(model: type[Message]) -> str:
    return str(model.model_fields["type"].default)


# -- the table's own messages ---------------------------------------------------------------------


class Hello(Message):
    """First message of every game: who I am, what I play, and my keys for this game."""

    type: Literal["hello"] = "hello"
    version: Annotated[int, Field(ge=1, le=65535)]
    name: Name
    verify_key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]  # Ed25519, signs this game's posts
    box_key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]  # X25519, receives sealed key shares
    game: Word
    seats: Annotated[int, Field(ge=2, le=MAX_SEATS)]
    group: Word | None = None  # version 4: an id of tabletop.groups (ed25519, modp2048, modp3072)
    prime: Hex | None = None  # version 3, read from old transcripts only: an RFC 3526 prime
    options: dict[Word, Annotated[str, Field(max_length=32)] | Annotated[int, Field(ge=0, le=1_000_000)]]


class Share(Message):
    """Key material owed for reveals (in the envelope's ``shares``), with no move of my own."""

    type: Literal["share"] = "share"


class Audit(Message):
    """End of a game in versions 3 and 4: the seed every deck secret of the seat derives from, so that everyone can
    re-check its steps. Version 5 proves every step on receipt and has no audit: a game is verified when it ends."""

    type: Literal["audit"] = "audit"
    seed: Digest


class OpenKey(BaseModel):
    """``seat``'s decryption key for position ``pos``, for everyone."""

    model_config = STRICT
    pos: Position
    seat: Seat
    key: Hex


class SealedKey(BaseModel):
    """The sender's key for ``pos``, sealed so that only seat ``to`` can read it."""

    model_config = STRICT
    pos: Position
    to: Seat
    box: Annotated[str, Field(pattern=r"^[0-9a-f]{2,2048}$")]


class Shares(BaseModel):
    model_config = STRICT
    open: Annotated[list[OpenKey], Field(max_length=1000)] = []
    sealed: Annotated[list[SealedKey], Field(max_length=1000)] = []


class _Head(BaseModel):
    model_config = STRICT
    game: Counter
    n: Counter
    msg: dict[str, Any]
    shares: Shares | None = None
    sig: Annotated[str, Field(pattern=r"^[0-9a-f]{128}$")]


@dataclass(frozen=True)
class Envelope:
    game: int
    n: int
    msg: Message
    shares: Shares | None
    sig: str

    def body(self) -> dict:
        return _body(self.game, self.n, self.msg, self.shares) | {"sig": self.sig}


class BadEnvelope(Exception):
    """A post body that is not a well-formed envelope."""


def canonical(value: object) -> bytes:
    """The one byte string a JSON value is signed as: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _body(game: int, n: int, msg: Message, shares: Shares | None) -> dict:
    body: dict[str, Any] = {"game": game, "n": n, "msg": msg.model_dump(mode="json", exclude_none=True)}
    if shares is not None and (shares.open or shares.sealed):
        body["shares"] = shares.model_dump(mode="json")
    return body


def _signed(room: str, seat: int, body: dict) -> bytes:
    return canonical({**{k: v for k, v in body.items() if k != "sig"}, "room": room, "seat": seat})


def seal(identity: Ed25519PrivateKey, room: str, seat: int, game: int, n: int, msg: Message,
         shares: Shares | None = None) -> dict:
    """The relay post body for ``msg`` (and its key material), signed by ``identity``."""
    body = _body(game, n, msg, shares)
    return body | {"sig": identity.sign(_signed(room, seat, body)).hex()}


def verify(key: Ed25519PublicKey, room: str, seat: int, envelope: Envelope) -> bool:
    """Does ``sig`` sign exactly this envelope, posted in ``room`` by ``seat``?"""
    body = envelope.body()
    try:
        key.verify(bytes.fromhex(envelope.sig), _signed(room, seat, body))
    except InvalidSignature:
        return False
    return True


class Registry:
    """The message types one table understands: its own, the deck's, commit–reveal's and its game's."""

    def __init__(self, models: Iterable[type[Message]]) -> None:
        self.models: dict[str, type[Message]] = {}
        for model in models:
            name = message_type(model)
            if name in self.models and self.models[name] is not model:
                raise ValueError(f"two message models are called {name!r}")
            self.models[name] = model

    def parse(self, body: object) -> Envelope:
        """A post body as an envelope, or BadEnvelope: strictly typed, known, and already canonical."""
        if not isinstance(body, dict):
            raise BadEnvelope("malformed message (not a JSON object)")
        try:
            received = canonical(body)
        except (ValueError, UnicodeError, RecursionError):  # NaN, a lone surrogate, nesting past Python's limit
            raise BadEnvelope("malformed message (not JSON that can be written canonically)") from None
        try:
            head = _Head.model_validate_json(received)
        except ValidationError as error:
            raise _bad(error) from None
        kind = head.msg.get("type")
        model = self.models.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise BadEnvelope(f"malformed message (msg.type: {clip(kind, 24)!r} is not a message of this game)")
        try:
            msg = model.model_validate_json(canonical(head.msg))
        except ValidationError as error:
            raise _bad(error, "msg") from None
        envelope = Envelope(head.game, head.n, msg, head.shares, head.sig)
        dumped = envelope.body()
        if canonical(dumped) != received:
            where = clip(".".join(_first_difference(body, dumped)), 40)
            raise BadEnvelope(f"malformed message ({where}: not in canonical form)")
        return envelope


def _bad(error: ValidationError, prefix: str = "") -> BadEnvelope:
    first = error.errors()[0]
    where = ".".join([prefix] * bool(prefix) + [str(part) for part in first["loc"]])
    return BadEnvelope(f"malformed message ({clip(where, 40)}: {clip(first['msg'], 80)})")


def _first_difference(received: object, canonical_form: object) -> list[str]:
    """The path to the first value written differently from its canonical form."""
    if isinstance(received, dict) and isinstance(canonical_form, dict):
        for key in sorted(set(received) | set(canonical_form), key=str):
            if key not in received or key not in canonical_form:
                return [str(key)]
            if canonical(received[key]) != canonical(canonical_form[key]):
                return [str(key), *_first_difference(received[key], canonical_form[key])]
    if isinstance(received, list) and isinstance(canonical_form, list):
        for index, (a, b) in enumerate(zip(received, canonical_form)):
            if canonical(a) != canonical(b):
                return [str(index), *_first_difference(a, b)]
    return []


# -- identities ------------------------------------------------------------------------------------


def public_key(hex_key: str) -> Ed25519PublicKey | None:
    """The verify key, or None if it is malformed or weak (of small order)."""
    raw = bytes.fromhex(hex_key)
    if has_small_order(raw):
        return None
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None


def public_hex(identity: Ed25519PrivateKey) -> str:
    return identity.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


# Edwards25519, just enough to refuse weak keys. Under a point A of small order,
# [k]A vanishes after a cofactor multiplication, so one fixed signature can
# verify for every message: such a key proves nothing about who signed.
_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P


def _decode_point(raw: bytes) -> tuple[int, int] | None:
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    sign = raw[31] >> 7
    if y >= _P:
        return None
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if (v * x * x - u) % _P:
        x = x * pow(2, (_P - 1) // 4, _P) % _P
        if (v * x * x - u) % _P:
            return None
    if x == 0 and sign:
        return None
    return (_P - x if x & 1 != sign else x), y


def _double(point: tuple[int, int]) -> tuple[int, int]:
    x, y = point
    t = _D * x * x * y * y % _P
    return ((2 * x * y) * pow(1 + t, -1, _P) % _P, (y * y + x * x) * pow(1 - t, -1, _P) % _P)


def has_small_order(raw: bytes) -> bool:
    """True for an encoding that is no point, or a point whose order divides 8."""
    point = _decode_point(raw)
    if point is None:
        return True
    for _ in range(3):
        point = _double(point)
    return point == (0, 1)


class Stopped(Message):
    """I stopped this game on a violation (``reason``, one line): sent once, as I leave, so that the others
    stop at once and show why instead of waiting for me."""

    type: Literal["stopped"] = "stopped"
    reason: Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")]


class TimeOut(Message):
    """Seat ``seat``'s time ran out on its wait number ``wait`` (tabletop/clock.py): the game makes its default move
    for it. It holds only if the relay's stamps in the ledger show it, from the stamp of the event that began the
    wait to the stamp of this claim; made earlier, it is its sender's violation (docs/protocol.md, "The clock")."""

    type: Literal["timeout"] = "timeout"
    seat: Seat
    wait: Counter


def stop_reason(text: str) -> str:
    """``text`` as a Stopped reason: printable characters only, at most 200 of them."""
    return clip("".join(ch if ch.isprintable() else " " for ch in text), 200) or "a violation"


TABLE_MESSAGES: tuple[type[Message], ...] = (Hello, Share, Audit, Stopped, TimeOut)
