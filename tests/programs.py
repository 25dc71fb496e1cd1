"""Programs the system provides, as the tests and the benchmarks start them: a ``redis-server``, a Redis Cluster of six,
a free port, and what to say when one is not installed."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, NoReturn

import pytest
import redis
from redis.driver_info import DriverInfo

WAIT = 10.0  # seconds: an upper bound on anything that should happen at once


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, what: str, bound: float = 30.0) -> None:
    """Poll ``check`` every 50 ms until it holds; fail naming ``what`` after ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while not check():
        assert time.monotonic() < deadline, f"not within {bound:g} s: {what}"
        time.sleep(0.05)


def reply(port: int, *command: str) -> str:
    """The text a Redis node on ``port`` replies to ``command`` (INFO, CLUSTER INFO: one text each), as ``redis-cli``
    prints it, or "" if the node does not answer. What is polled every 50 ms (while a cluster forms, while a master
    fails over) asks here: a ``redis-cli`` process for each poll cost 1.4 s of CPU per cluster started."""
    connection = redis.Connection(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=WAIT,
                                  driver_info=DriverInfo(name=None, lib_version=None))  # no CLIENT SETINFO
    try:
        connection.send_command(*command)
        return str(connection.read_response())
    except redis.RedisError:  # not up yet, or not answering: what redis-cli prints then holds nothing polled for
        return ""
    finally:
        connection.disconnect()


REQUIRE_ALL = "DISCARD_TESTS_REQUIRE_ALL"  # .ci/run sets it: CI installs every program, so none may be missing


def missing(program: str, install: str) -> NoReturn:
    """A test that needs ``program``, which is not installed: skipped with one line on a developer's machine, failed
    in CI (where .ci/run installs it and sets REQUIRE_ALL), so CI can never skip it silently."""
    reason = f"{program} is not installed ({install})"
    if os.environ.get(REQUIRE_ALL):
        pytest.fail(f"{reason}, and {REQUIRE_ALL} is set")
    pytest.skip(reason)


