"""The rock-paper-scissors table in the app, driven through Pilot: keys, clicks, refusals, help, snapshots.

Deterministic: the computer's throws are seeded, the computer does not pause,
and the tests wait for game states, not time. What the table shows of a state is
tested on the screen alone, showing the app's game against the computer played
on the in-memory ledger (tests/pilot.py: offline_room). Update the snapshots after
a deliberate change with: uv run pytest tests/test_rps_tui.py --snapshot-update
"""

from __future__ import annotations


from discard_tui.app import DiscardApp, HelpScreen, PlayConfig, TableScreen
from discard_tui.game_over_screen import GameOverScreen
from discard_tui.profile import terminal_profile
from discard_tui.rps_screen import HELP, KEY_HELP, KEYS, ThrowButton, ThrowCard
from discard_tui.table_screen import help_page
from tabletop.values import Phase
from discard_tui.widgets import StatusBar
import pytest

from pilot import TableHarness, offline_room, play_key, settled, text_of, until

FIXED = PlayConfig(name="tester", game="rps", opponent_seed=5, think_time=0, room="snapshot",
                   seeds=(b"\x01" * 32, b"\x02" * 32))


def computer_game(opponent_seed: int = 5, **config) -> DiscardApp:
    return DiscardApp(PlayConfig(name="tester", game="rps", opponent_seed=opponent_seed, think_time=0, **config),
                      terminal_profile())


def rps_table() -> TableHarness:
    """The table alone at my first throw of the app's game against the computer, played on the in-memory ledger."""
    room = offline_room(FIXED)
    room.run()  # the computer has chosen; I have not
    return TableHarness.of(room)


async def throws(pilot, *keys: str) -> None:
    """My throws by key, each made and revealed; then the table as it stands at my next throw."""
    for key in keys:
        await play_key(pilot, key)
    await settled(pilot)


def my_throw_or_over(app) -> bool:
    view = app.view
    return view is not None and (view.my_turn or view.phase is Phase.OVER or view.stopped)


async def throw(pilot, key: str) -> None:
    """Press ``key`` on my throw, and wait until that throw is revealed (or the match is over)."""
    app = pilot.app
    await until(pilot, lambda: my_throw_or_over(app), "my throw")
    before = len(app.view.throws)
    await pilot.press(key)
    await until(pilot, lambda: len(app.view.throws) > before or not app.view.playing, "the reveal")


async def play_match(pilot) -> None:
    """Throw r, p, s, r, … to the game-over dialog and its verdict."""
    app = pilot.app
    for number in range(40):  # a match ends within a few throws; equal ones are thrown again
        await until(pilot, lambda: my_throw_or_over(app), "my throw")
        if not app.view.playing:
            break
        await throw(pilot, KEYS[number % 3])
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
    await until(pilot, lambda: text_of(app.screen, "#verdict"), "the verdict")


