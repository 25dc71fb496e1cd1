"""What a game implements for the table to run it: a :class:`Game` and its :class:`GameState`.

The state is pure, in the manner of python-chess's ``Board``: ``check`` says
whether a move is legal without hidden faces, ``shows`` which deck positions
the move reveals and to whom, ``push`` applies it once those faces are in
(raising :class:`RuleViolation` for what only the faces can tell), and
``outcome`` says when the game is over. The table fills ``faces`` (the
positions this seat has seen) and ``seen`` (who has seen which position) as
showings complete. At the end the audit replays every move on a fresh state
with every face known, so the same ``push`` checks every claim.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field

from .about import About, Number, OneOf, Option
from .deck import Show
from .wire import STRICT, Message

Face = TypeVar("Face", bound=Hashable)


class RuleViolation(Exception):
    """A move the rules forbid; the message reads after the mover's name ("bo" + " discarded 7♣, …").

    ``rule``, if given, is the rule on its own, said to the mover ("a turn begins by drawing…"): what a refusal
    shows them before the move is sent, shorter than "you tried to stop, but a turn begins…".
    """

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


class NoOptions(BaseModel):
    model_config = STRICT


def option_field(option: Option) -> Any:
    """The pydantic field of a declared option: its default, its bounds and its help, from its ``About``."""
    if isinstance(option, Number):
        return Field(option.default, ge=option.low, le=option.high, description=option.help)
    return Field(option.default, description=option.help)


def options_problem(model: type[BaseModel], options: tuple[Option, ...]) -> str | None:
    """How an ``Options`` model disagrees with the options its game declares, or None."""
    fields = model.model_fields
    if set(fields) != {option.name for option in options}:
        return f"its fields {sorted(fields)} are not its declared options {[o.name for o in options]}"
    for option in options:
        field = fields[option.name]
        bounds = {key: getattr(m, key) for m in field.metadata for key in ("ge", "le") if hasattr(m, key)}
        if field.default != option.default or field.description != option.help:
            return f"{option.name}: take its default and help from its declaration (option_field)"
        if isinstance(option, Number) and (field.annotation is not int or bounds != {"ge": option.low, "le": option.high}):
            return f"{option.name}: an int from {option.low} to {option.high} (option_field)"
        if isinstance(option, OneOf) and getattr(field.annotation, "__args__", None) != option.choices:
            return f"{option.name}: Literal{list(option.choices)}"
    return None


@dataclass(frozen=True)
class Setup(Generic[Face]):
    """Everything a game needs to begin: agreed by every seat's hello and the draw for who starts."""

    seats: int
    starter: int
    options: Any  # the game's Options model
    faces: tuple[Face, ...]  # card i of the unshuffled deck; () for a game without cards
    proven: bool = False  # protocol version 5: nothing is published at the end, so a claim shows its cards at once


@dataclass(frozen=True)
class Outcome:
    winners: tuple[int, ...]  # () when nobody wins (a draw)
    scores: tuple[int, ...]  # one per seat, in seat order, in the game's own unit
    reason: str  # how it ended, for the log; names are filled in with {0}, {1}, … for seats
    next_starter: int | None = None  # who starts a rematch, if the game says (else a new draw)


@dataclass(frozen=True)
class Choice:
    """A simultaneous choice the game waits for: each of ``seats`` commits to one of ``allowed``."""

    label: str
    seats: tuple[int, ...]
    allowed: tuple[str, ...]
    title: str = "the choice"  # for people: what a seat whose time runs out loses ("throw 4")


TIMED_OUT = "timed out"  # a seat's value in a choice it did not make in time (never one of ``allowed``)


