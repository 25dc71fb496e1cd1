"""discard-web in a real browser: headless Chromium plays through textual-serve, as a visitor does.

The browser is driven by keys only; what it shows is read from the terminal
it draws (tests/browser.py). Chromium missing fails these tests: CI installs it.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys

from browser import ROOT, AppGate, Browser, WebServer
from conftest import alive, descendants
from discard_tui import web as discard_web
from processes import run_bot

pytestmark = pytest.mark.timeout(180)  # a browser, an app and a whole game; the suite's budget says how long

COUNTS = re.compile(r"Draw (\d+)\s+Discard (\d+)")
HAND = re.compile(r"Your hand: (\d+) card")


@pytest.fixture
def browser(tmp_path):
    started = Browser(tmp_path / "chromium")
    yield started
    started.quit()


@pytest.fixture
def web():
    """``web(*flags, env=…)`` starts discard-web; every one started is stopped at teardown."""
    started: list[WebServer] = []

    def start(*flags: str, env: dict[str, str] | None = None) -> WebServer:
        started.append(WebServer(*flags, env=env))
        return started[-1]

    yield start
    for server in started:
        assert server.stop() == 0, "\n".join(server.output)


# -- reading the table and playing it by keys ----------------------------------------------------------


def counts(lines: list[str]) -> tuple[int, ...]:
    """(draw pile, discard pile), the table's own counters: they move with every move."""
    found = next((COUNTS.search(line) for line in lines if COUNTS.search(line)), None)
    return tuple(map(int, found.groups())) if found else ()


def my_turn(lines: list[str]) -> bool:
    return len(lines) > 2 and "Your turn" in lines[1]


def verdict(lines: list[str]) -> str | None:
    """The game-over dialog's audit line ("Checked: every shuffle…" or "Not fair: …"), once the audit is done."""
    found = next((m for line in lines if (m := re.search(r"(Checked|Not fair): [^█]*", line))), None)
    return found[0].strip() if found else None


def field(lines: list[str], label: str) -> str | None:
    """What the start screen's field ``label`` shows."""
    found = next((m for line in lines if (m := re.search(rf"█ {label} +(.*?) *(▼ *)?█", line))), None)
    return found[1] if found else None


LABELS_WIDTH = 12  # the start form's first column (app.tcss, #start-form)


def focused_field(browser: Browser) -> str | None:
    """The start screen's field with the focus: the one drawn on a background of its own."""
    lines = browser.screen()
    screen = browser.terminals[str(browser.newest)].screen
    backgrounds = {label: screen.buffer[y][line.index(label) + LABELS_WIDTH].bg for y, line in enumerate(lines)
                   for label in ("Name", "Game", "Opponent", "Room", "Encryption") if f"█ {label} " in line}
    odd = [label for label, colour in backgrounds.items() if list(backgrounds.values()).count(colour) == 1]
    return odd[0] if len(odd) == 1 else None


def type_into(browser: Browser, label: str, text: str) -> None:
    """Type into the focused field, whose text is selected (as on arriving there), and wait to see it."""
    browser.press(text)
    browser.wait_for(lambda lines: field(lines, label) == text, f"{label} {text}")


def playable(lines: list[str]) -> list[bool] | None:
    """Which cards of my hand have the double frame of a playable card, left to right (None: overlapped)."""
    [(row, size)] = [(y, int(m[1])) for y, line in enumerate(lines) if (m := HAND.search(line))]
    side = lines[row].find("▊")  # the log's border: the hand is left of it
    corners = []
    for line in lines[row + 1:row + 3]:  # the chosen card is lifted a row above the others
        corners += [(x, char == "╔") for x, char in enumerate(line[:side if side >= 0 else None]) if char in "┌╔"]
    return [double for _, double in sorted(corners)] if len(corners) == size else None


