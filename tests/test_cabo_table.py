"""Cabo on the pure table (tests/room.py: no relay, no pool): a whole game of three seats, the privacy of every
card shown to one seat, and cheats written as tampers of a seat's posts.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

import pytest

from games.cabo.game import CaboState, Draw, Replace, Spy, Swap
from games.cabo.rules import Stage
from games.cabo.strategy import simple
from room import Event, Room, summary
from tabletop import wire
from tabletop.groups import DEFAULT_GROUP
from tabletop.deck import key_commitment
from tabletop.table import Table
from tabletop.values import Phase
from test_cheating import Once, reseal
from test_table import wrong_sealed_share

SHORT = {"points": 25}  # two rounds with these seeds: a whole game, and a new deal between its rounds


def cabo_room(tamper: dict | None = None, dealt: bool = False, **options) -> Room:
    """Three seats playing cabo; ``dealt``: already past the first shuffle and deal (see :func:`first_deal`)."""
    room = Room(game="cabo", seats=3, options=options)
    room.strategies = {seat: simple(seat + 1) for seat in range(3)}
    if dealt:
        for event in first_deal(**options)[len(room.ledger):]:
            room.append(event.seat, event.kind, event.body)
    room.tamper = tamper or {}
    return room


@functools.cache
def first_deal(**options) -> tuple[Event, ...]:
    """The ledger of a room up to the first move: hellos, the draw for who starts, the shuffle and the deal.

    The seats' seeds are fixed, so a fresh room fed these events is where this one was, as after a restart:
    the cheats below start from there instead of paying for a shuffle each.
    """
    room = cabo_room(**options)
    room.run(until=lambda: all(t.phase is Phase.PLAYING for t in room.tables))
    return tuple(room.ledger)


def state_of(table: Table) -> CaboState:
    state = table.play.state
    assert isinstance(state, CaboState)
    return state


def posts(room: Room) -> list[dict]:
    return [e.body for e in room.ledger if e.kind == "post" and e.body is not None]


def hidden_from(room: Room, pos: int) -> list[int]:
    """The seats that have not been shown ``pos``: none of them (nor the relay) may be able to read it."""
    seen = state_of(room.tables[0]).seen.get(pos, set())
    return [seat for seat in range(room.seats) if seat not in seen]


def assert_hidden(room: Room, pos: int) -> None:
    """Nobody outside the card's audience holds a key that decrypts it: its own key, and whatever is in the
    open, in any combination, give no card; no sealed share of it is addressed to them."""
    shares = [body["shares"] for body in posts(room) if "shares" in body]
    opened = [o for each in shares for o in each["open"] if o["pos"] == pos]
    assert opened == [], f"a key to card {pos} is in the open"
    readers = {s["to"] for each in shares for s in each["sealed"] if s["pos"] == pos}
    blind = hidden_from(room, pos)
    assert not readers & set(blind), (pos, readers, blind)
    encodings = set(room.group.encoded(52))
    for seat in blind:
        deck = room.tables[seat].play.deck
        assert deck is not None and pos not in deck.faces
        known = deck.known.get(pos, {})
        assert set(known) <= {seat}, (seat, pos, known)
        for keys in itertools.chain.from_iterable(itertools.combinations(known.values(), k)
                                                  for k in range(len(known) + 1)):
            assert room.group.decrypt(deck.final[pos - deck.offset], *keys) not in encodings


def test_three_seats_play_a_whole_game_every_private_card_stays_private_and_the_audit_is_fair():
    room = cabo_room(**SHORT)
    private = {"draw": 0, "peek": 0, "spy": 0}
    checked = 0

    def after_each_move() -> bool:
        nonlocal checked
        moves = room.tables[0].play.moves
        for seat, move in moves[checked:]:
            if move.type in private:
                private[move.type] += 1
                pos = move.pos  # type: ignore[attr-defined]
                assert state_of(room.tables[0]).seen[pos] >= {seat}
                assert_hidden(room, pos)
        checked = len(moves)
        return False

    room.run(until=after_each_move)
    assert room.violations == {}
    assert private["draw"] > 10 and private["peek"] and private["spy"], private  # the game had them all
    tables = room.tables
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in tables), [t.play.verdict for t in tables]
    assert len({t.play.outcome for t in tables}) == 1 and tables[0].play.moves == tables[2].play.moves
    state = state_of(tables[0])
    outcome = tables[0].play.outcome
    assert len(state.scores) == 2 and len(tables[0].play.decks) == 2  # two rounds, two deals
    assert outcome.scores == tuple(map(sum, zip(*state.scores))) and max(outcome.scores) > 25
    assert outcome.winners == tuple(s for s in range(3) if outcome.scores[s] == min(outcome.scores))
    assert summary(tables[0]).startswith("Checked: every shuffle")
    assert {t.view().result for t in tables} <= {"win", "loss"}


# -- cheats ---------------------------------------------------------------------------------------------------------


class Cheat(Once):
    """A tamper for every seat that acts once, for the first seat it finds a chance to: the cheater."""

    cheater: int | None = None

    def __call__(self, table: Table, body: dict):
        changed = super().__call__(table, body)
        if changed is not None:
            self.cheater = table.me
        return changed


def run_with(act: Callable[[Table, dict], dict | list[dict] | None]) -> tuple[Room, int]:
    """A game in which ``act`` rewrites the first post of any seat it has a use for; (room, the cheater)."""
    cheat = Cheat(act)
    room = cabo_room({seat: cheat for seat in range(3)}, dealt=True)
    room.run()
    assert cheat.cheater is not None, "the cheat never found its chance"
    return room, cheat.cheater


def caught_by_all(room: Room, cheater: int, *fragments: str) -> str:
    """Every other seat stopped at once, on the same one-line problem that names the cheater and the cheat."""
    honest = [seat for seat in range(room.seats) if seat != cheater]
    problems = {room.violations.get(seat) for seat in honest}
    assert len(problems) == 1, room.violations
    [problem] = problems
    assert problem is not None, f"not caught: {room.tables[honest[0]].log[-4:]}"
    assert problem.startswith(room.tables[cheater].wish.name + " "), problem
    for fragment in fragments:
        assert fragment in problem, problem
    assert "\n" not in problem and len(problem) <= 200
    assert all(room.tables[seat].phase is Phase.VIOLATION for seat in honest)
    return problem


def posting(table: Table, body: dict, kind: str) -> bool:
    return table.phase is Phase.PLAYING and body["msg"]["type"] == kind


def test_a_move_out_of_turn():
    def jump_in(table, body):
        """With the last key another seat's draw waits for, a draw of my own."""
        pending, deck = table.play.pending, table.play.deck
        if not posting(table, body, "share") or pending is None or not isinstance(pending[1], Draw):
            return None
        if any(deck.owes(seat) for seat in range(3) if seat != table.me):
            return None
        extra = reseal(table, body, Draw(pos=state_of(table).round.draw_pile[1]), None, n=body["n"] + 1)
        return [body, extra]

    caught_by_all(*run_with(jump_in), "tried to draw out of turn")


