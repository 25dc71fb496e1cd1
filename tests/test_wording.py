"""What the screens say, from pure functions: names as chosen, articles, the palette's Quit, War's first trick."""

from types import SimpleNamespace

import pytest

from discard_tui.app import DiscardApp, PlayConfig
from discard_tui.discard_screen import article
from discard_tui.profile import terminal_profile
from discard_tui.table_screen import capitalized
from tabletop.values import Phase
from discard_tui.war_screen import trick_state


def test_a_sentence_is_capitalised_but_a_name_is_shown_as_chosen():
    assert capitalized("you drew a card", ("cy", "ana")) == "You drew a card"
    assert capitalized("cy drew a card", ("cy", "ana")) == "cy drew a card"
    assert capitalized("paper covers rock: you win") == "Paper covers rock: you win"


def test_ranks_said_with_a_vowel_take_an():
    assert [article(rank) for rank in ("A", "8", "K", "2", "10")] == ["an", "an", "a", "a", "a"]


def test_the_palettes_quit_says_it_asks_first():
    app = DiscardApp(PlayConfig(name="tester"), terminal_profile())
    screen = SimpleNamespace(query=lambda selector: [], maximized=None, focused=None)
    quit_command = next(c for c in app.get_system_commands(screen) if c.title == "Quit")  # type: ignore[arg-type]
    assert "as soon as possible" not in quit_command.help and "asks first" in quit_command.help


def test_war_says_no_trick_number_before_the_first_card_is_turned():
    view = SimpleNamespace(phase=Phase.PLAYING, board=object(), trick=((), ()), tricks=0, taker=None, war=False,
                           limit=500, me=0, names=("you", "bo"))
    assert trick_state(view) == "At most 500 tricks\nnothing turned yet"  # type: ignore[arg-type]
    turned = SimpleNamespace(**{**vars(view), "trick": (("7♠",), ("K♦",)), "taker": 1, "tricks": 1})
    assert trick_state(turned) == "Trick 1 of 500\nbo took 2 cards"  # type: ignore[arg-type]


def test_the_match_score_around_a_bigger_table_names_only_who_has_won():
    from discard_tui.table_screen import score_line
    from pilot import seat_view

    def line(wins: tuple[int, ...]) -> str:
        return score_line(seat_view(me=2, names=("Computer", "Computer 2", "ana"), present=(True,) * 3, my_turn=True,
                                    wins=wins))

    assert line((0, 0, 0)) == ""
    assert line((0, 2, 1)) == "Computer 2: 2 · ana: 1 games won"
    assert line((0, 1, 0)) == "Computer 2: 1 game won"  # one game, one winner: singular


def test_every_thing_owed_and_every_fault_has_its_words():
    from tabletop.values import Fault, Owed
    from tabletop.words import FAULTS, OWED

    assert set(OWED) == set(Owed) and set(FAULTS) == set(Fault)


def test_what_a_silent_seat_owes_is_worded_from_values():
    from tabletop.values import Awaiting, Owed
    from tabletop.words import awaiting_words, silence_words, unfinished_words

    names = ("ana", "bo", "cy")
    owed = [Awaiting(1, Owed.SHUFFLE_STEP, 3, 4), Awaiting(2, Owed.MOVE)]
    assert awaiting_words(owed, names) == "bo never sent shuffle step 3 of 4; cy never made their move"
    assert silence_words([], names, 1.5) == "nobody moved (silent for 1.5 s)"
    assert unfinished_words(owed[1:], names) == "the transcript ends before the game did (cy never made their move)"


def test_an_audits_problems_are_worded_from_values_naming_me_you():
    from tabletop.values import Fault, Problem, Verdict
    from tabletop.words import problem_words, verdict_words

    names = ("ana", "bo")
    assert problem_words(Problem(1, Fault.BAD_SEALED_KEY, card=7, to=0), names, me=0) == \
        "bo's sealed key for card 7 to you was wrong"
    assert problem_words(Problem(None, Fault.BAD_DEAL, deal=2), names) == "deal 2 does not decrypt to one of each card"
    unfair = Verdict((Problem(1, Fault.ILLEGAL_MOVE, "drew {twice}"), Problem(1, Fault.BAD_SEED),
                      Problem(1, Fault.BAD_REKEYING)), 1, 52, 9, ("move", "moves"))
    assert verdict_words(unfair, names) == "Not fair: bo drew {twice} (and 2 more problems)"
    fair = Verdict((), 2, 24, 1, ("move", "moves"))
    assert fair.fair and verdict_words(fair, names) == ("Checked: every shuffle, deal and move was verified — nobody "
                                                        "cheated (2 decks of 24 cards, 1 move)")


def test_text_from_the_other_side_is_shown_without_the_controls_a_terminal_would_act_on():
    """A peer's or a relay's words (a message type, a reason, an error) reach a dialog as text: ESC, BEL and the
    other controls become spaces, so nobody can set a title, clear the screen or write the clipboard."""
    from tabletop.words import clip

    assert clip("a\x1b]0;pwned\x07b\x1b[2Jc", 40) == "a ]0;pwned b [2Jc"
    assert clip("x" * 50, 10) == "x" * 9 + "…"


def test_a_relay_frame_nested_past_pythons_limit_is_named_not_raised():
    """JSON nested 200,000 deep raises RecursionError in json.loads: the seat names the relay instead of dying."""
    from tabletop.ledger import RelayClient, RelayError

    client = RelayClient("ws://relay.example:1", "room", "ana")
    with pytest.raises(RelayError, match="not a discard relay frame"):
        client._frame("[" * 200_000 + "]" * 200_000)


def test_every_phase_has_a_headline_and_a_seat_says_why_it_stopped():
    from tabletop.values import Progress
    from tabletop.words import HEADLINES, PROGRESS, headline_words, progress_words

    assert set(HEADLINES) == set(Phase) and set(PROGRESS) <= set(Phase)
    assert progress_words(Progress(Phase.SHUFFLING, 1, 4, step=2, steps=4)) == "Shuffling: step 2 of 4"
    names = ("ana", "bo", "cy")
    assert headline_words(Phase.PLAYING, names, 0, to_move=2) == "cy's turn"
    assert headline_words(Phase.WAITING, names, 0) == "Waiting for players"
    assert headline_words(Phase.WAITING, names[:2], 0, number=2) == "Waiting for bo"
    assert headline_words(Phase.PLAYING, names, 0, my_turn=True, failed=True) == "Disconnected"  # the game stopped
    assert headline_words(Phase.WAITING, names, 0, connecting=True) == "Connecting"
