"""Every game message on the wire, as pydantic models, and their signed envelope.

A relay ``post`` body is an :class:`Envelope`: the game number, the sender's
counter ``n`` (1, 2, 3, … per sender and game), the message, and an Ed25519
signature over canonical bytes of all of it plus the room and the sender's
seat. A changed, reordered, replayed or misattributed message fails to verify.

Every model is strict (an int is an int: no ``2.0``, ``"2"`` or ``true``), and
a body is accepted only if it is already in canonical form, the form that was
signed: the signature covers exactly what was received, never a coerced
re-serialisation of it. See ``docs/protocol.md`` for the sequence.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .rules import DeckKind

PROTOCOL_VERSION = 2
HEX_DIGITS = 768  # a 3072-bit number; no leading zeros, lower case
Hex = Annotated[str, Field(pattern=rf"^(0|[1-9a-f][0-9a-f]{{0,{HEX_DIGITS - 1}}})$")]
Position = Annotated[int, Field(ge=0, lt=52)]
Counter = Annotated[int, Field(ge=1, le=1_000_000)]
STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


class Message(BaseModel):
    """One message; subclasses set ``type`` to a Literal that names them on the wire."""

    model_config = STRICT
    type: str


class Hello(Message):
    """First message of every game: who I am and what I play with."""

    type: Literal["hello"] = "hello"
    version: Annotated[int, Field(ge=1, le=65535)]
    name: Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[^\x00-\x1f\x7f-\x9f]+$")]
    verify_key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    prime: Hex
    deck: DeckKind


class Commit(Message):
    """Coin flip, step 1: SHA-256 of a secret nonce."""

    type: Literal["commit"] = "commit"
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class Reveal(Message):
    """Coin flip, step 2: the nonce, once both commitments are in the ledger."""

    type: Literal["reveal"] = "reveal"
    nonce: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class Shuffle(Message):
    """A shuffle step: phase 1 (one key, permuted) or phase 2 (a key per card)."""

    type: Literal["shuffle"] = "shuffle"
    phase: Literal[1, 2]
    deck: Annotated[list[Hex], Field(max_length=52)]


class CardKey(BaseModel):
    model_config = STRICT
    pos: Position
    key: Hex


class Deal(Message):
    """My keys for the positions dealt to the other player."""

    type: Literal["deal"] = "deal"
    keys: Annotated[list[CardKey], Field(max_length=52)]


class Draw(Message):
    """Request: I draw the card at ``pos``, the top of the draw pile."""

    type: Literal["draw"] = "draw"
    pos: Position


class DrawKey(Message):
    """Response: my key for the card the other player is drawing."""

    type: Literal["draw_key"] = "draw_key"
    pos: Position
    key: Hex


class Discard(Message):
    """I discard the card at ``pos``; ``key`` lets the other player see it."""

    type: Literal["discard"] = "discard"
    pos: Position
    key: Hex


class CantMove(Message):
    """I can neither discard nor draw: I lose. Checked by the audit."""

    type: Literal["cant_move"] = "cant_move"


class Keys(Message):
    """End of game: every secret key I used, for the audit."""

    type: Literal["keys"] = "keys"
    shuffle_key: Hex
    card_keys: Annotated[list[Hex], Field(max_length=52)]


AnyMessage = Annotated[
    Union[Hello, Commit, Reveal, Shuffle, Deal, Draw, DrawKey, Discard, CantMove, Keys],
    Field(discriminator="type"),
]


class Envelope(BaseModel):
    """The body of every relay post."""

    model_config = STRICT
    game: Counter
    n: Counter
    msg: AnyMessage
    sig: Annotated[str, Field(pattern=r"^[0-9a-f]{128}$")]


ENVELOPE = TypeAdapter(Envelope)


class BadEnvelope(Exception):
    """A post body that is not a well-formed envelope."""


def canonical(value: object) -> bytes:
    """The one byte string a JSON value is signed as: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode()


def signed_bytes(room: str, seat: int, game: int, n: int, msg: Message) -> bytes:
    """Canonical bytes of everything a signature covers."""
    return canonical({"room": room, "seat": seat, "game": game, "n": n, "msg": msg.model_dump(mode="json")})


def seal(identity: Ed25519PrivateKey, room: str, seat: int, game: int, n: int, msg: Message) -> dict:
    """The relay post body for ``msg``."""
    sig = identity.sign(signed_bytes(room, seat, game, n, msg)).hex()
    return {"game": game, "n": n, "msg": msg.model_dump(mode="json"), "sig": sig}


def parse(body: object) -> Envelope:
    """A post body as an envelope, or BadEnvelope: strictly typed, and already canonical."""
    if not isinstance(body, dict):
        raise BadEnvelope("malformed message (not a JSON object)")
    received = canonical(body)
    try:
        envelope = ENVELOPE.validate_json(received)
    except ValidationError as error:
        first = error.errors()[0]
        where = clip(".".join(str(part) for part in first["loc"]), 40)
        raise BadEnvelope(f"malformed message ({where}: {clip(first['msg'], 80)})") from None
    dumped = envelope.model_dump(mode="json")
    if canonical(dumped) != received:
        where = clip(".".join(_first_difference(body, dumped)), 40)
        raise BadEnvelope(f"malformed message ({where}: not in canonical form)")
    return envelope


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


def clip(text: str, limit: int = 40) -> str:
    """Text that came from the other side, cut short enough for a one-line message."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verify(key: Ed25519PublicKey, room: str, seat: int, envelope: Envelope) -> bool:
    """Does ``sig`` sign exactly this envelope (its canonical bytes), posted in ``room`` by ``seat``?"""
    data = signed_bytes(room, seat, envelope.game, envelope.n, envelope.msg)
    try:
        key.verify(bytes.fromhex(envelope.sig), data)
    except InvalidSignature:
        return False
    return True


def public_key(hex_key: str) -> Ed25519PublicKey | None:
    """The verify key, or None if it is malformed or weak (of small order)."""
    raw = bytes.fromhex(hex_key)
    if has_small_order(raw):
        return None
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None


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


def public_hex(identity: Ed25519PrivateKey) -> str:
    return identity.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