def known_pair(table: Table) -> list[int] | None:
    """Two cards of mine I have seen, of different values (from the deal: I saw the first two)."""
    hand = state_of(table).round.hands[table.me]
    faces = state_of(table).faces
    seen = [pos for pos in hand if pos in faces]
    return next(([a, b] for a, b in itertools.combinations(seen, 2) if faces[a] != faces[b]), None)


def test_a_false_claim_of_identical_cards_is_judged_by_the_faces_it_shows():
    """The cards named in a claim are shown to everyone with the move: a false one fails on receipt, at every
    seat alike, and costs the claimer a penalty card. It cannot be made to pass, nor told apart by anyone."""
    def claim(table, body):
        pair = known_pair(table) if posting(table, body, "replace") else None
        if pair is None:
            return None
        return reseal(table, body, Replace(positions=pair), table.play.deck.my_shares(
            extra=state_of(table).shows(table.me, Replace(positions=pair))))

    cheat = Cheat(claim)
    room = cabo_room({seat: cheat for seat in range(3)}, dealt=True)
    room.run(until=lambda: cheat.done and room.tables[0].play.pending is None)
    assert room.violations == {}
    cheater, pair = cheat.cheater, cheat.body["msg"]["positions"]  # type: ignore[index]
    views = [state_of(t) for t in room.tables]
    for state in views:
        hand = state.round.hands[cheater]
        assert set(pair) <= set(hand) and len(hand) == 5  # both stay, and the card taken joins them
        assert state.seen[pair[0]] == state.seen[pair[1]] == {0, 1, 2}
        assert state.faces[pair[0]] != state.faces[pair[1]]
    assert len({tuple(map(tuple, s.round.hands)) for s in views}) == 1
    line = room.tables[(cheater + 1) % 3].log[-1]
    assert "are identical, but they are" in line and "joins the hand as a penalty" in line


def test_a_claim_made_to_look_identical_with_a_wrong_key_is_named_at_once():
    def forged(table, body):
        pair = known_pair(table) if posting(table, body, "replace") else None
        if pair is None:
            return None
        shares = table.play.deck.my_shares(extra=state_of(table).shows(table.me, Replace(positions=pair)))
        assert shares is not None
        opened = [o.model_copy(update={"key": format(int(o.key, 16) * 5 % DEFAULT_GROUP.q, "x")})
                  if (o.pos, o.seat) == (pair[1], table.me) else o for o in shares.open]
        return reseal(table, body, Replace(positions=pair), wire.Shares(open=opened, sealed=[]))

    caught_by_all(*run_with(forged), "sent a wrong key for card", "not their committed key")


