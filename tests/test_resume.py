"""Nothing lost: a killed client, a cut connection and a restarted relay all end in a fair game."""

import asyncio
import collections
import dataclasses
import json
import os
import secrets
import signal
import sqlite3
import stat
import subprocess
import sys

import pytest
import redis

from conftest import alive, descendants, seat_dir
from programs import free_port
from relay_client import Client
from discard_tui import saves
from games.discard.game import Draw
from games.discard.strategy import simple
from processes import finish, run_bot
from relay.redis_ledger import entries_of, keys
from tabletop.groups import DEFAULT_GROUP
from tabletop.table import Wish
from tabletop.values import Phase

PLAY_STARTS_AT = 14  # two joins and twelve posts: hellos, the draw for who starts, four shuffle steps, deals
# Where a game is broken mid-play: two moves in. A game of discard lasts 9 moves at the least (whoever starts
# discards five cards in a row), whatever the deck, so at least seven moves, each after the bots' pause, are
# still to come.
MID_PLAY = PLAY_STARTS_AT + 2


def wish(name: str) -> Wish:
    return Wish(name, "discard", 2, {"deck": "short"}, DEFAULT_GROUP)


def bot(url, room, name, *extra):
    """A bot that pauses before each move, so that the game is still under way when a test breaks something. Games
    are played with the 24-card deck: what is broken and resumed does not depend on the deck's size."""
    return run_bot(url, room, "--name", name, "--json", "--think", "0.03", "--seed", "7", "--deck", "short", *extra)


def quick_bot(url, room, name, *extra):
    """A bot for a game nothing interrupts: no pause."""
    return run_bot(url, room, "--name", name, "--json", "--seed", "7", "--deck", "short", *extra)


def stop_all(processes):
    for process in processes:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def assert_fair(returncode, out, err):
    assert returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and all(line["audit"] == "fair" for line in lines), lines


def assert_never_posted_twice(frames):
    """No (seat, game, counter) appears twice in a ledger."""
    posts = [json.loads(f) for f in frames]
    keys = [(p["seat"], p["body"]["game"], p["body"]["n"]) for p in posts if p["kind"] == "post"]
    duplicates = [k for k, count in collections.Counter(keys).items() if count > 1]
    assert not duplicates, duplicates


@pytest.mark.long
@pytest.mark.parametrize("kill_at, group", [(8, "modp2048"), (MID_PLAY, "ed25519")],
                         ids=["mid-shuffle", "mid-play"])
async def test_bot_killed_mid_game_resumes(relay_server, kill_at, group, data_dir, eventually):
    """Mid-shuffle in a MODP room, the killed bot's process pool leaves with it; on the curve there is none."""
    relay, url = relay_server
    room = f"crash-{kill_at}"
    survivor = bot(url, room, "steady", "--group", group)
    victim = bot(url, room, "fragile", "--group", group)
    again = None
    try:
        rooms = relay.ledger.rooms
        await eventually(lambda: room in rooms and rooms[room].head >= kill_at, "the game to get going")
        if group == "modp2048":  # its crypto pool (forkserver and workers) starts with its first shuffle step
            await eventually(lambda: len(descendants(victim.pid)) >= 3, "the victim's crypto pool")
        helpers = descendants(victim.pid)
        assert bool(helpers) == (group == "modp2048"), helpers
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        await eventually(lambda: not any(alive(pid) for pid in helpers), "the killed bot's pool processes to exit")
        left_behind = await asyncio.to_thread(victim.stderr.read)  # until its last helper has exited
        assert "leaked semaphore" not in left_behind, left_behind
        assert saves.load(seat_dir(), url, room, "fragile") is not None  # the seat survived the crash on disk
        again = bot(url, room, "fragile")  # the same command, but for its group: the room keeps its own
        for process in (survivor, again):
            assert_fair(*await finish(process))
    finally:
        for process in (survivor, victim, again):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert_never_posted_twice(relay.ledger.rooms[room].frames)
    assert saves.load(seat_dir(), url, room, "fragile") is None  # a finished game is cleaned away


