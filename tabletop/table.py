"""The table: one seat's view of a room, as a fold of the room's ledger. Pure: no I/O, no clock, no asyncio.

``Table.apply(event)`` takes the next ledger event (the seat's own posts
included: a post has happened only when it comes back) and either changes the
state or raises :class:`Violation`, which names what broke the rules and whose
fault it is. ``Table.owed()`` says what this seat must post next, as a
function of that state: a message ready to sign (:class:`Post`), work for the
process pool first (:class:`Work`), or a choice only the player can make
(:class:`Needs`). The shell (tabletop/shell.py) does the I/O.

This module is the fold; the state it changes is tabletop/state.py's. The seat's other concerns have a module each,
and :class:`Table` inherits them: what the seat owes and may do (tabletop/intents.py), the end-of-game audit and its
verdict (tabletop/audit.py), and the snapshot a screen draws (tabletop/view.py).

Per game of the room (a :class:`Play`): every seat says hello; a
commit–reveal draw picks who starts (a rematch may let the game say who);
if the game has cards, the deck is shuffled in 2N steps, each proven and its
proof checked on receipt (``check_work``), and dealt; then moves, each checked
on receipt, each showing what it reveals. The verdict follows from the last
move (version 5 publishes nothing at the end; a version-3 or 4 transcript's
audit publishes every seat's deck seed and re-checks everything).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol

from pydantic import ValidationError

from . import commit
from . import deck as mental
from . import wire
from .clock import Clock, Early, Timers, stamp_ms
from .crypto import Group
from .groups import GROUPS, group_of_prime
from .game import TIMED_OUT, RuleViolation, Setup
from .intents import Needs, Post, Work
from .state import MAX_WATCHING, OBSERVER, Play, Wish
from .view import TableView, Viewable, safety_number
from .values import Owed, Phase
from .words import clip

__all__ = ["OBSERVER", "GameContractError", "LedgerEvent", "Needs", "Play", "Post", "Strategy", "Table", "TableView",
           "Violation", "Wish", "Work", "safety_number"]  # Table and the values it takes and returns

START = "start"  # the label of the draw for who starts


class GameContractError(Exception):
    """A game broke the Game interface's contract (a bug in the game's code, never a player's fault): dealers that
    are not seats of the table, or its move for a seat out of time missing or against its own rules."""


class Violation(Exception):
    """The rules or the protocol were broken; the message says what and by whom, in one short line."""


class LedgerEvent(Protocol):
    @property
    def seat(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...  # "join" | "leave" | "post" | "watch"

    @property
    def body(self) -> dict | None: ...

    @property
    def time(self) -> float: ...  # the relay's Unix time


class Table(Viewable):
    """One seat in one room, for as many games as everyone wants: the fold of the ledger, on top of its view,
    intents and audit (:class:`~tabletop.view.Viewable`)."""

    def registry(self, play: Play) -> wire.Registry:
        models: list[type[wire.Message]] = [*wire.TABLE_MESSAGES, *commit.MESSAGES, *mental.MESSAGES]
        game = play.game or self.catalog.get(self.wish.game)
        return wire.Registry([*models, *(game.messages if game else ())])

    # -- applying the ledger ------------------------------------------------------------------------

    def apply(self, event: LedgerEvent) -> None:
        """Take the next ledger event; raise Violation (and keep it as ``problem``) if it breaks the rules."""
        self.stamp = stamp_ms(event.time)
        if event.kind == "join":
            self.present.add(event.seat)
            self.left_at.pop(event.seat, None)
            self.names.setdefault(event.seat, event.name)
            if event.seat != self.me:
                self._say(f"{self.name(event.seat)} joined")
            return
        if event.kind == "leave":
            self.present.discard(event.seat)
            self.left_at[event.seat] = event.time
            if event.seat != self.me:
                self._say(f"{self.name(event.seat)} left")
            return
        if event.kind == "watch":  # the relay's count of the room's watchers (1.3): no player's word, no game's
            count = event.body.get("watching") if isinstance(event.body, dict) else None
            if type(count) is int and 0 <= count <= MAX_WATCHING:  # else not believed: the count stands
                self.watching = count
            return
        try:
            self._post(event.seat, event.body)
        except Violation as error:
            self.problem = str(error)
            self._say(f"stopped: {self.problem}")
            raise

    def _post(self, seat: int, body: dict | None) -> None:
        mine = seat == self.me
        sender = "this program" if mine else self.name(seat)
        p = self.play
        if seat < 0 or (p.seats and seat >= p.seats):
            raise Violation(f"the relay let seat {seat} post in a game of {p.seats or 'up to 6'} seats")
        try:
            envelope = self.registry(p).parse(body)
        except wire.BadEnvelope as error:
            raise Violation(f"{sender} sent a {error}") from None
        message = envelope.msg
        if not p.seats and isinstance(message, wire.Hello) and seat >= message.seats:  # the room's first hello
            raise Violation(f"the relay let seat {seat} post in a game of {message.seats} seats")
        digest = hashlib.sha256(wire.canonical(body)).digest()
        if self._applied.get((envelope.game, seat, envelope.n)) == digest:
            return  # a byte-identical copy of a post already applied (a relay's failover re-sent it): no news
        if envelope.game == p.number + 1 and isinstance(message, wire.Hello) and p.audited:
            self._open_next()
            p = self.play
        if 1 <= envelope.game < p.number:  # sent before its sender saw that game end (a key crossing the claim
            self._verify(seat, envelope, self.plays[envelope.game - 1])  # that made it forfeit): signed, no news
            return
        if envelope.game != p.number:
            raise Violation(f"{sender} sent a message for game {envelope.game} during game {p.number}")
        self._verify(seat, envelope, p)
        expected = p.counters.get(seat, 0) + 1
        if envelope.n < expected:
            if mine:
                return  # a stale copy of my own post, re-sent after a reconnect: already applied
            raise Violation(f"{sender} replayed their message #{envelope.n} (expected #{expected})")
        if envelope.n > expected:
            raise Violation(f"{sender}'s messages arrived out of order (#{envelope.n} before #{expected})")
        p.counters[seat] = envelope.n
        self._applied[envelope.game, seat, envelope.n] = digest
        crossed = seat in p.late and (self._is_move(p, message) or isinstance(message, (commit.Commit, commit.Reveal)))
        if crossed:
            p.late.discard(seat)
        try:
            self._dispatch(seat, p, message, envelope.shares)
        except (Violation, RuleViolation, commit.CommitViolation) as error:
            if crossed:  # sent before its sender saw that its time ran out: it crossed the claim on the way
                self._say(f"{self.whose(seat)} {message.type} came after {self.whose(seat)} time ran out: not played")
                return
            if isinstance(error, Violation):
                raise
            raise Violation(f"{self.who(seat)} {error}") from None
        except mental.DeckViolation as error:
            raise Violation(self._blame(error)) from None

    def _verify(self, seat: int, envelope: wire.Envelope, p: Play) -> None:
        """The signature first: an unsigned post is a forgery, whatever its counter says."""
        message = envelope.msg
        if seat == self.me:
            key = self.identity(envelope.game).public_key()
        elif seat in p.verify_keys:
            key = p.verify_keys[seat]
        elif isinstance(message, wire.Hello):
            announced = wire.public_key(message.verify_key)
            if announced is None:
                raise Violation(f"{self.name(seat)} announced a weak verify key, under which signatures prove nothing")
            key = announced
        else:
            raise Violation(f"{self.name(seat)} sent {message.type!r} before saying hello")
        if not wire.verify(key, self.room, seat, envelope):
            if seat == self.me:
                raise Violation(f"the relay forged a message in your seat: #{envelope.n} ({message.type}) "
                                "is not signed by this program")
            raise Violation(f"{self.name(seat)}'s message #{envelope.n} ({message.type}) has a bad signature: "
                            "it was forged or altered")

    def _dispatch(self, seat: int, p: Play, message: wire.Message, shares: wire.Shares | None) -> None:
        if seat in p.out:  # out of the game since its time ran out on a deal: what it sends now crossed the claim
            return
        if shares is not None and not (isinstance(message, wire.Share) or self._is_move(p, message)):
            raise Violation(f"{self.who(seat)} sent keys with a {message.type!r} message")
        if isinstance(message, wire.Stopped):
            raise Violation(f"{self.who(seat)} stopped the game, saying: {clip(message.reason, 120)}")
        if isinstance(message, wire.Hello):
            self._hello(seat, p, message)
        elif isinstance(message, (commit.Commit, commit.Reveal)):
            self._round(seat, p, message)
            self._acted = seat
        elif isinstance(message, mental.Shuffle):
            self._expect(seat, p, message, Phase.SHUFFLING)
            assert p.deck is not None
            p.deck.apply_shuffle(seat, message)
            if p.deck.ready:
                p.deck.begin(p.state.deal() if p.state else [])
            self._acted = seat  # its wait ends here on every seat, whenever each has checked the step's proof
        elif isinstance(message, wire.Share):
            if shares is None or p.deck is None:
                raise Violation(f"{self.who(seat)} sent an empty share")
            owed = bool(p.deck.owes(seat))
            self._apply_shares(seat, p, shares)
            if owed and not p.deck.owes(seat):  # it sent what it owed; copies of keys in the open restart no clock
                self._acted = seat
        elif isinstance(message, wire.TimeOut):
            self._claim(seat, p, message)
        elif isinstance(message, wire.Audit):
            if p.proven:
                raise Violation(f"{self.who(seat)} sent an audit, which version {p.version} does not have")
            if seat in p.audits:  # the first copy counts for everyone, before or after the verdict
                self._say(f"{self.who(seat)} published their secrets again; the first copy counts")
                return
            self._expect(seat, p, message, Phase.AUDITING)
            p.audits[seat] = message
        else:
            self._move(seat, p, message, shares)
            self._acted = seat
        self._settle(p)

    def _is_move(self, p: Play, message: wire.Message) -> bool:
        return p.game is not None and type(message) in p.game.messages

    def _expect(self, seat: int, p: Play, message: wire.Message, *phases: Phase) -> None:
        if self.phase not in phases:
            raise Violation(f"{self.who(seat)} sent {message.type!r} while the game was {self.phase.value}")

    def _hello(self, seat: int, p: Play, hello: wire.Hello) -> None:
        self._expect(seat, p, hello, Phase.WAITING)
        who = self.who(seat)
        if seat in p.hellos:
            raise Violation(f"{who} said hello twice in one game")
        old = self.me == OBSERVER and hello.version in wire.READ_ONLY_VERSIONS
        if hello.version != wire.PROTOCOL_VERSION and not old:
            raise Violation(f"{who} speak{'s' * (seat != self.me)} protocol version {hello.version}, "
                            f"this program speaks {wire.PROTOCOL_VERSION}")
        group = self._group(who, hello, old)
        if p.version and hello.version != p.version:  # an observer reads version 3, but never mixed with 4
            raise Violation(f"{who} speaks protocol version {hello.version}, but the room's first hello spoke "
                            f"{p.version}")
        if not mental.box_key_valid(hello.box_key):
            raise Violation(f"{who} announced a box key that cannot receive sealed keys")
        game = self.catalog.get(hello.game)
        if game is None:
            raise Violation(f"{who} wants to play {clip(hello.game, 20)!r}, which this program does not know")
        if hello.seats not in game.seats:
            raise Violation(f"{who} wants {game.title} for {hello.seats} players, which it is not")
        try:
            options = game.Options.model_validate_json(wire.canonical(hello.options))
        except ValidationError as error:
            raise Violation(f"{who} asked for options {game.title} does not have "
                            f"({clip(error.errors()[0]['msg'], 60)})") from None
        if p.game is None:  # the first hello of the room decides for good
            p.game, p.options, p.group, p.seats, p.version = game, options, group, hello.seats, hello.version
        else:
            chosen = "game 1" if p.number > 1 else "the first hello of this game"
            for what, theirs, agreed in (("game", game.name, p.game.name), ("seats", hello.seats, p.seats),
                                         ("options", options, p.options)):
                if theirs != agreed:
                    raise Violation(f"{who} asked for {what} {clip(theirs, 30)}, but {chosen} chose "
                                    f"{clip(agreed, 30)}")
            if group is not p.group:
                assert p.group is not None
                raise Violation(f"{who} announced the {group.title} group, but {chosen} chose the "
                                f"{p.group.title} one; everyone must use the same group")
        key = wire.public_key(hello.verify_key)
        if key is None:
            raise Violation(f"{who} announced a weak verify key, under which signatures prove nothing")
        self._check_fresh_keys(who, p, hello)
        p.hellos[seat] = hello
        p.verify_keys[seat] = key
        self.names[seat] = hello.name
        if len(p.hellos) == p.seats:
            cards = len(game.faces(options, p.seats))
            self._say(f"game {p.number}: {game.title}, {p.seats} players" +
                      (f", {cards} cards, {group.title} keys" if cards else ""))
            if p.next_starter is not None:
                self._start(p, p.next_starter)
            else:
                p.draw = commit.Round(self.room, p.number, START, tuple(range(p.seats)), ("",))
                self._clock(p)  # the draw is on the clock too: a seat that never draws would hold the game up
        elif seat != self.me and p.number > 1:
            self._say(f"{self.name(seat)} wants a rematch")

    @staticmethod
    def _group(who: str, hello: wire.Hello, old: bool) -> Group:
        """The group a hello names: by id, or (version 3, read from an old transcript) by its MODP prime."""
        if old and hello.version == 3:
            group = group_of_prime(hello.prime) if hello.prime is not None and hello.group is None else None
            if group is None:
                raise Violation(f"{who} announced a non-standard group: its prime is not an RFC 3526 MODP prime")
            return group
        if hello.group is None or hello.prime is not None:
            raise Violation(f"{who} announced no group" if hello.group is None
                            else f"{who} sent a prime beside its group, which version {hello.version} does not have")
        found = GROUPS.get(hello.group)
        if found is None:
            raise Violation(f"{who} announced the group {clip(hello.group, 20)!r}, which this program does not know")
        return found

    def _check_fresh_keys(self, who: str, p: Play, hello: wire.Hello) -> None:
        """Every hello brings keys no hello of this room has shown: an earlier game's box key is readable by
        anyone who saw that game's audit, and a key shared with another seat lets that seat read these cards.
        (Verify keys are compared as hex: ``wire.public_key`` refuses every non-canonical encoding.)"""
        for earlier in self.plays:
            for owner, other in earlier.hellos.items():
                for what, theirs, seen in (("box key", mental.box_key_point(hello.box_key),
                                            mental.box_key_point(other.box_key)),
                                           ("verify key", hello.verify_key, other.verify_key)):
                    if theirs != seen:
                        continue
                    if earlier is p:
                        raise Violation(f"{who} announced the same {what} as {self.who(owner)} in this game: "
                                        "each seat needs keys of its own")
                    raise Violation(f"{who} reused a {what} of game {earlier.number} in game {p.number}'s "
                                    f"hello: the relay could read its sealed cards after game "
                                    f"{earlier.number}'s audit")

    def _round(self, seat: int, p: Play, message: commit.Commit | commit.Reveal) -> None:
        current = p.draw if p.starter is None else p.choice
        if current is None or message.label != current.label:
            raise Violation(f"{self.who(seat)} sent a {message.type} for {clip(message.label, 20)!r}, "
                            "which is not under way")
        if isinstance(message, commit.Commit):
            current.commit(seat, message)
        else:
            current.reveal(seat, message)
        if not current.done:
            return
        if current is p.draw:
            self._start(p, current.draw(p.seats))
        else:
            assert p.state is not None
            p.choices.append(dict(current.values))
            p.state.choose(dict(current.values))
            p.choice = None
            self.choices.pop(current.label, None)

    def _start(self, p: Play, starter: int) -> None:
        assert p.game is not None and p.group is not None
        p.starter = starter
        faces = tuple(p.game.faces(p.options, p.seats))
        p.state = p.game.new(Setup(p.seats, starter, p.options, faces, proven=p.proven))
        if p.timers is None:
            self._clock(p)
        if faces:
            self._deal(p)
        said = (["shuffling"] if faces else []) + \
            ([f"{self.who(starter)} start{'s' * (starter != self.me)}"] if p.game.has_starter else [])
        if said:  # a game where everyone moves at once has no starter to name (the game says: Game.has_starter)
            self._say("; ".join(said))

    @staticmethod
    def _clock(p: Play) -> None:
        """The game's clock starts (its options say how long a move and the bank are)."""
        clock = Clock.of(p.options)
        p.timers = Timers(clock, p.seats) if clock is not None else None

    def _deal(self, p: Play) -> None:
        """A new deck for the next deal: shuffled by the seats the game names (every seat, unless some are out for
        good), from the deal's starter round the table."""
        assert p.group is not None and p.state is not None and p.starter is not None
        deal = len(p.decks)
        if deal >= wire.MAX_DEALS:
            raise Violation(f"the game asked for more than {wire.MAX_DEALS} deals")
        size = len(p.state.setup.faces)
        dealers = set(p.state.dealers())
        if not dealers <= set(range(p.seats)) or len(dealers) < 2:
            raise GameContractError(f"{p.game.title if p.game else 'the game'} named dealers {sorted(dealers)} of "
                                    f"{p.seats} seats: at least two seats of the table deal")
        order = tuple(seat for k in range(p.seats) if (seat := (p.starter + deal + k) % p.seats) in dealers)
        box_keys = {s: h.box_key for s, h in p.hellos.items()}
        p.decks.append(mental.Deck(self.room, p.number, p.group, p.group.encoded(size), order, self.me,
                                   self.secrets(p.number, p.group), box_keys, deal, p.version))
        p.dealt = False

    def _move(self, seat: int, p: Play, move: wire.Message, shares: wire.Shares | None) -> None:
        self._expect(seat, p, move, Phase.PLAYING)
        assert p.state is not None
        if p.pending is not None:
            raise Violation(f"{self.who(seat)} sent {move.type!r} while a move was waiting for its cards")
        if p.choice is not None:
            raise Violation(f"{self.who(seat)} sent {move.type!r} while everyone was choosing")
        p.state.check(seat, move)
        shows = p.state.shows(seat, move)
        if shows:
            assert p.deck is not None
            p.deck.begin(shows)
        if shares is not None:
            if p.deck is None:
                raise Violation(f"{self.who(seat)} sent keys in a game without cards")
            released = p.state.releases(seat, move)
            if early := [key for key in shares.open if key.pos in released]:  # its keys, opened ahead of their showing
                p.deck.apply_release(seat, released, early)
                shares = wire.Shares(open=[key for key in shares.open if key.pos not in released], sealed=shares.sealed)
            self._apply_shares(seat, p, shares)
        p.pending = (seat, move)

    @staticmethod
    def _apply_shares(seat: int, p: Play, shares: wire.Shares) -> None:
        """Each key to the deal that holds its card (positions run on across deals), so that a key an honest seat
        sent just before a new deal began reaches the deal it was for; a position in no deal goes to the last."""

        size, last = p.decks[-1].size, len(p.decks) - 1  # every deal of a game deals the same deck

        def deal(pos: int) -> int:  # one division a key: a share of 2,000 keys late in a long game costs no more
            return min(pos // size, last)

        for k in sorted({deal(key.pos) for key in shares.open} | {deal(key.pos) for key in shares.sealed}):
            part = wire.Shares(open=[key for key in shares.open if deal(key.pos) == k],
                               sealed=[key for key in shares.sealed if deal(key.pos) == k])
            if not p.decks[k].void:  # a key to a void deal crossed the claim: no news
                p.decks[k].apply_shares(seat, part)

    # -- the clock -------------------------------------------------------------------------------------

    def _claim(self, seat: int, p: Play, claim: wire.TimeOut) -> None:
        """Judge a claim that another seat's time ran out (tabletop/clock.py), and act for that seat if it holds. A
        claim about a wait that has ended (its seat moved, or the game did, while the claim was on its way) is no
        news; one that comes before the relay's stamps show the time out is its sender's violation."""
        who, late = self.who(seat), claim.seat
        if late == seat:
            raise Violation(f"{who} claimed that their own time ran out")
        if late >= p.seats:
            raise Violation(f"{who} claimed that the time of seat {late} ran out, in a game of {p.seats} seats")
        timers = p.timers
        if timers is None or not timers.begun(late, claim.wait):
            raise Violation(f"{who} claimed that {self.whose(late)} wait #{claim.wait} ran out, a wait that never "
                            "began")
        if not timers.running(late, claim.wait):
            return
        try:
            deal_work = self.owes_deal_work(late)
            timers.judge(late, self.stamp)
        except Early as error:
            raise Violation(f"{who} claimed that {self.whose(late)} time ran out {error}") from None
        if deal_work and p.game is not None and p.game.voids_deals:
            self._void(p, late)
        elif deal_work:
            self._forfeit(p, late)
        else:
            self._time_out(p, late)

    def _forfeit(self, p: Play, seat: int) -> None:
        """``seat``'s time ran out while the game needed its shuffle step or keys, in a game that cannot go on
        without them: the game ends (a move waiting for its cards is given up), ``seat`` forfeits, and the game
        names the winners (``GameState.forfeit``)."""
        assert p.state is not None
        self._put_out(p, seat)
        p.outcome, p.forfeited = p.state.forfeit(seat), seat
        names = tuple(self.who(s) for s in range(p.seats))
        p.last_move = f"{self.overdue(seat)}; {p.outcome.reason.format(*names)}"
        self._say(p.last_move)

    @staticmethod
    def _put_out(p: Play, seat: int) -> None:
        """The deal waits on ``seat`` no more, its time run out: its showings are dropped, a move waiting on them with
        them, and the seat is out of the game (what it sends from now on crossed the claim)."""
        assert p.deck is not None
        p.deck.shows.clear()
        p.pending, p.timed_out = None, False
        p.out.add(seat)
        p.late.discard(seat)

    def _void(self, p: Play, seat: int) -> None:
        """``seat``'s time ran out while the deal needed its shuffle step or keys: the deal is given up (a move
        waiting for its cards with it), the seat is out of this game, and the game says what became of the deal
        (``GameState.void``) and asks for the next one."""
        assert p.state is not None and p.deck is not None
        p.deck.void = True
        self._put_out(p, seat)
        p.dealt = True
        names = tuple(self.who(s) for s in range(p.seats))
        self._said(p, f"{self.overdue(seat, 'deal')}; {p.state.void(seat).format(*names)}", names)
        if p.state.deals() > len(p.decks):
            self._deal(p)
            self._say(f"shuffling for deal {len(p.decks)}")

    def _said(self, p: Play, line: str, names: tuple[str, ...]) -> None:
        """Log ``line``, what the game just did; the status line shows it as the last move, or the game's few words
        for it (``GameState.brief``) when it has them."""
        assert p.state is not None
        brief = p.state.brief()
        p.last_move = line if brief is None else brief.format(*names)
        self._say(line)

    def _time_out(self, p: Play, seat: int) -> None:
        """What the game does for ``seat``, whose time ran out: in the draw for who starts, the next seat starts; it
        loses the choice under way; or the game's default move is made for it (checked, shown and pushed as its
        own)."""
        if p.starter is None:
            self._start_without(p, seat)
            return
        assert p.state is not None and p.game is not None
        current, choice = p.choice, p.state.choice()
        if current is not None and choice is not None:
            values = {seat: TIMED_OUT}
            p.choices.append(values)
            p.state.choose(values)
            p.choice = None
            self.choices.pop(current.label, None)
            p.last_move = f"{self.whose(seat)} time ran out: {self.who(seat)} lose{'s' * (seat != self.me)} " \
                          f"{choice.title}"
            self._say(p.last_move)
            p.late.add(seat)
            return
        move = p.state.time_out(seat)
        if move is None:
            raise GameContractError(f"{p.game.title} has no move to make for a seat whose time ran out")
        try:
            p.state.check(seat, move)
        except RuleViolation as error:
            raise GameContractError(f"{p.game.title}'s move for a seat whose time ran out breaks its rules: "
                                    f"{error}") from None
        if shows := p.state.shows(seat, move):
            assert p.deck is not None
            p.deck.begin(shows)
        p.pending, p.timed_out = (seat, move), True
        p.late.add(seat)

    def _start_without(self, p: Play, seat: int) -> None:
        """``seat``'s time ran out in the draw for who starts: its nonce never came, so no seat's draw can be made;
        the seat after it in the draw starts, and the game begins (a commitment or reveal of its that crossed the
        claim is not played)."""
        assert p.draw is not None
        seats = p.draw.seats
        p.late.add(seat)
        p.last_move = f"{self.whose(seat)} time ran out in the draw for who starts"
        self._say(p.last_move)
        self._start(p, seats[(seats.index(seat) + 1) % len(seats)])

    def _settle(self, p: Play) -> None:
        """Complete what the last post completed, then let the clock read the new state."""
        self._complete(p)
        if p.timers is not None and p is self.play:
            dues = self.clocked_dues()
            p.timers.update([due.seat for due in dues], self.stamp, self._acted,
                            [due.seat for due in dues if due.what is Owed.SHUFFLE_STEP])
        self._acted = None

    def _complete(self, p: Play) -> None:
        """Complete what the last post completed: showings, the deal, a waiting move, the game."""
        if p.deck is not None and p.state is not None:
            for show in p.deck.settle():
                seen = p.state.seen.setdefault(show.pos, set())
                seen.update(range(p.seats) if show.to is None else {show.to})
                if show.pos in p.deck.faces:
                    p.state.faces[show.pos] = p.state.setup.faces[p.deck.faces[show.pos]]
        if p.state is None or self.phase is Phase.SHUFFLING:
            return
        if not p.dealt and p.outcome is None and (p.deck is None or not p.deck.shows):  # (a forfeit leaves it so)
            p.dealt = True
            if p.deck is not None:
                self._say("cards dealt")
        if p.pending is not None and (p.deck is None or not p.deck.shows):
            seat, move = p.pending
            p.pending = None
            if p.timed_out:
                p.state.ran_out(seat)
            p.state.push(seat, move)
            p.moves.append((seat, move))
            names = tuple(self.who(s) for s in range(p.seats))
            said = p.state.describe(seat, move).format(*names)
            self._said(p, f"{self.whose(seat)} time ran out: {said}" if p.timed_out else f"{self.who(seat)} {said}",
                       names)
            p.timed_out = False
            if p.decks and p.state.deals() > len(p.decks):  # a game of rounds: a new deal for the next one
                self._deal(p)
                self._say(f"shuffling for deal {len(p.decks)}")
                return
        if p.choice is None and p.outcome is None and (choice := p.state.choice()) is not None:
            p.choice = commit.Round(self.room, p.number, choice.label, choice.seats, choice.allowed)
        if p.outcome is None and p.dealt and p.pending is None and (outcome := p.state.outcome()) is not None:
            p.outcome = outcome
            self._say(outcome.reason.format(*(self.who(s) for s in range(p.seats))))

    def _open_next(self) -> None:
        previous = self.play
        nxt = Play(previous.number + 1, game=previous.game, options=previous.options, group=previous.group,
                   version=previous.version,
                   seats=previous.seats,
                   next_starter=previous.outcome.next_starter if previous.outcome else None)
        self.plays.append(nxt)
        if self.follow:
            self.want = nxt.number

    def _blame(self, error: mental.DeckViolation) -> str:
        """A deck violation as one line, its culprit first."""
        return f"{'one of the other players' if error.seat is None else self.who(error.seat)} {error}"

    # -- proofs on receipt (the shell runs their checks before it applies the next event) ----------------

    def check_work(self) -> Work | None:
        """The check of the oldest shuffle step whose proof is unchecked; its ``finish`` raises Violation naming the
        step's author if the proof does not hold (and keeps it as ``problem``), and otherwise lets the deal
        begin once every step is checked."""
        p = self.play
        if self.problem is not None or p.deck is None or (task := p.deck.check_job()) is None:
            return None
        deck = p.deck

        def finish(error: str | None) -> None:
            try:
                task.finish(error)
            except mental.DeckViolation as violation:
                self.problem = self._blame(violation)
                self._say(f"stopped: {self.problem}")
                raise Violation(self.problem) from None
            if deck.ready and p.deck is deck and not deck.void:
                deck.begin(p.state.deal() if p.state else [])
                self._settle(p)

        return Work(mental.Task(task.function, task.args, task.group, finish), p.number)


Strategy = Callable[[Table], wire.Message | str | None]  # a move, a choice's value, or None to wait
