"""The game session: rules + crypto driven over a ledger, trusting nobody.

Every state change happens when an event arrives from the ledger, my own
posts included: a post has happened only when it comes back. What I still owe
the protocol (a hello, a shuffle step, a key) is worked out from the state
once the ledger is caught up, so a reconnect or a restart with the same seed
never posts twice and never contradicts itself.

Each message from the other player is checked on receipt (envelope,
signature, counter, phase, rules, crypto) before it changes anything; the
first violation ends the session with a message that names it, and the
transcript is written to a file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import gmpy2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from gmpy2 import mpz

from . import protocol as wire
from .crypto import (MODP_2048, CryptoViolation, Group, PlayerSecrets, decrypt, derive_bytes, group_for_prime,
                     powmod_many)
from .net import CAUGHT_UP, Event, Link, RelayClient, RelayError, SeatLost
from .rules import HAND_SIZE, Card, DeckKind, RuleViolation, Table, false_claim, matches, short_mismatch
from .view import GameView, Phase

log = logging.getLogger("discard.engine")


class Violation(Exception):
    """The other player broke the protocol or the rules; the message names it."""


@dataclass
class Move:
    seat: int
    kind: str  # "draw" | "discard" | "cant_move"
    pos: int | None = None


@dataclass
class Game:
    """One game's protocol state, as both players see it in the ledger."""

    number: int
    hellos: dict[int, wire.Hello] = field(default_factory=dict)
    verify_keys: dict[int, Ed25519PublicKey] = field(default_factory=dict)
    counters: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    group: Group = MODP_2048
    deck: DeckKind = DeckKind.FULL
    commits: dict[int, str] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)
    starter: int | None = None
    starter_hint: int | None = None  # a rematch: the loser of the last game starts
    shuffles: list[list[mpz]] = field(default_factory=list)  # decks after each step, in order
    dealt: set[int] = field(default_factory=set)
    table: Table | None = None
    pending_draw: tuple[int, int] | None = None  # (drawer, position)
    revealed: dict[tuple[int, int], mpz] = field(default_factory=dict)  # (seat, pos) -> decryption key
    moves: list[Move] = field(default_factory=list)
    final_keys: dict[int, wire.Keys] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    dealt_at: float | None = None
    ended_at: float | None = None
    verdict: list[str] | None = None  # [] means fair
    replayed: bool = False  # finished before this run caught up with the ledger (timings are not real)
    encodings: dict[mpz, int] | None = None

    @property
    def size(self) -> int:
        return len(self.deck.cards)

    def shuffle_step_owner(self, step: int) -> int:
        """Steps: starter phase 1, other phase 1, starter phase 2, other phase 2."""
        assert self.starter is not None
        return self.starter if step % 2 == 0 else 1 - self.starter

    @property
    def final_deck(self) -> list[mpz]:
        return self.shuffles[3]

    def hand_positions(self, seat: int) -> list[int]:
        """Positions dealt to ``seat``: the starter gets 0..4, the other 5..9."""
        first = 0 if seat == self.starter else HAND_SIZE
        return list(range(first, first + HAND_SIZE))


Observer = Callable[[], None]
Strategy = Callable[["Session"], "int | None"]  # index in hand() to discard, or None to draw


