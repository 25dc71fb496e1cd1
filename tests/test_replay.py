"""``discard-tui --replay``: a verified game step by step on its own table, as a watcher (or its seat) saw it."""

from __future__ import annotations

import dataclasses
import os
import json

import pytest

from discard_tui.replay import ReplayApp, replay, views
from discard_tui.table_screen import replaying
from games import GAMES
from games.discard.strategy import simple
from room import Room
from tabletop import transcript


def played(game: str = "discard", names: tuple[str, str] = ("ana", "bo"), **options) -> transcript.Transcript:
    return played_in(Room(game=game, options=options), names)


def played_in(room: Room, names: tuple[str, str] = ("ana", "bo")) -> transcript.Transcript:
    game = room.game
    room.strategies = {0: simple(1), 1: simple(2)} if game == "discard" else \
        {s: GAMES[game].computer(s) for s in range(2)}
    for table, name in zip(room.tables, names):
        table.wish = dataclasses.replace(table.wish, name=name)
    room.run()
    assert room.violations == {}
    return room.as_transcript(0, "game 1 over")


def test_a_discard_game_step_by_step_as_a_watcher_saw_it():
    """A replay folds the transcript as a watcher does: a view after each move, from no seat, no hand face up; the
    loser's last cards (never shown to everyone) are never in it."""
    [(check, steps)] = views(played(deck="short"))
    assert check.fair and len(steps) >= len(check.play.moves) + 1
    assert all(view.watcher and view.hand == () for view in steps)
    assert steps[0].moves == 0 and steps[-1].ending is not None and steps[-1].ending.endswith("won")
    assert [view.moves for view in steps] == sorted(view.moves for view in steps)


def test_the_seat_that_kept_the_transcript_sees_its_own_cards_with_its_seed_and_nobody_elses():
    """Run from the data directory of the seat that kept it (its seed beside the transcript), the replay is folded
    as that seat folded it: its own hand from the deal on; a wrong seed shows nothing more than anyone sees."""
    room = Room(game="discard", options={"deck": "short"})
    record = played_in(room)
    [(_, mine)] = views(record, room.tables[0].seed)
    assert mine[0].me == 0 and len(mine[0].hand) == 5 and all(view.me == 0 for view in mine)
    [(_, public)] = views(record, room.tables[1].seed)  # bo's seed is not seat 0's
    assert all(view.watcher and view.hand == () for view in public)


def test_a_version_3_transcript_shows_its_seat_s_own_cards_which_its_audit_published():
    """A version-3 or 4 seat cannot be folded from its seed again (this program speaks version 5 from a seat), but
    the audit at the end of each of those games published every card: the replay shows the transcript's seat with
    the cards it was shown, its hand from the deal on. A game that ended before its audit cannot: the hint says so."""
    import gzip

    from test_verify import VERSION_3

    record = transcript.parse(json.loads(gzip.decompress(VERSION_3.read_bytes())))
    [(check, steps)] = views(record)
    assert check.play.version == 3 and record.seat == 0
    assert all(view.me == 0 and not view.watcher for view in steps)
    assert [len(view.hand) for view in steps[:3]] == [5, 4, 4] and steps[-1].result is not None
    cut = next(k for k, event in enumerate(record.events) if event.kind == "post" and event.body["msg"]["type"] ==
               "audit")  # the game ended, but nobody published their secrets: no card is known but those shown
    [(check, steps)] = views(dataclasses.replace(record, events=record.events[:cut]))
    assert check.unfinished is not None and all(view.watcher and view.hand == () for view in steps)
    assert replaying(steps[-1]) == "Replay: no seat's own cards (a version-3 game, unaudited)."


def test_the_seed_is_written_beside_the_transcript_for_its_owner_alone_and_pruned_with_it(tmp_path):
    from tabletop.shell import prune
    from tabletop.transcript import seed_path, write_seed

    kept = tmp_path / "old.json"
    kept.write_text("{}")
    write_seed(seed_path(kept), bytes(range(32)))
    (tmp_path / "old-game1.phhs").write_text("")  # its first game's hand history
    assert transcript.seed_beside(kept) == bytes(range(32))
    assert seed_path(kept).stat().st_mode & 0o777 == 0o600
    newer = tmp_path / "new.json"
    newer.write_text("{}")
    os.utime(kept, (1, 1))
    prune(tmp_path, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"]


def card_faces(app: ReplayApp) -> str:
    """What the table's card widgets draw (the boxes: "│K  │"), as text."""
    from discard_tui.widgets import CardWidget

    return "\n".join(str(widget.render()) for widget in app.screen.query(CardWidget))


@pytest.mark.parametrize("game", ["discard", "holdem"])
async def test_keys_step_through_the_game_on_its_own_table_with_card_art_and_names_shown_literally(game):
    """--replay drew plain text lines; now each step is the game's own table screen, read-only as a watcher's, its
    cards drawn as boxes with rank and suit, and the replay's keys step it on and back."""
    from discard_tui.table_screen import TableScreen

    options = {"deck": "short"} if game == "discard" else {"hands": 1}
    games = views(played(game, names=("[b]ana[/b]", "bo $x"), **options))
    app = ReplayApp(games)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen) and app.step == 0
        assert "step 0 of " in str(screen.query_one("#status").render())  # the first frame, before any key
        await pilot.press("right", "right")
        assert app.step == 2 and screen.view is not None and screen.view.replay.startswith("step 2 of ")
        await pilot.press("left")
        assert app.step == 1
        await pilot.press("end")
        assert app.step == len(app.steps) - 1
        await pilot.press("right")  # the end stays the end
        assert app.step == len(app.steps) - 1
        screen.settle()
        art = card_faces(app)
        assert "┌───┐" in art and any(f"{suit}" in art for suit in "♠♥♦♣")
        assert not any(screen.check_action(action, ()) for action in (*screen.actions, "leave", "watching"))
        status = str(screen.query_one("#status").render())
        assert "[b]ana[/b]" in status or "bo $x" in status
        await pilot.press("home")
        assert app.step == 0 and screen.view.moves == 0
        if game == "discard":  # seat 1's hand face down, as a watcher sees it (it read "(no cards)"), and whose
            assert screen.query_one("#watched").display and not screen.query_one("#hand").display  # turn it is
            assert screen.headline(screen.view) in ("[b]ana[/b]'s turn", "bo $x's turn")  # (it was both names)


