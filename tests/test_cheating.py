"""Every cheat, against the pure core: events in, a named violation out. No relay, no pool: seconds in all.

Each cheater is an honest seat (tests/room.py) whose outgoing posts one
``tamper`` function rewrites, through the ledger: the honest seat sees
exactly what a cheating program would post. The honest seat must stop at that
post with a one-line problem that names the cheater and the cheat; or, for
what only the end-of-game audit can see, finish and list it in the verdict.
The same cheats over a real relay, with transcripts, are in test_cheating_wire.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from games.discard.game import CantMove, DiscardCard, DiscardState, Draw
from games.discard.rules import matches
from games.discard.strategy import simple
from room import Room
from tabletop import wire
from tabletop.crypto import Group
from tabletop.groups import DEFAULT_GROUP, GROUPS
from tabletop.modp import MODP_2048
from tabletop import deck as mental
from tabletop.deck import Show
from tabletop.table import Table
from tabletop.values import Phase
from test_crypto import ORDER_2
from test_table import wrong_sealed_share

HONEST, CHEATER = 0, 1


def draw_first(seed: int):
    """Draw while the draw pile lasts, then play a random playable card."""
    fallback = simple(seed)

    def choose(table: Table):
        state = table.play.state
        assert isinstance(state, DiscardState)
        moves = state.legal_moves(table.me)
        return next((m for m in moves if isinstance(m, Draw)), None) or fallback(table)

    return choose


def play(tamper: Callable, *, cheater: int = CHEATER, honest_strategy=None, cheater_strategy=None,
         deck: str = "short", group: Group = DEFAULT_GROUP) -> Room:
    room = Room(options={"deck": deck}, group=group)
    room.strategies = {cheater: cheater_strategy or simple(2), 1 - cheater: honest_strategy or simple(1)}
    room.tamper = {cheater: tamper}
    room.run()
    return room


def caught(room: Room, *fragments: str, cheater: int = CHEATER) -> str:
    """The honest seat stopped, named the cheater first and the cheat; one short line."""
    honest = 1 - cheater
    problem = room.violations.get(honest)
    assert problem is not None, f"not caught; honest log: {room.tables[honest].log[-4:]}"
    name = room.tables[cheater].wish.name
    assert problem.startswith(name), problem
    for fragment in fragments:
        assert fragment in problem, f"{fragment!r} not in {problem!r}"
    assert len(problem) <= 200 and "\n" not in problem, problem
    assert room.tables[honest].phase is Phase.VIOLATION
    assert room.tables[honest].log[-1] == f"stopped: {problem}"
    return problem


def reseal(table: Table, body: dict, msg: wire.Message | None = None, shares: wire.Shares | None | bool = True,
           n: int | None = None) -> dict:
    """The body again, signed by the cheater, with its message or shares replaced."""
    envelope = table.registry(table.play).parse(body)
    return wire.seal(table.identity(body["game"]), table.room, table.me, body["game"], n or body["n"],
                     msg or envelope.msg, envelope.shares if shares is True else shares or None)


class Once:
    """A tamper that acts the first time ``act`` returns something, then lets everything through."""

    def __init__(self, act: Callable[[Table, dict], dict | list[dict] | None]) -> None:
        self.act, self.done = act, False
        self.body: dict | list[dict] | None = None

    def __call__(self, table: Table, body: dict):
        if self.done:
            return None
        changed = self.act(table, body)
        if changed is not None:
            self.done, self.body = True, changed
        return changed


def my_move(table: Table, body: dict) -> bool:
    return table.phase is Phase.PLAYING and body["msg"]["type"] in ("draw", "discard")


def state_of(table: Table) -> DiscardState:
    state = table.play.state
    assert isinstance(state, DiscardState)
    return state


# -- rules ---------------------------------------------------------------------------------------------------


def mismatch(table, body):
    if not my_move(table, body) or state_of(table).board.top is None:
        return None
    t = state_of(table).board
    wrong = [pos for pos in t.hands[table.me] if not matches(t.faces[pos], t.top)]
    if not wrong:
        return None
    shares = table.play.deck.my_shares(extra=[Show(wrong[0])])
    return reseal(table, body, DiscardCard(pos=wrong[0]), shares)


def test_a_discard_that_matches_neither_suit_nor_value():
    cheat = Once(mismatch)
    room = play(cheat)
    pos = cheat.body["msg"]["pos"]
    card, top = state_of(room.tables[CHEATER]).faces[pos], state_of(room.tables[HONEST]).board.top
    assert caught(room) == f"bo discarded {card}, which matches neither the suit nor the value of {top}"


def test_a_discard_of_a_card_not_in_hand():
    def stranger(table, body):
        return reseal(table, body, DiscardCard(pos=state_of(table).board.hands[HONEST][0]), None) \
            if my_move(table, body) else None

    caught(play(Once(stranger)), "not in their hand")


def test_a_draw_that_is_not_the_top_card():
    def deep(table, body):
        pile = state_of(table).board.draw_pile if table.play.state else []
        return reseal(table, body, Draw(pos=pile[-1]), None) if my_move(table, body) and len(pile) > 1 else None

    problem = caught(play(Once(deep)), "but the top of the draw pile is card")
    assert "asked to draw card" in problem


def test_a_draw_out_of_turn():
    def twice(table, body):
        if not my_move(table, body):
            return None
        top = state_of(table).board.draw_pile[-1]
        extra = reseal(table, body, Draw(pos=top), None, n=body["n"] + 1)
        return [body, extra]

    caught(play(Once(twice)), "out of turn")


def claim_when(condition: Callable[[Table], bool]):
    def claim(table, body):
        return reseal(table, body, CantMove(), None) if my_move(table, body) and condition(table) else None

    return claim


def test_a_false_cant_move_claim_is_named_once_its_hand_is_shown():
    """Version 5 shows the claimant's hand to everyone with the claim (and nothing else at the end): the claim is
    judged at once."""
    def empty_pile_and_a_match(table):
        t = state_of(table).board
        return not t.draw_pile and t.top is not None and bool(t.playable(table.me))

    room = play(Once(claim_when(empty_pile_and_a_match)), honest_strategy=draw_first(1), cheater_strategy=draw_first(2))
    caught(room, "claimed they could not move, but held ")


def test_a_cant_move_claim_with_cards_left_to_draw():
    problem = caught(play(Once(claim_when(lambda t: True))), "cannot move with", "cards left to draw")
    assert "None" not in problem


# -- keys ------------------------------------------------------------------------------------------------------


def wrong_own_key(table, body):
    if body["msg"]["type"] != "discard" or "shares" not in body:
        return None
    shares = wire.Shares.model_validate(body["shares"])
    q = table.play.group.q
    opened = [o if o.seat != table.me else o.model_copy(update={"key": format(int(o.key, 16) * 2 % q, "x")})
              for o in shares.open]
    return reseal(table, body, shares=wire.Shares(open=opened, sealed=shares.sealed))


# Whole games on the two curves only: the checks are the group seam's (tests/test_crypto.py and tests/test_proofs.py
# run every group), a proven MODP game costs seconds (3.5 s of the suite's CPU for these two), and whole MODP games
# with a cheater named still run below (a shuffle step with a card outside the group, the MODP-specific ones).
WHOLE_GAME_GROUPS = pytest.mark.parametrize("group", [GROUPS[name] for name in ("secp256k1", "ed25519")],
                                            ids=["secp256k1", "ed25519"])


@WHOLE_GAME_GROUPS
def test_a_discard_with_a_wrong_key_is_named_at_once(group):
    problem = caught(play(Once(wrong_own_key), group=group), "sent a wrong key for card", "not their committed key")
    assert room_verdict_none(problem)


def key_of_another_position(table, body):
    """The cheater's real key, committed as d·G, but for the next position: it matches a commitment, not this
    card's."""
    if body["msg"]["type"] != "discard" or "shares" not in body:
        return None
    shares = wire.Shares.model_validate(body["shares"])
    secrets = table.play.deck.secrets
    opened = [o if o.seat != table.me else o.model_copy(update={"key": format(secrets.card_key(o.pos + 1).d, "x")})
              for o in shares.open]
    return reseal(table, body, shares=wire.Shares(open=opened, sealed=shares.sealed))


