"""Save docs/table.svg: the table mid-game, with Textual's own screenshot.

Run: uv run python docs/screenshot.py
"""

import asyncio
import tempfile
from pathlib import Path

from discard_tui.app import DiscardApp, PlayConfig
from discard_tui.profile import Profile
from discard_tui.discard_screen import DiscardScreenView
from tabletop.values import Phase
from tabletop import crypto


async def main() -> None:
    app = DiscardApp(PlayConfig(name="you", room="screenshot", options={"deck": "full"}, opponent_seed=5, think_time=0,
                                seeds=(b"\x07" * 32, b"\x08" * 32)), Profile(Path(tempfile.mkdtemp()), "you"))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(6):  # a few moves in, so the piles and the log have something to show
            while not (app.view and (app.view.my_turn or app.view.phase is Phase.OVER)):
                await pilot.pause(0.02)
            if app.view.phase is Phase.OVER:
                break  # a short game: show its end
            assert isinstance(app.view, DiscardScreenView)
            playable = [i for i, ok in enumerate(app.view.playable) if ok]
            moves = app.view.moves
            assert app.seat is not None
            move = app.view.discards[playable[-1]] if playable else app.view.draw
            assert move is not None
            await app.seat.move(move)
            while (app.view.moves == moves or not app.view.my_turn) and app.view.phase is not Phase.OVER:
                await pilot.pause(0.02)
        await pilot.pause()
        app.save_screenshot("table.svg", str(Path(__file__).parent))


if __name__ == "__main__":
    crypto.start_pool()
    asyncio.run(main())
    crypto.shutdown_pool()
