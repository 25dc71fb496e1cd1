"""Key press to card on screen: how long `d` takes to show the card drawn, against the computer.

Runs the real app headless (Textual's `run_test`) against the computer over
the embedded relay, as `uv run discard-tui` plays: on each of my turns while
the draw pile lasts it waits a person's reaction time, sends the key `d` as the
terminal would (`simulate_key`) and times until the screen's update with the card in it: the first frame the
app hands to its display once "Your hand" counts the card (a headless app
draws nothing, so the benchmark records the frames it would have written). A
draw is a post to the relay, the computer's sealed key share back, the
decryption, and a refresh. Prints the median over the draws of several games,
per group.

    uv run python benchmarks/draw.py                  # ed25519 and modp2048, 3 games each
    uv run python benchmarks/draw.py --groups ed25519 --games 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

TARGET_S = 0.030  # the median on ed25519
POLL_S = 0.0005
REACTION_S = 0.25  # the quickest a person answers a turn that has just come (the footer settles by then)


async def draws(group: str, seed: int, limit: int) -> list[float]:
    """Seconds from `d` to the card on screen, for each of my draws in one game (at most ``limit``)."""
    from textual.app import App
    from textual.widgets import Label

    from discard_tui.app import DiscardApp
    from discard_tui.config import PlayConfig
    from discard_tui.profile import terminal_profile
    from discard_tui.discard_screen import DiscardScreenView
    from tabletop.values import Phase

    frames: list[float] = []
    display = App._display

    def recorded(self: App, screen: object, renderable: object) -> None:
        if renderable is not None:
            frames.append(time.perf_counter())
        display(self, screen, renderable)  # type: ignore[arg-type]

    App._display = recorded  # type: ignore[method-assign]
    room = f"draw-{group}-{seed}-{os.getpid()}"  # a new room: the group is the room's first hello's
    app = DiscardApp(PlayConfig(name="bench", room=room, options={"deck": "full"}, opponent_seed=seed, think_time=0,
                                group=group), terminal_profile())
    times: list[float] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            while len(times) < limit:
                while not (app.view is not None and app.screen.query("#hand-label")
                           and (app.view.my_turn or app.view.phase is Phase.OVER or app.view.stopped)):
                    await asyncio.sleep(POLL_S)
                view = app.view
                if not isinstance(view, DiscardScreenView) or not view.playing or view.draw_pile == 0:
                    break
                await asyncio.sleep(REACTION_S)  # a player sees the turn come before pressing a key
                counted = f"Your hand: {len(view.hand) + 1} cards"
                start = time.perf_counter()
                app.simulate_key("d")
                while [str(label.content) for label in app.screen.query("#hand-label").results(Label)] != [counted]:
                    await asyncio.sleep(POLL_S)
                shown = time.perf_counter()
                while not frames or frames[-1] < shown:
                    await asyncio.sleep(POLL_S)
                times.append(next(t for t in frames if t >= shown) - start)
            await pilot.press("q")
    finally:
        App._display = display  # type: ignore[method-assign]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="ed25519,modp2048", help="comma-separated (default ed25519,modp2048)")
    parser.add_argument("--games", type=int, default=3, help="games per group (default 3)")
    parser.add_argument("--draws", type=int, default=8, help="draws timed per game at most (default 8)")
    args = parser.parse_args()
    os.environ["DISCARD_DATA_DIR"] = tempfile.mkdtemp(prefix="draw-bench-")
    print(f"cores: {os.cpu_count()}")
    missed = False
    for group in args.groups.split(","):
        samples = [t for seed in range(args.games) for t in asyncio.run(draws(group, seed, args.draws))]
        if not samples:
            print(f"{group}: no draw timed (every game ended before a draw)", flush=True)
            missed = True
            continue
        median = statistics.median(samples)
        line = (f"{group}: draw, key to card on screen, median {median * 1000:.1f} ms (min {min(samples) * 1000:.1f},"
                f" max {max(samples) * 1000:.1f}, {len(samples)} draws)")
        if group == "ed25519":
            missed = median > TARGET_S
            line += f"  [target <= {TARGET_S * 1000:.0f} ms: {'MISSED' if missed else 'ok'}]"
        print(line, flush=True)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
