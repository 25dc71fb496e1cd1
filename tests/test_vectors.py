"""docs/protocol.md's test vectors, checked against the code and against the document's own text."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from nacl import bindings

from games.discard.game import Draw
from tabletop import wire
from tabletop.crypto import derive_below, derive_bytes
from tabletop.deck import Secrets, key_commitment, seal_key
from tabletop.ed25519 import ED25519
from tabletop.groups import GROUPS
from tabletop.ledger import post_id
from tabletop.modp import MODP_2048
from tabletop.secp256k1 import SECP256K1
from test_proofs import honest

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
A, B = bytes(range(32)), bytes(range(32, 64))


def documented(*values: object) -> None:
    for value in values:
        assert f"`{value}`" in DOC, f"{value} is not in docs/protocol.md's test vectors"


def test_derive():
    value = derive_bytes(A, "game/1", 32).hex()
    assert value == "a46f55145bf84b7bfb64be6dccaa0917066899ae15fbb29da9c623172c71742c"
    documented(value)


def test_derive_below_reads_big_endian_bytes():
    assert derive_below(A, "permute/0/51", 52) == 48
    length = (52 .bit_length() + 128 + 7) // 8
    assert int.from_bytes(hashlib.shake_256(b"discard/v1/" + A + b"/permute/0/51").digest(length), "big") % 52 == 48
    documented(48)


def test_the_permutation():
    order = Secrets(MODP_2048, A).permutation(24, 0)
    assert order == [23, 4, 21, 22, 11, 10, 14, 6, 12, 5, 18, 15, 8, 1, 9, 7, 20, 16, 2, 3, 19, 17, 13, 0]
    documented(order)


def test_a_position_key_and_its_commitment():
    key = Secrets(MODP_2048, A).card_key(0)
    assert key.e * key.d % MODP_2048.q == 1
    e, d = format(key.e, "x"), format(key.d, "x")
    assert (len(e), len(d)) == (512, 511)  # hex without leading zeros
    documented(e[:32], d[:32])
    commitment = key_commitment("vectors", 1, 0, 0, key.d)
    assert commitment == "1aaf3a1636cb85cb150cb09a09d6649d89b533e828011ce1a11de1c59da0afb8"
    documented(commitment)


def test_a_sealed_share():
    sender, recipient = Secrets(MODP_2048, A), Secrets(MODP_2048, B)
    documented(sender.box_public, recipient.box_public)
    box = seal_key(sender.box, recipient.box_public, "vectors", 1, 0, 1, 0, sender.card_key(0).d,
                   MODP_2048.key_bytes)
    assert len(box) == 544 and box.startswith("ce43a49f1b4c38fac0c026010cfa1ed1")
    documented(box[:32], hashlib.sha256(box.encode()).hexdigest())


def test_a_signed_envelope():
    identity = Ed25519PrivateKey.from_private_bytes(A)
    body = wire.seal(identity, "vectors", 0, 1, 1, Draw(pos=10))
    signed = wire.canonical({"game": 1, "msg": {"pos": 10, "type": "draw"}, "n": 1, "room": "vectors", "seat": 0})
    identity.public_key().verify(bytes.fromhex(body["sig"]), signed)
    documented(wire.public_hex(identity), signed.decode(), body["sig"])


def test_a_key_and_a_sealed_share_on_ed25519():
    key = Secrets(ED25519, A).card_key(0)
    assert key.e * key.d % ED25519.q == 1
    documented(format(key.e, "x"), format(key.d, "x"), key_commitment("vectors", 1, 0, 0, key.d))
    sender, recipient = Secrets(ED25519, A), Secrets(ED25519, B)
    box = seal_key(sender.box, recipient.box_public, "vectors", 1, 0, 1, 0, sender.card_key(0).d, ED25519.key_bytes)
    assert len(box) == 96
    documented(box[:32], hashlib.sha256(box.encode()).hexdigest())


def test_the_card_encodings_on_ed25519():
    documented(ED25519.to_hex(ED25519.encode(0)))


def test_a_scalar_into_libsodium_and_a_commitment_on_ed25519():
    """A scalar goes to libsodium as 32 little-endian bytes; elements are the hex of their 32-byte encoding."""
    key = Secrets(ED25519, A).card_key(0)
    raw = key.e.to_bytes(32, "little")
    m0 = ED25519.encode(0)
    product = bindings.crypto_scalarmult_ed25519_noclamp(raw, bytes.fromhex(ED25519.to_hex(m0)))
    assert product.hex() == ED25519.to_hex(ED25519.power(m0, key.e))
    commitment = ED25519.to_hex(ED25519.base_power(key.d))
    assert commitment == bindings.crypto_scalarmult_ed25519_base_noclamp(key.d.to_bytes(32, "little")).hex()
    documented(raw.hex(), product.hex(), commitment)


def test_a_key_a_multiplication_and_a_sealed_share_on_secp256k1():
    """A scalar goes to libsecp256k1 as 32 big-endian bytes; elements are the hex of their 33-byte compressed SEC 1
    encoding. OpenSSL (through cryptography) computes the same points: e₀·m_0's x by ECDH, D_0 = d₀·G."""
    key = Secrets(SECP256K1, A).card_key(0)
    assert key.e * key.d % SECP256K1.q == 1
    raw = key.e.to_bytes(32, "big").hex()
    m0 = SECP256K1.to_hex(SECP256K1.encode(0))
    product = SECP256K1.to_hex(SECP256K1.power(SECP256K1.encode(0), key.e))
    card = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), bytes.fromhex(m0))
    assert ec.derive_private_key(key.e, ec.SECP256K1()).exchange(ec.ECDH(), card).hex() == product[2:]
    commitment = SECP256K1.to_hex(SECP256K1.base_power(key.d))
    public = ec.derive_private_key(key.d, ec.SECP256K1()).public_key()
    assert public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex() == commitment
    sender, recipient = Secrets(SECP256K1, A), Secrets(SECP256K1, B)
    box = seal_key(sender.box, recipient.box_public, "vectors", 1, 0, 1, 0, key.d, SECP256K1.key_bytes)
    assert len(box) == 96
    documented(format(key.e, "x"), format(key.d, "x"), raw, m0, product, commitment, box[:32],
               hashlib.sha256(box.encode()).hexdigest(), SECP256K1.to_hex(SECP256K1.generator))


