"""Every finished game leaves a transcript, and ``discard-verify`` checks one offline, as anyone: no seat, no relay."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from discard_tui import verify
from games.discard.strategy import simple
from tabletop.transcript import events_digest
from tabletop.shell import prune


@pytest.fixture
async def transcript(players, tmp_path) -> dict:
    pair = await players("kept", [simple(1), simple(2)], options={"deck": "short"}, transcript_dir=tmp_path)
    assert await pair.next_games() == [1, 1]
    paths = sorted(tmp_path.glob("*.json"))
    assert len(paths) == 2 and {s.transcript_path for s in pair.seats} == set(paths)
    return json.loads(pair.seats[0].transcript_path.read_text())


def run(tmp_path: Path, record: object, capsys) -> tuple[int, list[str]]:
    path = tmp_path / "checked.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    with pytest.raises(SystemExit) as stopped:
        verify.main([str(path)])
    out, err = capsys.readouterr()
    assert err == ""
    return int(stopped.value.code or 0), [line.removeprefix(f"{path}: ") for line in out.splitlines()]


def faithful(record: dict) -> dict:
    """``record`` as a seat would have written it had it seen these events: its digest made again (a test's way to
    put a cheat, or an early end, into a transcript without it reading as damaged)."""
    events = record["events"]
    for seq, event in enumerate(events, events[0]["seq"]):
        event["seq"] = seq
    return dict(record, digest=events_digest(events))


def posts(record: dict, kind: str) -> list[int]:
    return [i for i, e in enumerate(record["events"]) if e["kind"] == "post" and e["body"]["msg"]["type"] == kind]


async def test_a_fair_game_is_kept_and_verified(transcript, tmp_path, capsys):
    code, [line] = run(tmp_path, transcript, capsys)
    assert code == 0
    assert line.startswith("game 1 (discard, ana vs bo): ") and " won. Checked: every shuffle, deal and move " in line
    watched = copy.deepcopy(transcript)  # a watcher came and went mid-game (relay 1.3): the relay's, nobody's move
    middle = len(watched["events"]) // 2
    for at, count in ((middle + 1, 0), (middle, 1)):
        watched["events"].insert(at, {"seq": 0, "seat": -1, "name": "zed", "kind": "watch", "body": {"watching": count},
                                      "time": watched["events"][middle]["time"]})
    assert run(tmp_path, faithful(watched), capsys) == (0, [line])


async def test_a_game_cut_short_is_unfinished_exit_3_and_nobody_is_blamed(transcript, tmp_path, capsys):
    """A seat that left before the end (a loser who closed the terminal): the transcript is checked as far as it
    goes, from public data alone, and the game is called unfinished, not cheated; a worse file among several wins."""
    moves = [i for i, e in enumerate(transcript["events"]) if e["kind"] == "post" and e["body"]["msg"]["type"]
             in ("draw", "discard", "cant_move")]
    cut = copy.deepcopy(transcript)
    del cut["events"][moves[len(moves) // 2]:]
    cut = faithful(cut)
    code, [line] = run(tmp_path, cut, capsys)
    assert code == 3, line
    assert line.startswith("game 1 (discard, ana vs bo): UNFINISHED: the transcript ends before the game did (")
    assert line.endswith("never made their move); everything up to there checked out")

    (tmp_path / "cut.json").write_text(json.dumps(cut))
    (tmp_path / "bad.json").write_text("not json")
    for files, status in ([["cut.json", "checked.json"], 3], [["cut.json", "bad.json"], 2]):
        with pytest.raises(SystemExit) as stopped:
            verify.main([str(tmp_path / name) for name in files])
        assert stopped.value.code == status
    capsys.readouterr()


async def test_a_tampered_transcript_is_one_line_and_exit_1(transcript, tmp_path, capsys):
    changed = copy.deepcopy(transcript)
    move = changed["events"][posts(changed, "discard")[0]]
    move["body"]["msg"]["pos"] += 1
    code, [line] = run(tmp_path, faithful(changed), capsys)
    assert code == 1 and "has a bad signature: it was forged or altered" in line

    swapped = copy.deepcopy(transcript)
    events = swapped["events"]
    first, second = [i for i in posts(swapped, "share") if events[i]["seat"] == 1][:2]
    events[first], events[second] = events[second], events[first]
    code, [line] = run(tmp_path, faithful(swapped), capsys)
    assert code == 1 and "arrived out of order" in line


async def test_a_damaged_file_is_named_as_damaged_and_nobody_is_blamed(transcript, tmp_path, capsys):
    """A file changed after the game (one byte of a key, an event deleted) is exit 2 and says so; without the
    digest (an older file), a deleted event still shows as a gap in the sequence numbers."""
    changed = copy.deepcopy(transcript)
    share = changed["events"][posts(changed, "share")[0]]
    share["body"]["shares"]["sealed"][0]["box"] = "0" + share["body"]["shares"]["sealed"][0]["box"][1:]
    code, [line] = run(tmp_path, changed, capsys)
    assert code == 2 and line.startswith("damaged: its events are not the ones it was written with"), line

    gap = copy.deepcopy(transcript)
    del gap["digest"], gap["events"][posts(gap, "discard")[0]]
    code, [line] = run(tmp_path, gap, capsys)
    assert code == 2 and line.startswith("damaged: the events between sequence numbers "), line


@pytest.mark.parametrize("content", ["not json at all", json.dumps({"room": "x"}), json.dumps([1, 2]),
                                     json.dumps({"room": "x", "events": [{"seq": "one"}]})])
def test_a_file_that_is_not_a_transcript_is_exit_2(tmp_path, capsys, content):
    code, [line] = run(tmp_path, content, capsys)
    assert code == 2 and line.startswith(("not a transcript", "cannot")), line


def test_the_command_runs_and_a_missing_file_is_exit_2(tmp_path):
    result = subprocess.run([sys.executable, "-m", "discard_tui.verify", str(tmp_path / "nowhere.json")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr == ""
    assert result.stdout.strip() == f"{tmp_path / 'nowhere.json'}: cannot read it: No such file or directory"


def test_only_the_newest_transcripts_are_kept(tmp_path):
    for k in range(7):
        path = tmp_path / f"{k}.json"
        path.write_text("{}")
        os.utime(path, (k, k))
    prune(tmp_path, 3)
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["4.json", "5.json", "6.json"]


VERSION_3 = Path(__file__).parent / "data" / "v3-discard-short.json.gz"  # two bots of d069307, 24 cards, modp2048


def test_a_transcript_of_protocol_version_3_is_still_verified(tmp_path, capsys):
    """Games kept before the hello named its group (version 4) stay verifiable by anyone."""
    import gzip

    record = json.loads(gzip.decompress(VERSION_3.read_bytes()))
    assert record["events"][2]["body"]["msg"]["version"] == 3 and "prime" in record["events"][2]["body"]["msg"]
    status, lines = run(tmp_path, record, capsys)
    assert (status, lines) == (0, ["game 1 (discard, ana vs bo): ana won. Checked: every shuffle, deal and move was "
                                   "verified — nobody cheated (1 deck of 24 cards, 9 moves)"])


VERSION_4_HOLDEM = Path(__file__).parent / "data" / "v4-holdem-3.json.gz"  # three bots of 0617dac, 14 hands


def test_a_version_4_holdem_transcript_is_judged_by_version_4_s_rules(tmp_path, capsys):
    """Version 5 brought TDA rules 16 (every hand shown in an all-in showdown), 34 (the dead button) and 47 (short
    all-ins reopen the betting); a version-4 game played before them is still verified by its own rules: this one
    has a muck in an all-in showdown, which version 5 refuses."""
    import gzip

    record = json.loads(gzip.decompress(VERSION_4_HOLDEM.read_bytes()))
    assert {e["body"]["msg"]["version"] for e in record["events"] if e["kind"] == "post"
            and e["body"]["msg"]["type"] == "hello"} == {4}
    assert any(e["kind"] == "post" and e["body"]["msg"]["type"] == "muck" for e in record["events"])
    status, lines = run(tmp_path, record, capsys)
    assert (status, lines) == (0, ["game 1 (Texas Hold'em, p1 vs p0 vs p2): p1 won. Checked: every shuffle, deal and "
                                   "move was verified — nobody cheated (14 decks of 52 cards, 124 moves)"])


def test_a_hello_the_program_cannot_read_is_named_not_a_game_missing(tmp_path, capsys):
    import gzip

    record = json.loads(gzip.decompress(VERSION_3.read_bytes()))
    for event in record["events"]:
        if event["kind"] == "post" and event["body"]["msg"]["type"] == "hello":
            event["body"]["msg"]["version"] = 2
    status, lines = run(tmp_path, record, capsys)
    assert status == 1 and lines == ["game 1 (not started, ana vs bo): NOT VERIFIED: ana's message #1 (hello) has a "
                                     "bad signature: it was forged or altered"]