def test_a_key_that_matches_the_commitment_of_another_position_is_named_at_once():
    problem = caught(play(Once(key_of_another_position)), "sent a wrong key for card", "not their committed key")
    assert room_verdict_none(problem)


def room_verdict_none(problem: str) -> bool:
    return "audit" not in problem  # named on receipt, not at the audit


def wrong_other_key(table, body):
    if body["msg"]["type"] != "discard" or "shares" not in body:
        return None
    shares = wire.Shares.model_validate(body["shares"])
    q = table.play.group.q
    opened = [o if o.seat == table.me else o.model_copy(update={"key": format(int(o.key, 16) * 3 % q, "x")})
              for o in shares.open]
    return reseal(table, body, shares=wire.Shares(open=opened, sealed=shares.sealed))


def test_a_discard_showing_the_other_seats_key_wrongly():
    caught(play(Once(wrong_other_key)), "sent a wrong key for card", "another player's committed key")


def test_a_wrong_sealed_key_for_a_draw():
    room = play(Once(lambda t, b: wrong_sealed_share(t, b) if b["msg"]["type"] == "share" and t.phase is Phase.PLAYING
                     else None), honest_strategy=draw_first(1))
    caught(room, "sent a wrong key for card", "not their committed key")


def test_a_wrong_sealed_key_in_the_deal():
    caught(play(Once(lambda t, b: wrong_sealed_share(t, b) if t.phase is Phase.DEALING else None)), "wrong key")


