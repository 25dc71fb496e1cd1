"""Rock-paper-scissors in the pure core: the rules, whole games in an in-memory room, and cheats as tampers.

No relay and no pool: the whole file runs in about a second. The same game over
a real relay, and a player who never reveals, are in test_rps_wire.py.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from games.rps.game import Rps, RpsState
from games.rps.rules import BEATS, THROWS, Match, throw_winner
from games.rps.strategy import random_throws
from room import Room, summary
from tabletop.commit import Commit, Reveal, make_commit, make_reveal
from tabletop.game import RuleViolation, Setup
from tabletop.table import Needs
from tabletop.values import Phase
from test_cheating import Once, caught, reseal

# -- the rules -------------------------------------------------------------------------------------------------


def test_each_throw_beats_exactly_one_other_and_equal_throws_are_nobodys():
    assert sorted(BEATS) == sorted(BEATS.values()) == sorted(THROWS)
    for first, second in itertools.product(THROWS, repeat=2):
        winner = throw_winner((first, second))
        if first == second:
            assert winner is None
        else:
            assert winner == (0 if BEATS[first] == second else 1)
            assert throw_winner((second, first)) == 1 - winner
    assert throw_winner(("paper", "rock")) == 0 and throw_winner(("paper", "scissors")) == 1


def test_first_to_three_won_throws_wins_and_equal_throws_do_not_count():
    match = Match()
    for values in [("rock", "rock"), ("rock", "scissors"), ("paper", "scissors"), ("paper", "paper"),
                   ("scissors", "paper"), ("rock", "paper")]:
        match.play(dict(enumerate(values)))
        assert not match.over
    assert match.scores == (2, 2) and match.number == 7
    match.play({0: "scissors", 1: "paper"})
    assert match.over and match.winner == 0 and match.scores == (3, 2)
    assert [t.winner for t in match.throws] == [None, 0, 1, None, 0, 1, 0]


@pytest.mark.parametrize("values, fragment", [
    ({0: "rock", 1: "lizard"}, "threw 'lizard', which is not rock, paper or scissors"),
    ({0: "rock"}, "not for both players"),
    ({0: "rock", 1: "paper", 2: "rock"}, "not for both players"),
])
def test_a_throw_the_rules_forbid_changes_nothing(values, fragment):
    match = Match()
    with pytest.raises(RuleViolation, match=fragment):
        match.play(values)
    assert match.throws == [] and match.scores == (0, 0)


def test_no_throw_after_the_match_is_over():
    match = Match(target=1)
    match.play({0: "rock", 1: "scissors"})
    with pytest.raises(RuleViolation, match="after the match was over"):
        match.play({0: "rock", 1: "scissors"})
    assert len(match.throws) == 1


def new_state(starter: int = 0) -> RpsState:
    return Rps().new(Setup(2, starter, Rps.Options(), ()))


def test_every_throw_is_a_choice_of_both_seats_with_a_label_of_its_own():
    state = new_state()
    assert Rps().faces(Rps.Options(), 2) == ()
    assert state.to_move() is None and state.legal_moves(0) == state.legal_moves(1) == []
    labels = []
    while (choice := state.choice()) is not None:
        assert choice.seats == (0, 1) and choice.allowed == THROWS
        labels.append(choice.label)
        assert state.outcome() is None
        state.choose({0: "rock", 1: "rock" if len(labels) % 2 else "scissors"})  # equal, then seat 0 wins
    assert labels == [f"throw-{n}" for n in range(1, 7)]  # equal throws get labels of their own: fresh nonces
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == (0,) and outcome.scores == (3, 0) and outcome.next_starter == 1
    assert outcome.reason.format("ana", "bo") == "the match went to ana, 3 throws to 0"


def test_the_state_refuses_every_move_message():
    from games.discard.game import Draw

    state = new_state()
    with pytest.raises(RuleViolation, match="has no moves, only throws"):
        state.check(0, Draw(pos=3))
    with pytest.raises(RuleViolation):
        state.push(1, Draw(pos=3))


def test_the_view_is_an_immutable_snapshot():
    state = new_state()
    state.choose({0: "paper", 1: "rock"})
    view = state.view(1)
    assert view.scores == (1, 0) and view.label == "throw-2" and view.awaiting == (0, 1) and view.number == 2
    assert view.throws[0].values == ("paper", "rock") and view.throws[0].winner == 0
    state.choose({0: "rock", 1: "rock"})
    assert len(view.throws) == 1 and view.label == "throw-2"  # taken before: unchanged
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.label = "throw-9"  # type: ignore[misc]
    for _ in range(2):
        state.choose({0: "scissors", 1: "paper"})
    over = state.view(0)
    assert over.winner == 0 and over.label is None and over.awaiting == () and over.number == 4


# -- whole games in the pure core --------------------------------------------------------------------------------


def rps_room() -> Room:
    room = Room(game="rps")
    room.strategies = {0: random_throws(1), 1: random_throws(2)}
    return room


def posts(room: Room, kind: str) -> list:
    return [e for e in room.ledger if e.body is not None and e.body["msg"]["type"] == kind]


def test_a_whole_game_is_audited_fair_and_both_seats_agree():
    room = rps_room()
    room.run()
    assert room.violations == {}
    tables = room.tables
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in tables)
    assert tables[0].play.outcome == tables[1].play.outcome
    assert tables[0].play.choices == tables[1].play.choices  # both folded the same throws
    outcome = tables[0].play.outcome
    throws = tables[0].view().board.throws
    assert max(outcome.scores) == 3 and outcome.scores == tuple(sum(t.winner == s for t in throws) for s in (0, 1))
    assert outcome.winners == (outcome.scores.index(3),)
    assert any(t.winner is None for t in throws), "these seeds were chosen to include an equal throw"
    assert {t.view().result for t in tables} == {"win", "loss"}
    assert summary(tables[0]) == f"Checked: every throw was verified — nobody cheated ({len(throws)} throws)"
    assert tables[0].play.deck is None
    # Every throw's two commitments are in the ledger before either reveal: neither seat could see the other's.
    for label in {e.body["msg"]["label"] for e in posts(room, "commit")} - {"start"}:
        kinds = [e.body["msg"]["type"] for e in room.ledger if e.kind == "post"
                 and e.body["msg"].get("label") == label]
        assert kinds == ["commit", "commit", "reveal", "reveal"], (label, kinds)


def test_a_rematch_is_a_new_match_with_fresh_nonces():
    room = rps_room()
    room.run()
    first = room.tables[0].play
    assert room.tables[0].rematch() is None  # seat 1 follows (as the computer opponent does)
    room.run()
    second = room.tables[0].play
    assert second.number == 2 and second.verdict == [] and room.tables[1].play.verdict == []
    assert second.starter == first.outcome.next_starter  # no draw for who starts: the loser of game 1
    nonces = [e.body["msg"]["nonce"] for e in posts(room, "reveal")]
    assert len(nonces) == len(set(nonces))  # a nonce is never used twice, across throws and games
    assert room.tables[0].view().wins == room.tables[1].view().wins and sum(room.tables[0].view().wins) == 2


def test_the_computer_throws_only_when_its_throw_is_owed_and_follows_its_seed():
    room = rps_room()
    room.run(until=lambda: room.tables[0].play.choice is not None)
    table = room.tables[0]
    assert isinstance(table.owed(), Needs)
    assert len({random_throws(7)(table) for _ in range(5)}) == 1  # a fresh player with the same seed: the same throw
    strategy = random_throws(7)
    assert {strategy(table) for _ in range(30)} == set(THROWS)  # but not always the same throw
    assert table.choose("rock") is None
    assert random_throws(7)(table) is None  # chosen already: nothing more to say


def test_after_a_restart_my_committed_throw_is_found_again():
    """Only the seed is saved: a seat that restarts between its commitment and its reveal recovers its throw."""
    from tabletop.table import Table

    room = rps_room()
    room.run(until=lambda: (choice := room.tables[0].play.choice) is not None and 0 in choice.commits)
    before = room.tables[0]
    label = before.play.choice.label
    again = Table(room.name, 0, bytes([1]) * 32, room.catalog, before.wish)
    for event in room.ledger:
        again.apply(event)
    assert again.choices == {} and again.my_choice() == (before.choices[label], False)
    assert again.owed() is None  # nothing to choose again: it waits for bo's commitment, then reveals the same
    chosen = before.choices[label]
    room.tables[0] = again
    room.run()
    assert room.violations == {} and again.play.verdict == [] and again.play.choices[0][0] == chosen


# -- cheats: an honest seat and a cheater's rewritten posts --------------------------------------------------------


def throw_label(body: dict, kind: str) -> str | None:
    msg = body["msg"]
    return msg["label"] if msg["type"] == kind and msg["label"].startswith("throw-") else None


def play(tamper, cheater: int = 1) -> Room:
    room = rps_room()
    room.tamper = {cheater: tamper}
    room.run()
    return room


def test_a_reveal_that_does_not_match_its_commitment():
    def change_mind(table, body):
        if throw_label(body, "reveal") is None:
            return None
        msg = Reveal.model_validate(body["msg"])
        other = next(v for v in THROWS if v != msg.value)
        return reseal(table, body, msg.model_copy(update={"value": other}))

    assert caught(play(Once(change_mind))) == "bo revealed throw-1 in a way that does not match their commitment"


def test_a_reveal_before_both_have_committed():
    def peek_first(table, body):  # seat 0 commits first: it reveals at once, before seat 1 has committed
        label = throw_label(body, "commit")
        if label is None:
            return None
        p = table.play
        reveal = make_reveal(label, table.nonce(p.number, label), table.choices[label])
        return [body, reseal(table, body, reveal, None, n=body["n"] + 1)]

    room = play(Once(peek_first), cheater=0)
    assert caught(room, cheater=0) == "ana revealed throw-1 before everyone had committed"


def test_committing_twice_to_one_throw():
    def hedge(table, body):
        label = throw_label(body, "commit")
        if label is None:
            return None
        p = table.play
        second = make_commit(table.room, p.number, table.me, label, table.nonce(p.number, label),
                             next(v for v in THROWS if v != table.choices[label]))
        return [body, reseal(table, body, second, None, n=body["n"] + 1)]

    assert caught(play(Once(hedge))) == "bo committed twice to throw-1"


def test_a_throw_that_is_not_allowed():
    def lizard(table, body):  # committed and revealed consistently: only the value is wrong
        label = throw_label(body, "commit")
        if label is None:
            return None
        p = table.play
        nonce = table.nonce(p.number, label)
        commit = make_commit(table.room, p.number, table.me, label, nonce, "lizard")
        return [reseal(table, body, commit, None), reseal(table, body, make_reveal(label, nonce, "lizard"), None,
                                                           n=body["n"] + 1)]

    assert caught(play(Once(lizard))) == "bo revealed 'lizard' for throw-1, which is not allowed"


def test_a_commitment_to_a_throw_that_is_not_under_way():
    def ahead(table, body):
        label = throw_label(body, "commit")
        return reseal(table, body, Commit.model_validate({**body["msg"], "label": "throw-9"})) if label else None

    caught(play(Once(ahead)), "sent a commit for 'throw-9', which is not under way")


def test_a_move_from_another_game_is_malformed_here():
    from games.discard.game import Draw

    def draw(table, body):
        return reseal(table, body, Draw(pos=0), None) if throw_label(body, "commit") else None

    caught(play(Once(draw)), "malformed message", "'draw' is not a message of this game")


def test_the_screen_offers_the_games_own_throws():
    """discard_tui/rps_screen.py takes the throws from the game's facts (light to import): a key for each."""
    from discard_tui import rps_screen

    assert rps_screen.THROWS is THROWS
    assert rps_screen.KEYS == ("r", "p", "s")