async def test_a_whole_match_by_keys_to_the_game_over_dialog():
    app = computer_game(opponent_seed=9)  # against my r, p, s, r: a match of four throws (with 5, of eight)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_match(pilot)
        view = app.view
        mine, theirs = view.scores
        assert max(mine, theirs) == 3 and len(view.throws) >= mine + theirs
        result, ending = text_of(app.screen, "#result"), text_of(app.screen, "#ending")
        if mine == 3:
            assert result == "You win!" and ending == f"The match went to you, 3 throws to {theirs}."
        else:
            assert result == "You lose" and ending == f"The match went to Computer, 3 throws to {mine}."
        assert text_of(app.screen, "#verdict").startswith("Checked: every throw was verified")
        await pilot.press("escape")  # back to the table: the last throw and the score stay on it
        assert isinstance(app.screen, TableScreen)
        assert text_of(app.screen, "#rps-score") == f"First to 3: you {mine} – {theirs} Computer"
        last = view.throws[-1]
        assert last[0].upper() in text_of(app.screen, "#my-throw") and last[1].upper() in text_of(app.screen, "#their-throw")
        events = len(app.seat.events)
        await pilot.press("r")
        assert app.screen.query_one(StatusBar).notice == "the game is not under way"
        await pilot.pause()
        assert len(app.seat.events) == events and app.seat.outbox is None  # nothing was sent


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_game_over_dialog_shows_the_transcript_path_whole_and_leaves_the_score_line(size):
    """The path breaks only after a "/" or a "-" (never inside a word, which a person copying it would get wrong);
    the dialog spares the status bar (the score) and at 60 columns takes the whole width (nothing of the table
    peeks beside its border); t says where the path went, and that it may not have arrived, in the dialog (a toast
    covered its border and the end of the paths)."""
    from discard_tui.widgets import PathLines

    app = computer_game(opponent_seed=9)
    async with app.run_test(size=size) as pilot:
        await play_match(pilot)
        path = str(app.view.transcript)
        assert len(path) > size[0]  # the case at hand: it cannot fit on one line
        shown = app.screen.query_one("#path", PathLines)
        lines = shown.render().plain.splitlines()
        assert "".join(lines) == path and len(lines) > 1
        assert all(line.endswith(("/", "-")) for line in lines[:-1]), lines
        assert all(len(line) <= shown.content_region.width for line in lines)
        assert "t copies the path" in text_of(app.screen, "#transcript")
        dialog = app.screen.query_one("#gameover")
        assert dialog.region.y >= 3, dialog.region  # below the status bar's three lines
        assert dialog.region.x == 0 if size[0] == 60 else dialog.region.x >= 2
        assert dialog.region.right == size[0] if size[0] == 60 else True
        await pilot.press("t")
        await pilot.pause()
        assert app.clipboard == path
        assert text_of(app.screen, "#transcript") == "Transcript: copied if the terminal allows OSC 52:"
        assert list(app._notifications) == [] and app.screen.query_one("#gameover").region == dialog.region


async def test_a_second_key_on_one_throw_is_refused_and_a_click_chooses(players, relay_url):
    """Through a relay against a person who has not chosen yet: my throw waits, hidden, and stays mine."""
    pair = await players("rps-tui", [None], game="rps", seats=2)  # ana opens the room and chooses when told
    ana = pair.seats[0]
    app = DiscardApp(PlayConfig(relay=relay_url, room="rps-tui", name="tester", game="rps"), terminal_profile())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: my_throw_or_over(app), "my throw")
        status = app.screen.query_one(StatusBar)
        assert "Your throw" in status.render().plain.splitlines()[1]
        await pilot.press("r")
        await until(pilot, lambda: app.view.chosen == "rock" and app.seat.outbox is None, "my commitment")
        assert not ana.table.play.choice.values  # committed, nothing revealed: ana cannot know my throw
        assert text_of(app.screen, "#rps-prompt") == "Throw 1 · you chose rock"
        assert "Waiting for ana" in status.render().plain.splitlines()[1]
        rock = app.screen.query_one("#throw-rock", ThrowButton)
        assert rock.chosen and "╔" in rock.render().plain  # a double frame: no colour needed
        events = len(app.seat.events)
        await pilot.press("p")
        assert status.notice == "you have already chosen rock"
        await pilot.press("s")
        assert status.notice == "you have already chosen rock"
        await pilot.pause()
        assert len(app.seat.events) == events and app.seat.outbox is None  # nothing was sent

        assert await ana.choose("scissors") is None
        await until(pilot, lambda: len(app.view.throws) == 1, "the reveal")
        assert app.view.throws == (("rock", "scissors", "won"),) and app.view.scores == (1, 0)
        assert text_of(app.screen, "#rps-result") == "Rock blunts scissors: you win"
        assert text_of(app.screen, "#rps-score") == "First to 3: you 1 – 0 ana"
        mine, theirs = app.screen.query_one("#my-throw", ThrowCard), app.screen.query_one("#their-throw", ThrowCard)
        assert "ROCK" in mine.render().plain and "╔" in mine.render().plain and "won" in mine.render().plain
        assert "SCISSORS" in theirs.render().plain and "lost" in theirs.render().plain
        assert text_of(app.screen, "#rps-history") == "History: R/S✓"
        assert status.notice == ""  # the refusal stood until the throw was revealed
        assert "Throw 1: ana threw scissors" in status.render().plain.splitlines()[1]

        await pilot.click("#throw-paper")
        await until(pilot, lambda: app.view.chosen == "paper", "the click's commitment")
        assert ana.table.play.choice.label == "throw-2" and 1 in ana.table.play.choice.commits


