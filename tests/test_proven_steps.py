"""Version 5 through the ledger: a cheating shuffler is named on receipt by every other seat, with any number of
seats, and a proof taken from another step, deal, game or room does not hold.

Each cheater is a tamper on its own outgoing bodies (tests/room.py): the same tables, signatures and counters as
a real game; only the bytes it posts are its own.
"""

from __future__ import annotations

import pytest

from games.war.strategy import turn
from room import Room
from tabletop import wire
from tabletop.deck import Shuffle, prove_phase1
from tabletop.ed25519 import ED25519
from tabletop.groups import DEFAULT_GROUP
from tabletop.table import Table
from tabletop.values import Phase

CHEATER = 1


def resealed(table: Table, body: dict, **changes: object) -> dict:
    """The cheater's shuffle step with ``changes`` made, signed again by the cheater."""
    message = Shuffle.model_validate({**body["msg"], **changes})
    return wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"], message)


def step_tamper(phase: int, change):
    """Change the cheater's first step of ``phase`` with ``change(table, body) -> dict of field changes``."""
    done: list[bool] = []

    def act(table: Table, body: dict) -> dict | None:
        if done or body["msg"]["type"] != "shuffle" or body["msg"]["phase"] != phase:
            return None
        done.append(True)
        return resealed(table, body, **change(table, body))

    return act


def named(room: Room, *fragments: str) -> None:
    """Every honest seat stopped on the cheater's step, naming the cheater, before any card was dealt."""
    cheater = room.tables[CHEATER].wish.name
    for table in room.tables:
        if table.me == CHEATER:
            continue
        problem = room.violations.get(table.me)
        assert problem is not None, f"seat {table.me} did not stop: {table.log[-3:]}"
        assert problem.startswith(f"{cheater} sent "), problem
        for fragment in fragments:
            assert fragment in problem, problem
        assert table.phase is Phase.VIOLATION and not table.play.dealt


