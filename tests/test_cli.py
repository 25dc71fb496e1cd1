"""discard-tui's command line: bad flags cost one line and exit 2; --games lists what can be resumed."""

import pexpect
import pytest

from conftest import seat_dir
from discard_tui import cli, saves
from discard_tui.config import ROOM
from discard_tui.profile import terminal_profile


@pytest.mark.parametrize("argv, says", [
    (["--deck", "huge"], "invalid choice: 'huge'"),
    (["--public", "--room", "r"], "--public lists a room in a relay's lobby: give --relay URL"),
    (["--relay", "127.0.0.1:8765", "--room", "r"], "is not a relay address; use ws://HOST:PORT"),
    (["--relay", "ws://a:1,b:2", "--room", "r"], "'b:2' is not a relay address"),
    (["--relay", "wss://a:1", "--room", "r", "--relay-ca", "/no/such.pem"], "--relay-ca: cannot use /no/such.pem"),
    (["--relay", "ws://h:1", "--host", "--room", "r"], "do not go together"),
    (["--host", "--port", "70000"], "use a port from 0 to 65535"),
    (["--port", "9000"], "--port goes with --host"),
    (["--relay", "ws://h:1", "--room", "no spaces"], "use 1 to 64 of"),
    (["--name", "x" * 33], "--name: use 1 to 32 printable characters"),
    (["--think", "-1"], "--think: '-1' is not a number of seconds from 0"),
    (["--name", "   "], "--name: use 1 to 32 printable characters, not only spaces"),
    (["--game", "discard", "--seats", "1"], "--seats 1: discard is for 2 players"),
    (["--game", "cabo", "--seats", "6"], "--seats 6: cabo is for 2 to 5 players"),
    (["--watch", "r"], "--watch ROOM watches a game on a relay: give --relay URL too"),
    (["--watch", "r", "--relay", "ws://h:1", "--room", "s"], "--watch and --room do not go together"),
    (["--watch", "no spaces", "--relay", "ws://h:1"], "--watch 'no spaces': use 1 to 64 of"),
])
def test_bad_flags_cost_one_line_and_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and err.startswith("discard-tui: ")


def test_the_computer_pauses_as_long_as_think_says():
    default = cli.config_from(cli.parser().parse_args([]), cli.parser(), terminal_profile())
    quick = cli.config_from(cli.parser().parse_args(["--think", "0"]), cli.parser(), terminal_profile())
    assert (default.think_time, quick.think_time) == (0.6, 0.0)


def test_no_bell_silences_the_turn_bell():
    ringing = cli.config_from(cli.parser().parse_args([]), cli.parser(), terminal_profile())
    silent = cli.config_from(cli.parser().parse_args(["--no-bell"]), cli.parser(), terminal_profile())
    assert (ringing.bell, silent.bell) == (True, False)


def test_relay_takes_a_comma_separated_list_of_nodes():
    argv = ["--relay", "ws://a:8765, wss://b.example:443/x", "--room", "r", "--name", "ana"]
    config = cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert config.relay == "ws://a:8765, wss://b.example:443/x"


def test_host_mode_listens_everywhere_on_the_chosen_port():
    argv = ["--host", "--port", "9123", "--name", "ana"]
    config = cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert (config.host, config.port, config.name) == ("0.0.0.0", 9123, "ana")
    assert ROOM.fullmatch(config.room)


def saved(relay, room, name, stage="playing"):
    import dataclasses

    seat = dataclasses.replace(saves.new_seat(relay, room, name, "t" * 32, b"\1" * 32, "full"), stage=stage)
    saves.save(seat_dir(), seat)
    return seat