def test_post_ids():
    """The first 32 hex digits of SHA-256 of the body as sorted compact JSON, non-ASCII escaped (not canonical)."""
    identity = Ed25519PrivateKey.from_private_bytes(A)
    draw = wire.seal(identity, "vectors", 0, 1, 1, Draw(pos=10))
    assert post_id(draw) == hashlib.sha256(wire.canonical(draw)).hexdigest()[:32]
    stopped = wire.seal(identity, "vectors", 0, 1, 1, wire.Stopped(reason="café"))
    escaped = wire.canonical(stopped).replace("é".encode(), b"\\u00e9")
    assert post_id(stopped) == hashlib.sha256(escaped).hexdigest()[:32]
    documented(post_id(draw), stopped["sig"], post_id(stopped), hashlib.sha256(wire.canonical(stopped)).hexdigest()[:32])


PROOF_VECTORS = {  # SHA-256 of the phase-1 and the phase-2 proof's wire strings joined by commas
    "ed25519": ("5c8f26fe5b8972fb5af278d6c02d238dc14d9b1ba7ea31f08021594b015b0fa3",
                "120cbf809d128d6fb7a6ffcdb10593848d5226ba8e7e85e07815a0486dc9acdf"),
    "secp256k1": ("76afc081a2e00e4d5c5489589e4697710037b5793e9dbeb997cf32170dc0f4df",
                  "b2b859ec7e5b2ab75b9da03a18f78ce09202001e94599b87a3ab5173a5219fa8"),
}


@pytest.mark.parametrize("name", list(PROOF_VECTORS))
def test_proofs(name: str):
    """The 4-card deck, key Key.derive(group, A, "shuffle/0"), order [2, 0, 3, 1], secret B, room "vectors"; phase
    2 re-keys Y with Key.derive(group, A, f"card/{j}") (tests/test_proofs.py's honest step)."""
    group = GROUPS[name]
    step = honest(group, 4, order=(2, 0, 3, 1), room="vectors")
    assert step.context == {"version": 5, "group": name, "room": "vectors", "game": 1, "deal": 0, "seat": 0,
                            "step": 1}
    assert step.sigma == (1, 3, 0, 2)
    shuffle = hashlib.sha256(",".join(step.shuffle.to_wire(group)).encode()).hexdigest()
    rekey = hashlib.sha256(",".join(step.rekey.to_wire(group)).encode()).hexdigest()
    assert (shuffle, rekey) == PROOF_VECTORS[name]
    documented(shuffle, rekey, group.to_hex(step.commitment))
    step.check_shuffle()
    step.check_rekey()