def take_turn(browser: Browser, lines: list[str]) -> None:
    """Discard the first card with the double frame (when the frames are hard to tell apart, try them left to
    right), else draw; return once the move landed."""
    before, notice = counts(lines), lines[2]

    def landed(now: list[str]) -> bool:
        return counts(now) != before or verdict(now) is not None or "You win" in now[1] or "You lose" in now[1]

    if "press d to draw" not in notice:
        marks = playable(lines)
        size = len(marks) if marks is not None else int(next(m[1] for line in lines if (m := HAND.search(line))))
        for index in range(size):
            if marks is not None and not marks[index]:
                continue
            browser.press(Keys.HOME, *[Keys.RIGHT] * index, Keys.ENTER)
            now = browser.wait_for(lambda now: landed(now) or ("matches neither" in now[2] and now[2] != notice),
                                   "the discard, or why not")
            if landed(now):
                return
            notice = now[2]  # this card does not match: the next one
    browser.press("d")
    browser.wait_for(landed, "the draw")


def play_to_game_over(browser: Browser, screenshot: Path | None = None, screenshot_at: int = 1) -> list[str]:
    """Play by keys until the game-over dialog shows the audit and the transcript (the move log shows the
    audit first); optionally save a screenshot on the way."""
    def game_over(lines: list[str]) -> bool:
        return verdict(lines) is not None and any("transcript of every message" in line.lower() for line in lines)

    for turn in range(300):
        lines = browser.wait_for(lambda now: my_turn(now) or game_over(now), "my turn or the game-over dialog",
                                 timeout=60)
        if game_over(lines):
            return lines
        if screenshot is not None and turn == screenshot_at:
            browser.screenshot(screenshot)
        take_turn(browser, lines)
    raise AssertionError("the game never ended")


def start_playing(browser: Browser, url: str, name: str, room: str | None = None) -> None:
    """Open discard-web in a new tab and fill in the start screen: the computer, or ``room`` on the relay.

    Each key waits for what the one before it shows: Textual runs a key's binding (Tab, say) after
    plain keys that follow it at once, which only a program types fast enough to see.
    """
    browser.driver.switch_to.new_window("tab")
    browser.open(url)
    browser.wait_for_text("Name", "Play")
    type_into(browser, "Name", name)
    if room is not None:
        for label in ("Game", "Opponent"):
            browser.press(Keys.TAB)
            browser.wait_for(lambda _: focused_field(browser) == label, f"the focus on {label}")
        browser.press(Keys.SPACE)  # opens the list (Enter plays)
        browser.wait_for_text("a person, in a room on the relay")
        browser.press(Keys.DOWN, Keys.ENTER)
        browser.wait_for_text("A friend in a terminal joins with")
        browser.press(Keys.TAB)
        browser.wait_for(lambda _: focused_field(browser) == "Room", "the focus on the room")
        type_into(browser, "Room", room)
    browser.press(Keys.ENTER)


def session_of(server: WebServer) -> tuple[set[int], Path]:
    """Every process under the server (one visit: the app and its pool), and the visitor's directory."""
    processes = descendants(server.proc.pid)
    [home] = [Path(argv[3]) for pid in processes if (argv := command_line(pid))[1:3] == ["-m", "discard_tui.visit"]]
    return processes, home


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    except OSError:
        return []


def close_tab_and_wait_until_gone(browser: Browser, processes: set[int], home: Path) -> None:
    browser.driver.close()
    browser.driver.switch_to.window(browser.driver.window_handles[0])
    browser.wait_for(lambda _: not any(alive(pid) for pid in processes) and not home.exists(),
                     "every process of the visit gone, and its directory")


# -- the tests ----------------------------------------------------------------------------------------------


@pytest.mark.long
def test_a_visitor_plays_the_computer_to_the_end_and_leaves_nothing_behind(web, browser, request, tmp_path):
    """The README's screenshot is rewritten only with --snapshot-update, as the snapshots are."""
    png = ROOT / "docs" / "web.png" if request.config.getoption("--snapshot-update") else tmp_path / "web.png"
    server = web("--think", "0.05")  # the computer hardly pauses: the game, not the waiting, is under test
    start_playing(browser, server.url, "ana")
    browser.wait_for_text("Your hand", "ana 0 – 0 Computer", timeout=60)
    lines = play_to_game_over(browser, png)
    result = next(line for line in lines if "You win!" in line or "You lose" in line)
    assert verdict(lines).startswith("Checked: every shuffle") and any("1 deck of 52 cards" in x for x in lines), lines
    score = "ana 1 – 0 Computer" if "You win!" in result else "ana 0 – 1 Computer"
    assert any(score in line for line in lines), lines
    assert png.read_bytes().startswith(b"\x89PNG")
    processes, home = session_of(server)
    assert processes and home.is_dir()  # the app (and, in a MODP room, the crypto pool's forkserver and workers)
    close_tab_and_wait_until_gone(browser, processes, home)