def games(capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        cli.main(["--games"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_games_lists_games_under_way_with_a_command_that_really_resumes(capsys):
    import shlex

    assert games(capsys).strip() == "No unfinished games."
    under_way = [saved("ws://relay.example:8765", "table1", "ana"), saved(saves.LOCAL_RELAY, "computer-ab12", "bo"),
                 saved(saves.LOCAL_RELAY, "computer-cd34", "bo"), saved("host:9000", "table-abc", "ana b")]
    saved("ws://relay.example:8765", "left-early", "ana", stage="waiting")  # abandoned before a game started
    saved(saves.LOCAL_RELAY, "computer-done", "bo", stage="over")  # its game is over
    lines = [line.strip() for line in games(capsys).splitlines() if line.startswith("    uv run ")]
    assert len(lines) == len(under_way)
    for seat, line in zip(sorted(under_way, key=lambda s: -s.saved_at), lines):  # newest first
        words = shlex.split(line)
        assert words[:3] == ["uv", "run", "discard-tui"]
        config = cli.config_from(cli.parser().parse_args(words[3:]), cli.parser(), terminal_profile())
        relay_key = saves.relay_key(config.relay, config.host is not None, config.port)
        assert (relay_key, config.room, config.name) == (seat.relay, seat.room, seat.name), line


def test_games_says_what_each_game_is_newest_first(capsys):
    """Each row: the game, the other players, the score (or, before a game ended, which game is under way) and
    when it was last played, the game played last at the top; then the command that goes back to it."""
    import dataclasses
    import time

    now = time.time()

    def played(room, game, names, me, number, wins, minutes_ago, relay="ws://relay.example:8765"):
        seat = saves.new_seat(relay, room, names[me], "t" * 32, b"\1" * 32, game, len(names))
        saves.save(seat_dir(), dataclasses.replace(seat, stage="playing", names=list(names), me=me, number=number,
                                                   wins=list(wins), saved_at=now - 86400 * 3,
                                                   played_at=now - 60 * minutes_ago))

    played("table-old", "cabo", ("ana", "bo", "cy"), 1, 4, (2, 0, 1), 60 * 26)
    played("table-new", "discard", ("ana", "bo"), 1, 3, (1, 1), 3)
    played("computer-ab12", "war", ("bo", "Computer"), 0, 1, (0, 0), 40, relay=saves.LOCAL_RELAY)
    old = saves.new_seat("ws://relay.example:8765", "table-unsaid", "bo", "t" * 32, b"\1" * 32, "discard")
    saves.save(seat_dir(), dataclasses.replace(old, stage="playing", saved_at=now - 86400 * 9))  # an older file
    with pytest.raises(SystemExit):
        cli.main(["--games"])
    out = capsys.readouterr().out.splitlines()
    rows = [line.strip().rsplit(" (", 1)[0] for line in out[1::2]]
    assert out[0] == "Unfinished games, newest first (run the command to go back):"
    assert rows == ["discard with ana · bo 1 – 1 ana, game 3 · played 3 min ago",
                    "war with Computer · game 1 under way · played 40 min ago",
                    "cabo with ana, cy · ana: 2 · cy: 1 games won, game 4 · played 1 d ago",
                    "discard with ? · game 1 under way · played 9 d ago"]
    assert [line.split("--room ")[1].split()[0] for line in out[2::2]] == ["table-new", "computer-ab12", "table-old",
                                                                           "table-unsaid"]
    assert out[1].endswith(time.strftime("(%Y-%m-%d %H:%M)", time.localtime(now - 180)))


def test_room_against_the_computer_only_goes_back_to_a_saved_game(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.config_from(cli.parser().parse_args(["--room", "r", "--name", "bo"]), cli.parser(), terminal_profile())
    assert stop.value.code == 2 and "no game against the computer to go back to" in capsys.readouterr().err


def config_of(*argv: str):
    return cli.config_from(cli.parser().parse_args(["--name", "ana", *argv]), cli.parser(), terminal_profile())


def saved_for(relay, room, game, seats, at):
    import dataclasses

    seat = saves.new_seat(relay, room, "ana", "t" * 32, b"\1" * 32, game, seats)
    saves.save(seat_dir(), dataclasses.replace(seat, stage="playing", saved_at=at))
    return seat


def test_going_back_to_a_room_takes_its_number_of_players(capsys):
    """A saved room's players come back with it, however it is gone back to; without --room, --seats (like --game)
    picks which saved room; with --room, the room's own game and players win over --game and --seats."""
    import shlex

    relay = "ws://relay.example:8765"
    rooms = [saved_for(saves.LOCAL_RELAY, "computer-two", "cabo", 2, 1.0),
             saved_for(saves.LOCAL_RELAY, "computer-four", "cabo", 4, 2.0),
             saved_for(relay, "table-four", "cabo", 4, 3.0)]

    def terms(*argv: str):
        config = config_of(*argv)
        return config.room, config.game, config.seats

    assert terms() == ("computer-four", "cabo", 4)  # the newest game against the computer
    assert terms("--seats", "2") == terms("--game", "cabo", "--seats", "2") == ("computer-two", "cabo", 2)
    room, game, seats = terms("--game", "cabo", "--seats", "5")  # no such game saved: a new one
    assert room.startswith("computer-") and room not in ("computer-two", "computer-four") and seats == 5
    assert terms("--room", "computer-two") == terms("--room", "computer-two", "--seats", "4") == \
        terms("--room", "computer-two", "--game", "discard") == ("computer-two", "cabo", 2)
    assert config_of("--room", "computer-two", "--game", "discard", "--deck", "short").options == {}
    assert config_of("--room", "computer-two", "--points", "20").options == {"points": 20}  # the room's hello wins
    assert terms("--relay", relay, "--room", "table-four") == ("table-four", "cabo", 4)
    for seat in rooms:
        config = config_of(*shlex.split(cli.resume_command(seat))[3:])
        assert (config.room, config.game, config.seats) == (seat.room, "cabo", seat.seats)
    with pytest.raises(SystemExit) as stop:
        config_of("--room", "computer-two", "--seats", "9")  # bad input still costs its line
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err == "discard-tui: --seats 9: cabo is for 2 to 5 players (see --help)\n"


def test_a_seat_file_from_before_the_players_were_saved_still_takes_its_room_back():
    """Its number of players is counted from the computers seated beside it (one left unseated by a refused join
    does not count); on a relay, where nothing counts them, it is the game's usual number, as it was."""
    import dataclasses
    import json

    def old_file(relay, room, name, token="t" * 32):
        seat = saves.new_seat(relay, room, name, token, b"\1" * 32, "cabo")
        path = saves.save(seat_dir(), dataclasses.replace(seat, stage="playing" if name == "ana" else "waiting"))
        fields = json.loads(path.read_text())
        del fields["seats"]
        path.write_text(json.dumps(fields))

    old_file(saves.LOCAL_RELAY, "computer-old", "ana")
    for name in ("Computer", "Computer 2", "Computer 3"):
        old_file(saves.LOCAL_RELAY, "computer-old", name)
    old_file(saves.LOCAL_RELAY, "computer-old", "Computer 4", token="")
    old_file("ws://relay.example:8765", "table-old", "ana")
    assert [seat.room for seat in saves.unfinished(seat_dir())] == ["computer-old", "table-old"]
    assert config_of("--room", "computer-old").seats == 4
    assert config_of("--relay", "ws://relay.example:8765", "--room", "table-old").seats == 3


def test_the_start_screen_takes_a_saved_room_back_with_its_players():
    from discard_tui.config import PlayConfig
    from discard_tui.start import choose

    relay = "ws://relay.example:8765"
    saved_for(saves.LOCAL_RELAY, "computer-two", "cabo", 2, 1.0)
    saved_for(relay, "table-four", "cabo", 4, 2.0)
    base, profile = PlayConfig(name="ana", relay=relay), terminal_profile()
    computer = choose(base, profile, "ana", "cabo", None, None)
    assert (computer.relay, computer.room, computer.game, computer.seats) == (None, "computer-two", "cabo", 2)
    person = choose(base, profile, "ana", "discard", relay, "table-four")
    assert (person.relay, person.room, person.game, person.seats) == (relay, "table-four", "cabo", 4)
    fresh = choose(base, profile, "ana", "cabo", relay, "table-new")
    assert (fresh.room, fresh.game, fresh.seats) == ("table-new", "cabo", 3)


def test_a_crash_of_the_app_exits_1_with_one_line_and_keeps_the_traceback(terminal, data_dir):
    crash = ("import sys; from discard_tui import app, cli; "
             "app.TableScreen.update = lambda self, view: 1 / 0; cli.main(sys.argv[1:])")
    child = terminal("-c", crash, "--name", "tester", "--deck", "short")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    lines = child.after_screen()
    assert len(lines) == 1 and lines[0].startswith("discard-tui: crashed (ZeroDivisionError: division by zero)"), lines
    [report] = (data_dir / "crashes").iterdir()
    assert str(report) in lines[0] and "Traceback" in report.read_text()


def descendants_of(pid):
    from conftest import descendants

    return descendants(pid)


@pytest.mark.parametrize("moment", ["first frame", "table"])
@pytest.mark.parametrize("how, status", [("key", 130), ("SIGINT", 130), ("SIGTERM", 143)])
def test_ctrl_c_or_kill_at_any_moment_exits_quietly_with_the_pool_and_the_terminal_put_back(terminal, data_dir, moment,
                                                                                             how, status):
    """At the table the game is on MODP, whose process pool the Ctrl-C reaches too; ``kill PID`` (SIGTERM) reaches
    the app alone, which ends the pool itself. Either way the terminal is left as it was and the shell's status
    names the signal (128 + its number)."""
    import os
    import signal

    from conftest import alive, descendants

    group = ["--group", "modp2048"] if moment == "table" else []
    child = terminal("-m", "discard_tui.cli", "--name", "tester", "--deck", "short", *group)
    child.expect("Playing the computer" if moment == "first frame" else "Your hand")
    helpers = descendants(child.pid)
    assert bool(helpers) == bool(group), helpers
    if how == "key":
        child.sendintr()  # what the terminal sends for Ctrl-C
    elif how == "SIGINT":
        os.killpg(child.pid, signal.SIGINT)  # the whole foreground group, pool included
    else:
        os.kill(child.pid, signal.SIGTERM)  # what kill PID sends
    child.expect(pexpect.EOF)
    child.close()
    crashes = [report.read_text() for report in (data_dir / "crashes").glob("*")] if (data_dir / "crashes").exists() \
        else []
    assert child.exitstatus == status, (child.exitstatus, child.signalstatus, child.after_screen(), crashes)
    output = child.logfile_read.getvalue()
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, child.after_screen()
    assert child.modes_left() == {}
    assert not [pid for pid in helpers if alive(pid)]
    if moment == "table":  # a game under way: one line says how to come back to it
        [line] = [line for line in child.after_screen() if "waits for you" in line]
        assert line.startswith("Your game in room computer-") and "uv run discard-tui --room computer-" in line


def test_the_command_line_knows_every_group_the_default_first():
    """discard_tui.config.GROUPS is read before the crypto is imported; it must not drift from tabletop.groups."""
    from discard_tui.config import GROUPS as OFFERED
    from discard_tui.config import PlayConfig
    from tabletop.groups import DEFAULT_GROUP, GROUPS

    assert list(OFFERED) == list(GROUPS) and next(iter(OFFERED)) == DEFAULT_GROUP.name == PlayConfig().group


def test_the_command_line_knows_each_game_as_the_game_defines_itself():
    """The screens' registry, read before the table is imported, holds each game's own facts, not a copy."""
    from discard_tui.config import SCREENS as ENTRIES
    from games import GAMES

    assert set(ENTRIES) == set(GAMES)
    for name, entry in ENTRIES.items():
        assert entry.about is GAMES[name].about
        assert (GAMES[name].name, GAMES[name].seats) == (name, entry.about.seats)


def drifted_options(kind: str) -> type:
    """cabo's Options model, drifted from cabo's declared ``points`` in one way (its clock as declared)."""
    from pydantic import BaseModel, Field

    from games.cabo.about import MOVE_TIME, POINTS, TIME_BANK
    from tabletop.game import option_field

    class Clocked(BaseModel):
        clock: int = option_field(MOVE_TIME)
        bank: int = option_field(TIME_BANK)

    class Bounds(Clocked):
        points: int = Field(66, ge=1, le=999, description=POINTS.help)

    class Default(Clocked):
        points: int = 66

    class Name(Clocked):
        limit: int = option_field(POINTS)

    drifted: dict[str, type] = {"bounds": Bounds, "default": Default, "name": Name}
    return drifted[kind]


@pytest.mark.parametrize("kind, problem", [
    ("bounds", "points: an int from 1 to 1000"),
    ("default", "points: take its default and help from its declaration"),
    ("name", "its fields ['bank', 'clock', 'limit'] are not its declared options ['points', 'clock', 'bank']"),
])
def test_an_options_model_that_drifts_from_its_declaration_is_refused_when_the_game_is_made(kind, problem):
    import re

    from games.cabo.game import Cabo

    with pytest.raises(TypeError, match=re.escape(problem)):
        type("DriftedCabo", (Cabo,), {"about": Cabo.about, "Options": drifted_options(kind)})


def test_each_games_flags_come_from_its_declared_options(capsys):
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--help"])
    usage = " ".join(capsys.readouterr().out.split())
    assert "--deck {full,short} discard: full (52 cards) or short (24 cards, 9 to A) (default full)" in usage
    assert "--tricks N war: end after N tricks, the larger pile winning (default 500)" in usage
    assert "--points N cabo: the game ends once a total passes N (default 66)" in usage
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["--points", "1001"])
    assert "--points: '1001' is not a whole number from 1 to 1000" in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["--pick", "--host"], "--pick and --host do not go together"),
])
def test_pick_refuses_what_the_start_screen_cannot_do(argv, says, capsys):
    with pytest.raises(SystemExit):
        cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert says in capsys.readouterr().err


