"""Who plays and where their files live: a profile built at the edge and carried into the app.

The command line builds the terminal's profile (the login name, the per-user
data directory, games that resume); discard-web gives each browser visitor an
ephemeral one (a private temporary directory, removed when the visit ends).
Below the edge nothing looks a data directory up for itself: saved seats,
transcripts, crash reports and the embedded relay's store all live in the
profile's ``data_dir``.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from pathlib import Path

VISITOR_NAME = "guest"  # a browser visitor's name until they choose one


@dataclass(frozen=True)
class Profile:
    data_dir: Path
    name: str  # the name offered at the table when none is given
    resumes: bool = True  # games are kept on disk to come back to: the embedded relay's store, saved seats
    browser: bool = False  # a web visitor: files are offered as downloads, never shown as server paths
    config_dir: Path | None = None  # where preferences are kept (discard_tui/prefs.py); None: nothing is kept

    @property
    def games_dir(self) -> Path:
        """Saved seats (discard_tui/saves.py)."""
        return self.data_dir / "games"

    @property
    def transcripts_dir(self) -> Path:
        return self.data_dir / "transcripts"

    @property
    def crashes_dir(self) -> Path:
        return self.data_dir / "crashes"


def terminal_profile() -> Profile:
    """The OS user's: ``$DISCARD_DATA_DIR`` if set, else the platform's user data directory; the login name; the
    preferences in ``$DISCARD_CONFIG_DIR``, else ``$DISCARD_DATA_DIR`` (tests set only that one: they never touch
    the real home), else the platform's user config directory."""
    import platformdirs

    override = os.environ.get("DISCARD_DATA_DIR")
    data_dir = Path(override) if override else Path(platformdirs.user_data_dir("discard", appauthor=False))
    config = os.environ.get("DISCARD_CONFIG_DIR") or override
    config_dir = Path(config) if config else Path(platformdirs.user_config_dir("discard", appauthor=False))
    return Profile(data_dir, login_name(), config_dir=config_dir)


def visitor_profile(data_dir: Path) -> Profile:
    """A browser visitor's: ``data_dir`` is theirs alone and goes when they do, so nothing resumes."""
    return Profile(data_dir, VISITOR_NAME, resumes=False, browser=True)


def login_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = "".join(ch for ch in name if ch.isprintable())[:32]
    return name or "player"