async def test_cut_websocket_reconnects_and_finishes(relay_server, eventually):
    relay, url = relay_server
    room = "cut"
    sessions = []
    for seat, name in enumerate(("a", "b")):
        session, resumed = await saves.resume_or_join(seat_dir(), url, room, wish(name), think_time=0.01, autoplay=simple(seat))
        assert not resumed
        sessions.append(session)
    tasks = [asyncio.create_task(s.run()) for s in sessions]
    try:
        ledger = relay.ledger
        await eventually(lambda: ledger.rooms[room].head >= PLAY_STARTS_AT + 4, "play to start")
        relay.channels[room].seat_holder(0).connection.transport.abort()
        games = await asyncio.wait_for(asyncio.gather(*(s.completed.get() for s in sessions)), 60)
        assert games == [1, 1] and all(s.table.play.verdict == [] for s in sessions), \
            [s.table.problem for s in sessions]
        kinds = [(e["seat"], e["kind"]) for e in map(json.loads, ledger.rooms[room].frames)]
        assert kinds.count((0, "join")) == 2 and (0, "leave") in kinds  # it really was cut and came back
        assert_never_posted_twice(ledger.rooms[room].frames)
    finally:
        for task in tasks:
            task.cancel()
        for session in sessions:
            await session.ledger.close()


async def test_a_move_while_the_link_is_down_is_refused_not_queued(relay_server, players, eventually):
    """A key pressed while reconnecting would act long after, on a table the player has not seen: refused."""
    relay, _ = relay_server
    pair = await players("down", [None, simple(2)], options={"deck": "short"})
    me = pair.seats[0]
    await eventually(lambda: me.table.view().my_turn, "my turn")
    relay.channels["down"].seat_holder(0).connection.transport.abort()
    await eventually(lambda: not me.caught_up, "the link to drop")
    draw = Draw(pos=me.table.play.state.board.draw_pile[0])
    assert await me.move(draw) == "not connected to the relay: nothing was sent"
    await eventually(lambda: me.caught_up, "the link to come back")
    assert me.outbox is None and me.table.view().my_turn  # nothing was sent meanwhile
    assert await me.move(draw) is None


def stored_events(store) -> int:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return db.execute("SELECT count(*) FROM events").fetchone()[0]
    except sqlite3.Error:
        return 0


async def test_relay_restart_with_store_mid_game(spawn, tmp_path, eventually):
    port, store = free_port(), tmp_path / "relay.sqlite3"
    relay = spawn("--port", port, "--store", store, "--log-level", "WARNING")
    players = [bot(relay.url, "restart", "a"), bot(relay.url, "restart", "b")]
    try:
        await eventually(lambda: stored_events(store) >= MID_PLAY, "play to start")
        relay.kill()
        spawn("--port", port, "--store", store, "--log-level", "WARNING")
        for process in players:
            assert_fair(*await finish(process))
    finally:
        stop_all(players)


async def test_saved_seat_is_private(relay_url, data_dir):
    session, _ = await saves.resume_or_join(seat_dir(), relay_url, "private", wish("me"))
    try:
        path = saves.path_for(seat_dir(), relay_url, "private", "me")
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        saved = saves.load(seat_dir(), relay_url, "private", "me")
        assert saved.token == session.ledger.token and saved.seed_bytes == session.table.seed
    finally:
        await session.ledger.close()


async def test_a_process_that_died_before_the_welcome_takes_back_the_seat_its_join_took(relay_url, data_dir):
    """The seat file holds the join's secret id before the join is sent (relay 1.4): the process died with the relay's
    answer unread, so the file has no token; started again, it sends the join under the same id and gets the seat that
    join took, and the two-seat room still seats its second player."""
    seat = dataclasses.replace(saves.new_seat(relay_url, "crashed", "x", "", os.urandom(32), "discard", 2),
                               join_id=secrets.token_urlsafe(24))
    saves.save(seat_dir(), seat)
    lost = await Client.open(relay_url, "lost")
    first = await lost.join("crashed", "x", join_id=seat.join_id)
    lost.ws.transport.abort()  # its welcome never reached the process
    players = [await saves.resume_or_join(seat_dir(), relay_url, "crashed", wish(name)) for name in ("x", "y")]
    try:
        assert [p.ledger.seat for p, _ in players] == [0, 1]
        assert saves.load(seat_dir(), relay_url, "crashed", "x").token == first["token"]
    finally:
        for session, _ in players:
            await session.ledger.close()


