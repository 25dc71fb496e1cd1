"""What the first frame costs: the app's modules import no game rules, crypto or network code, and no layer imports
a layer above it. Checked in a fresh interpreter, since this one has imported everything already."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRST_FRAME = ("discard_tui.cli", "discard_tui.app")  # what discard-tui imports before it draws
HEAVY = ("tabletop", "relay", "gmpy2", "cryptography", "websockets", "nacl", "pydantic", "redis", "pokerkit",
         "eval7")


def imported_by(*modules: str) -> list[str]:
    code = f"import json, sys\nfor m in {list(modules)!r}: __import__(m)\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_first_frame_imports_no_rules_crypto_or_network():
    loaded = imported_by(*FIRST_FRAME)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    rules = [m for m in loaded if m.startswith("games.") and m != "games.cards"]
    assert heavy == [] and rules == [], heavy + rules


# package -> packages of this project it must not import (GUIDE's layering: each layer sees only those below)
FORBIDDEN = {
    "relay": {"tabletop", "games", "discard_tui"},
    "tabletop": {"games", "discard_tui", "relay"},
    "games": {"discard_tui", "relay", "textual"},
}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_layer_imports_a_layer_above_it(package):
    wrong = {str(path.relative_to(ROOT)): sorted(imports_of(path) & FORBIDDEN[package])
             for path in sorted((ROOT / package).rglob("*.py"))}
    assert {path: names for path, names in wrong.items() if names} == {}