def first(kind: str, change: Callable[[Table, dict], wire.Message]):
    """Rewrite the first post of a ``kind`` move into ``change``'s move, sent without keys."""
    def act(table, body):
        return reseal(table, body, change(table, body), None) if posting(table, body, kind) else None

    return act


def others_card(table: Table) -> int:
    r = state_of(table).round
    return r.hands[(table.me + 1) % 3][0]


@pytest.mark.parametrize("kind, change, says", [
    ("spy", lambda t, b: Spy(pos=state_of(t).round.draw_pile[0]), "which is in nobody's hand"),
    ("spy", lambda t, b: Spy(pos=state_of(t).round.hands[t.me][0]), "spy on one's own card"),
    ("peek", lambda t, b: Spy(pos=others_card(t)), "tried to spy, but the 7 or 8 discarded means a peek"),
    ("replace", lambda t, b: Spy(pos=others_card(t)), "tried to spy, but the card taken must first replace"),
], ids=["the draw pile", "their own card", "after a peek card", "with no power"])
def test_a_spy_on_a_card_that_was_not_the_one_the_rules_let_them_choose(kind, change, says):
    caught_by_all(*run_with(first(kind, change)), says)


def test_a_second_spy_while_the_first_waits_for_its_keys():
    def twice(table, body):
        if not posting(table, body, "spy"):
            return None
        return [body, reseal(table, body, Spy(pos=others_card(table)), None, n=body["n"] + 1)]

    caught_by_all(*run_with(twice), "sent 'spy' while a move was waiting for its cards")


@pytest.mark.parametrize("change, says", [
    (lambda t, b: Swap(mine=others_card(t), theirs=b["msg"]["theirs"]), "give another player's card"),
    (lambda t, b: Swap(mine=b["msg"]["mine"], theirs=state_of(t).round.draw_pile[0]), "which is in nobody's hand"),
    (lambda t, b: Swap(mine=b["msg"]["mine"], theirs=state_of(t).round.hands[t.me][-1]),
     "swap one's own cards, but a swap is with another player"),
], ids=["mine is theirs", "theirs is in the draw pile", "theirs is mine"])
def test_a_swap_of_a_card_the_swapper_does_not_hold(change, says):
    caught_by_all(*run_with(first("swap", change)), says)


def test_a_wrong_sealed_key_for_a_drawn_card_is_named_by_the_drawer():
    victims: list[int] = []

    def wrong(table, body):
        if not posting(table, body, "share") or table.play.pending is None:
            return None
        changed = wrong_sealed_share(table, body)
        if changed is not None:
            victims.append(changed["shares"]["sealed"][0]["to"])
        return changed

    cheat = Cheat(wrong)
    room = cabo_room({seat: cheat for seat in range(3)}, dealt=True)
    room.run()
    [victim] = victims
    problem = room.violations[victim]
    assert problem.startswith(room.tables[cheat.cheater].wish.name + " sent a wrong key for card ")  # type: ignore
    assert "not their committed key" in problem


def test_a_wrong_open_key_in_the_showdown_is_named_by_everyone():
    def wrong(table, body):
        if not posting(table, body, "share") or state_of(table).round.stage is not Stage.SHOWDOWN:
            return None
        if not body.get("shares", {}).get("open"):
            return None
        shares = wire.Shares.model_validate(body["shares"])
        first_key = shares.open[0]
        bad = first_key.model_copy(update={"key": format(int(first_key.key, 16) * 3 % DEFAULT_GROUP.q, "x")})
        return reseal(table, body, shares=wire.Shares(open=[bad, *shares.open[1:]], sealed=shares.sealed))

    caught_by_all(*run_with(wrong), "sent a wrong key for card")


# -- racing another seat to the ledger with its own key --------------------------------------------------------------

ONE_ROUND = {"points": 1}  # the first round's showdown ends the game: the race, then the audit, in seconds


def keys_to_race(table: Table) -> list[wire.OpenKey]:
    """Other seats' keys I know (I have seen the card) to cards being shown to everyone, which they have not opened
    yet: while I owe my own answer to the showing, the moment to race them to the ledger with their own keys."""
    deck = table.play.deck
    if table.phase is not Phase.PLAYING or deck is None or not deck.owes(table.me):
        return []
    return [wire.OpenKey(pos=show.pos, seat=seat, key=format(key, "x"))
            for show in dict.fromkeys(deck.shows) if show.to is None
            for seat, key in sorted(deck.known.get(show.pos, {}).items())
            if seat != table.me and seat not in deck.public.get(show.pos, {})]


