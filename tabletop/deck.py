"""The mental deck for N players (the deal's dealers: every seat, unless the game has put some out): shuffled by
all of them, shown only to whom the game says.

**Shuffle.** 2N steps. In phase 1 each seat in turn (the starter first)
raises every card to its one shuffle key and permutes the deck; in phase 2
each seat in turn swaps its shuffle key for a key per position,
x_j -> x_j^(d * e_j), and publishes a commitment to each of its decryption
keys d_j (version 5: d_j·G; version 4: a salted SHA-256). Position j of the
final deck is m^(e_0j · … · e_(N-1)j). From version 5 each step carries a
proof (tabletop/proofs.py) that it is exactly that, checked before the next
event is applied (:meth:`Deck.check_job`).

**Showing a card.** A position is shown either to *one* seat or to
*everyone*. To show position j to seat t, every other seat s sends its key
d_sj *sealed* to t: encrypted with ChaCha20-Poly1305 under a key derived
(HKDF) from X25519 between s's and t's per-game box keys, so nobody else, the
relay included, can read it, and a later showing of the same position to
another seat adds nothing the first recipient's keys did not already cover.
To show it to everyone, every d_sj is published in the open (by s, or by any
seat that already knows it); a move may open its sender's own keys ahead of
the showing, when the game says so (:meth:`Deck.apply_release`). Every key received, sealed or open, must match
its owner's commitment, so a wrong key is named at once with its sender.

**Audit** (versions 3 and 4, read from old transcripts). At the end every
seat published the seed of its shuffle key, its position keys and its box
secret; anyone could then open every sealed share, and re-check every other
seat's two steps, every key it showed, and that the final deck is one of each
card. Version 5 publishes nothing at the end.

Nothing here knows a game's rules, the network, or time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, TypeVar

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pydantic import Field

from . import proofs
from .crypto import CryptoViolation, Group, Key, derive_below, derive_bytes, scaled
from .values import Fault, Problem
from .wire import PROVEN, Element, Message, OpenKey, SealedKey, Shares, canonical


class Shuffle(Message):
    """One shuffle step: phase 1 (one key, permuted) or phase 2 (a key per position, with commitments).

    Version 5: phase 1 carries ``key``, the commitment d·G to the step's key, phase 2's ``commitments`` are the
    group elements d_j·G (version 4: SHA-256 digests), and both carry ``proof`` (tabletop/proofs.py)."""

    type: Literal["shuffle"] = "shuffle"
    phase: Literal[1, 2]
    deck: Annotated[list[Element], Field(max_length=1000)]
    commitments: Annotated[list[Element], Field(max_length=1000)] | None = None
    key: Element | None = None
    proof: Annotated[list[Element], Field(max_length=proofs.shuffle_size(1000))] | None = None


MESSAGES = (Shuffle,)


class DeckViolation(Exception):
    """A shuffle step or key share that breaks the deck's rules.

    ``seat`` is who is to blame (None when it cannot be told); the message reads after that seat's name.
    """

    def __init__(self, seat: int | None, text: str) -> None:
        super().__init__(text)
        self.seat = seat


@dataclass(frozen=True)
class Show:
    """Show position ``pos`` to seat ``to``, or to everyone when ``to`` is None."""

    pos: int
    to: int | None = None


T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Job(Generic[T]):
    """Exponentiations in ``group`` for the shell to run, and what to make of their results."""

    bases: list[int]
    exponents: list[int]
    group: Group
    finish: Callable[[list[int]], T]

    def compute_here(self) -> T:
        return self.finish(self.group.powers(self.bases, self.exponents))


@dataclass(frozen=True)
class Task(Generic[R, T]):
    """One call of a pure, module-level ``function`` for the shell to run on a worker (a proof, or its check),
    and what to make of its result."""

    function: Callable[..., R]
    args: tuple[Any, ...]
    group: Group
    finish: Callable[[R], T]

    def compute_here(self) -> T:
        return self.finish(self.function(*self.args))


# -- one seat's secrets ---------------------------------------------------------------------------


class Secrets:
    """Every deck secret one seat has in one game, derived from one 32-byte seed.

    The seed is the seat's only secret about its deck: a restart derives the
    same keys from it, and at the end of the game publishing it (nothing else:
    the seat's signing key comes from elsewhere) lets everyone re-derive and
    re-check every key, permutation and sealed share the seat used.
    """

    def __init__(self, group: Group, seed: bytes) -> None:
        self.group = group
        self.seed = seed
        self.box = X25519PrivateKey.from_private_bytes(derive_bytes(seed, "box", 32))
        self._card_keys: dict[int, Key] = {}
        self._shuffle_keys: dict[int, Key] = {}

    def shuffle_key(self, deal: int = 0) -> Key:
        """The phase-1 key of the ``deal``-th deal of the game (one per deal)."""
        if deal not in self._shuffle_keys:
            self._shuffle_keys[deal] = Key.derive(self.group, self.seed, f"shuffle/{deal}")
        return self._shuffle_keys[deal]

    def card_key(self, pos: int) -> Key:
        """The key of position ``pos`` (positions are numbered across deals: deal k holds k·size … )."""
        if pos not in self._card_keys:
            self._card_keys[pos] = Key.derive(self.group, self.seed, f"card/{pos}")
        return self._card_keys[pos]

    @property
    def box_public(self) -> str:
        return self.box.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    def permutation(self, size: int, deal: int = 0) -> list[int]:
        """Fisher–Yates over range(size) driven by the seed: output j is input order[j]."""
        order = list(range(size))
        for i in range(size - 1, 0, -1):
            j = derive_below(self.seed, f"permute/{deal}/{i}", i + 1)
            order[i], order[j] = order[j], order[i]
        return order


def _same(message: Shuffle) -> Shuffle:
    return message


def key_commitment(room: str, game: int, seat: int, pos: int, key: int) -> str:
    record = {"domain": "discard/v3/key", "room": room, "game": game, "seat": seat, "pos": pos, "key": format(key, "x")}
    return hashlib.sha256(canonical(record)).hexdigest()


def box_key_valid(hex_key: str) -> bool:
    """Can sealed shares be made for this X25519 key (it is not of small order)?"""
    try:
        X25519PrivateKey.from_private_bytes(bytes(32)).exchange(X25519PublicKey.from_public_bytes(bytes.fromhex(hex_key)))
    except ValueError:
        return False
    return True


def box_key_point(hex_key: str) -> int:
    """The u-coordinate an X25519 key stands for: encodings differing in the top bit, or by 2^255 - 19, are one
    key (RFC 7748 masks the bit and reduces), so two hellos' box keys are compared by this, never by their hex."""
    return (int.from_bytes(bytes.fromhex(hex_key), "little") & ((1 << 255) - 1)) % (2**255 - 19)


def seal_key(secret: X25519PrivateKey, their_box_key: str, room: str, game: int, sender: int, to: int, pos: int,
             key: int, length: int) -> str:
    """``key`` for ``pos``, sealed from ``sender`` to ``to``: hex of ChaCha20-Poly1305 over its ``length`` bytes."""
    aead, nonce = _aead(secret, their_box_key, room, game, sender, to, pos)
    return aead.encrypt(nonce, int(key).to_bytes(length, "big"), None).hex()


def _open(secret: X25519PrivateKey, other: str, room: str, game: int, sender: int, to: int, pos: int, box: str
          ) -> int | None:
    """The key inside a sealed share, opened with either party's box secret; None if it does not open."""
    aead, nonce = _aead(secret, other, room, game, sender, to, pos)
    try:
        return int.from_bytes(aead.decrypt(nonce, bytes.fromhex(box), None), "big")
    except InvalidTag:
        return None


def _aead(mine: X25519PrivateKey, theirs: str, room: str, game: int, sender: int, to: int, pos: int
          ) -> tuple[ChaCha20Poly1305, bytes]:
    shared = mine.exchange(X25519PublicKey.from_public_bytes(bytes.fromhex(theirs)))
    info = canonical({"domain": "discard/v3/share", "room": room, "game": game, "from": sender, "to": to, "pos": pos})
    material = HKDF(hashes.SHA256(), 44, salt=None, info=info).derive(shared)
    return ChaCha20Poly1305(material[:32]), material[32:]  # one key per (game, sender, to, pos): a fixed nonce is safe


# -- proving and checking a step (run on a worker: module-level, pure) ---------------------------------------

_CHECKED: set[bytes] = set()  # digests of steps known to hold: checked here once (a table per seat in one process
# checks once), or proven here (the app's computer players' steps are not checked again by the app's own seat; a
# step the relay changed has another digest and is checked in full)


def prove_phase1(group: Group, context: proofs.Context, source: list[int], key: Key, order: list[int],
                 secret: bytes) -> Shuffle:
    """My phase-1 step: out[t] = in[order[t]]^e, with the commitment d·G and the proof that out is in, permuted
    and raised to the key committed (proven backwards: in[i] = d·out[σ(i)], σ = order⁻¹)."""
    output = scaled(group, [source[i] for i in order], [key.e] * len(order))
    sigma = [0] * len(order)
    for t, i in enumerate(order):
        sigma[i] = t
    proof = proofs.prove_shuffle(group, context, output, source, key.d, sigma, secret)
    commitment = group.base_power(key.d)
    if key.e * key.d % group.q == 1:  # a true statement, proven here: it holds
        _CHECKED.add(_step_digest(group, context, source, output, commitment, None, proof))
    return Shuffle(phase=1, deck=[group.to_hex(x) for x in output], key=group.to_hex(commitment),
                   proof=proof.to_wire(group))


def prove_phase2(group: Group, context: proofs.Context, source: list[int], d: int, keys: list[Key],
                 secret: bytes) -> Shuffle:
    """My phase-2 step: position j re-keyed from my phase-1 key to e_j, with every d_j·G and the proof."""
    output = scaled(group, source, [d * key.e % group.q for key in keys])
    proof = proofs.prove_rekey(group, context, source, output, d, [key.d for key in keys], secret)
    commitments = [group.base_power(key.d) for key in keys]
    if all(key.e * key.d % group.q == 1 for key in keys):  # a true statement, proven here: it holds
        _CHECKED.add(_step_digest(group, context, source, output, group.base_power(d), commitments, proof))
    return Shuffle(phase=2, deck=[group.to_hex(x) for x in output], commitments=[group.to_hex(x) for x in commitments],
                   proof=proof.to_wire(group))


def _step_digest(group: Group, context: proofs.Context, source: list[int], output: list[int], key: int,
                 commitments: list[int] | None, proof: proofs.ShuffleProof | proofs.RekeyProof) -> bytes:
    """The digest of a step's whole statement and proof: what :data:`_CHECKED` remembers."""
    return hashlib.sha256(canonical({"group": group.name, "context": dict(context),
                                     "source": [group.to_hex(x) for x in source],
                                     "output": [group.to_hex(x) for x in output], "key": group.to_hex(key),
                                     "commitments": [group.to_hex(x) for x in commitments or []],
                                     "proof": proof.to_wire(group)})).digest()


def check_step(group: Group, context: proofs.Context, source: list[int], output: list[int], key: int,
               commitments: list[int] | None, proof: proofs.ShuffleProof | proofs.RekeyProof) -> str | None:
    """What is wrong with a step's proof, in a few words; None if it holds."""
    digest = _step_digest(group, context, source, output, key, commitments, proof)
    if digest in _CHECKED:
        return None
    try:
        if isinstance(proof, proofs.ShuffleProof):
            proofs.check_shuffle(group, context, output, source, key, proof)
        else:
            assert commitments is not None
            proofs.check_rekey(group, context, source, output, key, commitments, proof)
    except proofs.ProofError as error:
        return str(error)
    if len(_CHECKED) > 10_000:
        _CHECKED.clear()
    _CHECKED.add(digest)
    return None


# -- the deck of one game, as one seat sees it ----------------------------------------------------------


@dataclass
class Deck:
    room: str
    game: int
    group: Group
    encodings: tuple[int, ...]  # card i of the unshuffled deck
    order: tuple[int, ...]  # seats in shuffle order, the starter first
    me: int
    secrets: Secrets
    box_keys: dict[int, str]  # every seat's X25519 public key, from its hello
    deal: int = 0  # the how-manieth deal of the game this deck is (a game may deal more than once)
    version: int = PROVEN  # the room's protocol version: from 5 on every step is proven and keys are d·G
    steps: list[list[int]] = field(default_factory=list)
    commitments: dict[int, list[str]] = field(default_factory=dict)  # version 4: SHA-256 of each key
    key_commitments: dict[int, int] = field(default_factory=dict)  # version 5: seat -> d·G of its phase-1 key
    key_points: dict[int, list[int]] = field(default_factory=dict)  # version 5: seat -> d_j·G per position
    proofs: dict[int, proofs.ShuffleProof | proofs.RekeyProof] = field(default_factory=dict)  # step -> its proof
    unchecked: list[int] = field(default_factory=list)  # other seats' steps whose proofs are still to be checked
    public: dict[int, dict[int, int]] = field(default_factory=dict)  # pos -> seat -> key, for everyone
    sealed: dict[tuple[int, int, int], str] = field(default_factory=dict)  # (pos, from, to) -> box
    known: dict[int, dict[int, int]] = field(default_factory=dict)  # pos -> seat -> key I know
    faces: dict[int, int] = field(default_factory=dict)  # pos -> card index I have seen
    seen: dict[int, set[int]] = field(default_factory=dict)  # pos -> seats it has been shown to
    shows: list[Show] = field(default_factory=list)  # under way
    void: bool = False  # given up: a seat it needed never came (GameState.void); late keys to it are no news

    @property
    def size(self) -> int:
        return len(self.encodings)

    @property
    def seats(self) -> int:
        return len(self.order)

    @property
    def offset(self) -> int:
        """Position of this deal's first card: positions are numbered across the game's deals."""
        return self.deal * self.size

    def positions(self) -> range:
        return range(self.offset, self.offset + self.size)

    # -- shuffling ------------------------------------------------------------------------------------

    @property
    def shuffled(self) -> bool:
        return len(self.steps) == 2 * self.seats

    @property
    def ready(self) -> bool:
        """Shuffled, and every step's proof checked: the deal may begin."""
        return self.shuffled and not self.unchecked

    @property
    def proven(self) -> bool:
        return self.version >= PROVEN

    @property
    def final(self) -> list[int]:
        return self.steps[-1]

    def context(self, step: int) -> dict[str, str | int | list[int]]:
        """Everything a step's proof is bound to besides its decks and keys (docs/protocol.md, "Proofs")."""
        context: dict[str, str | int | list[int]] = {
            "version": self.version, "group": self.group.name, "room": self.room, "game": self.game,
            "deal": self.deal, "seat": self.step_owner(step), "step": step + 1, "steps": 2 * self.seats}
        if set(self.order) != set(self.box_keys):  # some seats are out of this deal: the statement names who deals
            context["dealers"] = list(self.order)
        return context

    def step_owner(self, step: int) -> int:
        return self.order[step % self.seats]

    def step_input(self, step: int) -> list[int]:
        return list(self.encodings) if step == 0 else self.steps[step - 1]

    def shuffle_owed(self) -> int | None:
        """The seat whose step is next, or None once the deck is shuffled."""
        return None if self.shuffled else self.step_owner(len(self.steps))

    def apply_shuffle(self, seat: int, message: Shuffle) -> None:
        step = len(self.steps)
        if self.shuffled:
            raise DeckViolation(seat, "sent a shuffle step after the deck was shuffled")
        if self.step_owner(step) != seat:
            raise DeckViolation(seat, f"sent shuffle step {step + 1} of {2 * self.seats} out of turn")
        phase = 1 if step < self.seats else 2
        if message.phase != phase:
            raise DeckViolation(seat, f"sent a phase-{message.phase} shuffle at step {step + 1}")
        what = f"phase-{phase} shuffle"
        try:
            deck = self.group.validate_deck(message.deck, self.size, what)
        except CryptoViolation as error:
            raise DeckViolation(seat, f"sent a {error}") from None
        if self.proven:
            self._take_proof(seat, step, phase, message)
            self.steps.append(deck)
            return
        if message.key is not None or message.proof is not None:
            raise DeckViolation(seat, f"sent a proof with a version-{self.version} shuffle")
        if phase == 2:
            if message.commitments is None or len(message.commitments) != self.size:
                raise DeckViolation(seat, f"sent a phase-2 shuffle without a commitment for each of {self.size} keys")
            self.commitments[seat] = list(message.commitments)
        elif message.commitments is not None:
            raise DeckViolation(seat, "sent key commitments with a phase-1 shuffle")
        self.steps.append(deck)

    def _take_proof(self, seat: int, step: int, phase: int, message: Shuffle) -> None:
        """A version-5 step's key commitments and proof, well formed; the proof is checked by :meth:`check_job`."""
        what = f"a phase-{phase} shuffle"
        if message.proof is None or (message.key is None) != (phase == 2) or (message.commitments is None) != (phase == 1):
            need = "its key commitment and proof" if phase == 1 else "a key commitment per card and a proof"
            raise DeckViolation(seat, f"sent {what} without {need}, or with what the other phase carries")
        try:
            if phase == 1:
                assert message.key is not None
                key = self.group.element(message.key)
                if key is None:
                    raise DeckViolation(seat, f"sent {what} whose key commitment is not an element of the group")
                self.key_commitments[seat] = key
                self.proofs[step] = proofs.ShuffleProof.from_wire(self.group, message.proof, self.size)
            else:
                assert message.commitments is not None
                if len(message.commitments) != self.size:
                    raise DeckViolation(seat, f"sent {what} with {len(message.commitments)} key commitments "
                                        f"instead of {self.size}")
                points = [self.group.element(text) for text in message.commitments]
                if None in points:
                    raise DeckViolation(seat, f"sent {what} with a key commitment that is not an element of the "
                                        "group")
                self.key_points[seat] = [x for x in points if x is not None]
                self.proofs[step] = proofs.RekeyProof.from_wire(self.group, message.proof, self.size)
        except proofs.ProofError as error:
            raise DeckViolation(seat, f"sent {what} with a malformed proof: {error}") from None
        if seat != self.me:  # my own steps are signed by me: the relay cannot have changed them
            self.unchecked.append(step)

    def check_job(self) -> Task[str | None, int] | None:
        """The check of the oldest step whose proof is unchecked; its ``finish`` raises DeckViolation naming the
        step's author if the proof does not hold, and returns the step."""
        if not self.unchecked:
            return None
        step = self.unchecked[0]
        seat, phase = self.step_owner(step), 1 if step < self.seats else 2
        args = (self.group, self.context(step), self.step_input(step), self.steps[step], self.key_commitments[seat],
                self.key_points.get(seat) if phase == 2 else None, self.proofs[step])

        def finish(error: str | None) -> int:
            if error is not None:
                raise DeckViolation(seat, f"sent shuffle step {step + 1} of {2 * self.seats} with a proof that does "
                                    f"not hold ({error}): it is not the {'shuffle' if phase == 1 else 're-keying'} "
                                    "it claims")
            self.unchecked.remove(step)
            return step

        return Task(check_step, args, self.group, finish)

    def shuffle_job(self) -> Job[Shuffle] | Task[Shuffle, Shuffle]:
        """My next shuffle step, for a worker; its ``finish`` makes the :class:`Shuffle` message."""
        step = len(self.steps)
        assert self.step_owner(step) == self.me
        source, q, s = self.step_input(step), self.group.q, self.secrets
        if self.proven:
            secret = derive_bytes(s.seed, f"proof/{self.deal}/{step}", 32)
            if step < self.seats:
                return Task(prove_phase1, (self.group, self.context(step), source, s.shuffle_key(self.deal),
                                           s.permutation(self.size, self.deal), secret), self.group, _same)
            return Task(prove_phase2, (self.group, self.context(step), source, s.shuffle_key(self.deal).d,
                                       [s.card_key(pos) for pos in self.positions()], secret), self.group, _same)
        if step < self.seats:
            order = s.permutation(self.size, self.deal)

            def phase1(results: list[int]) -> Shuffle:
                return Shuffle(phase=1, deck=[self.group.to_hex(results[i]) for i in order])

            return Job(source, [s.shuffle_key(self.deal).e] * self.size, self.group, phase1)
        exponents = [s.shuffle_key(self.deal).d * s.card_key(pos).e % q for pos in self.positions()]
        commitments = [key_commitment(self.room, self.game, self.me, pos, s.card_key(pos).d) for pos in self.positions()]

        def phase2(results: list[int]) -> Shuffle:
            return Shuffle(phase=2, deck=[self.group.to_hex(x) for x in results], commitments=commitments)

        return Job(source, exponents, self.group, phase2)

    # -- showing --------------------------------------------------------------------------------------

    def begin(self, shows: Sequence[Show]) -> None:
        for show in shows:
            if show.pos not in self.positions():
                raise ValueError(f"no position {show.pos} in deal {self.deal} (positions {self.offset} to "
                                 f"{self.offset + self.size - 1})")
            self.shows.append(show)
            if self.me in self.order:  # an observer (tabletop/transcript.py) has no key of its own
                self.known.setdefault(show.pos, {})[self.me] = self.secrets.card_key(show.pos).d

    def _public_needed(self, pos: int, seat: int) -> bool:
        return any(show.pos == pos and show.to is None for show in self.shows) and seat not in self.public.get(pos, {})

    def _sealed_needed(self, pos: int, sender: int, to: int) -> bool:
        return (sender != to and any(show.pos == pos and show.to == to for show in self.shows)
                and (pos, sender, to) not in self.sealed and sender not in self.public.get(pos, {}))

    def owes(self, seat: int) -> list[Show]:
        """What ``seat`` still has to send for the showings under way (a Show per key); nothing from a seat out of
        this deal."""
        owed: list[Show] = []
        if seat not in self.order:
            return owed
        for show in self.shows:
            if show.to is None:
                if self._public_needed(show.pos, seat):
                    owed.append(Show(show.pos))
            elif self._sealed_needed(show.pos, seat, show.to):
                owed.append(show)
        return list(dict.fromkeys(owed))

    def my_shares(self, extra: Sequence[Show] = (), release: Sequence[int] = ()) -> Shares | None:
        """The shares I owe now (and for ``extra`` showings my own move is about to start, and my own keys to the
        positions ``release`` my move opens ahead of their showing), ready to send.

        For a showing to everyone that my move starts I also open every other seat's key I already
        know, so that nobody else has to answer (a card I hold and have seen needs nobody but me).
        Answering a showing, I open my own key only: another seat may be answering at the same
        time with the same keys, and the later of two copies would be a key nobody asked for.
        """
        mine = [s for s in extra if s.to != self.me]
        wanted = [*self.owes(self.me), *mine]
        opened: list[OpenKey] = []
        sealed: list[SealedKey] = []
        for show in dict.fromkeys(wanted):
            if show.to is None:
                known = {**self.known.get(show.pos, {}), self.me: self.secrets.card_key(show.pos).d}
                for seat, key in sorted(known.items()):
                    if (seat == self.me or show in mine) and seat not in self.public.get(show.pos, {}):
                        opened.append(OpenKey(pos=show.pos, seat=seat, key=format(key, "x")))
            else:
                sealed.append(self._seal(show.pos, show.to))
        opened += [OpenKey(pos=pos, seat=self.me, key=format(self.secrets.card_key(pos).d, "x")) for pos in release]
        opened = list({(o.pos, o.seat): o for o in opened}.values())
        return Shares(open=opened, sealed=sealed) if opened or sealed else None

    def _seal(self, pos: int, to: int) -> SealedKey:
        box = seal_key(self.secrets.box, self.box_keys[to], self.room, self.game, self.me, to, pos,
                       self.secrets.card_key(pos).d, self.group.key_bytes)
        return SealedKey(pos=pos, to=to, box=box)

    def apply_release(self, sender: int, positions: Sequence[int], keys: Sequence[OpenKey]) -> None:
        """``sender``'s own keys to ``positions``, opened with a move ahead of their showing (the game says which:
        ``GameState.releases``), so that it owes them nothing more: all of them or none, each its committed key."""
        if any(entry.seat != sender for entry in keys):
            raise DeckViolation(sender, "opened another player's key with their move, which may open their own only")
        if sorted(entry.pos for entry in keys) != sorted(positions):
            raise DeckViolation(sender, f"opened their keys to cards {sorted(entry.pos for entry in keys)} with their "
                                f"move, which opens those to cards {sorted(positions)}: all of them or none")
        for entry in keys:
            key = self._checked(sender, entry.pos, sender, entry.key)
            self.public.setdefault(entry.pos, {})[sender] = key
            self.known.setdefault(entry.pos, {})[sender] = key

    def apply_shares(self, sender: int, shares: Shares) -> None:
        """Take in ``sender``'s keys: each one must be owed, well formed, and match its owner's commitment."""
        if sender not in self.order:
            raise DeckViolation(sender, f"sent keys to deal {self.deal + 1}, which they do not deal")
        for entry in shares.open:
            if entry.seat in self.public.get(entry.pos, {}):
                # A copy of a key already public: checked, then ignored. Two seats may answer one showing
                # at once with a third seat's key, and a seat that knows another's key may race it to the
                # ledger on purpose; neither may turn the later, honest copy into a violation.
                self._checked(sender, entry.pos, entry.seat, entry.key)
                continue
            if not self._public_needed(entry.pos, entry.seat):
                raise DeckViolation(sender, f"sent a key for card {entry.pos} that nobody asked to see")
            key = self._checked(sender, entry.pos, entry.seat, entry.key)
            self.public.setdefault(entry.pos, {})[entry.seat] = key
            self.known.setdefault(entry.pos, {})[entry.seat] = key
        for item in shares.sealed:
            if sender in self.public.get(item.pos, {}) and any(show.pos == item.pos and show.to == item.to
                                                               for show in self.shows):
                continue  # the sender's key went public meanwhile (another seat opened it): nothing left to seal
            if not self._sealed_needed(item.pos, sender, item.to):
                raise DeckViolation(sender, f"sent a sealed key for card {item.pos} that nobody asked to see")
            if len(item.box) != 2 * (self.group.key_bytes + 16):
                raise DeckViolation(sender, f"sent a sealed key for card {item.pos} of the wrong length")
            self.sealed[(item.pos, sender, item.to)] = item.box
            if item.to == self.me:
                key = self._unseal(sender, item.pos, item.box)
                self.known.setdefault(item.pos, {})[sender] = self._checked(sender, item.pos, sender, format(key, "x"))

    def _unseal(self, sender: int, pos: int, box: str) -> int:
        opened = _open(self.secrets.box, self.box_keys[sender], self.room, self.game, sender, self.me, pos, box)
        if opened is None:
            raise DeckViolation(sender, f"sent a sealed key for card {pos} that does not open")
        return opened

    def _checked(self, sender: int, pos: int, owner: int, text: str) -> int:
        try:
            key = self.group.exponent_from_hex(text, f"key for card {pos}")
        except CryptoViolation as error:
            raise DeckViolation(sender, f"sent a {error}") from None
        commitments = self.commitments.get(owner)
        if (known := self.known.get(pos, {}).get(owner)) is not None:  # checked when it came: a copy costs no
            right = key == known  # exponentiation, so a thousand of them cannot keep the table busy
        elif owner == self.me:
            right = key == self.secrets.card_key(pos).d
        elif self.proven:
            points = self.key_points.get(owner)
            right = points is not None and self.group.base_power(key) == points[pos - self.offset]
        else:
            right = commitments is not None and commitments[pos - self.offset] == key_commitment(
                self.room, self.game, owner, pos, key)
        if not right:
            whose = "their" if owner == sender else "another player's"
            raise DeckViolation(sender, f"sent a wrong key for card {pos} (it is not {whose} committed key)")
        return key

    def _complete(self, show: Show) -> bool:
        others = [s for s in self.order if s != show.to]
        if show.to is None:
            return all(s in self.public.get(show.pos, {}) for s in others)
        return all((show.pos, s, show.to) in self.sealed or s in self.public.get(show.pos, {}) for s in others)

    def settle(self) -> list[Show]:
        """Finish every showing whose keys are all in; learn the faces shown to me. The finished ones."""
        done = [show for show in self.shows if self._complete(show)]
        for show in done:
            self.shows.remove(show)
            audience = set(self.order) if show.to is None else {show.to}
            self.seen.setdefault(show.pos, set()).update(audience)
            if (show.to is None or self.me in audience) and show.pos not in self.faces:  # an observer sees the open ones
                self._learn(show.pos)
        return done

    def _learn(self, pos: int) -> None:
        keys = self.known.get(pos, {})
        assert len(keys) == self.seats, (pos, keys)
        value = self.group.decrypt(self.final[pos - self.offset], *keys.values())
        card = self.group.encodings(self.size).get(value)
        others = [s for s in self.order if s != self.me]
        culprit = others[0] if len(others) == 1 else None
        if card is None:
            raise DeckViolation(culprit, f"dealt a deck whose card {pos} decrypts to no card although every key "
                                "matched its commitment: a shuffle step was dishonest")
        if card in self.faces.values():
            raise DeckViolation(culprit, f"dealt a deck in which card {pos} repeats another card")
        self.faces[pos] = card

    # -- the audit ------------------------------------------------------------------------------------

    def audit_job(self, seeds: dict[int, Secrets]) -> Job[tuple[list[Problem], dict[int, int]]] | list[Problem]:
        """This deal's audit, from every other seat's published deck seed (``seeds``): the checks that need no
        exponentiation, then a job for the rest; or the problems found already.

        The job's ``finish`` returns the problems and, when there are none, every face by position.
        """
        size, q = self.size, self.group.q
        problems: list[Problem] = []
        everyone = {**seeds, self.me: self.secrets} if self.me in self.order else dict(seeds)
        keys = {seat: [s.card_key(pos).d for pos in self.positions()] for seat, s in everyone.items()}
        unchecked = {seat for seat in seeds if everyone[seat].box_public != self.box_keys[seat]}
        for seat in seeds:
            if seat in unchecked:  # every other check of theirs would fail with it: one finding, not fifty
                problems.append(Problem(seat, Fault.BAD_SEED))
                continue
            for j, pos in enumerate(self.positions()):
                if self.commitments[seat][j] != key_commitment(self.room, self.game, seat, pos, keys[seat][j]):
                    problems.append(Problem(seat, Fault.UNCOMMITTED_KEY, card=pos))
                    break
        for (pos, sender, to), box in self.sealed.items():
            if sender == self.me or to == self.me or pos not in self.positions() or {sender, to} & unchecked:
                continue  # mine, or checked when it reached me, or another deal's, or its seed is wrong
            if _open(everyone[to].box, self.box_keys[sender], self.room, self.game, sender, to, pos, box) \
                    != keys[sender][pos - self.offset]:
                problems.append(Problem(sender, Fault.BAD_SEALED_KEY, card=pos, to=to))
        for pos, by_seat in self.public.items():
            for seat, key in by_seat.items():
                if pos in self.positions() and seat not in unchecked and keys[seat][pos - self.offset] != key:
                    problems.append(Problem(seat, Fault.BAD_SHOWN_KEY, card=pos))
        if problems:
            return problems
        bases: list[int] = []
        exponents: list[int] = []
        checks: list[tuple[int, int]] = []  # (seat, step) in the order their results come back
        for step in range(2 * self.seats):
            seat = self.step_owner(step)
            if seat == self.me:
                continue
            checks.append((seat, step))
            bases.extend(self.step_input(step))
            shuffle = everyone[seat].shuffle_key(self.deal)
            if step < self.seats:
                exponents.extend([shuffle.e] * size)
            else:
                exponents.extend(shuffle.d * self.group.invert(k) % q for k in keys[seat])
        bases.extend(self.final)
        for j in range(size):
            total = 1
            for seat in self.order:
                total = total * keys[seat][j] % q
            exponents.append(total)

        def finish(results: list[int]) -> tuple[list[Problem], dict[int, int]]:
            found = []
            for index, (seat, step) in enumerate(checks):
                got = results[index * size:(index + 1) * size]
                if step < self.seats:
                    order = everyone[seat].permutation(size, self.deal)
                    if [got[i] for i in order] != self.steps[step]:
                        found.append(Problem(seat, Fault.BAD_SHUFFLE))
                elif got != self.steps[step]:
                    found.append(Problem(seat, Fault.BAD_REKEYING))
            encodings = self.group.encodings(size)
            cards = [encodings.get(v) for v in results[len(checks) * size:]]
            if None in cards or len(set(cards)) != size:
                found.append(Problem(None, Fault.BAD_DEAL, deal=self.deal + 1))
                return found, {}
            return found, {self.offset + j: card for j, card in enumerate(cards) if card is not None}

        return Job(bases, exponents, self.group, finish)
