"""Where discard keeps its files: the per-user data directory (platformdirs)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """``$DISCARD_DATA_DIR`` if set, else the platform's user data directory for discard."""
    override = os.environ.get("DISCARD_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("discard", appauthor=False))


def transcripts_dir() -> Path:
    return data_dir() / "transcripts"