@pytest.mark.long  # 8-15 s: handed out last, it ran on alone at the end of the run for 10 s
def test_a_visitor_plays_a_bot_over_a_relay_fairly_while_the_only_table_is_taken(web, browser, spawn):
    relay = spawn()
    server = web("--relay", relay.url, "--max-sessions", "1")
    bot = run_bot(relay.url, "web-vs-bot", "--json", "--name", "bot")
    try:
        start_playing(browser, server.url, "ana", room="web-vs-bot")
        browser.wait_for_text("Your hand", "ana 0 – 0 bot", timeout=60)
        with pytest.raises(urllib.error.HTTPError) as full:  # a second visitor while the only table is taken
            urllib.request.urlopen(server.url, timeout=10)
        assert full.value.code == 503 and "Every table is taken" in full.value.read().decode()
        assert refused_visit(server.url) == 1013  # a websocket past the limit: "try again later"
        lines = play_to_game_over(browser)
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, err
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["audit"] == "fair" and verdict(lines).startswith("Checked:")
    mine = "loss" if record["result"] == "win" else "win"
    assert any(("You win!" if mine == "win" else "You lose") in line for line in lines), lines
    processes, home = session_of(server)
    close_tab_and_wait_until_gone(browser, processes, home)
    with urllib.request.urlopen(server.url, timeout=10) as page:  # the table is free again
        assert page.status == 200


@pytest.mark.long
def test_the_page_says_at_once_that_the_game_starts_and_keys_typed_before_it_is_up_do_nothing(web, browser,
                                                                                              tmp_path):
    """The page was blank for seconds and keys typed then were acted on when the app came up, some of them: the
    first visitor ended in the lobby instead of against the computer. The tab's title stayed "discard". The app is
    held at its start until the keys are typed, so that they come before it is up however fast it starts."""
    gate = AppGate(tmp_path / "gate")
    server = web(env=gate.env)
    browser.open(server.url)
    assert "Starting your game of discard" in browser.page_text()  # before the app has sent a byte
    browser.wait_for(lambda _: browser.newest is not None, "the page's websocket")
    browser.driver.execute_script("document.querySelector('.xterm-helper-textarea').focus()")
    browser.press("xyz", Keys.TAB)  # an app takes a second or more to start: these reach the server first
    assert not browser.driver.execute_script("return document.body.classList.contains('-ready')")
    gate.open()
    browser.wait_for(lambda _: "Starting your game" not in browser.page_text(), "the page without its notice")
    lines = browser.wait_for(lambda lines: field(lines, "Name") and focused_field(browser), "the start screen")
    assert field(lines, "Name") == "guest" and focused_field(browser) == "Name"  # nothing typed early landed
    browser.press(Keys.TAB)
    browser.wait_for(lambda _: focused_field(browser) == "Game", "the focus on Game")
    browser.press(Keys.SPACE)
    browser.wait_for_text("rps", "holdem")  # the list of games is open
    browser.press(*[Keys.DOWN] * 4, Keys.ENTER)  # discard, rps, war, cabo, holdem
    browser.wait_for(lambda lines: field(lines, "Game") == "holdem", "holdem chosen")
    browser.wait_for(lambda _: browser.driver.title == "Texas Hold'em", "the game's name in the tab's title")


def refused_visit(url: str) -> int | None:
    """Open the page's websocket as a second visitor would; the code it is closed with."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(url.replace("http://", "ws://") + "/ws?width=80&height=24", open_timeout=10) as websocket:
        with pytest.raises(ConnectionClosed):
            websocket.recv(timeout=10)
        return websocket.close_code


@pytest.mark.parametrize("argv, says", [
    (["--max-sessions", "0"], "--max-sessions: use 1 or more"),
    (["--relay", "127.0.0.1:8765"], "is not a relay address"),
    (["--relay-ca", "/no/such.pem"], "--relay-ca: cannot use /no/such.pem"),
    (["--port", "70000"], "--port 70000: use a port from 0 to 65535"),
])
def test_bad_flags_cost_one_line_and_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        discard_web.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and err.startswith("discard-web: ")