class Session:
    """One seat in one room, playing as many games as both players want."""

    def __init__(self, ledger, room: str, name: str, *, deck: DeckKind = DeckKind.FULL, group: Group = MODP_2048,
                 seed: bytes | None = None, autoplay: Strategy | None = None, auto_rematch: bool = False,
                 think_time: float = 0.0, transcript_dir: Path | None = None) -> None:
        self.ledger = ledger
        self.room = room
        self.name = name
        self.deck_choice = deck
        self.group_choice = group
        self.seed = seed if seed is not None else secrets.token_bytes(32)
        self.autoplay = autoplay
        self.think_time = think_time  # a pause before each autoplay move, so a person can follow
        self._thinking = False
        self.auto_rematch = auto_rematch
        self.transcript_dir = transcript_dir
        self.seat: int | None = None
        self.phase = Phase.CONNECTING
        self.game = Game(1)
        self.finished: list[Game] = []
        self.want_game = 1  # the game I want to be playing (a rematch raises it)
        self.names: dict[int, str] = {}
        self.present: set[int] = set()
        self.outbox: dict | None = None  # my post that has not come back yet
        self.caught_up = False
        self.replaying = True  # until the first catch-up: rebuilding what an earlier run already played
        self.log: list[str] = []
        self._log_game = 0  # the game whose heading the log shows last
        self.problem: str | None = None
        self.transcript_path: Path | None = None
        self.events: list[Event] = []
        self.last_progress = time.monotonic()  # when a post last moved the game on (joins and leaves do not)
        self.left_at: dict[int, float] = {}  # seat -> the relay's time of its leave, while away
        self.link_since = time.monotonic()
        self.seat_lost = False
        self.observers: list[Observer] = []
        self._lock = asyncio.Lock()
        self._secrets: dict[int, PlayerSecrets] = {}
        self._identities: dict[int, Ed25519PrivateKey] = {}
        self.completed: asyncio.Queue[Game | None] = asyncio.Queue()  # each audited game; None: stopped

    @classmethod
    async def connect(cls, url: str, room: str, name: str, *, token: str | None = None, **options) -> Session:
        """Join ``room`` on the relay at ``url``; raises RelayError with a one-line reason."""
        session: Session | None = None
        client = RelayClient(url, room, name, token=token,
                             on_link=lambda link: session.on_link(link) if session else None)
        await client.open()
        session = cls(client, room, name, **options)
        return session

    # -- secrets -----------------------------------------------------------------

    def game_seed(self, number: int) -> bytes:
        return derive_bytes(self.seed, f"game/{number}", 32)

    def identity(self, number: int) -> Ed25519PrivateKey:
        if number not in self._identities:
            self._identities[number] = Ed25519PrivateKey.from_private_bytes(
                derive_bytes(self.game_seed(number), "identity", 32))
        return self._identities[number]

    @property
    def mine(self) -> PlayerSecrets:
        g = self.game
        if g.number not in self._secrets:
            self._secrets[g.number] = PlayerSecrets(g.group, self.game_seed(g.number), g.size)
        return self._secrets[g.number]

    @property
    def opponent(self) -> int:
        assert self.seat is not None
        return 1 - self.seat

    # -- running -------------------------------------------------------------------

    async def run(self) -> None:
        """Consume the ledger until it ends; never raises for the other side's faults."""
        self.seat = self.ledger.seat
        self.phase = Phase.WAITING
        self._changed()
        try:
            async for item in self.ledger.events():
                if item is CAUGHT_UP:
                    self.caught_up = True
                    if self.replaying:  # what the screen shows is current from now on
                        self.replaying = False
                        self._changed()
                    if self.outbox is not None:  # lost with the old connection: send it again
                        await self.ledger.post(self.outbox)
                else:
                    assert isinstance(item, Event)
                    await self._receive(item)
                if self.phase is Phase.VIOLATION:
                    return
                await self._pump()
        except RelayError as error:
            self.seat_lost = isinstance(error, SeatLost)
            self._fail(str(error))

    def on_link(self, link: Link) -> None:
        if link is not Link.CONNECTED:
            self.caught_up = False
        self.link_since = time.monotonic()
        self._changed()

    def subscribe(self, observer: Observer) -> None:
        self.observers.append(observer)

    def _changed(self) -> None:
        for observer in self.observers:
            observer()

    def _say(self, line: str) -> None:
        if self.game.number != self._log_game:  # each game's lines under its own heading
            self._log_game = self.game.number
            self.log.append(f"— game {self.game.number} —")
        self.log.append(line)
        log.debug("seat %s: %s", self.seat, line)

    def _fail(self, problem: str) -> None:
        self.problem = problem
        self.phase = Phase.FAILED
        self.completed.put_nowait(None)
        self._changed()

    # -- intents (from the UI or a strategy) ----------------------------------------

    def refusal(self, action: str, index: int | None = None) -> str | None:
        """Why ``action`` cannot be done now, or None if it can."""
        g, table = self.game, self.game.table
        if action == "rematch":
            if self._rematch_offered():
                return None
            if self.phase is not Phase.OVER:
                return "a rematch can start once this game is over"
            return "a rematch is already requested" if self.want_game > g.number else None
        if self.phase is not Phase.PLAYING or table is None:
            return "the game is not under way"
        if table.turn != self.seat:
            return "it is your opponent's turn"
        if self.outbox is not None or g.pending_draw is not None:
            return "your last move is still on its way"
        if action == "draw":
            return None if table.draw_pile else "the draw pile is empty"
        hand = self.hand()
        if index is None or not 0 <= index < len(hand):
            return "no such card in your hand"
        card = hand[index][1]
        top = table.top
        if not matches(card, top):
            assert top is not None
            return short_mismatch(card, top)
        return None

    async def draw(self) -> str | None:
        """Draw the top card. Returns the reason it was refused, or None."""
        async with self._lock:
            if (reason := self.refusal("draw")) is not None:
                return reason
            assert self.game.table is not None
            await self._post(wire.Draw(pos=self.game.table.draw_pile[0]))
        return None

    async def discard(self, index: int) -> str | None:
        """Discard the ``index``-th card of :meth:`hand`. Returns the refusal reason, or None."""
        async with self._lock:
            if (reason := self.refusal("discard", index)) is not None:
                return reason
            pos = self.hand()[index][0]
            await self._post(wire.Discard(pos=pos, key=format(self.mine.card_keys[pos].d, "x")))
        return None

    async def rematch(self) -> str | None:
        async with self._lock:
            if (reason := self.refusal("rematch")) is not None:
                return reason
            self.want_game = self.game.number + (not self._rematch_offered())
            await self._pump_locked()
        return None

    # -- what I owe --------------------------------------------------------------------

    async def _pump(self) -> None:
        async with self._lock:
            await self._pump_locked()

    async def _pump_locked(self) -> None:
        """Post what the protocol expects of me now: one message in flight at a time."""
        if not self.caught_up or self.outbox is not None or self.phase in (Phase.VIOLATION, Phase.FAILED):
            return
        message = await self._owed()
        if message is None and self._autoplay_due():
            if self.think_time and not self._thinking:
                self._thinking = True
                asyncio.get_running_loop().call_later(self.think_time, self._wake_up)
                return
            self._thinking = False
            choice = self.autoplay(self)  # type: ignore[misc]
            table = self.game.table
            assert table is not None
            if choice is None and not table.draw_pile:
                return  # a strategy that cannot draw now: CantMove is owed instead, if nothing matches
            if choice is None:
                message = wire.Draw(pos=table.draw_pile[0])
            else:
                pos = self.hand()[choice][0]
                message = wire.Discard(pos=pos, key=format(self.mine.card_keys[pos].d, "x"))
        if message is not None:
            await self._post(message)

    def _autoplay_due(self) -> bool:
        return self.autoplay is not None and self.refusal("draw") in (None, "the draw pile is empty")

    def _wake_up(self) -> None:
        if self._thinking:
            asyncio.get_running_loop().create_task(self._pump())

    async def _post(self, message: wire.Message) -> None:
        """Seal and send; the message counts once it comes back from the ledger."""
        g = self.game
        assert self.seat is not None
        if isinstance(message, wire.Hello) and g.verdict is not None:
            number, n = g.number + 1, 1  # opening the next game
        else:
            number, n = g.number, g.counters[self.seat] + 1
        self.outbox = wire.seal(self.identity(number), self.room, self.seat, number, n, message)
        await self.ledger.post(self.outbox)

    async def _owed(self) -> wire.Message | None:
        g, me, them = self.game, self.seat, self.opponent
        assert me is not None
        if g.verdict is not None or me not in g.hellos:
            # Over: a hello opens the next game, if I want one. New: a hello joins it, if I want it.
            if self.want_game < g.number + (g.verdict is not None):
                return None
            number = g.number + (g.verdict is not None)
            if g.verdict is not None:  # a rematch keeps the deck and the group
                group, deck = g.group, g.deck
            elif (first := g.hellos.get(them)) is not None:  # join the game the other player opened
                group, deck = first_group(first, self.group_choice), first.deck
            else:
                group, deck = self.group_choice, self.deck_choice
            return wire.Hello(version=wire.PROTOCOL_VERSION, name=self.name,
                              verify_key=wire.public_hex(self.identity(number)),
                              prime=format(group.p, "x"), deck=deck)
        if them not in g.hellos:
            return None
        if g.starter is None:
            if me not in g.commits:
                return wire.Commit(digest=hashlib.sha256(self.mine.coin_nonce).hexdigest())
            if them in g.commits and me not in g.nonces:
                return wire.Reveal(nonce=self.mine.coin_nonce.hex())
            return None
        step = len(g.shuffles)
        if step < 4:
            if g.shuffle_step_owner(step) != me:
                return None
            if step < 2:
                source = list(g.group.encoded(g.size)) if step == 0 else g.shuffles[0]
                shuffled = await self.mine.shuffle_phase1(source)
            else:
                shuffled = await self.mine.shuffle_phase2(g.shuffles[step - 1])
            return wire.Shuffle(phase=1 if step < 2 else 2, deck=[format(x, "x") for x in shuffled])
        if me not in g.dealt:
            keys = [wire.CardKey(pos=p, key=format(self.mine.card_keys[p].d, "x")) for p in g.hand_positions(them)]
            return wire.Deal(keys=keys)
        table = g.table
        if table is None:
            return None
        if g.pending_draw is not None and g.pending_draw[0] == them:
            pos = g.pending_draw[1]
            return wire.DrawKey(pos=pos, key=format(self.mine.card_keys[pos].d, "x"))
        if not table.over and table.turn == me and not table.can_move(me):
            return wire.CantMove()
        if table.over and me not in g.final_keys:
            return wire.Keys(shuffle_key=format(self.mine.shuffle_key.e, "x"),
                             card_keys=[format(k.d, "x") for k in self.mine.card_keys])
        return None

    def awaiting(self) -> str | None:
        """What the other player owes the protocol now, as the end of "bo never …"; None if nothing."""
        if self.seat is None or self.phase in (Phase.CONNECTING, Phase.VIOLATION, Phase.FAILED):
            return None
        g, them, table = self.game, self.opponent, self.game.table
        if g.verdict is not None:
            return "accepted the rematch" if self.want_game > g.number else None
        if them not in g.hellos:
            return "accepted the rematch" if g.number > 1 else "said hello"
        if g.starter is None:
            if them not in g.commits:
                return "sent their coin-flip commitment"
            return "revealed their coin flip" if len(g.commits) == 2 and them not in g.nonces else None
        if len(g.shuffles) < 4:
            step = len(g.shuffles)
            return f"sent shuffle step {step + 1} of 4" if g.shuffle_step_owner(step) == them else None
        if them not in g.dealt:
            return "sent the keys to your hand"
        if table is None:
            return None
        if not table.over:
            if g.pending_draw is not None:
                return "sent the key to the card you drew" if g.pending_draw[0] != them else None
            return "made their move" if table.turn == them else None
        if them not in g.final_keys:
            return "sent their keys for the audit: the game cannot be verified"
        return None

    def give_up(self, waited: float) -> str:
        """Stop waiting for a silent opponent: one line naming what they owe; the transcript is kept."""
        if self.seat is None or self.opponent not in self.names:
            return f"nobody came to play in room {self.room} (waited {waited:g} s)"
        line = f"{self.names[self.opponent]} never {self.awaiting() or 'moved'} (silent for {waited:g} s)"
        self.transcript_path = self.write_transcript(line)
        return line

    # -- receiving -------------------------------------------------------------------------

    async def _receive(self, event: Event) -> None:
        self.events.append(event)
        self.names[event.seat] = event.name
        if event.kind == "join":
            self.present.add(event.seat)
            self.left_at.pop(event.seat, None)
            if event.seat != self.seat:
                self._say(f"{event.name} joined")
        elif event.kind == "leave":
            self.present.discard(event.seat)
            self.left_at[event.seat] = event.time
            if event.seat != self.seat:
                self._say(f"{event.name} left; waiting for them to come back")
        else:
            try:
                await self._receive_post(event)
            except (Violation, CryptoViolation) as error:
                self._violation(str(error))
                return
            except RuleViolation as error:
                self._violation(f"{'you' if event.seat == self.seat else 'opponent'} {error}")
                return
        self._changed()

    async def _receive_post(self, event: Event) -> None:
        seat = event.seat
        mine = seat == self.seat
        try:
            envelope = wire.parse(event.body)
        except wire.BadEnvelope as error:
            raise Violation(f"{'this program' if mine else 'opponent'} sent a {error}") from None
        g = self.game
        message = envelope.msg
        if envelope.game == g.number + 1 and isinstance(message, wire.Hello) and self._can_open_next_game():
            self._open_game(g.number + 1)
            g = self.game
        if envelope.game != g.number:
            raise Violation(f"{'this program' if mine else 'opponent'} sent a message for game {envelope.game} "
                            f"during game {g.number}")
        # The signature first: an unsigned post is a forgery, whatever its counter says.
        if mine:
            key = self.identity(envelope.game).public_key()
        elif seat in g.verify_keys:
            key = g.verify_keys[seat]
        elif isinstance(message, wire.Hello):
            announced = wire.public_key(message.verify_key)
            if announced is None:
                raise Violation("opponent announced a weak verify key, under which signatures prove nothing")
            key = announced
        else:
            raise Violation(f"opponent sent {message.type!r} before saying hello")
        if not wire.verify(key, self.room, seat, envelope):
            if mine:
                raise Violation(f"the relay forged a message in your seat: #{envelope.n} ({message.type}) "
                                "is not signed by this program")
            raise Violation(f"opponent's message #{envelope.n} ({message.type}) has a bad signature: "
                            "it was forged or altered")
        expected = g.counters[seat] + 1
        if mine and envelope.n < expected:
            return  # a stale copy of my own post (re-sent after a reconnect); already applied
        if envelope.n < expected:
            raise Violation(f"opponent replayed their message #{envelope.n} (expected #{expected})")
        if envelope.n > expected:
            who = "your" if mine else "opponent's"
            raise Violation(f"{who} messages arrived out of order (#{envelope.n} before #{expected})")
        g.counters[seat] = envelope.n
        self.last_progress = time.monotonic()
        if mine and self.outbox is not None and self.outbox["n"] == envelope.n and self.outbox["game"] == g.number:
            self.outbox = None
        await self._apply(seat, message)

    def _can_open_next_game(self) -> bool:
        g = self.game
        return g.table is not None and g.table.over and len(g.final_keys) == 2

    def _open_game(self, number: int) -> None:
        previous = self.game
        self.finished.append(previous)
        assert previous.table is not None and previous.table.winner is not None
        self.game = Game(number, group=previous.group, deck=previous.deck, starter_hint=1 - previous.table.winner)
        if self.auto_rematch:
            self.want_game = number
        self.phase = Phase.WAITING

    # -- applying each message ----------------------------------------------------------------

    async def _apply(self, seat: int, message: wire.Message) -> None:
        handler = getattr(self, f"_on_{message.type}")
        await handler(seat, message)

    def _expect_phase(self, seat: int, message: wire.Message, *phases: Phase) -> None:
        if self.phase not in phases:
            who = "I" if seat == self.seat else "opponent"
            raise Violation(f"{who} sent {message.type!r} while the game was {self.phase.value}")

    async def _on_hello(self, seat: int, hello: wire.Hello) -> None:
        g = self.game
        self._expect_phase(seat, hello, Phase.WAITING)
        if hello.version != wire.PROTOCOL_VERSION:
            raise Violation(f"opponent speaks protocol version {hello.version}, we speak {wire.PROTOCOL_VERSION}")
        group = group_for_prime(hello.prime)
        if group is None:
            raise Violation("opponent announced a non-standard group: its prime is not an RFC 3526 MODP prime")
        if seat in g.hellos:
            raise Violation("opponent said hello twice in one game")
        if not g.hellos and g.number == 1:  # the first hello of the room decides deck and group for good
            g.group, g.deck = group, hello.deck
        else:
            who = "you" if seat == self.seat else "opponent"
            chosen = "game 1" if g.number > 1 else "the first hello of this game"
            if group is not g.group:
                raise Violation(f"{who} announced the {group.p.bit_length()}-bit group, but {chosen} chose the "
                                f"{g.group.p.bit_length()}-bit one; both players must use the same group")
            if hello.deck is not g.deck:
                raise Violation(f"{who} asked for the {hello.deck.value} deck, but {chosen} chose the "
                                f"{g.deck.value} deck; both players must use the same deck")
        g.hellos[seat] = hello
        key = wire.public_key(hello.verify_key)
        if key is None:
            raise Violation("opponent announced a weak verify key, under which signatures prove nothing")
        g.verify_keys[seat] = key
        self.names[seat] = hello.name
        if len(g.hellos) == 2:
            g.started = time.monotonic()
            if g.starter_hint is not None:
                self._start_shuffle(g.starter_hint)
            else:
                self.phase = Phase.FLIPPING
            self._say(f"game {g.number}: {len(g.deck.cards)} cards, {g.group.p.bit_length()}-bit keys")
        elif seat != self.seat and g.number > 1:
            self._say(f"{hello.name} wants a rematch")

    async def _on_commit(self, seat: int, commit: wire.Commit) -> None:
        self._expect_phase(seat, commit, Phase.FLIPPING)
        if seat in self.game.commits:
            raise Violation("opponent committed to the coin flip twice")
        self.game.commits[seat] = commit.digest

    async def _on_reveal(self, seat: int, reveal: wire.Reveal) -> None:
        g = self.game
        self._expect_phase(seat, reveal, Phase.FLIPPING)
        if len(g.commits) < 2:
            raise Violation("opponent revealed their coin before both players had committed")
        if seat in g.nonces:
            raise Violation("opponent revealed their coin twice")
        nonce = bytes.fromhex(reveal.nonce)
        if hashlib.sha256(nonce).hexdigest() != g.commits[seat]:
            raise Violation("opponent's coin-flip reveal does not match their commitment")
        g.nonces[seat] = nonce
        if len(g.nonces) == 2:
            starter = hashlib.sha256(g.nonces[0] + g.nonces[1]).digest()[0] & 1
            self._start_shuffle(starter)

    def _start_shuffle(self, starter: int) -> None:
        self.game.starter = starter
        self.phase = Phase.SHUFFLING
        first = "you start" if starter == self.seat else f"{self.names.get(starter, 'opponent')} starts"
        self._say(f"shuffling; {first}")

    async def _on_shuffle(self, seat: int, shuffle: wire.Shuffle) -> None:
        g = self.game
        self._expect_phase(seat, shuffle, Phase.SHUFFLING)
        step = len(g.shuffles)
        if g.shuffle_step_owner(step) != seat:
            raise Violation(f"opponent sent shuffle step {step + 1} out of turn")
        if shuffle.phase != (1 if step < 2 else 2):
            raise Violation(f"opponent sent a phase-{shuffle.phase} shuffle at step {step + 1}")
        what = f"opponent's shuffle (phase {shuffle.phase})"
        g.shuffles.append(g.group.validate_deck(shuffle.deck, g.size, what))
        if len(g.shuffles) == 4:
            self.phase = Phase.DEALING
            g.table = Table(g.size, starter=g.starter)  # type: ignore[arg-type]

    async def _on_deal(self, seat: int, deal: wire.Deal) -> None:
        g = self.game
        self._expect_phase(seat, deal, Phase.DEALING)
        if seat in g.dealt:
            raise Violation("opponent dealt twice")
        receiver = 1 - seat
        positions = [k.pos for k in deal.keys]
        if positions != g.hand_positions(receiver):
            raise Violation(f"opponent dealt cards {positions} instead of {g.hand_positions(receiver)}")
        keys = [g.group.exponent_from_hex(k.key, f"opponent's deal key for card {k.pos}") for k in deal.keys]
        for pos, key in zip(positions, keys):
            g.revealed[(seat, pos)] = key
        if receiver == self.seat:
            exponents = [key * self.mine.card_keys[pos].d % g.group.q for pos, key in zip(positions, keys)]
            faces = await powmod_many([g.final_deck[p] for p in positions], exponents, g.group.p)
            for pos, value in zip(positions, faces):
                self._learn(pos, value)
        g.dealt.add(seat)
        if len(g.dealt) == 2:
            assert g.table is not None
            g.table.deal()
            g.dealt_at = time.monotonic()
            self.phase = Phase.PLAYING
            self._say("cards dealt: " + ("your turn" if g.table.turn == self.seat else "opponent's turn"))

    def _learn(self, pos: int, value: mpz) -> Card:
        """Record the face of ``pos`` decrypted to ``value``; the key was wrong if it is no card."""
        g = self.game
        assert g.table is not None
        index = self._encodings().get(value)
        if index is None:
            raise Violation(f"opponent revealed a wrong key: card {pos} does not decrypt to any card")
        card = g.deck.cards[index]
        if card in g.table.faces.values():
            raise Violation(f"opponent revealed a key that turns card {pos} into {card}, which is already in play")
        g.table.faces[pos] = card
        return card

    def _encodings(self) -> dict[mpz, int]:
        g = self.game
        if g.encodings is None:
            g.encodings = g.group.encodings(g.size)
        return g.encodings

    def _playing_table(self, seat: int, message: wire.Message) -> Table:
        self._expect_phase(seat, message, Phase.PLAYING)
        table = self.game.table
        assert table is not None
        pending = self.game.pending_draw
        if pending is not None and not isinstance(message, wire.DrawKey):
            raise Violation(f"opponent sent {message.type!r} while a draw was waiting for its key")
        return table

    async def _on_draw(self, seat: int, draw: wire.Draw) -> None:
        table = self._playing_table(seat, draw)
        table.check_draw(seat, draw.pos)
        self.game.pending_draw = (seat, draw.pos)

    async def _on_draw_key(self, seat: int, reply: wire.DrawKey) -> None:
        g = self.game
        table = self._playing_table(seat, reply)
        if g.pending_draw is None or g.pending_draw[0] == seat or g.pending_draw[1] != reply.pos:
            raise Violation(f"opponent sent a key for card {reply.pos} that nobody asked to draw")
        drawer = g.pending_draw[0]
        key = g.group.exponent_from_hex(reply.key, f"opponent's key for card {reply.pos}")
        g.revealed[(seat, reply.pos)] = key
        if drawer == self.seat:
            card = self._learn(reply.pos, decrypt(g.group, g.final_deck[reply.pos], key,
                                                  self.mine.card_keys[reply.pos].d))
            self._say(f"you drew {card}")
        else:
            self._say(f"{self.names.get(drawer, 'opponent')} drew a card")
        table.apply_draw(drawer, reply.pos)
        g.pending_draw = None
        g.moves.append(Move(drawer, "draw", reply.pos))

    async def _on_discard(self, seat: int, discard: wire.Discard) -> None:
        g = self.game
        table = self._playing_table(seat, discard)
        table.check_discard(seat, discard.pos)
        key = g.group.exponent_from_hex(discard.key, f"opponent's key for card {discard.pos}")
        if seat == self.seat:
            card = table.faces[discard.pos]
        else:
            card = self._learn_discard(discard.pos, key)
        g.revealed[(seat, discard.pos)] = key
        table.apply_discard(seat, discard.pos, card)
        g.moves.append(Move(seat, "discard", discard.pos))
        who = "you" if seat == self.seat else self.names.get(seat, "opponent")
        self._say(f"{who} discarded {card}")
        if table.over:
            self._game_ended()

    def _learn_discard(self, pos: int, key: mpz) -> Card:
        g = self.game
        assert g.table is not None
        value = decrypt(g.group, g.final_deck[pos], key, self.mine.card_keys[pos].d)
        try:
            return self._learn(pos, value)
        except Violation:
            g.table.faces.pop(pos, None)
            raise

    async def _on_cant_move(self, seat: int, message: wire.CantMove) -> None:
        g = self.game
        table = self._playing_table(seat, message)
        table.apply_cant_move(seat)
        g.moves.append(Move(seat, "cant_move"))
        who = "you" if seat == self.seat else self.names.get(seat, "opponent")
        self._say(f"{who} cannot move")
        self._game_ended()

    def _game_ended(self) -> None:
        g = self.game
        assert g.table is not None and g.table.winner is not None
        g.ended_at = time.monotonic()
        self.phase = Phase.AUDITING
        self._say("you win" if g.table.winner == self.seat else "you lose")

    async def _on_keys(self, seat: int, keys: wire.Keys) -> None:
        g = self.game
        self._expect_phase(seat, keys, Phase.AUDITING)
        if seat in g.final_keys:
            raise Violation("opponent published their keys twice")
        g.final_keys[seat] = keys
        if len(g.final_keys) == 2:
            g.verdict = await audit(g, self.seat, self.mine)  # type: ignore[arg-type]
            g.replayed = self.replaying
            self.phase = Phase.OVER
            self._say(f"audit: {describe_verdict(g)}")
            if g.verdict:  # the evidence of a failed audit is kept like any violation
                self.problem = "the audit found: " + "; ".join(g.verdict)
                self.transcript_path = self.write_transcript(self.problem)
            self.completed.put_nowait(g)

    # -- violations --------------------------------------------------------------------------------

    def _violation(self, problem: str) -> None:
        self.problem = problem
        self.phase = Phase.VIOLATION
        log.warning("seat %s: violation: %s", self.seat, problem)
        self.transcript_path = self.write_transcript(problem)
        self._say(f"stopped: {problem}")
        self.completed.put_nowait(None)
        self._changed()

    def write_transcript(self, reason: str) -> Path | None:
        """Every ledger event seen, with the reason; the path, or None if it cannot be written."""
        if self.transcript_dir is None:
            return None
        self.transcript_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.transcript_dir / f"{self.room}-seat{self.seat}-{stamp}.json"
        record = {"room": self.room, "seat": self.seat, "reason": reason,
                  "events": [e.as_json() for e in self.events]}
        path.write_text(json.dumps(record, indent=1))
        return path

    # -- the view ------------------------------------------------------------------------------------

    def hand(self) -> list[tuple[int, Card]]:
        """My cards as (position, card), sorted by suit then rank, as shown on screen."""
        return self._hand_of(self.game)

    def _hand_of(self, game: Game) -> list[tuple[int, Card]]:
        table = game.table
        if table is None or game.dealt_at is None or self.seat is None:
            return []
        order = game.deck.cards
        return sorted(((p, table.faces[p]) for p in table.hands[self.seat]), key=lambda pc: order.index(pc[1]))

    def _on_screen(self) -> Game:
        """The game a screen shows: the current one once both said hello, else the last one played."""
        if len(self.game.hellos) == 2 or not self.finished:
            return self.game
        return self.finished[-1]

    def view(self) -> GameView:
        shown, seat = self._on_screen(), self.seat
        opponent = 1 - seat if seat is not None else 1
        names = {seat: "you", opponent: self.names.get(opponent, "opponent")}
        table = shown.table if shown.dealt_at is not None else None
        hand = tuple(card for _, card in self._hand_of(shown))
        top = table.top if table else None
        my_turn = bool(table and self.phase is Phase.PLAYING and table.turn == seat)
        result = None
        if table is not None and table.winner is not None:
            result = "win" if table.winner == seat else "loss"
        idle = self.phase in (Phase.WAITING, Phase.FLIPPING, Phase.SHUFFLING, Phase.DEALING, Phase.AUDITING)
        return GameView(
            phase=self.phase,
            game=shown.number,
            my_name=self.name,
            opponent_name=self.names.get(opponent, "opponent"),
            opponent_present=opponent in self.present,
            my_turn=my_turn,
            hand=hand,
            playable=tuple(matches(c, top) for c in hand),
            opponent_hand=len(table.hands[opponent]) if table else 0,
            draw_pile=len(table.draw_pile) if table else shown.size,
            discard_top=top,
            discard_count=len(table.discard_pile) if table else 0,
            log=tuple(self.log),
            progress=self._progress(),
            link=getattr(self.ledger, "link", Link.CONNECTED),
            result=result,
            verdict=describe_verdict(shown) if shown.verdict is not None else None,
            problem=self.problem,
            transcript=str(self.transcript_path) if self.transcript_path else None,
            rematch_offered=self._rematch_offered(),
            waiting_since=self.last_progress if idle or (self.phase is Phase.PLAYING and not my_turn) else None,
            deck_size=shown.size,
            moves=len(shown.moves),
            last_move=describe_move(shown.moves[-1], table, seat, names) if table and shown.moves else None,
            score=self._score(),
            safety=game_safety_number(self.room, shown),
            replaying=self.replaying,
            opponent_left_at=self.left_at.get(opponent) if opponent not in self.present else None,
            link_since=self.link_since,
            deck_chosen_by=self._deck_chosen_by(shown, opponent),
            seat_lost=self.seat_lost,
            draw_refusal=self.refusal("draw"),
            rematch_refusal=self.refusal("rematch"),
        )

    def _score(self) -> tuple[int, int]:
        """Fair games won in this room by me and by the opponent."""
        winners = [g.table.winner for g in (*self.finished, self.game) if g.verdict == [] and g.table is not None]
        mine = sum(winner == self.seat for winner in winners)
        return mine, len(winners) - mine

    def _deck_chosen_by(self, shown: Game, opponent: int) -> str | None:
        """The opponent's name if their first hello chose a deck other than mine."""
        first = next(iter(shown.hellos), None)
        if first == opponent and shown.deck is not self.deck_choice:
            return self.names.get(opponent, "opponent")
        return None

    def _rematch_offered(self) -> bool:
        """The other player opened the next game and waits for me."""
        g = self.game
        return self.seat is not None and g.number > self.want_game and self.opponent in g.hellos

    def _progress(self) -> tuple[str, int, int] | None:
        g = self.game
        if self.phase is Phase.FLIPPING:
            return ("Flipping a coin for who starts", 0, 6)
        if self.phase is Phase.SHUFFLING:
            return (f"Shuffling: step {len(g.shuffles) + 1} of 4", 1 + len(g.shuffles), 6)
        if self.phase is Phase.DEALING:
            return ("Dealing", 5, 6)
        if self.phase is Phase.AUDITING:
            return ("Auditing the game", 5, 6)
        return None