async def test_resume_in_process_rebuilds_the_same_state(relay_url, eventually):
    """A second client with the saved seed and token replays the ledger into the same hand."""
    players = [await saves.resume_or_join(seat_dir(), relay_url, "replay", wish(n)) for n in ("x", "y")]
    sessions = [s for s, _ in players]
    tasks = [asyncio.create_task(s.run()) for s in sessions]
    again = None
    try:
        await eventually(lambda: all(s.table.phase is Phase.PLAYING for s in sessions), "the deal")
        before = sessions[0].table.view().board.hand
        tasks[0].cancel()
        await sessions[0].ledger.close()
        again, resumed = await saves.resume_or_join(seat_dir(), relay_url, "replay", wish("x"))
        assert resumed
        task = asyncio.create_task(again.run())
        tasks.append(task)
        await eventually(lambda: again.table.phase is Phase.PLAYING and again.caught_up, "the replay")
        assert again.table.view().board.hand == before and again.table.me == sessions[0].table.me
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in (sessions[1], again):
            if session is not None:
                await session.ledger.close()


async def test_a_bot_killed_before_printing_a_finished_game_prints_it_on_resume(relay_url, eventually):
    """Its game's keys are in the ledger but no line was written: the next run writes it, and only once."""
    players = [await saves.resume_or_join(seat_dir(), relay_url, "report", wish(name), think_time=0, autoplay=simple(seat))
               for seat, name in enumerate(("a", "b"))]
    sessions = [s for s, _ in players]
    tasks = [asyncio.create_task(s.run()) for s in sessions]
    try:
        games = await asyncio.wait_for(asyncio.gather(*(s.completed.get() for s in sessions)), 60)
        assert games == [1, 1] and all(s.table.play.verdict == [] for s in sessions)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in sessions:
            await session.ledger.close()
            saves.release(session)
    # "a" died here: after the last keys, before its line. Its seat file is still there.
    for expected in (1, 0):  # the line once, then never again
        returncode, out, err = await finish(bot(relay_url, "report", "a", "--games", "1"))
        assert returncode == 0, err
        assert [json.loads(line)["game"] for line in out.splitlines()] == [1] * expected
        if expected:  # the first run finished the room and forgot the seat: put it back as a crash would leave it
            seat = saves.new_seat(relay_url, "report", "a", sessions[0].ledger.token, sessions[0].table.seed,
                                  "discard")
            saves.save(seat_dir(), dataclasses.replace(seat, stage="over", reported=1))


async def test_a_bot_killed_between_games_picks_up_the_match(relay_url, data_dir, eventually):
    """Killed right after game 1's line and started again with the same command: the rematch, the score and who
    starts all come from the ledger, so both bots finish the three games and report the same match."""
    def match_bot(name):
        return run_bot(relay_url, "match", "--name", name, "--json", "--seed", "7", "--games", "3", "--deck", "short")

    survivor, victim = match_bot("steady"), match_bot("fragile")
    again = None
    try:
        first = json.loads(await asyncio.to_thread(victim.stdout.readline))
        assert first["game"] == 1 and sum(first["match"].values()) == 1
        await eventually(lambda: saves.load(seat_dir(), relay_url, "match", "fragile").reported == 1, "the line marked")
        victim.kill()
        victim.wait()
        again = match_bot("fragile")
        (code, out, err), (code_again, out_again, err_again) = await asyncio.gather(finish(survivor), finish(again))
        assert code == 0 and code_again == 0, (err, err_again)
        lines, lines_again = ([json.loads(line) for line in o.splitlines()] for o in (out, out_again))
        assert [line["game"] for line in lines] == [1, 2, 3] and [line["game"] for line in lines_again] == [2, 3]
        assert lines[-1]["match"] == lines_again[-1]["match"] and sum(lines[-1]["match"].values()) == 3
        assert lines[0]["match"] == first["match"]
    finally:
        stop_all([survivor, victim, again])


