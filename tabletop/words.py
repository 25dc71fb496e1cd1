"""The words put to the table's values of tabletop/values.py: a result, the phase and the progress of the work around
a game, who owes the game what, and an audit's verdict.

Every sentence about them is written here, once, and read by everyone who shows one: the screens, the table's
own log, the shell's give-up line (discard-bot's, and the reason a transcript keeps), a transcript's check
(discard-verify, the replay), discard-bot's failure line and the game-over screen. It lives in ``tabletop/``
because the table and the shell write some of them themselves and must not import ``discard_tui/``; it imports
only the values, so that the first frame can import it before the table, the crypto and the network.

Seats are named from ``names`` (one per seat, as ``Table.name`` gives them); the seat ``me``, if given, is "you".
"""

from __future__ import annotations

from collections.abc import Sequence

from .values import Awaiting, Fault, Owed, Phase, Problem, Progress, Result, Verdict

RESULTS = {Result.WIN: "You win", Result.LOSS: "You lose", Result.DRAW: "A draw"}
PROGRESS = {
    Phase.STARTING: "Drawing who starts",
    Phase.SHUFFLING: "Shuffling: step {step} of {steps}",
    Phase.DEALING: "Dealing",
    Phase.AUDITING: "Auditing the game",
}
CHECKING_SHUFFLE = "Shuffling: checking the proofs"  # every step is in (Progress.step 0)
HEADLINES = {  # a seat's headline in each phase, when no turn, result or wait says more
    Phase.WAITING: "Waiting for an opponent",
    Phase.STARTING: "Drawing who starts",
    Phase.SHUFFLING: "Shuffling",
    Phase.DEALING: "Dealing",
    Phase.PLAYING: "Playing",
    Phase.AUDITING: "Auditing",
    Phase.OVER: "Game over",
    Phase.VIOLATION: "Stopped",
}

OWED = {  # each ends "bo never …"
    Owed.HELLO: "said hello",
    Owed.REMATCH: "accepted the rematch",
    Owed.START_COMMITMENT: "sent their commitment for who starts",
    Owed.START_REVEAL: "revealed their draw for who starts",
    Owed.SHUFFLE_STEP: "sent shuffle step {step} of {steps}",
    Owed.HAND_KEYS: "sent the keys to your hand",
    Owed.CARD_KEY: "sent their key to a card",
    Owed.CHOICE_COMMITMENT: "chose",
    Owed.CHOICE_REVEAL: "revealed their choice",
    Owed.MOVE: "made their move",
}

SENT_BY_PROGRAM = {  # what a seat's program sends by itself, as "bo's …": the table waits on it only if it is gone
    Owed.START_COMMITMENT: "draw for who starts",
    Owed.START_REVEAL: "draw for who starts",
    Owed.SHUFFLE_STEP: "shuffle step",
    Owed.HAND_KEYS: "keys",
    Owed.CARD_KEY: "key",
    Owed.CHOICE_REVEAL: "reveal",
}

FAULTS = {
    Fault.BAD_SEED: "{who} published a deck seed that is not the one of their hello",
    Fault.UNCOMMITTED_KEY: "{who}'s key for card {card} is not the one they committed to",
    Fault.BAD_SEALED_KEY: "{who}'s sealed key for card {card} to {to} was wrong",
    Fault.BAD_SHOWN_KEY: "{who}'s key for card {card} during the game is not their real one",
    Fault.BAD_SHUFFLE: "{who}'s phase-1 shuffle is not the one their seed makes",
    Fault.BAD_REKEYING: "{who}'s phase-2 shuffle does not match their keys",
    Fault.BAD_DEAL: "deal {deal} does not decrypt to one of each card",
    Fault.ILLEGAL_MOVE: "{who} {details}",
}


def _who(seat: int | None, names: Sequence[str], me: int | None) -> str:
    return "" if seat is None else "you" if seat == me else names[seat]


# -- silence -------------------------------------------------------------------------------------------------


def awaiting_words(owed: Sequence[Awaiting], names: Sequence[str]) -> str:
    """ "bo never made their move", one clause per seat, joined by "; "; empty when nobody owes anything."""
    return "; ".join(f"{names[a.seat]} never {OWED[a.what].format(step=a.step, steps=a.steps)}" for a in owed)


def silence_words(owed: Sequence[Awaiting], names: Sequence[str], waited: float) -> str:
    """Why a seat gave up waiting: "bo never made their move (silent for 60 s)"."""
    return f"{awaiting_words(owed, names) or 'nobody moved'} (silent for {waited:g} s)"


def overdue_words(whose: str, their: str, needed_by: str) -> str:
    """Why a seat left the game or the deal: "bo's time ran out while the deal needed their keys" (``needed_by``:
    "game" for a forfeit, "deal" for a void)."""
    return f"{whose} time ran out while the {needed_by} needed {their} keys"


def relay_silent_words(gone: float) -> str:
    """Why a seat gave up waiting while the relay stayed out of reach: nobody else could have moved meanwhile."""
    return f"the relay has not answered for {gone:.0f} s"


def empty_room_words(room: str, waited: float) -> str:
    """Why a seat gave up waiting when nobody else ever joined its room."""
    return f"nobody came to play in room {room} (waited {waited:g} s)"


def unfinished_words(owed: Sequence[Awaiting], names: Sequence[str]) -> str:
    """Why a transcript's game is not verified although nothing in it broke the rules: it stops early."""
    what = awaiting_words(owed, names)
    return "the transcript ends before the game did" + (f" ({what})" if what else "")