def first_group(first: wire.Hello, choice: Group) -> Group:
    """The group the first hello named, if it is a standard one."""
    return group_for_prime(first.prime) or choice


def describe_move(move: Move, table: Table, me: int | None, names: dict[int | None, str]) -> str:
    """One move in words, from ``me``'s side: "you drew 7♠", "bo discarded 8♥", "bo drew a card"."""
    who = names.get(move.seat, "opponent")
    if move.kind == "discard":
        return f"{who} discarded {table.faces[move.pos]}"  # type: ignore[index]
    if move.kind == "draw":
        return f"you drew {table.faces[move.pos]}" if move.seat == me else f"{who} drew a card"  # type: ignore[index]
    return f"{who} cannot move"


def safety_number(room: str, game: int, verify_keys: tuple[str, str]) -> str:
    """Six groups of five digits from the room, the game and both hellos' verify keys (seat 0's first).

    Two players who read the same number to each other share one ledger: a relay
    that seats each of them in a room of its own, and plays both, cannot make the
    two numbers match without finding a collision in about 100 bits.
    """
    record = json.dumps([room, game, *verify_keys], separators=(",", ":"), ensure_ascii=False).encode()
    digest = hashlib.sha512(b"discard/v1/safety-number\0" + record).digest()
    return " ".join(f"{int.from_bytes(digest[i:i + 5], 'big') % 100000:05d}" for i in range(0, 30, 5))


