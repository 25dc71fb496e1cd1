"""Shared fixtures: the one way to start a relay (in this process or as ``python -m relay``) and a redis-server."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

import pexpect
import pytest

from discard_tui.profile import terminal_profile
from relay.memory_ledger import MemoryLedger
from relay.server import Limits, Relay
from tabletop.crypto import Group
from tabletop.groups import GROUPS

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10.0  # seconds: an upper bound on anything that should happen at once
LISTENING = re.compile(r"discard-relay listening on (wss?://(\S+):(\d+))\s*$")


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Saved seats and transcripts go to the test's own directory, for this process and its children."""
    monkeypatch.setenv("DISCARD_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture(params=list(GROUPS.values()), ids=list(GROUPS))
def group(request) -> Group:
    """Each group a deck can be encrypted in (tabletop/groups.py): a test that takes ``group`` runs in every one,
    and a group added there is tested at once."""
    return request.param


def seat_dir() -> Path:
    """Where a player in a terminal keeps saved seats: the test's own directory (``$DISCARD_DATA_DIR``)."""
    return terminal_profile().games_dir


# -- relays ---------------------------------------------------------------------------


@pytest.fixture
async def relay_server():
    """A running in-process relay (memory ledger); yields (relay, url)."""
    relay = Relay(MemoryLedger(), Limits())
    server = await relay.serve("127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield relay, f"ws://127.0.0.1:{port}"
    server.close()
    await server.wait_closed()
    await relay.close()


@pytest.fixture
async def relay_url(relay_server):
    return relay_server[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RelayProcess:
    """``python -m relay ARGS`` (on a free port unless ``--port`` is among them); stderr is kept line by line."""

    def __init__(self, *args: object) -> None:
        self.args = [str(a) for a in args]
        if "--port" not in self.args:
            self.args = ["--port", "0", *self.args]
        self.proc: subprocess.Popen[str] | None = None
        self.url, self.host, self.port = "", "", 0
        self.stderr: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()

    def start(self) -> RelayProcess:
        self.proc = subprocess.Popen([sys.executable, "-m", "relay", *self.args], cwd=ROOT, text=True,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._pump_thread = threading.Thread(target=self._pump, args=(self.proc.stderr,), daemon=True)
        self._pump_thread.start()
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()  # the relay prints its address once it listens
        match = LISTENING.match(first)
        if not match:
            self.proc.wait(WAIT)
            raise RuntimeError(f"relay did not start ({self.proc.returncode}): {first!r}" + self.log())
        self.url, self.host, self.port = match[1], match[2], int(match[3])
        return self

    def _pump(self, stream) -> None:
        for line in stream:
            self.stderr.append(line.rstrip("\n"))
            self._lines.put(self.stderr[-1])
        self._lines.put(None)

    async def log_line(self, *words: str) -> str:
        """Wait for the next stderr line containing every one of ``words``."""
        while (line := await asyncio.to_thread(self._lines.get, timeout=WAIT)) is not None:
            if all(word in line for word in words):
                return line
        raise AssertionError(f"relay exited without logging {words}:{self.log()}")

    def log(self) -> str:
        return "\n--- relay stderr ---\n" + "\n".join(self.stderr[-60:])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no chance to flush or clean up."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._pump_thread.join(WAIT)  # every line of stderr is in self.stderr
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return self.proc.returncode


@pytest.fixture
def spawn():
    """``spawn(*args)`` starts a relay process; every one still running is stopped at teardown."""
    started: list[RelayProcess] = []

    def start(*args: object) -> RelayProcess:
        started.append(RelayProcess(*args).start())
        return started[-1]

    yield start
    for relay in started:
        relay.stop(signal.SIGKILL)


# -- programs the system provides -----------------------------------------------------------------


REQUIRE_ALL = "DISCARD_TESTS_REQUIRE_ALL"  # .ci/run sets it: CI installs every program, so none may be missing


def missing(program: str, install: str) -> NoReturn:
    """A test that needs ``program``, which is not installed: skipped with one line on a developer's machine, failed
    in CI (where .ci/run installs it and sets REQUIRE_ALL), so CI can never skip it silently."""
    reason = f"{program} is not installed ({install})"
    if os.environ.get(REQUIRE_ALL):
        pytest.fail(f"{reason}, and {REQUIRE_ALL} is set")
    pytest.skip(reason)


# -- redis ----------------------------------------------------------------------------


class RedisServer:
    """A real ``redis-server`` on a free loopback port, in its own directory, with the AOF on."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing("redis-server", "apt-get install redis-server")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.extra: list[str] = []  # more options (a Cluster node's)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--appendonly", "yes", "--save", "", "--logfile", "", "--loglevel", "notice", "--daemonize", "no",
             *self.extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seen = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # the server says when it is ready
            seen.append(line)
            if "Ready to accept connections" in line:
                threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # keep the pipe drained
                return self
        raise RuntimeError("redis-server did not start:\n" + "".join(seen[-20:]))

    def stop(self) -> None:
        """SIGTERM: Redis writes its AOF out and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(WAIT)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="session")
def shared_redis(tmp_path_factory):
    """One redis-server for every test that only needs rooms of its own (rooms are named uniquely)."""
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_server(tmp_path):
    """A redis-server of this test's own, to stop and restart."""
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


class RedisCluster:
    """Six ``redis-server --cluster-enabled yes`` on free loopback ports, joined by ``redis-cli --cluster create``:
    three masters, each with one replica. ``node_timeout_ms`` is ``cluster-node-timeout``: a failover test's 500 ms
    has a killed master taken over within about a second; the conformance suite's cluster takes 5 s, so that a
    machine busy with other work never makes a master look dead and fail it over in the middle of a check."""

    def __init__(self, directory: Path, node_timeout_ms: int = 5000) -> None:
        self.node_timeout_ms = node_timeout_ms
        self.nodes = [RedisServer(directory / f"node{i}") for i in range(6)]
        cli = shutil.which("redis-cli")
        if cli is None:
            missing("redis-cli", "apt-get install redis-server")
        self.cli = cli

    @property
    def url(self) -> str:
        return "redis-cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes[:3])

    def start(self) -> RedisCluster:
        for node in self.nodes:
            node.extra = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--cluster-port", str(free_port()),  # the bus: not PORT + 10000, which may be taken
                          "--cluster-node-timeout", str(self.node_timeout_ms), "--appendonly", "no"]
            node.start()
        subprocess.run([self.cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                        "--cluster-replicas", "1", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        deadline = time.monotonic() + 30
        while not all(self.state(node.port).get("cluster_state") == "ok" for node in self.nodes):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not come up")
            time.sleep(0.05)
        return self

    def call(self, port: int, *args: str) -> str:
        return subprocess.run([self.cli, "-p", str(port), *args], capture_output=True, text=True,
                              timeout=10).stdout

    def state(self, port: int) -> dict[str, str]:
        lines = self.call(port, "cluster", "info").splitlines()
        return dict(line.strip().split(":", 1) for line in lines if ":" in line)

    def masters(self) -> list[RedisServer]:
        """The nodes that are masters with slots now (as the first live node sees it)."""
        live = [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]
        listing = self.call(live[0].port, "cluster", "nodes").splitlines()
        ports = {int(f[1].split("@")[0].rsplit(":", 1)[1]) for f in (line.split() for line in listing)
                 if "master" in f[2] and "fail" not in f[2] and len(f) > 8}
        return [n for n in live if n.port in ports]

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.proc.kill()
                node.proc.wait(WAIT)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """One Redis Cluster (three masters, three replicas) for every test that uses rooms of its own."""
    cluster = RedisCluster(tmp_path_factory.mktemp("redis-cluster"))
    try:
        yield cluster.start()
    finally:
        cluster.stop()


# -- TLS ----------------------------------------------------------------------------------


@pytest.fixture
def tls_files(tmp_path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, made now (never committed): (cert, key) PEM files."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "discard test relay")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "relay-cert.pem", tmp_path / "relay-key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


# -- the rest ---------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def crypto_pool():
    """One process pool for the whole run, started before any app captures stdio."""
    from tabletop import crypto

    crypto.start_pool()
    yield
    crypto.shutdown_pool()


async def _eventually(condition, what, rounds=3000):
    """Poll ``condition`` (bounded in rounds; the condition, not the clock, decides)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


@pytest.fixture
def eventually():
    """``await eventually(condition, what)``: wait for a state the test cannot be told about (no app;
    screen tests wait with ``pilot.until``)."""
    return _eventually


@pytest.fixture
async def players(relay_url):
    """``await players(room, [strategy, …], …)``: seats playing in ``room`` over the test's relay (tests/arena.py)."""
    from arena import start_players

    started: list = []

    async def start(room, strategies, **options):
        started.append(await start_players(relay_url, room, strategies, **options))
        return started[-1]

    yield start
    for each in started:
        await each.stop()


class Terminal(pexpect.spawn):
    """A real process in a real pseudo-terminal, as a person runs it (Ctrl-C included)."""

    def after_screen(self) -> list[str]:
        """The lines printed once the full-screen app has left the alternate screen."""
        text = (self.before or "") if self.after is pexpect.EOF else self.buffer
        text = self.logfile_read.getvalue() if self.logfile_read else text
        tail = text.rsplit("\x1b[?1049l", 1)[-1]
        plain = re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-B]|[=>])", "", tail)
        return [line for line in plain.replace("\r", "").split("\n") if line.strip()]

    def modes_left(self) -> dict[str, str]:
        """The terminal modes (DEC private: the alternate screen, mouse tracking, the cursor…) the output leaves
        otherwise than a terminal starts with, each with its last change ("h" set, "l" reset): {} once a
        full-screen app has put the terminal back."""
        at_start = {"7": "h", "25": "h"}  # line wrapping and the cursor are on; every other mode is off
        last: dict[str, str] = {}
        for modes, change in re.findall(r"\x1b\[\?([\d;]+)([hl])", self.logfile_read.getvalue()):
            last.update(dict.fromkeys(modes.split(";"), change))
        return {mode: change for mode, change in last.items() if change != at_start.get(mode, "l")}


@pytest.fixture
def terminal(data_dir):
    """``terminal(*python_args, size=(rows, cols))``: start ``python *python_args`` in a pseudo-terminal."""
    import io

    started: list[Terminal] = []

    def spawn(*argv: str, size: tuple[int, int] = (24, 80), env: dict[str, str] | None = None) -> Terminal:
        child = Terminal(sys.executable, list(argv), dimensions=size, encoding="utf-8", timeout=60,
                         env={**os.environ, **(env or {})})
        child.logfile_read = io.StringIO()
        started.append(child)
        return child

    yield spawn
    for child in started:
        if child.isalive():
            child.terminate(force=True)


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (Linux /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat_file:
                    fields = stat_file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``long`` first (xdist hands tests out in this order): a long one started last would run
    on alone while the other workers wait."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
