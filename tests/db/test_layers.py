"""core/db is storage only: it imports nothing from the packages built on it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DB = ROOT / "core" / "db"
#: the layers above storage (ARCHITECTURE.md, "Layout (target)")
ABOVE = ("core.run", "core.state", "core.schedule", "core.governance")
#: old paths kept as re-exports while the modules that moved are being merged
MOVED = {"admin.py", "admin_search.py", "erasure.py", "rekey.py", "retention.py", "user_export.py"}


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an import names, at any depth (functions, TYPE_CHECKING blocks)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return found


def test_storage_imports_no_layer_above_it() -> None:
    """No module of core/db (re-exports of moved modules aside) imports run, state,
    schedule or governance, not even inside a function or under TYPE_CHECKING."""
    offending = []
    for path in sorted(DB.rglob("*.py")):
        if path.parent == DB and path.name in MOVED:
            continue
        for line, module in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            if module.startswith(tuple(f"{a}." for a in ABOVE)) or module in ABOVE:
                offending.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert offending == []


def test_the_moved_modules_only_re_export() -> None:
    """What is left at a moved module's old path is imports and nothing else."""
    for name in sorted(MOVED):
        tree = ast.parse((DB / name).read_text(encoding="utf-8"))
        body = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
        assert len(body) == 1 and isinstance(body[0], ast.Expr), name  # the docstring
