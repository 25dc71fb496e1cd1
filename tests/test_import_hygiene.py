"""What the first frame costs: the app's modules import no game rules, crypto or network code, and no layer imports
a layer above it. Checked in a fresh interpreter, since this one has imported everything already."""

from __future__ import annotations

import ast
import json
import re
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


# what the first frame may import of those packages: playing cards, each game's facts, the table's values and their
# words (plain dataclasses, enums and strings)
LIGHT = re.compile(r"tabletop|tabletop\.(about|values|words)|games|games\.cards|games\.\w+|games\.\w+\.about")


def test_the_first_frame_imports_no_rules_crypto_or_network():
    loaded = imported_by(*FIRST_FRAME)
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY and not LIGHT.fullmatch(m)]
    rules = [m for m in loaded if m.startswith("games.") and not LIGHT.fullmatch(m)]
    assert heavy == [] and rules == [], heavy + rules
    assert "tabletop.about" in loaded  # the facts the command line reads (this test would pass without games)


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


def module_graph() -> dict[str, set[str]]:
    """Each module of the four packages -> the modules of them it imports, at its top or inside a function."""
    paths = {".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
             for package in ("relay", "tabletop", "games", "discard_tui") for path in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
                name = ".".join(part for part in (base, node.module or "") if part)
                found |= {name, *(f"{name}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[module] = {name for name in found if name in paths and name != module}
    return graph


def test_no_module_imports_itself_round_a_cycle():
    """Not even lazily: a cycle hidden in a function (a game and its computer player) is still a cycle."""
    graph = module_graph()
    cycles = []

    def visit(module: str, path: list[str], done: set[str]) -> None:
        for name in sorted(graph[module]):
            if name in path:
                cycles.append(path[path.index(name):] + [name])
            elif name not in done:
                done.add(name)
                visit(name, [*path, name], done)

    for module in sorted(graph):
        visit(module, [module], {module})
    assert cycles == []