def test_a_holdem_replay_shows_a_hole_card_only_once_it_was_shown_to_everyone_or_with_the_seed():
    """No face a watcher could not see: a hole card is in a step's view only once its seat showed it; with the
    seat's seed, that seat's own hole cards from the deal on."""
    room = Room(game="holdem", options={"hands": 1})
    record = played_in(room)
    [(_, public)] = views(record)
    assert all(card is None for view in public for player in view.board.players if not player.shown
               for card in player.hole)
    [(_, mine)] = views(record, room.tables[0].seed)
    assert all(None not in view.board.players[0].hole for view in mine)


def test_rps_replays_its_throws():
    [(_, steps)] = views(played("rps"))
    assert steps[0].board is not None and all(view.watcher for view in steps) and steps[-1].ending is not None


def test_a_file_that_is_not_a_transcript_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"room": "x"}))
    assert replay(str(path)) == 2
    assert capsys.readouterr().err.strip() == f"discard-tui: --replay {path}: not a transcript: it has no room and events"


@pytest.mark.parametrize("width", [60, 80])
async def test_the_footer_shows_every_key_whole(width):
    """At 80 columns, then at 60, the footer was cut to "pgdn Next gam": each key and what it does is shown whole
    (keys that go together share one word: "←→ Move", "home end Deal/End", "pgup pgdn Game")."""
    from textual.widgets import Footer

    from pilot import until

    every_key = {"left", "right", "home", "end", "pageup", "pagedown", "question_mark", "q"}
    app = ReplayApp(views(played(deck="short")) * 2)

    def keys_shown() -> set[str]:
        return {key.key for key in app.screen.query("FooterKey") if key.description != "palette"}

    async with app.run_test(size=(width, 20)) as pilot:
        await until(pilot, lambda: keys_shown() == every_key, "every key in the footer")
        footer = app.screen.query_one(Footer)
        keys = [key for key in footer.query("FooterKey") if key.description != "palette"]
        labels = list(footer.query("FooterLabel"))
        assert [str(label.render()).strip() for label in labels] == ["Move", "Deal/End", "Game"]
        shown = [*keys, *labels]
        assert all(part.region.right <= width and part.region.width >= len(str(part.render()).rstrip())
                   for part in shown), [(str(part.render()), part.region) for part in shown]
        assert not any(a.region.overlaps(b.region) for a in shown for b in shown if a is not b)  # nor one on another


def stepping(app: ReplayApp) -> bool:
    """→ steps on (rather than scrolling, or nothing)."""
    active = app.screen.active_bindings.get("right")
    return active is not None and active.binding.action == "step(1)"


async def test_the_replay_says_at_once_that_it_checks_the_transcript_then_shows_the_game():
    """--replay showed nothing for seconds while it checked every proof; now its first frame says so."""
    import threading

    from discard_tui.table_screen import TableScreen
    from pilot import until

    games = views(played(deck="short"))
    checked = threading.Event()

    def checking():
        checked.wait(30)  # the proofs take their time; the test says when they are done
        return games

    app = ReplayApp(check=checking)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert "Checking the transcript" in str(app.query_one("#checking Static").render())
        assert not stepping(app)
        checked.set()
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game's table")
        assert app.step == 0 and stepping(app)
        await pilot.press("right")
        assert app.step == 1


async def test_a_transcript_with_nothing_to_replay_leaves_with_status_1_and_says_why():
    from discard_tui.replay import Unreplayable

    def nothing():
        raise Unreplayable([])  # no game checked out (discard-tui then says each game's check)

    app = ReplayApp(check=nothing)
    async with app.run_test(size=(60, 20)):
        pass
    assert app.return_code == 1 and app.unreplayable is not None and app.unreplayable.checks == []


async def test_a_holdem_game_keeps_its_hand_history_and_the_transcript_alone_gives_the_same(players, tmp_path, capsys):
    """The seat writes its hand history beside its transcript as the game ends; ``discard-tui --history`` prints the
    same from the transcript and the seat's seed; without the seed, only what everyone saw (ana's cards unnamed)."""
    from discard_tui.history import history
    from tabletop.shell import history_path

    game = GAMES["holdem"]
    pair = await players("hh", [game.computer(1), game.computer(2)], game="holdem", options={"hands": 2},
                         transcript_dir=tmp_path)
    assert await pair.next_games() == [1, 1]
    ana = pair.seats[0]
    kept = ana.histories[1]
    assert kept == history_path(ana.transcript_path, 1, ".phhs") and "as ana saw it" in kept.read_text()
    assert history(str(ana.transcript_path)) == 0
    assert capsys.readouterr().out == kept.read_text()
    transcript.seed_path(ana.transcript_path).unlink()
    assert history(str(ana.transcript_path)) == 0
    public = capsys.readouterr().out
    assert "as ana saw it" not in public and "d dh p1 ????" in public and "d dh p2 ????" in public
    assert [line for line in public.splitlines() if "d dh" not in line][1:] == \
        [line for line in kept.read_text().splitlines() if "d dh" not in line][1:]
    assert history(str(tmp_path / "nowhere.json")) == 2
