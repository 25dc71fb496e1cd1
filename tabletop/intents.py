"""What this seat may do, what it owes and what it waits for, as functions of the table's state (pure).

:meth:`Intents.owed` is what the seat must post next: a message ready to sign (:class:`Post`), work for the process
pool first (:class:`Work`), or a choice only the player can make (:class:`Needs`). The player's own moves, choices and
rematches are checked here before they are posted or kept, and :meth:`Intents.awaiting` says who else owes the game
what.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import commit
from . import deck as mental
from . import wire
from .game import RuleViolation
from .state import OBSERVER, Play, TableState
from .values import Awaiting, Owed, Phase


@dataclass(frozen=True)
class Post:
    """A message to sign and post in game ``number``."""

    number: int
    msg: wire.Message
    shares: wire.Shares | None = None


@dataclass(frozen=True)
class Work:
    """Exponentiations to run in the pool; ``finish`` turns their results into the post (or, for an audit, the
    verdict of game ``number``)."""

    job: mental.Job[Any] | mental.Task[Any, Any]
    number: int = 0


@dataclass(frozen=True)
class Needs:
    """The game waits for this seat's own choice (a throw, a bid), which only the player can make."""

    choice: Any


CLOCKED = (Owed.MOVE, Owed.CHOICE_COMMITMENT, Owed.CHOICE_REVEAL)  # what a seat owes on the clock
DEAL_WORK = (Owed.SHUFFLE_STEP, Owed.HAND_KEYS, Owed.CARD_KEY)  # on the clock too, at any phase of a deal