def opened(body: dict | None) -> set[tuple[int, int]]:
    """The keys a post opens, as (card, seat)."""
    return {(key["pos"], key["seat"]) for key in (body or {}).get("shares", {}).get("open", [])}


def racing(wrong: bool = False) -> Callable[[Table, dict], list[dict] | None]:
    """The cheat: with my answer to a showing to everyone, a post of my own opening the other seats' keys to it that
    I know, before they can (``wrong``: the first of them multiplied by 3, not the one its seat committed to)."""
    def act(table, body):
        keys = keys_to_race(table) if posting(table, body, "share") else []
        if not keys:
            return None
        if wrong:
            keys[0] = keys[0].model_copy(update={"key": format(int(keys[0].key, 16) * 3 % DEFAULT_GROUP.q, "x")})
        return [body, reseal(table, body, wire.Share(), wire.Shares(open=keys, sealed=[]), n=body["n"] + 1)]

    return act


def race(act: Callable[[Table, dict], list[dict] | None], racer_first: bool, move: str) -> tuple[Room, Cheat]:
    """A one-round game, played until a ``move`` shows a card to everyone that a seat could race another to the
    ledger with; every seat that owes an answer then writes it before any lands (as over a relay, where each answers
    a move as soon as it sees it), and the racer's posts land first or last; then the game goes on."""
    cheat = Cheat(act)
    room = cabo_room({seat: cheat for seat in range(3)}, dealt=True, **ONE_ROUND)

    def chance() -> bool:
        pending = room.tables[0].play.pending
        return pending is not None and pending[1].type == move and any(keys_to_race(t) for t in room.tables)

    room.run(until=chance)
    racer = next(t.me for t in room.tables if keys_to_race(t))
    answers = [(seat, post) for seat in range(3) if (post := room.owed(seat)) is not None]
    answers.sort(key=lambda answer: answer[0] != racer)  # the racer writes first: the cheat is its
    written = [(seat, room.write(seat, post)) for seat, post in answers]
    for seat, bodies in written if racer_first else reversed(written):
        for body in bodies:
            room.append(seat, "post", body)
    assert cheat.cheater == racer and len(written) > 1
    room.run()
    return room, cheat


@pytest.mark.parametrize("move, racer_first", [("replace", True), ("replace", False), ("showdown", True)],
                         ids=["a replaced card, the racer first", "a replaced card, the racer last",
                              "the showdown, the racer first"])
def test_a_seat_racing_another_to_the_ledger_with_its_key_changes_nothing(move, racer_first):
    """A seat that has seen a card holds every other seat's key to it. When the card is shown to everyone it may post
    another seat's key before that seat does: the key is right, so it counts, and the seat's own answer, written
    before it could see the race, carries a copy; a copy of a key already open is checked and changes nothing,
    whichever lands first. (It used to stop the game, naming the honest seat for a key nobody asked to see.)"""
    room, cheat = race(racing(), racer_first, move)
    assert room.violations == {}, room.violations
    [_, extra] = cheat.body  # type: ignore[misc]
    raced = opened(extra)
    seats = {seat for _, seat in raced}
    assert seats and cheat.cheater not in seats
    bodies = [event.body for event in room.ledger]
    own = [i for i, event in enumerate(room.ledger) if event.seat in seats and raced & opened(event.body)]
    assert len(own) == len(seats), "each raced seat sent its own key as well"
    assert all((bodies.index(extra) < i) == racer_first for i in own)
    tables = room.tables
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in tables), [t.play.verdict for t in tables]
    assert tables[0].play.moves == tables[1].play.moves == tables[2].play.moves
    assert len({t.play.outcome for t in tables}) == 1 and summary(tables[0]).startswith("Checked: every shuffle")


@pytest.mark.parametrize("racer_first", [True, False], ids=["the racer first", "the racer last"])
def test_a_seat_racing_another_to_the_ledger_with_a_wrong_key_is_named_at_once(racer_first):
    """A raced key must be the seat's committed key, whether it lands before the seat's own or after it as a copy."""
    room, cheat = race(racing(wrong=True), racer_first, "replace")
    [(pos, _)] = opened(cheat.body[1])  # type: ignore[index]
    caught_by_all(room, cheat.cheater, f"sent a wrong key for card {pos} ",  # type: ignore[arg-type]
                  "not another player's committed key")


def test_key_commitments_bind_each_seat_to_its_keys_before_any_card_is_seen():
    """The safety net under every key check above: a key matches one commitment only."""
    key = DEFAULT_GROUP.q - 5
    assert key_commitment("r", 1, 0, 3, key) != key_commitment("r", 1, 0, 3, key - 1)