@dataclass
class GameState(ABC, Generic[Face]):
    setup: Setup[Face]
    faces: dict[int, Face] = field(default_factory=dict)  # positions this seat has seen
    seen: dict[int, set[int]] = field(default_factory=dict)  # position -> seats that have seen it

    def seen_face(self, seat: int, pos: int) -> Face | None:
        """The card at ``pos`` if ``seat`` has seen it, else None: what a :meth:`view` of ``seat`` may show, so that
        the view is the same from a state that knows more (the audit's, which knows every card). A card every seat
        has seen was shown to everyone: a watcher (a seat of no game) sees it too."""
        seen = self.seen.get(pos, set())
        public = seat < 0 and seen >= set(range(self.setup.seats))
        return self.faces.get(pos) if seat in seen or public else None

    def deal(self) -> list[Show]:
        """The showings that make the current deal (positions shown to their owners), once its deck is shuffled.

        It must not change the state: the audit's replay never calls it.
        """
        return []

    def deals(self) -> int:
        """How many times the game has asked for the deck to be dealt. A game of rounds asks once a round by
        raising this after a move; the table then shuffles a new deck, whose positions follow the last deal's
        (deal k holds positions k·n … k·n + n − 1 for a deck of n cards)."""
        return 1

    def dealers(self) -> tuple[int, ...]:
        """The seats that shuffle the next deal and hold a key to each of its cards: every seat, unless the game
        has put some out for good (a poker player with no chips). Asked when the table opens a deal; a seat out of
        it owes the deal nothing and is shown only what everyone is shown."""
        return tuple(range(self.setup.seats))

    @abstractmethod
    def to_move(self) -> int | None:
        """The seat the game waits on for a move now, or None (as PokerKit's ``actor_index``).

        The table's concurrency contract: it takes one move at a time. A move's showings complete before the next
        move may land (one sent earlier is the sender's violation), so two seats that may move at once would race
        and the loser would be blamed; moves made at the same time are a :meth:`choice` (commit–reveal) instead,
        during which ``to_move`` is None and the table's own ``owed`` says which seats still owe a commitment or a
        reveal. A choice shows no cards: a game that must show one after it asks for a move.
        """

    @abstractmethod
    def check(self, seat: int, move: Message) -> None:
        """Raise RuleViolation if ``seat`` may not make ``move`` now (judged without hidden faces)."""

    def shows(self, seat: int, move: Message) -> list[Show]:
        """The positions ``move`` reveals, and to whom; the move is pushed once they are all shown."""
        return []

    def releases(self, seat: int, move: Message) -> list[int]:
        """Positions of the current deal whose keys ``seat`` may open with ``move``, its own layer only, so that it
        owes them nothing more (a player who folds, for the board still to come). A card is read by whoever holds every
        layer of it: only cards that will be shown to everyone belong here, and a card that may never be shown must
        keep two seats' layers unopened (Hold'em releases nothing with the fold that ends the hand)."""
        return []

    @abstractmethod
    def push(self, seat: int, move: Message) -> None:
        """Apply a checked move whose showings are complete; RuleViolation for what the faces disprove."""

    def owed(self, seat: int) -> Message | None:
        """A move ``seat`` must make with no choice in it (e.g. conceding), if any."""
        return None

    @abstractmethod
    def legal_moves(self, seat: int) -> list[Message]:
        """Every move ``seat`` may make now (for a computer player, and to grey out keys)."""

    def choice(self) -> Choice | None:
        """A simultaneous choice the game waits for, made by commit–reveal."""
        return None

    def choose(self, values: dict[int, str]) -> None:
        """Apply the revealed values of the current :meth:`choice`; or, when a seat's time ran out during it, only
        ``{seat: TIMED_OUT}``: the seat loses the choice (the game says what that means: rps gives the throw to
        the other seat), and nobody's hidden value is known."""
        raise NotImplementedError

    def time_out(self, seat: int) -> Message | None:
        """The move the table makes in the place of ``seat``, whose time to move ran out (docs/games.md, "The
        clock"): checked, shown and pushed as if the seat had made it, and logged "bo's time ran out: folded". It may
        be a move of the game's own that only the table makes (not in :attr:`Game.messages`). None while the game
        waits on a choice (see :meth:`choose`). Every seat must compute the same: from public state only."""
        return None

    def ran_out(self, seat: int) -> None:
        """The next move pushed for ``seat`` is the table's (:meth:`time_out`): its time ran out. A game that keeps a
        record of its moves notes it (Hold'em's hand history says so beside the move); nothing by default."""

    def void(self, seat: int) -> str:
        """The deal under way is void: ``seat``'s time ran out while the deal needed its shuffle step or its keys, so
        it will never come (a game that says :attr:`Game.voids_deals`). The game puts ``seat`` out for good (it deals
        no more: :meth:`dealers`), undoes the deal, asks for the next one (:meth:`deals`) unless the game is over, and
        says what became of it, as a log line with seats as ``{0}``, ``{1}``…"""
        raise NotImplementedError

    def forfeit(self, seat: int) -> Outcome:
        """The game ends without ``seat``: its time ran out while the game needed its shuffle step or its keys, in a
        game that does not void deals (:attr:`Game.voids_deals`), which cannot go on without them (every card still
        hidden is locked by its key). ``seat`` forfeits: the outcome names winners among the others, by the scores
        as they stand (with two seats, the other; cabo, the lowest total of the others), and says so in its reason
        (seats as ``{0}``, ``{1}``…)."""
        raise NotImplementedError

    def brief(self) -> str | None:
        """The change just made (the move pushed last, or the deal made void) in a few words for the status line,
        seats as ``{0}``, ``{1}``…, when its log line says more than one line holds: the log keeps every word. None
        (the default): the log line is shown."""
        return None

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game goes on."""

    @abstractmethod
    def describe(self, seat: int, move: Message) -> str:
        """The move, as a log line that reads after the mover's name ("discarded 8♥").

        Called once the move is pushed. Other seats are named as in :attr:`Outcome.reason`: ``{0}``, ``{1}``, …
        (so a literal brace is written twice).
        """

    def record(self, names: Sequence[str]) -> dict[str, Any]:
        """The game's own figures for ``discard-bot --json`` (a poker game's chips by name, say); none by default."""
        return {}

    def history_file(self, names: Sequence[str], me: int, number: int, room: str) -> tuple[str, str] | None:
        """Game ``number`` of ``room`` as its players keep a record of it, written beside the transcript: (the file's
        suffix, its text), Hold'em's hands as a Poker Hand History (".phhs"). From the moves and the faces this
        state has seen (``me``: its seat, whose own cards it names; an observer's is none); None for a game whose
        transcript is its only record."""
        return None

    @abstractmethod
    def view(self, seat: int) -> Any:
        """The game as ``seat`` sees it, for its screen and its computer player (an immutable snapshot)."""


class Game(ABC, Generic[Face]):
    """One kind of game the table can run."""

    about: ClassVar[About]  # its facts: the next three come from it, and its Options' defaults and bounds
    name: ClassVar[str]  # on the wire, in hello
    title: ClassVar[str]  # for people
    seats: ClassVar[range]  # how many players it takes
    messages: ClassVar[tuple[type[Message], ...]]  # its moves
    Options: ClassVar[type[BaseModel]] = NoOptions
    tally: ClassVar[tuple[str, str]] = ("move", "moves")  # what the audit counts (moves and choices), for people
    has_starter: ClassVar[bool] = True  # one seat moves first (False: every seat moves at once, as rps's throws)
    voids_deals: ClassVar[bool] = False  # when the time of a seat whose shuffle step or keys a deal needs runs out,
    # the deal is void and the game goes on without it (GameState.void); otherwise the game ends: it forfeits
    # (GameState.forfeit)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A game that declares its ``about`` takes its names and seats from it, and its Options must agree."""
        super().__init_subclass__(**kwargs)
        about = cls.__dict__.get("about")
        if about is not None:
            cls.name, cls.title, cls.seats = about.name, about.title, about.seats
            if problem := options_problem(cls.Options, about.options):
                raise TypeError(f"{cls.__name__}.Options: {problem}")

    @abstractmethod
    def faces(self, options: Any, seats: int) -> Sequence[Face]:
        """The cards for ``seats`` players, in the deck's order (card 0 first); empty for a game without a deck."""

    @abstractmethod
    def new(self, setup: Setup[Face]) -> GameState[Face]:
        ...

    @abstractmethod
    def computer(self, seed: int | None) -> Callable[[Any], Message | str | None]:
        """A simple, legal player (seeded): given the table, its move, its choice's value, or None to wait."""