def test_watch_takes_no_seat_and_leaves_nothing_to_come_back_to():
    argv = ["--watch", "table-1", "--relay", "ws://127.0.0.1:8765", "--name", "zed"]
    config = cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert (config.watch, config.room, config.relay, config.name, config.bell) == (True, "table-1",
                                                                                  "ws://127.0.0.1:8765", "zed", False)
    assert "--watch ROOM" in cli.parser().format_help()


def test_pick_with_a_relay_leaves_the_room_to_the_start_screen():
    argv = ["--pick", "--relay", "ws://127.0.0.1:8765", "--name", "ana"]
    config = cli.config_from(cli.parser().parse_args(argv), cli.parser(), terminal_profile())
    assert (config.relay, config.room, config.name) == ("ws://127.0.0.1:8765", "", "ana")


def test_a_relay_with_no_room_opens_the_lobby_and_rooms_are_private_unless_public():
    def config_of(*argv: str):
        return cli.config_from(cli.parser().parse_args(list(argv)), cli.parser(), terminal_profile())

    lobby = config_of("--relay", "ws://127.0.0.1:8765", "--name", "ana")
    assert (lobby.relay, lobby.room, lobby.public) == ("ws://127.0.0.1:8765", "", False)  # the app shows the lobby
    assert not config_of("--relay", "ws://h:1", "--room", "r").public
    assert config_of("--relay", "ws://h:1", "--room", "r", "--public").public


