"""The Session without a screen: our relay, the computers, my seat, auto-play, what is saved, and leaving."""

from __future__ import annotations

import asyncio

import pytest

from discard_tui import saves
from discard_tui.config import PlayConfig
from discard_tui.profile import terminal_profile, visitor_profile
from discard_tui.session import Session, hold_lock
from tabletop.ledger import RelayError


async def sat_down(config: PlayConfig) -> tuple[Session, asyncio.Task[None]]:
    """A session of ``config`` in a terminal's profile, seated and running, following its room."""
    session = Session(config, terminal_profile())
    await session.sit_down(await session.open_relay())
    assert session.seat is not None

    def follow() -> None:
        session.follow()

    session.seat.subscribe(follow)
    return session, asyncio.create_task(session.run())


async def test_auto_play_ends_with_its_game_and_a_finished_room_leaves_nothing_behind(data_dir, eventually):
    session, run = await sat_down(PlayConfig(game="rps", room="r1", think_time=0.01))
    seat = session.seat
    assert seat is not None and len(session.computers) == 1
    await eventually(lambda: seat.table.play.game is not None, "the computer's hello")
    assert session.set_autoplay(True) and session.computers[0].think_time == 0  # whoever asks wants the result
    await session.pump()
    assert await asyncio.wait_for(seat.completed.get(), 30) == 1
    await eventually(lambda: session.autoplaying is None, "auto-play stopping with its game")
    assert seat.autoplay is None and session.computers[0].think_time == 0.01  # the computer pauses again
    saved = saves.saved(seat)
    assert saved is not None and saved.stage == "over"

    session.forget_room()
    run.cancel()
    await session.close()
    assert saves.unfinished(terminal_profile().games_dir) == []
    assert not list(terminal_profile().games_dir.glob("*.json"))  # the computer's seat file went too
    hold_lock(data_dir / "computer-relay.lock").close()  # the store is free for the next run
    from relay.sqlite_ledger import SQLiteLedger

    assert SQLiteLedger(data_dir / "computer-relay.sqlite3").rooms == {}  # nobody comes back to it


async def test_a_visitors_embedded_relay_lets_its_one_address_hold_the_whole_store(tmp_path):
    """A browser visitor's relay keeps its games in memory (nothing resumes), and every seat, the visitor's and the
    computers', comes from 127.0.0.1: that one address may hold the whole store. (At an address's sixteenth, 16 MiB,
    a six-seat Hold'em against five computers in MODP-2048, 1.2 MiB a hand, was refused store_full after some
    thirteen hands, and in ed25519 after some 120.)"""
    from relay.memory_ledger import MemoryLedger

    session = Session(PlayConfig(room="r6"), visitor_profile(tmp_path))
    await session.open_relay()
    store = session._store
    assert isinstance(store, MemoryLedger) and store.address_bytes == store.max_bytes
    await session.close()


async def test_a_second_session_cannot_run_the_same_embedded_relay(data_dir):
    first = Session(PlayConfig(room="r2"), terminal_profile())
    await first.open_relay()
    second = Session(PlayConfig(room="r3"), terminal_profile())
    with pytest.raises(RelayError, match=f"already running this game from {data_dir}"):
        await second.open_relay()
    await second.close()
    await first.close()


async def test_a_room_opened_for_another_game_is_followed_and_saved_so(relay_url, eventually):
    opener, opener_run = await sat_down(PlayConfig(relay=relay_url, room="r4", name="ana", game="rps"))
    joiner = Session(PlayConfig(relay=relay_url, room="r4", name="bo", game="discard", options={"deck": "short"}),
                     terminal_profile())
    await joiner.sit_down(await joiner.open_relay())
    assert joiner.seat is not None
    followed: list[bool] = []
    joiner.seat.subscribe(lambda: followed.append(joiner.follow()))
    joiner_run = asyncio.create_task(joiner.run())
    await eventually(lambda: any(followed), "the joiner following the room's game")
    assert (joiner.config.game, joiner.config.seats) == ("rps", 2)
    saved = saves.saved(joiner.seat)
    assert saved is not None and saved.game == "rps"  # the same command brings bo back to rps
    for session, run in ((opener, opener_run), (joiner, joiner_run)):
        run.cancel()
        await session.close()
