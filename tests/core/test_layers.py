"""core's packages form layers: each imports only the layers below it, never one beside it.

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a cycle
hidden there is still a cycle. The order is the one in docs (ARCHITECTURE, "Layout").
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"

#: bottom to top; the packages of one layer may not import each other
LAYERS: list[set[str]] = [
    {"exceptions"},
    {"utils", "crypto", "redaction", "models"},
    {"db"},
    {"run"},
    {"state"},
    {"schedule"},
    {"governance"},
    {"tools"},
    {"memory"},
    {"agent"},
    {"team"},
    {"workflow"},
    {"storage", "testing"},
]
RANK = {name: level for level, names in enumerate(LAYERS) for name in names}

#: storage importing upwards: the governance code (admin, erasure, retention, rekey,
#: budgets, undo, codec, cipher) that still lives in core.db and core.run, on its way
#: to core.governance and down into core.db; nothing may be added here
PENDING = {("db", "run"), ("db", "state"), ("db", "schedule")}


def _package(parts: list[str]) -> str | None:
    return parts[1] if len(parts) > 1 and parts[0] == "core" else None


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports (absolute name) with its line."""
    # the package a relative import starts from (an __init__ is its own package's)
    package = list(path.relative_to(CORE.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                yield ".".join([*base, *([node.module] if node.module else [])]), node.lineno
            elif node.module:
                yield node.module, node.lineno


#: the comment that marks a module left at an old path to re-export a moved one; it
#: goes once its importers use the new path, so its imports are not a layer's
MOVED_MARK = "# re-export for the move"


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(CORE.rglob("*.py")):
        if MOVED_MARK in path.read_text(encoding="utf-8"):
            continue
        source = _package(list(path.relative_to(CORE.parent).with_suffix("").parts))
        if source == "__init__":
            continue  # the core face gathers names from every layer, loaded on first use
        for module, line in _imports(path):
            target = _package(module.split("."))
            if source and target and source != target:
                where = f"{path.relative_to(CORE.parent)}:{line} imports {module}"
                edges.setdefault((source, target), []).append(where)
    return edges


def test_every_core_package_has_a_layer() -> None:
    """A new package under core is placed in the order before it is used."""
    packages = {p.parent.name for p in CORE.glob("*/__init__.py")}
    packages |= {p.stem for p in CORE.glob("*.py") if p.stem != "__init__"}
    assert packages - set(RANK) == set()


def test_no_import_goes_up_or_sideways() -> None:
    """Each import in core goes to a lower layer (the pending storage edges aside)."""
    wrong = [
        where
        for (source, target), places in _edges().items()
        if RANK[source] <= RANK[target] and (source, target) not in PENDING
        for where in places
    ]
    assert wrong == []