def test_help_says_how_long_a_name_may_be():
    from discard_tui import bot
    from tabletop.wire import Hello

    longest = next(m.max_length for m in Hello.model_fields["name"].metadata if hasattr(m, "max_length"))
    for p in (cli.parser(), bot.parser()):
        assert f"up to {longest} characters" in " ".join(p.format_help().split())


def test_leaving_a_waiting_room_leaves_the_way_back_and_the_friends_command_one_line_each():
    from discard_tui.config import PlayConfig

    friend = "uv run discard-tui --relay ws://relay.example:8765 --room r1"
    relay = PlayConfig(relay="ws://relay.example:8765", room="r1", name="ana")
    kept = saved("ws://relay.example:8765", "r1", "ana", stage="waiting")
    assert cli.leaving_lines(kept, friend, relay) == [
        f"Your seat in room r1 waits for you: {cli.resume_command(kept)}", f"A friend joins room r1 with: {friend}"]
    assert cli.leaving_lines(None, friend, relay) == [f"A friend joins room r1 with: {friend}"]  # the room stays
    hosted = PlayConfig(host="0.0.0.0", port=9000, room="r1", name="ana")
    assert cli.leaving_lines(None, friend, hosted) == []  # alone: the room goes with the host's relay
    assert cli.leaving_lines(kept, friend, hosted)[1] == f"Once you are back, a friend joins with: {friend}"
    under_way = saved("ws://relay.example:8765", "r1", "ana")
    assert cli.leaving_lines(under_way, None, relay) == [
        f"Your game in room r1 waits for you: {cli.resume_command(under_way)}"]