class PortTaken(RuntimeError):
    """A server could not listen on its port: something took it after it was found free."""


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
        """Start it and wait until it is ready. On its first start, a port taken between :func:`free_port` and the
        server's bind (another test's connection, under load) is drawn again, its Cluster bus's too; a restart keeps
        its ports, which its clients and its Cluster know."""
        first = self.proc is None
        for _ in range(4 if first else 1):
            try:
                return self._start()
            except PortTaken:
                if not first:
                    raise
                self.port = free_port()
                if "--cluster-port" in self.extra:
                    self.extra[self.extra.index("--cluster-port") + 1] = str(free_port())
        raise PortTaken(f"redis-server found no free port in 4 tries (the last {self.port})")

    def _start(self) -> RedisServer:
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
        self.proc.wait(WAIT)
        error = PortTaken if any("Address already in use" in line for line in seen) else RuntimeError
        raise error("redis-server did not start:\n" + "".join(seen[-20:]))

    def stop(self) -> None:
        """SIGTERM: Redis writes its AOF out and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(WAIT)

    def restart(self) -> None:
        self.stop()
        self.start()


class RedisCluster:
    """Six ``redis-server --cluster-enabled yes`` on free loopback ports, joined by ``redis-cli --cluster create``:
    three masters, each with one replica, each shard serving its slots while another's master is dead
    (``cluster-require-full-coverage no``, as a deployment should have it). ``node_timeout_ms`` is ``cluster-node-timeout``: a failover test's 500 ms
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
                          "--cluster-node-timeout", str(self.node_timeout_ms), "--appendonly", "no",
                          # a dead master stops its own slots only, not the whole cluster, until its replica takes over
                          "--cluster-require-full-coverage", "no",
                          # a replica's full sync starts at once, not after Redis's default 5 s wait for more
                          # replicas: each cluster started, and each killed master back as a synced replica, 3-4 s
                          # sooner (the cluster tests took 64 s, now 28 s)
                          "--repl-diskless-sync-delay", "0"]
            node.start()
        subprocess.run([self.cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                        "--cluster-replicas", "1", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        wait_until(lambda: all(self.state(node.port).get("cluster_state") == "ok" for node in self.nodes),
                   "the Redis Cluster up")
        # Every replica in sync with its master: until its first full sync is done a replica acknowledges nothing,
        # so a relay with --wait-replicas would refuse every post as not yet safe.
        wait_until(lambda: sum(self.synced(node.port) for node in self.nodes) == len(self.nodes) // 2,
                   "every replica in sync with its master")
        return self

    def synced(self, port: int) -> bool:
        """The node is a replica whose link to its master is up, its first sync done."""
        info = reply(port, "info", "replication")
        return "role:slave" in info and "master_link_status:up" in info and "master_sync_in_progress:0" in info

    def call(self, port: int, *args: str) -> str:
        """What ``redis-cli -p PORT ARGS`` prints: for the commands whose reply is not one text (SETSLOT, MIGRATE…)."""
        return subprocess.run([self.cli, "-p", str(port), *args], capture_output=True, text=True,
                              timeout=10).stdout

    def state(self, port: int) -> dict[str, str]:
        lines = reply(port, "cluster", "info").splitlines()
        return dict(line.strip().split(":", 1) for line in lines if ":" in line)

    def errors(self, node: RedisServer) -> dict[str, int]:
        """How many of each error reply (by its first word: ASK, MOVED…) ``node`` has sent (INFO errorstats)."""
        lines = reply(node.port, "info", "errorstats").splitlines()
        return {line.split(":")[0].removeprefix("errorstat_"): int(line.split("count=")[1].split(",")[0])
                for line in lines if line.startswith("errorstat_")}

    def masters(self) -> list[RedisServer]:
        """The nodes that are masters with slots now (as the first live node sees it)."""
        live = [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]
        listing = reply(live[0].port, "cluster", "nodes").splitlines()
        ports = {int(f[1].split("@")[0].rsplit(":", 1)[1]) for f in (line.split() for line in listing)
                 if "master" in f[2] and "fail" not in f[2] and len(f) > 8}
        return [n for n in live if n.port in ports]

    def node_id(self, node: RedisServer) -> str:
        return reply(node.port, "cluster", "myid").strip()

    def owner(self, slot: int) -> RedisServer:
        """The master that serves ``slot`` now (as the first node sees it)."""
        for line in reply(self.nodes[0].port, "cluster", "nodes").splitlines():
            fields = line.split()
            if "master" not in fields[2]:
                continue
            for held in fields[8:]:
                first, _, last = held.partition("-")
                if first.isdigit() and int(first) <= slot <= int(last or first):
                    return next(n for n in self.nodes if f":{n.port}@" in fields[1])
        raise LookupError(f"no master serves slot {slot}")

    def move_slot(self, slot: int, target: RedisServer, keys_moved: Callable[[], None] = lambda: None) -> None:
        """Migrate ``slot`` to the master ``target`` as ``redis-cli --cluster reshard`` does: SETSLOT IMPORTING on the
        target and MIGRATING on the source, MIGRATE its keys, then ``keys_moved()`` (the window in which clients get
        ASK), then SETSLOT NODE on the target, the source and every other master (after which they get MOVED)."""
        source = self.owner(slot)
        source_id, target_id = self.node_id(source), self.node_id(target)
        self.call(target.port, "cluster", "setslot", str(slot), "importing", source_id)
        self.call(source.port, "cluster", "setslot", str(slot), "migrating", target_id)
        try:
            while names := self.call(source.port, "cluster", "getkeysinslot", str(slot), "100").split():
                migrated = self.call(source.port, "migrate", "127.0.0.1", str(target.port), "", "0", "5000", "keys",
                                     *names)
                assert migrated.strip() == "OK", migrated
            keys_moved()
        finally:  # (the slot is the target's in the end, whatever keys_moved raised)
            for node in [target, source, *(m for m in self.masters() if m not in (target, source))]:
                self.call(node.port, "cluster", "setslot", str(slot), "node", target_id)

    def kill_a_master(self, victim: RedisServer | None = None) -> float:
        """SIGKILL one master (``victim``, or the first); return once a replica serves its slots and the dead node is
        back as a synced replica: the seconds from the kill to the promotion."""
        victim = victim or self.masters()[0]
        assert victim.proc is not None
        killed = time.monotonic()
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(WAIT)
        return self.taken_over(victim, killed)

    def taken_over(self, victim: RedisServer, killed: float) -> float:
        """Return once a replica serves the slots of ``victim``, a master killed at ``killed`` (``time.monotonic``),
        and it is back as a synced replica: the seconds from the kill to the promotion."""
        survivor = next(n for n in self.nodes if n is not victim and n.proc is not None and n.proc.poll() is None)
        wait_until(lambda: len(self.masters()) == 3 and victim not in self.masters()
                   and self.state(survivor.port).get("cluster_state") == "ok", "a replica promoted")
        promoted = time.monotonic() - killed
        victim.start()  # nodes.conf is kept: it rejoins, as the replica of its slots' new master
        wait_until(lambda: "master_link_status:up" in reply(victim.port, "info", "replication"),
                   "the restarted node in sync as a replica")
        return promoted

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.proc.kill()
                node.proc.wait(WAIT)


