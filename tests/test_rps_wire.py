"""Rock-paper-scissors over a real relay: two seats, the discard-bot CLI, and a player who never reveals."""

from __future__ import annotations

import json
from pathlib import Path

from games.rps.strategy import random_throws
from processes import finish, run_bot
from tabletop.values import Phase


async def test_two_seats_play_a_fair_match_and_agree(players, tmp_path):
    pair = await players("rps", [random_throws(1), random_throws(2)], game="rps", transcript_dir=tmp_path)
    assert await pair.next_games() == [1, 1], [s.table.problem for s in pair.seats]
    tables = [seat.table for seat in pair.seats]
    for table in tables:
        assert table.phase is Phase.OVER and table.play.verdict == [] and table.play.deck is None
    assert tables[0].play.outcome == tables[1].play.outcome and max(tables[0].play.outcome.scores) == 3
    assert tables[0].play.choices == tables[1].play.choices  # both folded the same throws
    assert tables[0].view().board == tables[1].view().board
    assert {table.view().result for table in tables} == {"win", "loss"}
    assert len(list(tmp_path.glob("*.json"))) == 2  # a fair game leaves a transcript per seat too


async def test_the_bot_prints_the_throws_won_as_scores(players, relay_url):
    pair = await players("rps-cli", [random_throws(1)], game="rps", seats=2)
    code, out, err = await finish(run_bot(relay_url, "rps-cli", "--game", "rps", "--name", "b", "--seed", "2", "--json"))
    assert code == 0, err
    [line] = [json.loads(text) for text in out.splitlines()]
    assert line["audit"] == "fair" and line["players"] == 2 and line["deck"] == 0
    outcome = pair.seats[0].table.play.outcome  # the other seat, in this process, folded the same match
    assert line["scores"] == list(outcome.scores) and max(outcome.scores) == 3 > min(outcome.scores)
    assert line["result"] == ("win" if outcome.winners == (1,) else "loss")  # the bot sits in seat 1


class WithholdReveal:
    """Plays honestly until it owes the reveal of a throw, then never posts it (swallows it)."""

    def __call__(self, table, body):
        msg = body["msg"]
        return [] if msg["type"] == "reveal" and msg["label"].startswith("throw-") else None


async def test_a_bot_gives_up_on_a_player_who_never_reveals(players, relay_url):
    pair = await players("rps-stall", [random_throws(2)], game="rps", tamper={0: WithholdReveal()}, seats=2)
    victim = run_bot(relay_url, "rps-stall", "--game", "rps", "--name", "victim", "--timeout", "1.5", "--seed", "1")
    staller = pair.seats[0]
    try:
        code, _, err = await finish(victim)
        assert staller.outbox is not None and staller.outbox["msg"]["type"] == "reveal"  # it did owe its reveal
        assert code == 1
        [line] = err.splitlines()
        owed = "ana never revealed their choice (silent for 1.5 s)"
        assert line.startswith(f"discard-bot: {owed}; transcript: "), line
        transcript = Path(line.split("transcript: ")[1].split(";")[0])
        record = json.loads(transcript.read_text())
        assert record["reason"] == owed
        reveals = [e for e in record["events"] if e["kind"] == "post" and e["body"]["msg"]["type"] == "reveal"
                   and e["body"]["msg"]["label"].startswith("throw-")]
        assert [e["seat"] for e in reveals][-1] == 1  # the victim revealed its last throw; ana never did
    finally:
        if victim.poll() is None:
            victim.kill()