def test_preferences_fill_what_the_flags_leave_out_and_a_damaged_file_is_kept_aside(data_dir):
    import json

    from discard_tui.prefs import FILE, Prefs, load

    profile = terminal_profile()
    assert profile.config_dir == data_dir  # tests never touch the real home
    assert load(profile.config_dir).prefs == Prefs() and load(profile.config_dir).problem is None
    kept = load(profile.config_dir)
    assert kept.change(name="cy", game="cabo", think=1.5, theme="nord") is None
    prefs = load(profile.config_dir).prefs
    assert prefs == Prefs(name="cy", theme="nord", game="cabo", think=1.5)
    config = cli.config_from(cli.parser().parse_args([]), cli.parser(), profile, prefs)
    assert (config.name, config.game, config.seats, config.think_time) == ("cy", "cabo", 3, 1.5)
    flagged = cli.config_from(cli.parser().parse_args(["--name", "bo", "--game", "war", "--think", "0"]),
                              cli.parser(), profile, prefs)
    assert (flagged.name, flagged.game, flagged.think_time) == ("bo", "war", 0)

    for damage in (b"{not json", b"\xff\xfe", json.dumps({"think": "fast"}).encode(), b"[]"):
        (data_dir / FILE).write_bytes(damage)
        kept = load(profile.config_dir)
        aside = [path for path in data_dir.iterdir() if path.name.startswith(f"{FILE}.bad-")]
        assert kept.prefs == Prefs() and len(aside) == 1 and aside[0].read_bytes() == damage
        assert kept.problem == (f"your preferences in {data_dir / FILE} are damaged "
                                f"({'think is not a number of seconds' if b'think' in damage else 'not a JSON object' if damage == b'[]' else 'not JSON text'}): "
                                f"kept as {aside[0].name}, using the defaults")
        assert kept.change(name="ana") is None and load(profile.config_dir).prefs == Prefs(name="ana")
        aside[0].unlink()


