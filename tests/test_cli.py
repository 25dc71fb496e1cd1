"""discard-tui's command line: bad flags cost one line and exit 2; --games lists what can be resumed."""

import pytest

from discard_tui import cli, saves


@pytest.mark.parametrize("argv, says", [
    (["--deck", "huge"], "invalid choice: 'huge'"),
    (["--relay", "ws://127.0.0.1:8765"], "--relay needs --room"),
    (["--relay", "127.0.0.1:8765", "--room", "r"], "is not a relay address; use ws://HOST:PORT"),
    (["--relay", "ws://a:1,b:2", "--room", "r"], "'b:2' is not a relay address"),
    (["--relay", "wss://a:1", "--room", "r", "--relay-ca", "/no/such.pem"], "--relay-ca: cannot use /no/such.pem"),
    (["--relay", "ws://h:1", "--host", "--room", "r"], "do not go together"),
    (["--host", "--port", "70000"], "use a port from 0 to 65535"),
    (["--port", "9000"], "--port goes with --host"),
    (["--room", "r"], "--room goes with --relay or --host"),
    (["--relay", "ws://h:1", "--room", "no spaces"], "use 1 to 64 of"),
    (["--name", "x" * 33], "--name: use 1 to 32 printable characters"),
])
def test_bad_flags_cost_one_line_and_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.config_from(cli.parser().parse_args(argv), cli.parser())
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and err.startswith("discard-tui: ")


def test_relay_takes_a_comma_separated_list_of_nodes():
    argv = ["--relay", "ws://a:8765, wss://b.example:443/x", "--room", "r", "--name", "ana"]
    config = cli.config_from(cli.parser().parse_args(argv), cli.parser())
    assert config.relay == "ws://a:8765, wss://b.example:443/x"


def test_host_mode_listens_everywhere_on_the_chosen_port():
    config = cli.config_from(cli.parser().parse_args(["--host", "--port", "9123", "--name", "ana"]), cli.parser())
    assert (config.host, config.port, config.name) == ("0.0.0.0", 9123, "ana")
    assert cli.ROOM.fullmatch(config.room)


def test_games_lists_unfinished_games_with_the_command_to_go_back(capsys):
    cli.main(["--games"])
    assert capsys.readouterr().out.strip() == "No unfinished games."
    saves.save(saves.new_seat("ws://relay.example:8765", "table1", "ana", "t" * 32, b"\1" * 32, "full"))
    saves.save(saves.new_seat(saves.LOCAL_RELAY, "computer-ab12", "bo", "u" * 32, b"\2" * 32, "short"))
    cli.main(["--games"])
    out = capsys.readouterr().out
    assert "discard-tui --relay ws://relay.example:8765 --room table1 --name ana" in out
    assert "room computer-ab12 as bo" in out