def unaudited_words(missing: Sequence[int], names: Sequence[str]) -> str:
    """A transcript's game that ended but whose audit never came: who never published their keys."""
    return (f"{' and '.join(names[s] for s in missing)} never published their keys for the audit: "
            "the game cannot be verified")


# -- the audit -----------------------------------------------------------------------------------------------


def problem_words(problem: Problem, names: Sequence[str], me: int | None = None) -> str:
    """ "bo's phase-1 shuffle is not the one their seed makes", "bo claimed they could not move, …"."""
    return FAULTS[problem.kind].format(who=_who(problem.seat, names, me), to=_who(problem.to, names, me),
                                       card=problem.card, deal=problem.deal, details=problem.details)


def first_problem(verdict: Verdict, names: Sequence[str], me: int | None = None) -> str | None:
    """The first problem, and how many more (the transcript lets anyone find each); None for a fair game."""
    if not verdict.problems:
        return None
    more = len(verdict.problems) - 1
    return problem_words(verdict.problems[0], names, me) + (
        f" (and {more} more problem{'s' * (more > 1)})" if more else "")


def verdict_words(verdict: Verdict, names: Sequence[str], me: int | None = None) -> str:
    """The audit in one short line: "Checked: every shuffle, deal and move was verified — …" or "Not fair: …"."""
    problem = first_problem(verdict, names, me)
    if problem is not None:
        return f"Not fair: {problem}"
    counted = f"{verdict.moves} {verdict.tally[verdict.moves != 1]}"
    if not verdict.decks:
        return f"Checked: every {verdict.tally[0]} was verified — nobody cheated ({counted})"
    decks = f"{verdict.decks} deck{'s' * (verdict.decks > 1)} of {verdict.cards} cards"
    return f"Checked: every shuffle, deal and move was verified — nobody cheated ({decks}, {counted})"


def wins_words(names: Sequence[str], wins: Sequence[int]) -> str:
    """Around a bigger table, the players who have won a game, most first: "ana: 2 · cy: 1 games won", "Computer 2:
    1 game won" (the colon: a name may end in a number); "" before anyone has."""
    winners = sorted((seat for seat in range(len(names)) if wins[seat]), key=lambda seat: -wins[seat])
    if not winners:
        return ""
    one = len(winners) == 1 and wins[winners[0]] == 1
    return " · ".join(f"{names[seat]}: {wins[seat]}" for seat in winners) + (" game won" if one else " games won")


def result_words(result: Result, cheer: bool = False) -> str:
    """ "You win" (with ``cheer``: "You win!"), "You lose", "A draw"."""
    return RESULTS[result] + ("!" if cheer and result is Result.WIN else "")


def progress_words(progress: Progress) -> str:
    """ "Shuffling: step 3 of 4", "Shuffling: checking the proofs", "Dealing", …"""
    if progress.phase is Phase.SHUFFLING and not progress.step:
        return CHECKING_SHUFFLE
    return PROGRESS[progress.phase].format(step=progress.step, steps=progress.steps)


def headline_words(phase: Phase, names: Sequence[str], me: int, *, my_turn: bool = False, to_move: int | None = None,
                   result: Result | None = None, number: int = 1, connecting: bool = False,
                   failed: bool = False, awaited: Sequence[int] = (), offered: bool = False) -> str:
    """A seat's state in a few words, first on its status bar: "Your turn", "bo's turn" (``to_move``: the seat the
    game waits on, where its view says), "You win", "Waiting for bo" (to a rematch: game ``number`` > 1), "Shuffling", "Connecting"
    (to the relay, the first time), "Disconnected" (the relay cannot be used). ``awaited``: the other seats the game
    waits on; when the seat to move is not among them (its move waits on their keys), "Waiting for bo". While a
    rematch opens (WAITING with the last game's ``result`` still shown), the result if another seat ``offered`` it
    and waits on me, else "Waiting for bo"."""
    if failed:
        return "Disconnected"
    if connecting:
        return "Connecting"
    others = [seat for seat in range(len(names)) if seat != me]
    if phase is Phase.PLAYING:
        if my_turn:
            return "Your turn"
        if awaited and to_move is not None and to_move not in awaited:
            return f"Waiting for {' and '.join(names[seat] for seat in awaited)}"
        moving = [names[to_move]] if to_move is not None and to_move != me else [names[seat] for seat in others]
        return f"{' and '.join(moving) or 'opponent'}'s turn"
    if phase in (Phase.OVER, Phase.AUDITING) and result:
        return result_words(result)
    if phase is Phase.WAITING and result and offered:
        return result_words(result)
    if phase is Phase.WAITING and (number > 1 or result):
        return f"Waiting for {' and '.join(names[seat] for seat in others) or 'opponent'}"
    if phase is Phase.WAITING and len(names) > 2:
        return "Waiting for players"
    return HEADLINES[phase]


def duration(seconds: float) -> str:
    """A time in a few characters: "40 s", "12 min", "3 h", "2 d"."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def ago(seconds: float) -> str:
    """ "just now", "40 s ago", "2 min ago", "3 h ago", "2 d ago"."""
    return "just now" if seconds < 10 else f"{duration(seconds)} ago"


def clip(text: object, limit: int = 40) -> str:
    """Text that came from the other side (a player, a relay), cut short enough for a one-line message and shown
    as text: every character a terminal would act on (ESC, the other controls) becomes a space."""
    words = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    return words if len(words) <= limit else words[: limit - 1] + "…"