def test_a_sealed_key_that_does_not_open():
    def garbage(table, body):
        shares = body.get("shares")
        if not shares or not shares["sealed"]:
            return None
        sealed = [wire.SealedKey(pos=s["pos"], to=s["to"], box="ab" * (len(s["box"]) // 2)) for s in shares["sealed"]]
        return reseal(table, body, shares=wire.Shares(open=[], sealed=sealed))

    caught(play(Once(garbage)), "does not open")


def test_a_key_nobody_asked_for():
    def unasked(table, body):
        if body["msg"]["type"] != "discard":
            return None
        pos = state_of(table).board.draw_pile[-1]
        key = table.secrets(1, table.play.group).card_key(pos).d
        return reseal(table, body, shares=wire.Shares(open=[wire.OpenKey(pos=pos, seat=table.me, key=format(key, "x"))],
                                                      sealed=[]))

    caught(play(Once(unasked)), "nobody asked to see")


# -- the shuffle ------------------------------------------------------------------------------------------------


def shuffle_tamper(change: Callable[[dict], None], phase: int = 1):
    def act(table, body):
        if body["msg"]["type"] != "shuffle" or body["msg"]["phase"] != phase:
            return None
        msg = dict(body["msg"])
        change(msg)
        return reseal(table, body, table.registry(table.play).models["shuffle"].model_validate(msg))

    return act


@WHOLE_GAME_GROUPS
def test_a_duplicated_card_in_a_shuffle_step(group):
    caught(play(Once(shuffle_tamper(lambda m: m["deck"].__setitem__(1, m["deck"][0]))), group=group),
           "duplicated card")


NOT_ELEMENTS = {  # group -> what a cheater may put in a shuffle step instead of a card
    "ed25519": {
        "identity": "01" + "00" * 31,
        "small-order": ORDER_2,
        "non-canonical": "ee" + "ff" * 30 + "7f",  # y = p + 1
        "off-curve": "02" + "00" * 31,
    },
    "modp2048": {
        "identity": "1",
        "small-order": format(MODP_2048.p - 1, "x"),
        "non-canonical": "0" + format(MODP_2048.encode(0), "x"),
        "non-residue": format(next(x for x in range(2, 100) if pow(x, MODP_2048.q, MODP_2048.p) != 1), "x"),
    },
}


@pytest.mark.parametrize("group_name, kind, phase", [(g, k, phase) for g, kinds in NOT_ELEMENTS.items() for k in kinds
                                                     for phase in ((1, 2) if g == "ed25519" else (1,))])
def test_a_shuffle_step_with_a_card_outside_the_group(group_name, kind, phase):
    """Both phases parse their decks alike: MODP's (seconds per proven phase) is tried in phase 1."""
    bad = NOT_ELEMENTS[group_name][kind]
    caught(play(Once(shuffle_tamper(lambda m: m["deck"].__setitem__(3, bad), phase)), group=GROUPS[group_name]),
           f"phase-{phase} shuffle: card 3 is not an element of the game's group")


def test_a_phase_2_step_without_commitments():
    caught(play(Once(shuffle_tamper(lambda m: m.pop("commitments"), phase=2))), "without a key commitment per card")


def test_a_shuffle_step_out_of_turn():
    def early(table, body):
        if table.phase is not Phase.STARTING or body["msg"]["type"] != "reveal":
            return None
        deck = [table.play.group.to_hex(x) for x in table.play.group.encoded(24)]
        from tabletop.deck import Shuffle

        return [body, reseal(table, body, Shuffle(phase=1, deck=deck), None, n=body["n"] + 1)]

    room = play(Once(early))
    assert room.violations[HONEST].startswith("bo sent "), room.violations


# -- signatures, counters, envelopes --------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["flip", "other_key", "altered"])
def test_a_forged_signature(how):
    def forge(table, body):
        if not my_move(table, body):
            return None
        if how == "other_key":
            envelope = table.registry(table.play).parse(body)
            return wire.seal(Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32), table.room, table.me,
                             body["game"], body["n"], envelope.msg, envelope.shares)
        forged = dict(body)
        if how == "flip":
            sig = bytearray.fromhex(body["sig"])
            sig[5] ^= 0x10
            forged["sig"] = sig.hex()
        else:
            forged["msg"] = dict(body["msg"], pos=(body["msg"]["pos"] + 1) % 24)
        return forged

    cheat = Once(forge)
    problem = caught(play(cheat), "bad signature")
    assert f"#{cheat.body['n']}" in problem


NEUTRAL_POINT_KEY = "01" + "00" * 31  # under it, (R = neutral, S = 0) signs every message
ANY_MESSAGE_SIG = "01" + "00" * 63


def test_a_weak_verify_key():
    def weak(table, body):
        if body["msg"]["type"] != "hello":
            return None
        return dict(body, msg=dict(body["msg"], verify_key=NEUTRAL_POINT_KEY), sig=ANY_MESSAGE_SIG)

    caught(play(Once(weak)), "weak verify key")


def test_a_replayed_move_with_other_content_is_named():
    """A counter already used, on a post that differs from the one applied under it: named."""
    first: list[dict] = []

    def replay(table, body):
        if my_move(table, body):
            if not first:
                first.append(body)
                return None
            return reseal(table, body, n=first[0]["n"])
        return None

    problem = caught(play(Once(replay)), "replayed their message")
    assert f"#{first[0]['n']}" in problem


@pytest.mark.parametrize("kind", ["hello", "move"])
def test_a_byte_identical_copy_of_an_applied_post_changes_nothing(kind):
    """What a relay's failover does when a dying node appended a post whose sender then re-sent it elsewhere:
    the copy is no news, and the honest seat must not blame its sender (issue: "north replayed #4")."""
    sent: list[dict] = []

    def copy_then_next(table, body):
        if not sent and (body["msg"]["type"] == "hello" if kind == "hello" else my_move(table, body)):
            sent.append(body)
            return None
        return [sent[0], body] if sent else None

    room = play(Once(copy_then_next))
    assert room.violations == {} and room.tables[HONEST].play.verdict == []
    copies = [e for e in room.ledger if e.kind == "post" and e.body == sent[0]]
    assert len(copies) == 2  # it really landed twice


def test_an_unsigned_post_with_a_low_counter_is_a_forgery():
    def unsigned(table, body):
        return dict(body, n=1, sig="00" * 64) if my_move(table, body) else None

    problem = caught(play(Once(unsigned)), "bad signature", "#1")
    assert "replayed" not in problem


def test_the_relay_forging_a_post_in_my_seat():
    room = Room(options={"deck": "short"})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run(until=lambda: room.tables[0].phase is Phase.PLAYING)
    table = room.tables[0]
    p = table.play
    forged = wire.seal(Ed25519PrivateKey.generate(), room.name, 0, p.number, p.counters[0] + 1, wire.Share())
    room.append(0, "post", forged)
    assert room.violations[0].startswith("the relay forged a message in your seat")


@pytest.mark.parametrize("seat", [-1, 2], ids=["watchers-seat", "beyond-the-first-hellos-seats"])
def test_a_party_the_relay_seats_itself_is_the_relay_s_violation(seat):
    """A relay that posts a hello of its own in a seat no game has (a watcher's -1, or seat 2 of a game the hello
    itself says has 2) would fill the game's last place: the real seat's hello would then be named, not the relay."""
    room = Room(game="rps")
    if seat < 0:  # after seat 0's hello has said how many seats the game has
        room.post(0, room.owed(0))
    relay = Ed25519PrivateKey.generate()
    box = mental.Secrets(room.group, bytes(32)).box_public
    hello = wire.Hello(version=wire.PROTOCOL_VERSION, name="relay", verify_key=wire.public_hex(relay), box_key=box,
                       game="rps", seats=2, group=room.group.name, options={})
    room.append(seat, "post", wire.seal(relay, room.name, seat, 1, 1, hello))
    assert room.violations == {0: f"the relay let seat {seat} post in a game of 2 seats",
                               1: f"the relay let seat {seat} post in a game of 2 seats"}


MALFORMED = {
    "null-game": {"game": None},
    "not-an-envelope": {"hello": "world"},
    "unknown-type": {"msg": {"type": "teleport", "pos": 3}},
    "no-signature": {"sig": None},
    "extra-field": {"note": "trust me"},
    "bad-digest": {"msg": {"type": "commit", "label": "start", "digest": "not hex"}},
    "counter-zero": {"n": 0},
    "null-shares": {"shares": None},
    "lone-surrogate": {"msg": {"type": "commit", "label": "start\ud800", "digest": "00" * 32}},  # not UTF-8
    "not-a-number": {"n": float("nan")},  # JSON's NaN: no canonical form
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_post(kind):
    def garble(table, body):
        if body["msg"]["type"] != "commit":
            return None
        changed = {**body, **MALFORMED[kind]}
        return {k: v for k, v in changed.items() if v is not None or kind in ("null-game", "null-shares")}

    caught(play(Once(garble)), "malformed message")


@pytest.mark.parametrize("name", ["ana\u202egro", "ana\u200b", "ana\u2028bo", "ana\x1b[31m"],
                         ids=["right-to-left-override", "zero-width-space", "line-separator", "escape"])
def test_a_name_that_is_not_printable_is_malformed(name):
    """A hello's name follows the relay's rule (str.isprintable): a format character could make it show as another
    player's name."""
    def act(table, body):
        if body["msg"]["type"] != "hello":
            return None
        msg = table.registry(table.play).models["hello"].model_construct(**dict(body["msg"], name=name))
        return reseal(table, body, msg)  # signed as it is: the name is the only thing wrong

    caught(play(Once(act)), "malformed message (msg.name: Value error, not printable)")


def recode(kind: str, field: str, value):
    def act(table, body):
        if body["msg"]["type"] != kind:
            return None
        if kind in ("draw", "discard") and not my_move(table, body):
            return None
        changed = dict(body, msg=dict(body["msg"]))
        where = changed if field in ("n", "game") else changed["msg"]
        where[field] = value(where[field]) if callable(value) else value
        return changed

    return act


# Each verified in version 1: its signature covered a coerced re-serialisation. (A card with a leading zero
# is the group's to refuse: see NOT_ELEMENTS' non-canonical cards, signed by the cheater.)
RECODED = {
    "float-counter": ("commit", "n", float),
    "string-counter": ("commit", "n", str),
    "spaced-counter": ("commit", "n", lambda n: f" {n}"),
    "bool-game": ("commit", "game", True),
    "string-pos": ("draw", "pos", str),
    "float-pos": ("discard", "pos", float),
    "bool-phase": ("shuffle", "phase", True),
    "string-version": ("hello", "version", str),
    "upper-case-hex": ("shuffle", "deck", lambda deck: [deck[0].upper(), *deck[1:]]),
    "int-option-as-string": ("hello", "seats", str),
}


@pytest.mark.parametrize("kind", list(RECODED))
def test_a_recoded_value_is_refused(kind):
    message, field, value = RECODED[kind]
    problem = caught(play(Once(recode(message, field, value)), honest_strategy=draw_first(1),
                          cheater_strategy=draw_first(2) if message == "draw" else None), "malformed message")
    assert field in problem


HUGE = {  # what the other side sent is never echoed at length
    "counter": ("commit", "n", 10**4000),
    "game": ("commit", "game", 10**4000),
    "pos": ("discard", "pos", 10**4000),
    "deck": ("shuffle", "deck", ["ab"] * 10_000),
    "version": ("hello", "version", 10**4000),
    "name": ("hello", "name", "x" * 5000),
    "group": ("hello", "group", "f" * 5000),
    "type": ("commit", "type", "teleport" * 500),
    "label": ("commit", "label", "x" * 5000),
    "name-with-newline": ("hello", "name", "bo\nopponent resigned"),
}


@pytest.mark.parametrize("kind", list(HUGE))
def test_a_violation_is_one_short_line(kind):
    caught(play(Once(recode(*HUGE[kind]))), "malformed message")


# -- hello: the first hello of game 1 decides game, seats, options and group -------------------------------------


def hello_change(**update):
    def act(table, body):
        if body["msg"]["type"] != "hello":
            return None
        msg = table.registry(table.play).models["hello"].model_validate(dict(body["msg"], **update))
        return reseal(table, body, msg)

    return act


@pytest.mark.parametrize("group", ["modp1024", "p256", "toy"])
@pytest.mark.parametrize("cheater", [0, 1], ids=["cheater-opens", "cheater-joins"])
def test_a_group_this_program_does_not_know(group, cheater):
    room = play(Once(hello_change(group=group)), cheater=cheater)
    caught(room, f"announced the group {group!r}, which this program does not know", cheater=cheater)


def test_a_player_of_protocol_version_3_is_refused_at_the_table():
    """Version 3 is read from old transcripts only (an observer's table), never played."""
    caught(play(Once(hello_change(version=3, group=None, prime=format(MODP_2048.p, "x")))),
           "speaks protocol version 3, this program speaks 5")


def test_an_observer_reads_version_3_but_never_beside_version_5():
    """discard-verify reads old transcripts; a version-3 hello in a version-5 room is named there too."""
    from games import GAMES
    from tabletop.transcript import fold

    v3 = hello_change(version=3, group=None, prime=format(MODP_2048.p, "x"))
    room = play(Once(v3), group=MODP_2048)
    caught(room, "speaks protocol version 3, this program speaks 5")
    record = room.as_transcript(0)
    _, violation = fold(record, GAMES)
    assert violation == "bo speaks protocol version 3, but the room's first hello spoke 5"


@pytest.mark.parametrize("update, fragment", [({"group": None}, "announced no group"),
                                              ({"prime": format(MODP_2048.p, "x")}, "sent a prime beside its group")],
                         ids=["none", "both"])
def test_a_hello_must_name_its_group_and_only_that(update, fragment):
    caught(play(Once(hello_change(**update))), fragment)


def test_a_second_hello_with_another_group():
    caught(play(Once(hello_change(group="modp3072"))), "announced the 3072-bit MODP group",
           f"the first hello of this game chose the {DEFAULT_GROUP.title} one")


def test_a_second_hello_with_another_deck():
    caught(play(Once(hello_change(options={"deck": "full"}))), "asked for options", "the first hello of this game")


def test_a_second_hello_for_another_game():
    caught(play(Once(hello_change(game="chess"))), "which this program does not know")


@pytest.mark.parametrize("update, fragment", [
    ({"options": {"deck": "full"}}, "asked for options"),
    ({"group": "modp3072"}, "3072-bit MODP group"),
], ids=["deck", "group"])
def test_a_rematch_keeps_game_1s_terms(update, fragment):
    room = Room(options={"deck": "short"})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.tables[0].play.verdict == []
    change = hello_change(**update)
    room.tamper = {CHEATER: Once(lambda t, b: change(t, b) if b["game"] == 2 else None)}
    assert room.tables[CHEATER].rematch() is None
    room.run()
    caught(room, fragment, "game 1 chose")


def reused_keys(*, verify_key: bool, top_bit: bool = False):
    """A rematch hello with game 1's box key (its top bit set, if asked: X25519 ignores it), and game 1's
    verify key too if asked (then signed with game 1's identity, which matches it)."""

    def act(table, body):
        if body["msg"]["type"] != "hello" or body["game"] != 2:
            return None
        first = table.plays[0].hellos[table.me]
        box = bytearray.fromhex(first.box_key)
        box[31] |= 0x80 * top_bit
        msg = wire.Hello.model_validate(dict(body["msg"], box_key=box.hex(),
                                             verify_key=first.verify_key if verify_key else body["msg"]["verify_key"]))
        identity = table.identity(1 if verify_key else 2)
        return wire.seal(identity, table.room, table.me, 2, body["n"], msg)

    return act


@pytest.mark.parametrize("tamper", [reused_keys(verify_key=True), reused_keys(verify_key=False, top_bit=True)],
                         ids=["both-keys", "box-key-top-bit-set"])
def test_a_rematch_hello_reusing_game_1s_keys(tamper):
    """Game 1's deck seed, box secret included, is public after its audit: a reused box key is a key the relay
    holds. The rematch stops at that hello, before anything is sealed to it."""
    room = Room(options={"deck": "short"})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    assert room.tables[0].play.verdict == []
    room.tamper = {CHEATER: Once(tamper)}
    assert room.tables[CHEATER].rematch() is None
    room.run()
    caught(room, "reused a box key of game 1 in game 2's hello", "the relay could read")
    assert not room.tables[HONEST].play.decks  # nothing was dealt, so nothing was sealed to it


def test_a_hello_with_another_seats_box_key():
    def copy_box_key(table, body):
        if body["msg"]["type"] != "hello":
            return None
        theirs = table.play.hellos[HONEST].box_key
        return reseal(table, body, wire.Hello.model_validate(dict(body["msg"], box_key=theirs)))

    caught(play(Once(copy_box_key)), "the same box key as you", "keys of its own")


def test_the_starter_follows_the_documented_draw():
    """An independent client computes the starter from the ledger: SHA-256(nonce0 ‖ nonce1)[:8] mod 2."""
    room = Room(options={"deck": "short"})
    room.strategies = {0: simple(1), 1: simple(2)}
    room.run()
    reveals = {e.seat: bytes.fromhex(e.body["msg"]["nonce"]) for e in room.ledger
               if e.kind == "post" and e.body["msg"]["type"] == "reveal" and e.body["msg"]["label"] == "start"}
    starter = int.from_bytes(hashlib.sha256(reveals[0] + reveals[1]).digest()[:8], "big") % 2
    assert room.tables[0].play.starter == starter
    deal: dict[int, list[int]] = {}
    for e in room.ledger:
        if e.kind == "post" and e.body["msg"]["type"] == "share" and e.seat not in deal:
            deal[e.seat] = sorted(s["pos"] for s in e.body["shares"]["sealed"])
    assert deal[1 - starter] == [0, 1, 2, 3, 4] and deal[starter] == [5, 6, 7, 8, 9]


def test_a_cant_move_claim_on_an_empty_discard_pile():
    starter_after_14_draws = None

    def empty_piles(table):
        t = state_of(table).board
        return not t.draw_pile and not t.discard_pile

    for cheater in (0, 1):
        room = play(Once(claim_when(empty_piles)), cheater=cheater, honest_strategy=draw_first(1),
                    cheater_strategy=draw_first(2))
        if (1 - cheater) in room.violations:
            starter_after_14_draws = cheater
            break
    assert starter_after_14_draws is not None, "the cheater never had both piles empty on its turn"
    caught(room, "anything goes on the empty discard pile", cheater=starter_after_14_draws)
