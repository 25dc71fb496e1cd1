"""How soon discard-tui draws: the first frame, and the table, from the start of the process.

Runs `python -m discard_tui.cli` against the computer in a pseudo-terminal
(pexpect) and times the first frame (the connecting screen's text) and the
table (the hand's label) from the spawn; for reference, how long a process
takes to import Textual's app module and nothing else. Median of N runs.

    uv run python benchmarks/startup.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import pexpect


def import_textual() -> float:
    """Seconds for a fresh interpreter to import textual.app and exit."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import textual.app"], check=True)
    return time.perf_counter() - started


def first_frame_and_table() -> tuple[float, float]:
    """Seconds from spawning discard-tui to its first frame, and to the table with a hand."""
    env = {**os.environ, "DISCARD_DATA_DIR": tempfile.mkdtemp(prefix="discard-bench-")}
    started = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "discard_tui.cli", "--name", "bench", "--deck", "short"],
                          dimensions=(24, 80), env=env, encoding="utf-8", timeout=60)
    child.expect("Playing the computer")
    first = time.perf_counter() - started
    child.expect("Your hand")
    table = time.perf_counter() - started
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    if child.exitstatus != 130:
        sys.exit(f"discard-tui ended with {child.exitstatus} after Ctrl-C, not 130")
    return first, table


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    textual = [import_textual() for _ in range(runs)]
    frames, tables = zip(*(first_frame_and_table() for _ in range(runs)))
    t, f, b = statistics.median(textual), statistics.median(frames), statistics.median(tables)
    print(f"runs: {runs} (medians; ranges in brackets)")
    print(f"import textual.app alone:   {t:.2f} s  [{min(textual):.2f}-{max(textual):.2f}]")
    print(f"discard-tui first frame:    {f:.2f} s  [{min(frames):.2f}-{max(frames):.2f}]"
          f"  (textual.app + {f - t:.2f} s; target + 0.20 s)")
    print(f"discard-tui table, dealt:   {b:.2f} s  [{min(tables):.2f}-{max(tables):.2f}]")


if __name__ == "__main__":
    main()
