"""How soon discard-tui draws: the first frame, and the table, from the start of the process.

Runs `python -m discard_tui.cli` against the computer in a pseudo-terminal
(pexpect) and times the first frame (the connecting screen's text) and the
table (the hand's label: the deck shuffled and dealt, every proof made and
checked) from the spawn; for reference, how long a process takes to import
Textual's app module and nothing else. Median of N runs. With `--baseline
CHECKOUT` (another checkout with its own `uv sync`), its discard-tui and this
one take turns, and the difference of the medians is printed against the
bound (the table within 0.3 s of the baseline's).

    uv run python benchmarks/startup.py [--runs N] [--deck full|short]
    uv run python benchmarks/startup.py --baseline ../v4
"""

from __future__ import annotations

import argparse
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


def first_frame_and_table(python: str = sys.executable, cwd: str | None = None, deck: str = "full"
                          ) -> tuple[float, float]:
    """Seconds from spawning discard-tui (``python``, in checkout ``cwd``) to its first frame, and to the table with
    a hand."""
    env = {**os.environ, "DISCARD_DATA_DIR": tempfile.mkdtemp(prefix="discard-bench-")}
    started = time.perf_counter()
    child = pexpect.spawn(python, ["-m", "discard_tui.cli", "--name", "bench", "--deck", deck],
                          dimensions=(24, 80), env=env, encoding="utf-8", timeout=60, cwd=cwd)
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


BOUND = 0.3  # seconds the dealt table may take beyond the baseline's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each (default 5)")
    parser.add_argument("--deck", choices=["full", "short"], default="full", help="the deck dealt (default full)")
    parser.add_argument("--baseline", metavar="CHECKOUT", help="another checkout to take turns with")
    args = parser.parse_args()
    textual = [import_textual() for _ in range(args.runs)]
    t = statistics.median(textual)
    print(f"runs: {args.runs}, deck {args.deck} (medians; ranges in brackets)")
    print(f"import textual.app alone:   {t:.2f} s  [{min(textual):.2f}-{max(textual):.2f}]")
    checkouts = {"this checkout": (sys.executable, None)}
    if args.baseline:
        checkouts = {"baseline": (os.path.join(args.baseline, ".venv", "bin", "python"), args.baseline), **checkouts}
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in checkouts}
    for _ in range(args.runs):
        for label, (python, cwd) in checkouts.items():
            samples[label].append(first_frame_and_table(python, cwd, args.deck))
    tables = {}
    for label, runs in samples.items():
        frames, dealt = zip(*runs)
        f, tables[label] = statistics.median(frames), statistics.median(dealt)
        print(f"{label}: first frame {f:.2f} s  [{min(frames):.2f}-{max(frames):.2f}]  (textual.app + {f - t:.2f} s;"
              f" target + 0.20 s); table, dealt {tables[label]:.2f} s  [{min(dealt):.2f}-{max(dealt):.2f}]")
    if args.baseline:
        late = tables["this checkout"] - tables["baseline"]
        print(f"the dealt table, this checkout - baseline: {late:+.2f} s  [bound +{BOUND:.1f} s: "
              f"{'ok' if late <= BOUND else 'MISSED'}]")


if __name__ == "__main__":
    main()