async def test_a_seat_is_never_taken_when_it_cannot_be_saved(relay_server, tmp_path):
    relay, url = relay_server
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the data directory should be")
    process = subprocess.Popen([sys.executable, "-m", "discard_tui.bot", "--relay", url, "--room", "nosave",
                                "--name", "x"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "DISCARD_DATA_DIR": str(blocked)})
    returncode, out, err = await finish(process)
    assert returncode == 1 and err.count("\n") == 1 and "cannot keep the saved game" in err, err
    assert "nosave" not in relay.ledger.rooms  # no orphan seat blocks the room


# -- several relay nodes on one Redis, and TLS ------------------------------------------------------


def nodes_on(spawn, redis_url, count=2):
    return [spawn("--store", redis_url, "--log-level", "WARNING", "--lease", "2") for _ in range(count)]


def frames_in_redis(redis_url, room):
    with redis.Redis.from_url(redis_url, decode_responses=True) as db:
        return [entry.frame for entry in entries_of(db.xrange(keys(room)[1]))]


def assert_whole_ledger(frames):
    """seq 1, 2, 3, ... with no gap, and no post made twice."""
    assert [json.loads(f)["seq"] for f in frames] == list(range(1, len(frames) + 1))
    assert_never_posted_twice(frames)


async def test_bots_on_two_nodes_finish_fair(spawn, shared_redis):
    a_node, b_node = nodes_on(spawn, shared_redis.url)
    room = f"nodes-{os.getpid()}"
    players = [quick_bot(a_node.url, room, "a"), quick_bot(b_node.url, room, "b")]
    try:
        for process in players:
            assert_fair(*await finish(process))
    finally:
        stop_all(players)
    assert_whole_ledger(frames_in_redis(shared_redis.url, room))


async def test_node_killed_mid_game_and_the_game_finishes_fair(spawn, shared_redis, eventually):
    a_node, b_node = nodes_on(spawn, shared_redis.url)
    room = f"node-killed-{os.getpid()}"
    players = [bot(f"{a_node.url},{b_node.url}", room, "a"), bot(f"{b_node.url},{a_node.url}", room, "b")]
    try:
        await eventually(lambda: len(frames_in_redis(shared_redis.url, room)) >= MID_PLAY, "play to start")
        a_node.kill()  # SIGKILL: player a's node is gone; a moves on to node b
        for process in players:
            assert_fair(*await finish(process))
    finally:
        stop_all(players)
    frames = frames_in_redis(shared_redis.url, room)
    assert_whole_ledger(frames)
    joins = [json.loads(f)["seat"] for f in frames if json.loads(f)["kind"] == "join"]
    assert sorted(joins.count(seat) for seat in (0, 1)) == [1, 2]  # a's seat was taken back on the other node


async def test_redis_restarted_mid_game_loses_nothing(spawn, redis_server, eventually):
    a_node, b_node = nodes_on(spawn, redis_server.url)
    room = "redis-restart"
    players = [bot(f"{a_node.url},{b_node.url}", room, "a"), bot(f"{b_node.url},{a_node.url}", room, "b")]
    try:
        await eventually(lambda: len(frames_in_redis(redis_server.url, room)) >= MID_PLAY, "play to start")
        before = frames_in_redis(redis_server.url, room)
        redis_server.restart()  # appendonly yes: SIGTERM writes the AOF, the new server reads it back
        assert frames_in_redis(redis_server.url, room)[: len(before)] == before
        for process in players:
            assert_fair(*await finish(process))
    finally:
        stop_all(players)
    assert_whole_ledger(frames_in_redis(redis_server.url, room))


async def test_bots_play_over_wss_trusting_the_relays_certificate(spawn, tls_files):
    cert, key = tls_files
    relay = spawn("--tls-cert", cert, "--tls-key", key, "--log-level", "WARNING")
    assert relay.url.startswith("wss://")
    players = [quick_bot(relay.url, "tls", name, "--relay-ca", str(cert)) for name in ("a", "b")]
    try:
        for process in players:
            assert_fair(*await finish(process))
    finally:
        stop_all(players)