def test_a_preferences_file_that_cannot_be_opened_is_said_and_never_written_over(data_dir):
    from discard_tui.prefs import FILE, load

    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / FILE).mkdir()  # there, but not a file anyone can read
    kept = load(data_dir)
    assert kept.problem is not None and kept.problem.startswith(f"cannot read your preferences in {data_dir / FILE} (")
    assert kept.problem.endswith("): using the defaults") and "\n" not in kept.problem
    assert kept.change(name="ana") is None and (data_dir / FILE).is_dir()


def test_help_describes_every_game_not_only_discard():
    from discard_tui.config import SCREENS

    text = " ".join(cli.parser().format_help().split())
    assert "Play card games where nobody deals" in text
    for entry in SCREENS.values():
        assert f"{entry.about.name} (" in text
    assert "cabo (2 to 5 players)" in text and "discard (2 players)" in text


def test_the_bot_refuses_a_blank_name_and_words_its_seats_like_the_tui(capsys):
    from discard_tui import bot

    for argv, says in ((["--name", "  "], "--name: use 1 to 32 printable characters, not only spaces"),
                       (["--game", "rps", "--seats", "3"], "rock-paper-scissors is for 2 players")):
        with pytest.raises(SystemExit) as stop:
            bot.main(["--relay", "ws://127.0.0.1:9", "--room", "r", *argv])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err