def game_safety_number(room: str, game: Game) -> str | None:
    """The safety number of ``game``, once both players have said hello."""
    if set(game.hellos) != {0, 1}:
        return None
    return safety_number(room, game.number, (game.hellos[0].verify_key, game.hellos[1].verify_key))


def describe_verdict(game: Game) -> str:
    if game.verdict is None:
        return "not audited"
    if not game.verdict:
        return f"fair: {game.size} cards and {len(game.moves)} moves verified"
    return "violation: " + "; ".join(game.verdict)


# -- the end-of-game audit ------------------------------------------------------------------------


async def audit(g: Game, me: int, mine: PlayerSecrets) -> list[str]:
    """Re-check the whole game with both players' keys; the list of violations found."""
    problems: list[str] = []
    them = 1 - me
    group, q = g.group, g.group.q
    published = g.final_keys[them]
    try:
        their_shuffle = group.exponent_from_hex(published.shuffle_key, "opponent's shuffle key")
        if len(published.card_keys) != g.size:
            raise CryptoViolation(f"opponent published {len(published.card_keys)} card keys instead of {g.size}")
        their_d = [group.exponent_from_hex(k, f"opponent's key for card {i}") for i, k in enumerate(published.card_keys)]
    except CryptoViolation as error:
        return [str(error)]

    for (seat, pos), key in g.revealed.items():
        if seat == them and key != their_d[pos]:
            problems.append(f"opponent's key for card {pos} during the game differs from the one they published")

    encoded = list(group.encoded(g.size))
    their_steps = [s for s in range(4) if g.shuffle_step_owner(s) == them]
    phase1, phase2 = their_steps
    source1 = encoded if phase1 == 0 else g.shuffles[0]
    their_d_shuffle = gmpy2.invert(their_shuffle, q)
    phase2_exponents = [their_d_shuffle * gmpy2.invert(d, q) % q for d in their_d]
    faces_exponents = [d * k.d % q for d, k in zip(their_d, mine.card_keys)]
    n = g.size
    results = await powmod_many(source1 + g.shuffles[phase2 - 1] + g.final_deck,
                                [their_shuffle] * n + phase2_exponents + faces_exponents, group.p)
    expected1, expected2, faces = results[:n], results[n:2 * n], results[2 * n:]
    if set(expected1) != set(g.shuffles[phase1]):
        problems.append("opponent's phase-1 shuffle is not a permutation of the encrypted deck")
    if expected2 != g.shuffles[phase2]:
        problems.append("opponent's phase-2 shuffle does not match the keys they published")
    encodings = group.encodings(n)
    indexes = [encodings.get(v) for v in faces]
    if None in indexes or len(set(indexes)) != n:
        problems.append("the final deck does not decrypt to one of each card")
        return problems
    cards = {pos: g.deck.cards[i] for pos, i in enumerate(indexes)}  # type: ignore[index]
    problems.extend(replay(g, me, cards))
    return problems


def replay(g: Game, me: int, cards: dict[int, Card]) -> list[str]:
    """Play the game again with every face known: each move must be legal, each claim true."""
    table = Table(g.size, starter=g.starter)  # type: ignore[arg-type]
    table.faces = dict(cards)
    table.deal()
    for move in g.moves:
        who = "you" if move.seat == me else "opponent"
        try:
            if move.kind == "cant_move":
                disproof = false_claim(table.hand_cards(move.seat), table.top)
                if disproof is not None:
                    pile = table.top or "the empty discard pile"
                    return [f"{who} claimed they could not move, but held {disproof}, which could go on {pile}"]
                table.apply_cant_move(move.seat)
                continue
            assert move.pos is not None
            if move.kind == "draw":
                table.apply_draw(move.seat, move.pos)
            else:
                table.apply_discard(move.seat, move.pos, cards[move.pos])
        except RuleViolation as error:
            return [f"{who} {error}"]
    return []