class Intents(TableState):
    """A seat's side of the table: what it owes next, what its player may do now, and whom it waits for."""

    # -- what I owe ----------------------------------------------------------------------------------

    def owed(self) -> Post | Work | Needs | None:
        """What this seat must post next, one message at a time. Pure: a function of the state."""
        p = self.play
        if self.problem is not None or self.me == OBSERVER:  # a watcher posts nothing
            return None
        if p.verdict is not None or (p.audited and p.outcome is not None):
            if self.want > p.number:
                return Post(p.number + 1, self._my_hello(p.number + 1, p))
            return None
        if self.me not in p.hellos:
            if p.number == 1 and self.me != 0 and 0 not in p.hellos:
                return None  # seat 0 opens the room: its hello decides, so that two wishes never race
            return Post(p.number, self._my_hello(p.number, p)) if self.want >= p.number else None
        phase = self.phase
        if phase is Phase.WAITING:
            return None
        if phase is Phase.STARTING:
            return self._round_owed(p, p.draw)
        assert p.deck is not None or phase is not Phase.SHUFFLING
        if phase is Phase.SHUFFLING:
            mine = p.deck is not None and p.deck.shuffle_owed() == self.me and not p.deck.unchecked
            return Work(p.deck.shuffle_job()) if p.deck and mine else None
        if p.deck is not None and p.deck.owes(self.me):
            return Post(p.number, wire.Share(), p.deck.my_shares())
        if phase is Phase.PLAYING and p.pending is None:
            if p.choice is not None:
                return self._round_owed(p, p.choice)
            assert p.state is not None
            forced = p.state.owed(self.me)
            if forced is not None:
                return self.prepare(forced)
        return None

    def _my_hello(self, number: int, p: Play) -> wire.Hello:
        game = p.game or self.catalog[self.wish.game]
        group = p.group or self.wish.group
        options = p.options.model_dump(mode="json") if p.options is not None else self.wish.options
        return wire.Hello(version=wire.PROTOCOL_VERSION, name=self.wish.name,
                          verify_key=wire.public_hex(self.identity(number)),
                          box_key=self.secrets(number, group).box_public, game=game.name,
                          seats=p.seats or self.wish.seats, group=group.name, options=options)

    def _round_owed(self, p: Play, current: commit.Round | None) -> Post | Needs | None:
        assert p.group is not None
        if current is None:
            return None
        owed = current.owed(self.me)
        nonce = self.nonce(p.number, current.label)
        if owed == "commit":
            value = "" if current.allowed == ("",) else self.choices.get(current.label)
            if value is None:
                return Needs(p.state.choice() if p.state else None)
            return Post(p.number, commit.make_commit(self.room, p.number, self.me, current.label, nonce, value))
        if owed == "reveal":
            value = current.recover(self.me, nonce)
            assert value is not None, "my own commitment matches none of the allowed values"
            return Post(p.number, commit.make_reveal(current.label, nonce, value))
        return None

    # -- my intents ----------------------------------------------------------------------------------

    def refusal(self, move: wire.Message) -> str | None:
        """Why this seat may not make ``move`` now, in words for a status bar; None if it may."""
        p = self.play
        if self.phase is not Phase.PLAYING or p.state is None:
            return "the game is not under way"
        if p.pending is not None or (p.deck is not None and p.deck.shows):
            return "the last move is still being shown"
        if p.choice is not None:
            return "everyone is choosing"
        if (mover := p.state.to_move()) != self.me:
            return "it is nobody's turn" if mover is None else f"it is {self.name(mover)}'s turn"
        try:
            p.state.check(self.me, move)
        except RuleViolation as error:
            return error.rule or f"you {error}"  # the rules' words follow the mover's name
        return None

    def prepare(self, move: wire.Message) -> Post:
        """My move with the keys it shows (a card I hold and have seen needs no one else's), and those it lets me
        open ahead of their showing (a fold's, to the board still to come: then I owe them nothing more)."""
        p = self.play
        assert p.state is not None
        shows, released = p.state.shows(self.me, move), p.state.releases(self.me, move)
        shares = p.deck.my_shares(extra=shows, release=released) if p.deck is not None and (shows or released) \
            else None
        return Post(p.number, move, shares)

    def my_choice(self) -> tuple[str | None, bool]:
        """My value for the choice under way (found from my commitment after a restart), and whether the other
        seats in it have all committed to theirs."""
        p = self.play
        current = p.choice
        if current is None:
            return None, False
        chosen = self.choices.get(current.label)
        if chosen is None and self.me in current.commits:
            chosen = current.recover(self.me, self.nonce(p.number, current.label))
        return chosen, all(seat in current.commits for seat in current.seats if seat != self.me)

    def choice_refusal(self, value: str | None = None) -> str | None:
        """Why this seat cannot choose now (or cannot choose ``value``), in words for a status bar; None if it can."""
        p = self.play
        current = p.choice
        if self.phase is not Phase.PLAYING or p.state is None:
            return "the game is not under way"
        if current is None or self.me not in current.seats:
            return "there is nothing to choose now"
        chosen, _ = self.my_choice()
        if chosen is not None or current.owed(self.me) != "commit":
            return f"you have already chosen {chosen}" if chosen else "you have already chosen"
        if value is not None and value not in current.allowed:
            return f"{value!r} is not one of {', '.join(current.allowed)}"
        return None

    def choose(self, value: str) -> str | None:
        """My value for the choice under way; the reason it is refused, or None."""
        reason = self.choice_refusal(value)
        if reason is None:
            assert self.play.choice is not None
            self.choices[self.play.choice.label] = value
        return reason

    def rematch_refusal(self) -> str | None:
        """Why a rematch cannot be asked for now; None if it can."""
        p = self.play
        if self.rematch_offered:
            return None
        if p.outcome is None or not p.audited:
            return "a rematch can start once this game is over"
        if self.want > p.number:
            return "a rematch is already requested"
        return None

    def rematch(self) -> str | None:
        """Ask for the next game, or accept it; the reason it is refused, or None."""
        if (reason := self.rematch_refusal()) is not None:
            return reason
        self.want = self.play.number + (not self.rematch_offered)
        return None

    @property
    def rematch_offered(self) -> bool:
        """Another seat opened the next game and waits for me (not a game I said hello to: read again from the
        ledger, my program wants game 1 and would take the last one played for an offer)."""
        p = self.play
        return p.number > self.want and self.me not in p.hellos and any(s in p.hellos for s in self.others())

    # -- the clock ------------------------------------------------------------------------------------

    def deadlines(self) -> dict[int, int]:
        """When each other seat's time to move runs out (the relay's time, ms), for those the clock runs for."""
        timers = self.play.timers
        if timers is None or self.problem is not None or self.me not in self.play.hellos:
            return {}
        return {seat: deadline for seat in self.clocked() if seat != self.me
                and (deadline := timers.deadline(seat)) is not None}

    def claim(self, now: int) -> Post | None:
        """A claim that another seat's time ran out, if its deadline is past at ``now`` (the relay's time, ms: the
        shell's lower bound of it, so that an honest claim is never early)."""
        p = self.play
        for seat, deadline in sorted(self.deadlines().items(), key=lambda item: item[1]):
            if deadline <= now and p.timers is not None:
                return Post(p.number, wire.TimeOut(seat=seat, wait=p.timers.waits[seat].number))
        return None

    # -- silence --------------------------------------------------------------------------------------

    def awaiting(self) -> list[Awaiting]:
        """Who else owes the game what now (tabletop/words.py words it: "bo never …"); empty while it is my move."""
        return [due for due in self.owing() if due.seat != self.me]

    def owing(self) -> list[Awaiting]:
        """Who owes the game what now, this seat included (the clock runs for those who owe a move or a choice:
        :data:`CLOCKED`)."""
        p = self.play
        phase = self.phase
        seats = range(p.seats or self.wish.seats)
        if phase is Phase.VIOLATION:
            return []
        if p.verdict is not None or (p.audited and p.outcome is not None):
            return [Awaiting(s, Owed.REMATCH) for s in self.others()] if self.want > p.number else []
        if phase is Phase.WAITING:
            what = Owed.REMATCH if p.number > 1 else Owed.HELLO
            return [Awaiting(s, what) for s in seats if s not in p.hellos]
        if phase is Phase.STARTING and p.draw is not None:
            return [Awaiting(s, Owed.START_COMMITMENT if p.draw.owed(s) == "commit" else Owed.START_REVEAL)
                    for s in seats if p.draw.owed(s)]
        if phase is Phase.SHUFFLING and p.deck is not None:
            if p.deck.shuffled:  # every step is in; their proofs are being checked here
                return []
            step = len(p.deck.steps)
            return [Awaiting(p.deck.step_owner(step), Owed.SHUFFLE_STEP, step + 1, 2 * p.deck.seats)]
        if p.deck is not None and p.deck.shows:
            what = Owed.HAND_KEYS if phase is Phase.DEALING else Owed.CARD_KEY
            return [Awaiting(s, what) for s in seats if p.deck.owes(s)]
        if p.choice is not None:
            return [Awaiting(s, Owed.CHOICE_COMMITMENT if p.choice.owed(s) == "commit" else Owed.CHOICE_REVEAL)
                    for s in seats if p.choice.owed(s)]
        mover = p.state.to_move() if p.state is not None else None
        return [Awaiting(mover, Owed.MOVE)] if mover is not None else []

    def clocked(self) -> list[int]:
        """The seats the clock runs for now (:meth:`clocked_dues`)."""
        return [due.seat for due in self.clocked_dues()]

    def clocked_dues(self) -> list[Awaiting]:
        """What the clock runs for now: a move, a choice or its reveal while the game is played (none while a move's
        cards are being shown), the draw for who starts its commitment or reveal, and a shuffle step or keys, at any
        phase of a deal: a seat whose program is gone would otherwise hold the game up for good."""
        p, phase = self.play, self.phase
        what: tuple[Owed, ...] = CLOCKED if phase is Phase.PLAYING and p.pending is None else ()
        if phase is Phase.STARTING:
            what += (Owed.START_COMMITMENT, Owed.START_REVEAL)
        if p.game is not None and phase in (Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING):
            what += DEAL_WORK
        return [due for due in self.owing() if due.what in what] if what else []

    def in_game(self, seat: int) -> bool:
        """The game under way may still need ``seat``: it is not out of it (a Hold'em seat with no chips deals no
        more, one whose deal was void is out), so its absence may hold the game up. Between games, every seat."""
        p = self.play
        if self.phase not in (Phase.SHUFFLING, Phase.DEALING, Phase.PLAYING):
            return True
        return seat not in p.out and (p.deck is None or seat in p.deck.order)

    def owes_deal_work(self, seat: int) -> bool:
        """``seat`` owes the deal its shuffle step or keys (not a move or a choice)."""
        return any(due.seat == seat and due.what in DEAL_WORK for due in self.owing())
