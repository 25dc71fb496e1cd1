"""Cabo between three seats over a real relay on loopback, and between three discard-bot processes; a seat racing
another to the relay with that seat's key."""

from __future__ import annotations

import asyncio
import functools
import json

from arena import Players
from games.cabo.game import CaboState
from games.cabo.strategy import simple
from processes import finish, run_bot
from room import summary
from tabletop.ledger import Event, RelayClient
from tabletop.table import Table
from tabletop.values import Phase
from test_cabo_table import ONE_ROUND, opened, racing
from test_cheating import Once


async def test_three_seats_play_a_whole_game_over_a_relay_and_agree(players, tmp_path):
    table = await players("cabo-three", [simple(1), simple(2), simple(3)], game="cabo", options={"points": 25},
                          transcript_dir=tmp_path)
    assert await table.next_games(timeout=120) == [1, 1, 1], [s.table.problem for s in table.seats]
    tables = [seat.table for seat in table.seats]
    for each in tables:
        assert each.phase is Phase.OVER and each.play.verdict == [], each.play.verdict
        assert summary(each).startswith("Checked: every shuffle")
    assert tables[0].play.moves == tables[1].play.moves == tables[2].play.moves  # all folded one game
    assert tables[0].play.outcome == tables[1].play.outcome == tables[2].play.outcome
    state = tables[0].play.state
    assert isinstance(state, CaboState) and len(tables[0].play.decks) == len(state.scores)  # a deal per round
    assert len(list(tmp_path.glob("*.json"))) == 3  # a fair game leaves a transcript per seat too


def implied(scores: list[int]) -> list[str]:
    """The results a table of totals implies, in seat order: the lowest total wins (all of them, on a tie)."""
    return ["win" if score == min(scores) else "loss" for score in scores]


async def test_three_bots_in_one_room_finish_fair_with_the_same_scores_and_the_results_they_imply(relay_url):
    bots = [run_bot(relay_url, "cabo-bots", "--game", "cabo", "--seats", "3", "--points", "25", "--json",
                    "--name", name, "--seed", str(k)) for k, name in enumerate(("ana", "bo", "cy"))]
    lines = []
    for code, out, err in await asyncio.gather(*(finish(bot, timeout=180) for bot in bots)):
        assert code == 0, err
        [line] = [json.loads(text) for text in out.splitlines()]
        lines.append(line)
    assert {line["audit"] for line in lines} == {"fair"}
    assert {line["players"] for line in lines} == {3} and {line["deck"] for line in lines} == {52}
    scores = lines[0]["scores"]
    assert all(line["scores"] == scores for line in lines) and max(scores) > 25
    assert len({line["moves"] for line in lines}) == 1
    assert sorted(line["result"] for line in lines) == sorted(implied(scores))  # each bot's own, whatever its seat


RACER = 2  # cy: the first seat of these seeds with a chance to race (bo's key to ana's replaced card 1)


class Slower:
    """An honest seat whose link is slower than the racer's: while the racer owes keys to a showing under way, or has
    posts on their way, this seat's posts wait (it keeps reading the ledger meanwhile). The race is won every time,
    not by luck."""

    def __init__(self, client: RelayClient, table: Table, racer: int, cheat: Once) -> None:
        self.client, self.table, self.racer, self.cheat = client, table, racer, cheat
        self.held: list[dict] = []
        self.seen: list[dict | None] = []  # the racer's posts in the ledger so far

    def __getattr__(self, name):
        return getattr(self.client, name)

    def behind(self) -> bool:
        deck = self.table.play.deck
        owing = deck is not None and bool(deck.owes(self.racer))
        sent = self.cheat.body if isinstance(self.cheat.body, list) else []
        return owing or any(body not in self.seen for body in sent)

    async def post(self, body: dict) -> bool:
        if self.behind():
            self.held.append(body)
            return True
        return await self.client.post(body)

    async def events(self):
        async for item in self.client.events():
            if isinstance(item, Event) and item.seat == self.racer and item.kind == "post":
                self.seen.append(item.body)
            yield item
            while self.held and not self.behind():
                await self.client.post(self.held.pop(0))


async def race_over_relay(players, tmp_path, wrong: bool = False) -> tuple[Players, list[dict]]:
    """The race of test_cabo_table's racing cheat through a real relay: cy, who has seen a card, posts bo's key to
    it as soon as it is shown to everyone, over a link faster than bo's and ana's. (The players, cy's two posts.)"""
    cheat = Once(racing(wrong))
    slower = functools.partial(Slower, racer=RACER, cheat=cheat)
    table = await players(f"cabo-race-{wrong}", [simple(1), simple(2), simple(3)], game="cabo", options=ONE_ROUND,
                          tamper={RACER: cheat}, wrap={0: slower, 1: slower}, transcript_dir=tmp_path)
    await table.next_games(timeout=60)
    assert isinstance(cheat.body, list), "the racer never found its chance"
    return table, cheat.body


async def test_a_seat_racing_another_to_the_relay_with_its_key_changes_nothing(players, tmp_path):
    """bo's own answer, sent before bo saw cy's post, lands after it with a copy of the key: checked, ignored, and
    the game ends fair."""
    table, [_, extra] = await race_over_relay(players, tmp_path)
    tables = [seat.table for seat in table.seats]
    assert all(t.phase is Phase.OVER and t.play.verdict == [] for t in tables), [t.problem for t in tables]
    raced = opened(extra)
    events = table.seats[0].events
    bodies = [event.body for event in events]
    own = [i for i, event in enumerate(events) if event.seat != RACER and raced & opened(event.body)]
    assert own and all(bodies.index(extra) < i for i in own), "the raced seat's own key landed before the racer's"
    assert tables[0].play.moves == tables[1].play.moves == tables[2].play.moves
    assert len(list(tmp_path.glob("*.json"))) == 3  # a fair game leaves a transcript per seat too


async def test_a_seat_racing_another_to_the_relay_with_a_wrong_key_is_named_with_a_transcript(players, tmp_path):
    """Every honest seat stops at the wrong key, names cy, and keeps the transcript that ends with it."""
    table, [_, extra] = await race_over_relay(players, tmp_path, wrong=True)
    [pos] = {pos for pos, _ in opened(extra)}
    for seat in table.seats[:2]:
        problem = seat.table.problem
        assert problem == f"cy sent a wrong key for card {pos} (it is not another player's committed key)", problem
        assert seat.transcript_path is not None
        assert json.loads(seat.transcript_path.read_text())["events"][-1]["body"] == extra
