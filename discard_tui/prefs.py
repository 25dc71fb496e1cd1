"""The player's preferences, kept between runs: their name, theme, last game and the computer's think time.

They live in ``preferences.json`` in the profile's ``config_dir`` (the platform's user config directory, beside
the data directory discard_tui/profile.py names; ``$DISCARD_CONFIG_DIR``, or else ``$DISCARD_DATA_DIR``, moves
it, as tests do). A browser visitor has none. A file that cannot be read costs one line and the defaults, never
a crash, and nothing is lost: a damaged file is moved aside (``preferences.json.bad-…``) before anything is
written, and a file that cannot be opened is never written over. Only the command line and the app import this.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

FILE = "preferences.json"


@dataclass(frozen=True)
class Prefs:
    name: str | None = None
    theme: str | None = None
    game: str | None = None
    think: float | None = None  # seconds the computer waits before each move


class PrefsError(ValueError):
    """A preferences file that does not say what it should, in a few words."""


def parse(data: object) -> Prefs:
    """The preferences ``data`` (parsed JSON) holds; keys it does not know are left out (a newer version's)."""
    if not isinstance(data, dict):
        raise PrefsError("not a JSON object")
    texts = {key: data.get(key) for key in ("name", "theme", "game")}
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise PrefsError(f"{key} is not a text")
    think = data.get("think")
    if think is not None and (isinstance(think, bool) or not isinstance(think, int | float)
                              or not math.isfinite(think) or think < 0):
        raise PrefsError("think is not a number of seconds")
    return Prefs(**texts, think=None if think is None else float(think))


@dataclass
class Kept:
    """The preferences read from ``directory`` (None: nothing is kept), and how to keep a change to them."""

    directory: Path | None
    prefs: Prefs = Prefs()
    problem: str | None = None  # one line about a file that could not be read
    writable: bool = True  # False: the file is there but could not be opened, so it is never written over

    @property
    def path(self) -> Path | None:
        return self.directory / FILE if self.directory is not None else None

    def change(self, **changes: object) -> str | None:
        """Keep ``changes``; one line if they could not be written (the game goes on without them)."""
        prefs = dataclasses.replace(self.prefs, **changes)  # type: ignore[arg-type]
        if prefs == self.prefs:
            return None
        self.prefs = prefs
        path = self.path
        if path is None or not self.writable:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{FILE}.{os.getpid()}")
            temporary.write_text(json.dumps(dataclasses.asdict(prefs), indent=2) + "\n", encoding="utf-8")
            temporary.replace(path)  # never half-written
        except OSError as error:
            self.writable = False  # said once; the game goes on without them
            return f"cannot keep your preferences in {path}: {error.strerror or error}"
        return None


def load(directory: Path | None) -> Kept:
    """The preferences kept in ``directory``; a damaged file is moved aside and named in ``problem``."""
    kept = Kept(directory)
    path = kept.path
    if path is None:
        return kept
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return kept
    except OSError as error:  # there, but not ours to read: never written over
        kept.writable = False
        kept.problem = f"cannot read your preferences in {path} ({error.strerror or error}): using the defaults"
        return kept
    try:
        kept.prefs = parse(json.loads(raw.decode("utf-8")))
    except ValueError as error:  # UnicodeDecodeError, JSONDecodeError and PrefsError are ValueErrors
        reason = str(error) if isinstance(error, PrefsError) else "not JSON text"
        aside = path.with_name(f"{FILE}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            path.replace(aside)
        except OSError:
            kept.writable = False
            aside = path
        kept.problem = f"your preferences in {path} are damaged ({reason}): kept as {aside.name}, using the defaults"
    return kept
