"""The pure core: whole games folded from an in-memory ledger, with no relay and no pool."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from games import GAMES
from games.discard.strategy import simple
from peekgame import TARGET, DealsGame, Look, Open, Pass, PeekGame, script
from room import Room, summary
from tabletop.deck import _open, seal_key
from tabletop.values import Phase


def discard_room(**options) -> Room:
    room = Room(options={"deck": "short", **options})
    room.strategies = {0: simple(1), 1: simple(2)}
    return room


def test_a_discard_game_is_audited_fair_with_neither_relay_nor_pool():
    room = discard_room()
    room.run()
    assert room.violations == {}
    views = [t.view() for t in room.tables]
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in room.tables)
    assert {v.result for v in views} == {"win", "loss"}
    assert views[0].verdict == views[1].verdict
    moves = len(room.tables[0].play.moves)
    assert summary(room.tables[0]) == ("Checked: every shuffle, deal and move was verified — nobody cheated "
                                      f"(1 deck of 24 cards, {moves} moves)")
    assert views[0].safety == views[1].safety and len(views[0].safety.split()) == 6
    # Both folded the same game: the same moves, in the same order.
    assert room.tables[0].play.moves == room.tables[1].play.moves


def test_a_rematch_in_the_pure_core_is_started_by_the_loser():
    room = discard_room()
    room.run()
    first = room.tables[0].play
    loser = [s for s in range(2) if s not in first.outcome.winners][0]
    assert room.tables[0].rematch() is None
    room.run()
    second = room.tables[0].play
    assert second.number == 2 and second.verdict == [] and second.starter == loser
    assert room.tables[1].play.verdict == []


# -- three seats: a private showing to one seat, later to another, and the third stays blind ------------------


def peek_room() -> Room:
    room = Room(game="peek", seats=3, catalog={**GAMES, "peek": PeekGame()})
    room.strategies = {seat: script for seat in range(3)}
    return room


def spied(room: Room) -> bool:
    return any(seat == 2 and isinstance(move, Look) for seat, move in room.tables[2].play.moves)


def test_a_card_shown_to_seat_0_then_seat_2_stays_hidden_from_seat_1_and_the_relay():
    room = peek_room()
    room.run(until=lambda: spied(room))
    assert room.violations == {}
    tables = room.tables
    deck = [t.play.deck for t in tables]
    assert TARGET in deck[0].faces and TARGET in deck[2].faces
    assert deck[0].faces[TARGET] == deck[2].faces[TARGET]
    assert TARGET not in deck[1].faces
    assert tables[1].play.state.seen[TARGET] == {0, 2}  # everyone knows who has seen it, not what

    # What seat 1 can compute: its own key, and every key in the open. No key to card 0 was opened.
    opened = [o for e in room.ledger if e.kind == "post" and "shares" in e.body
              for o in e.body["shares"]["open"] if o["pos"] == TARGET]
    assert opened == []
    known = deck[1].known.get(TARGET, {})
    assert set(known) <= {1}
    # Every sealed share of card 0 is addressed to seat 0 or seat 2 (seat 1 sent its own key to each);
    # seat 1's box secret opens none of the others' shares.
    boxes = [(e.seat, s) for e in room.ledger if e.kind == "post" and "shares" in e.body
             for s in e.body["shares"]["sealed"] if s["pos"] == TARGET]
    assert sorted((sender, s["to"]) for sender, s in boxes) == [(0, 2), (1, 0), (1, 2), (2, 0)]
    seat1_box = tables[1].secrets(1, room.group).box
    for sender, share in boxes:
        if sender != 1:
            for other in (sender, share["to"]):
                assert _open(seat1_box, deck[1].box_keys[other], room.name, 1, sender, share["to"], TARGET,
                             share["box"]) is None
    # With only its own key (and any subset of keys anyone published), card 0 decrypts to no card.
    final = deck[1].final[TARGET]
    encodings = set(room.group.encoded(24))
    for keys in itertools.chain.from_iterable(itertools.combinations(known.values(), k) for k in range(len(known) + 1)):
        assert room.group.decrypt(final, *keys) not in encodings

    room.run()
    assert room.violations == {}
    assert all(t.play.verdict == [] for t in tables), [t.play.verdict for t in tables]
    outcomes = {t.play.outcome for t in tables}
    assert len(outcomes) == 1
    assert any(isinstance(m, Open) for _, m in tables[0].play.moves)


def wrong_sealed_share(table, body):
    """Replace the first sealed key in the post by a wrong one, sealed properly to the same seat."""
    shares = body.get("shares")
    if not shares or not shares["sealed"]:
        return None
    p = table.play
    item = shares["sealed"][0]
    wrong = table.secrets(p.number, p.group).card_key(item["pos"]).d * 2 % p.group.q
    item["box"] = seal_key(table.secrets(p.number, p.group).box, p.hellos[item["to"]].box_key, table.room,
                           p.number, table.me, item["to"], item["pos"], wrong, p.group.key_bytes)
    return resign(table, body)


def resign(table, body):
    from tabletop import wire

    p = table.play
    envelope = table.registry(p).parse({**body, "sig": "0" * 128})
    return wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"], envelope.msg,
                     envelope.shares)


@pytest.mark.parametrize("cheater", [0, 1, 2])
def test_a_wrong_sealed_share_from_any_seat_is_named_by_its_recipient(cheater):
    room = peek_room()
    tampered = []

    def tamper(table, body):
        if tampered:
            return None
        changed = wrong_sealed_share(table, body)
        if changed is not None:
            tampered.append(changed["shares"]["sealed"][0]["to"])
        return changed

    room.tamper = {cheater: tamper}
    room.run()
    [victim] = tampered
    name = room.tables[cheater].wish.name
    assert room.violations[victim].startswith(f"{name} sent a wrong key for card "), room.violations
    assert "not their committed key" in room.violations[victim]


def test_an_unknown_box_secret_opens_nothing():
    stranger = X25519PrivateKey.generate()
    room = peek_room()
    room.run(until=lambda: spied(room))
    boxes = [(e.seat, s) for e in room.ledger if e.kind == "post" and "shares" in e.body for s in e.body["shares"]["sealed"]]
    assert boxes
    key = room.tables[0].play.hellos[0].box_key
    assert all(_open(stranger, key, room.name, 1, sender, s["to"], s["pos"], s["box"]) is None for sender, s in boxes)


def test_seat_0_opens_the_room_and_a_joiner_follows_its_terms():
    room = Room(options={"deck": "short"})
    room.tables[1].wish = room.tables[1].wish.__class__("bo", "discard", 2, {"deck": "full"}, room.group)
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.violations == {}
    assert [e.seat for e in room.ledger if e.kind == "post"][:2] == [0, 1]  # seat 0's hello first
    assert room.tables[1].play.deck.size == 24  # bo wished for the full deck, and plays the room's


def test_a_game_that_deals_three_times_shuffles_each_deal_and_audits_them_all():
    room = Room(game="deals", catalog={**GAMES, "deals": DealsGame()})
    room.strategies = {seat: DealsGame().computer(None) for seat in range(2)}
    room.run()
    assert room.violations == {}
    tables = room.tables
    assert all(t.play.verdict == [] for t in tables), [t.play.verdict for t in tables]
    decks = tables[0].play.decks
    assert [deck.deal for deck in decks] == [0, 1, 2] and all(deck.shuffled for deck in decks)
    assert [deck.offset for deck in decks] == [0, 24, 48]
    turned = [pos for _, pos in tables[0].play.state.turned]
    assert turned == [0, 1, 24, 25, 48, 49]  # each deal's own positions
    shuffles = [e for e in room.ledger if e.kind == "post" and e.body["msg"]["type"] == "shuffle"]
    assert len(shuffles) == 3 * 4  # 2N steps for every deal
    assert decks[0].final != decks[1].final  # a new deck under new keys


def test_a_shuffle_step_in_another_order_than_proven_is_named_on_receipt():
    """A phase-1 step whose cards are put in another order after they were proven: named as soon as it lands."""
    def reorder(table, body):
        if body["msg"]["type"] != "shuffle" or body["msg"]["phase"] != 1:
            return None
        msg = dict(body["msg"], deck=list(reversed(body["msg"]["deck"])))
        from tabletop import wire
        from tabletop.deck import Shuffle

        return wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], body["n"],
                         Shuffle.model_validate(msg))

    room = Room(game="deals", catalog={**GAMES, "deals": DealsGame()})
    room.strategies = {seat: DealsGame().computer(None) for seat in range(2)}
    room.tamper = {1: reorder}
    room.run()
    problem = room.violations[0]
    assert problem.startswith("bo sent shuffle step 2 of 4 with a proof that does not hold"), problem


def test_two_seats_who_both_saw_a_card_answer_its_showing_to_everyone_at_once_without_a_clash():
    """Seats 1 and 2 both look at seat 0's second card, then seat 0 opens every card. Each of them knows the other's
    key to it; they answer at the same time (neither has seen the other's answer): each must open only its own key,
    or the later answer carries a key nobody asked for any more."""
    room = peek_room()

    def both_look_then_open(table):
        if table.me == 0:
            return Open() if table.play.moves else Pass()
        return Look(pos=1)

    room.strategies = {seat: both_look_then_open for seat in range(3)}
    room.run(until=lambda: room.tables[0].play.pending is not None and isinstance(room.tables[0].play.pending[1], Open))
    answers = {seat: room.owed(seat) for seat in (1, 2)}  # both written before either lands
    for seat, post in answers.items():
        assert post is not None
        room.post(seat, post)
    room.run()
    assert room.violations == {}, room.violations
    assert all(t.play.verdict == [] for t in room.tables)


def test_a_key_to_the_last_deal_that_lands_after_the_next_deal_began_goes_to_its_own_deal():
    """An honest answer can land after the deal it was for is over (another seat had opened the same key first,
    and the next deal began): it reaches the deal that holds its card, where it is a copy, not a violation."""
    from tabletop import wire
    from tabletop.table import Post

    room = Room(game="deals", catalog={**GAMES, "deals": DealsGame()})
    room.strategies = {seat: DealsGame().computer(None) for seat in range(2)}
    room.run(until=lambda: len(room.tables[0].play.decks) == 2)
    table = room.tables[1]
    first = table.play.decks[0]
    assert 0 in first.public and table.me in first.public[0]  # card 0 was shown to both in the first deal
    late = wire.Shares(open=[wire.OpenKey(pos=0, seat=table.me, key=format(first.secrets.card_key(0).d, "x"))])
    room.post(table.me, Post(table.play.number, wire.Share(), late))
    room.run()
    assert room.violations == {}, room.violations
    assert all(t.play.verdict == [] for t in room.tables)


def test_two_players_with_one_name_are_told_apart():
    room = discard_room()
    for table in room.tables:
        table.wish = dataclasses.replace(table.wish, name="ana")
    room.run()
    assert room.violations == {}
    for table in room.tables:
        assert table.view().names == ("ana", "ana (2)")
    assert any(line.startswith("ana (2) ") for line in room.tables[0].log)