def swap_first_two(table: Table, body: dict) -> dict:
    deck = list(body["msg"]["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    return {"deck": deck}


def fresh_card(table: Table, body: dict) -> dict:
    group = table.play.group
    assert group is not None
    return {"deck": [group.to_hex(group.encode(1000)), *body["msg"]["deck"][1:]]}


def other_key_for_one(table: Table, body: dict) -> dict:
    group = table.play.group
    assert group is not None
    deck = list(body["msg"]["deck"])
    deck[2] = group.to_hex(group.power(group.from_hex(deck[2], "card"), 7))
    return {"deck": deck}


def duplicated(table: Table, body: dict) -> dict:
    deck = list(body["msg"]["deck"])
    deck[1] = deck[0]
    return {"deck": deck}


def other_commitment(table: Table, body: dict) -> dict:
    group = table.play.group
    assert group is not None
    commitments = list(body["msg"]["commitments"])
    commitments[0] = group.to_hex(group.base_power(12345))
    return {"commitments": commitments}


def commitments_swapped(table: Table, body: dict) -> dict:
    commitments = list(body["msg"]["commitments"])
    commitments[0], commitments[1] = commitments[1], commitments[0]
    return {"commitments": commitments}


@pytest.mark.parametrize("seats", [2, 3])
@pytest.mark.parametrize("phase, change, fragment", [
    (1, swap_first_two, "with a proof that does not hold"),
    (1, fresh_card, "with a proof that does not hold"),
    (1, other_key_for_one, "with a proof that does not hold"),
    (1, duplicated, "duplicated card"),
    (2, other_key_for_one, "with a proof that does not hold"),
    (2, other_commitment, "with a proof that does not hold"),
    (2, commitments_swapped, "with a proof that does not hold")],
    ids=["phase1-reordered", "phase1-fresh-card", "phase1-one-card-other-key", "phase1-duplicate",
         "phase2-one-card-other-key", "phase2-other-commitment", "phase2-commitments-swapped"])
def test_a_dishonest_step_is_named_on_receipt_by_every_other_seat(seats, phase, change, fragment):
    room = Room(game="war", seats=2, options={"tricks": 1}) if seats == 2 else Room(game="cabo", seats=3)
    room.tamper = {CHEATER: step_tamper(phase, change)}
    room.run()
    named(room, fragment)


@pytest.mark.parametrize("field, value", [("room", "another room"), ("game", 2), ("deal", 1), ("step", 3),
                                          ("seat", 0), ("version", 6)])
def test_a_proof_made_for_another_room_game_deal_step_seat_or_version_does_not_hold(field, value):
    """The cheater's own step, honestly shuffled and proven, but for a statement that names another room, game,
    deal, step, seat or version than the one it lands in."""
    def elsewhere(table: Table, body: dict) -> dict:
        p = table.play
        assert p.deck is not None
        deck = p.deck
        secrets = table.secrets(p.number, deck.group)
        context = {**deck.context(len(deck.steps)), field: value}
        assert context != deck.context(len(deck.steps))
        step = prove_phase1(deck.group, context, deck.step_input(len(deck.steps)), secrets.shuffle_key(0),
                            secrets.permutation(deck.size), bytes(32))
        return {"deck": step.deck, "key": step.key, "proof": step.proof}

    room = Room(game="war", options={"tricks": 1})
    room.tamper = {CHEATER: step_tamper(1, elsewhere)}
    room.run()
    named(room, "with a proof that does not hold")


def test_the_other_seats_proof_replayed_as_mine_does_not_hold():
    """In a three-seat room the cheater copies the step before it (another seat's deck, key and proof) as its own
    phase-1 step: a copy is not a shuffle of the copier's, and the proof is bound to the other seat and step."""
    def replay_previous(table: Table, body: dict) -> dict | None:
        p = table.play
        assert p.deck is not None
        previous = len(p.deck.steps) - 1
        if previous < 0:
            return {}
        return {"deck": [p.deck.group.to_hex(x) for x in p.deck.steps[previous]],
                "key": p.deck.group.to_hex(p.deck.key_commitments[p.deck.step_owner(previous)]),
                "proof": p.deck.proofs[previous].to_wire(p.deck.group)}

    room = Room(game="cabo", seats=3, seeds=[bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32])
    room.tamper = {CHEATER: step_tamper(1, replay_previous)}
    room.run()
    deck = room.tables[0].play.deck
    assert deck is not None and deck.order == (2, 0, 1)  # with these seeds the cheater shuffles after two others
    named(room)


@pytest.mark.parametrize("what, items", [("truncated", lambda proof: proof[:-1]),
                                          ("a scalar at q", lambda proof: [*proof[:-1], format(DEFAULT_GROUP.q, "x")]),
                                          ("the identity inside",
                                           lambda proof: [DEFAULT_GROUP.to_hex(DEFAULT_GROUP.identity), *proof[1:]])])
def test_a_malformed_proof_is_named(what, items):
    room = Room(game="war", options={"tricks": 1})
    room.tamper = {CHEATER: step_tamper(1, lambda table, body: {"proof": items(body["msg"]["proof"])})}
    room.run()
    named(room, "with a malformed proof")


def test_an_honest_proven_game_publishes_no_seed_and_verifies():
    room = Room(game="war", options={"tricks": 3})
    room.strategies = {0: turn(), 1: turn()}
    room.run()
    assert room.violations == {} and not [e for e in room.ledger if e.body and e.body["msg"]["type"] == "audit"]
    assert all(table.play.verdict == [] for table in room.tables)


def test_an_audit_in_version_5_is_named():
    """Version 5 has no audit; one posted anyway (a seed, say) stops the game naming its sender."""
    room = Room(game="war", options={"tricks": 2})
    room.strategies = {0: turn(), 1: turn()}

    def audit_after_a_move(table: Table, body: dict) -> list[dict] | None:
        if body["msg"]["type"] != "turn":
            return None
        audit = wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"] + 1,
                          wire.Audit(seed="00" * 32))
        return [body, audit]

    room.tamper = {CHEATER: audit_after_a_move}
    room.run()
    cheater = room.tables[CHEATER].wish.name
    assert room.violations[1 - CHEATER] == f"{cheater} sent an audit, which version 5 does not have"


@pytest.mark.parametrize("game, seats, options", [("discard", 2, {"deck": "short"}), ("cabo", 3, {"points": 10})])
def test_a_reader_of_the_whole_ledger_opens_only_the_cards_shown_to_everyone(game, seats, options):
    """After a whole game nothing secret is posted: the positions whose every key is in the open are the ones shown
    to everyone during play, an observer of the ledger (discard-verify) learns those faces and no other, and the
    cards still in a hand at the end (discard's loser's, cabo's unseen ones) stay encrypted for good."""
    from games.cabo.strategy import simple as cabo_simple
    from games.discard.strategy import simple

    room = Room(game=game, seats=seats, options=options)
    room.strategies = {s: simple(s + 1) if game == "discard" else cabo_simple(s + 1) for s in range(seats)}
    room.run()
    assert room.violations == {} and all(t.play.verdict == [] for t in room.tables)
    public, revealed = room.read_as_a_stranger()
    assert set(revealed) == public
    play = room.tables[0].play
    size = len(play.decks[0].encodings)
    assert len(public) < size * len(play.decks)  # some cards were never shown, and stay hidden


def test_a_step_proven_in_this_process_is_not_checked_again_but_a_changed_copy_is(monkeypatch):
    """The app's own seat does not re-check the proofs its computer players made in the same process (the memo
    holds every true statement proven here); a copy changed on the way, or a statement made false by a key whose
    halves do not match, is checked in full."""
    from tabletop import deck as mental, proofs
    from tabletop.crypto import Key

    group, context = ED25519, {"room": "memo"}
    source = [group.encode(i) for i in range(6)]
    key = Key.derive(group, b"k" * 32, "shuffle/0")
    step = prove_phase1(group, context, source, key, [2, 0, 1, 5, 4, 3], b"s" * 32)
    output, commitment = [group.element(x) for x in step.deck], group.element(step.key or "")
    proof = proofs.ShuffleProof.from_wire(group, step.proof or [], 6)
    checked: list[int] = []
    real = proofs.check_shuffle
    monkeypatch.setattr(proofs, "check_shuffle", lambda *args: checked.append(1) or real(*args))
    assert mental.check_step(group, context, source, output, commitment, None, proof) is None and not checked
    swapped = [output[1], output[0], *output[2:]]
    assert mental.check_step(group, context, source, swapped, commitment, None, proof) is not None and checked

    false = prove_phase1(group, context, source, Key(key.e, key.d + 1), [0, 1, 2, 3, 4, 5], b"s" * 32)
    assert mental.check_step(group, context, source, [group.element(x) for x in false.deck],
                             group.element(false.key or ""), None,
                             proofs.ShuffleProof.from_wire(group, false.proof or [], 6)) is not None
