"""Cabo between three seats over a real relay on loopback, and between three discard-bot processes."""

from __future__ import annotations

import asyncio
import json

from games.cabo.game import CaboState
from games.cabo.strategy import simple
from processes import finish, run_bot
from tabletop.table import Phase


async def test_three_seats_play_a_whole_game_over_a_relay_and_agree(players, tmp_path):
    table = await players("cabo-three", [simple(1), simple(2), simple(3)], game="cabo", options={"points": 25},
                          transcript_dir=tmp_path)
    assert await table.next_games(timeout=120) == [1, 1, 1], [s.table.problem for s in table.seats]
    tables = [seat.table for seat in table.seats]
    for each in tables:
        assert each.phase is Phase.OVER and each.play.verdict == [], each.play.verdict
        assert each.view().verdict.startswith("fair: 52 cards and ")
    assert tables[0].play.moves == tables[1].play.moves == tables[2].play.moves  # all folded one game
    assert tables[0].play.outcome == tables[1].play.outcome == tables[2].play.outcome
    state = tables[0].play.state
    assert isinstance(state, CaboState) and len(tables[0].play.decks) == len(state.scores)  # a deal per round
    assert not list(tmp_path.iterdir())  # no violation, no transcript


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