async def test_help_gives_the_rules_and_fits_at_80x24():
    app = rps_table()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(HelpScreen(help_page(HELP, KEY_HELP, app.view.safety, 2)))  # what ? opens
        await pilot.pause()
        text = str(app.screen.query_one("Static").content)
        assert "the first to win 3 throws wins" in text and "Equal throws are thrown again" in text
        assert f"Safety number  {app.view.safety}" in text
        assert app.screen.query_one("#help").max_scroll_y == 0


async def test_nothing_on_the_board_is_cut_at_any_size():
    from rich.cells import cell_len

    app = rps_table()
    async with app.run_test(size=(80, 24)) as pilot:
        await throws(pilot, "r")
        assert app.table.view.my_turn and len(app.table.view.throws) == 1
        screen = app.screen
        for size in [(60, 20), (80, 24), (120, 40)]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            room = screen.query_one("#play").content_region.width
            for selector in ("#rps-score", "#rps-result", "#rps-history", "#rps-prompt"):
                assert 0 < cell_len(text_of(screen, selector)) <= room, (size, selector, text_of(screen, selector))
            for widget in [*screen.query(ThrowButton), *screen.query(ThrowCard)]:
                rows = widget.render().plain.splitlines()
                assert len(rows) == widget.size.height >= 3 and {cell_len(row) for row in rows} == {widget.size.width}
                assert rows[0][0] in "┌╔" and rows[-1][-1] in "┘╝"  # the whole frame shows
                assert widget.region.bottom <= screen.query_one("#play").region.bottom  # nothing below the fold
            for button, name in zip(screen.query(ThrowButton), ("Rock", "Paper", "Scissors")):
                assert name in button.render().plain
            lines = screen.query_one(StatusBar).render().plain.splitlines()
            assert len(lines) == 3 and all(cell_len(line) <= size[0] for line in lines)


# -- snapshots -----------------------------------------------------------------------------------------------------


async def two_throws(pilot):
    await throws(pilot, "r", "p")


def test_table(snap_compare):
    assert snap_compare(rps_table(), terminal_size=(80, 24), run_before=two_throws)


def test_table_at_60x20_without_colour(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(rps_table(), terminal_size=(60, 20), run_before=two_throws)


async def test_the_throw_keys_are_in_the_footer_from_the_first_frame_and_say_why_not_yet():
    """While the deck is shuffled the footer already shows r, p and s, greyed out, and each says why it waits;
    once my throw is due they are live."""
    from discard_tui.rps_screen import RpsScreenView, RpsTable
    from pilot import seat_view

    shuffling = seat_view(RpsScreenView, phase=Phase.SHUFFLING, names=("tester", "Computer"), throws=(),
                          scores=(0, 0), target=3, throw=0, chosen=None, opponent_chosen=False,
                          throw_refusal="the game is not under way")
    app = TableHarness(RpsTable(30), shuffling)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        keys = {b.binding.key: b.enabled for b in app.screen.active_bindings.values() if b.binding.show}
        assert {key: keys.get(key) for key in KEYS} == {"r": False, "p": False, "s": False}  # shown, greyed
        await pilot.press("p")
        assert app.screen.query_one(StatusBar).notice == "you can throw once the game has started"
        assert app.intents == []
        app.show(phase=Phase.PLAYING, my_turn=True, throw=1, throw_refusal=None)
        await settled(pilot)
        keys = {b.binding.key: b.enabled for b in app.screen.active_bindings.values() if b.binding.show}
        assert {key: keys.get(key) for key in KEYS} == {"r": True, "p": True, "s": True}


def test_the_log_names_no_starter_for_throws_made_at_once():
    """rps's throws are simultaneous: the table's log said "Computer starts" (as for every game); a game with a
    starter still names it."""
    from pilot import offline_room

    log = rps_table().view.log  # at my first throw
    assert any(line.startswith("game 1: rock-paper-scissors") for line in log) and not [line for line in log if "start" in line], log
    discard = offline_room(PlayConfig(name="tester", room="snapshot", think_time=0, options={"deck": "short"},
                                      seeds=(b"\x01" * 32, b"\x02" * 32)))
    discard.run(until=lambda: any("start" in line for line in discard.tables[-1].view().log))
    assert [line for line in discard.tables[-1].view().log if line.startswith("shuffling; ") and "start" in line]
