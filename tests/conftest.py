"""Shared fixtures: the one way to start a relay (in this process or as ``python -m relay``) and a redis-server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pexpect
import pytest

from discard_tui.profile import terminal_profile
from programs import WAIT, RedisCluster, RedisServer
from relay.memory_ledger import MemoryLedger
from relay.server import Limits, Relay
from tabletop.crypto import Group
from tabletop.groups import GROUPS

ROOT = Path(__file__).resolve().parent.parent

# Compiled modules are kept (in __pycache__, which git ignores) for this run and every process it starts: where
# PYTHONDONTWRITEBYTECODE is set, each of the suite's workers, relays, bots and TUIs would compile the project and
# the test modules from source again (several seconds of CPU per worker on a 2-core machine).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
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


@contextlib.asynccontextmanager
async def serving(ledger: MemoryLedger) -> AsyncIterator[tuple[Relay, str]]:
    """A running in-process relay on ``ledger``: (relay, url); closed on the way out."""
    relay = Relay(ledger, Limits())
    server = await relay.serve("127.0.0.1", 0)
    try:
        yield relay, f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()
        await relay.close()


def drop_connections(relay: Relay, room: str) -> None:
    """Cut every connection to ``room`` at once, as a relay that stops does."""
    for client in list(relay.channels[room].members):
        client.connection.transport.abort()


@pytest.fixture
async def relay_server():
    """A running in-process relay (memory ledger); yields (relay, url)."""
    async with serving(MemoryLedger()) as served:
        yield served


@pytest.fixture
async def timed_relay():
    """A running in-process relay whose clock the test moves (``clock.now``; give it to the seats too): yields
    (url, clock)."""
    from test_clock import FakeTime

    clock = FakeTime()
    async with serving(MemoryLedger(clock=clock)) as (_, url):
        yield url, clock


@pytest.fixture
async def relay_url(relay_server):
    return relay_server[1]


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


# -- redis ----------------------------------------------------------------------------


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
