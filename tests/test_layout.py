"""Two rules of the layout that import-linter does not read (docs/architecture.md).

Modules stay small (under 400 lines; alembic's migration scripts aside), and only
``core/db`` asks which concrete store it holds: everything else dispatches by
registration (``functools.singledispatch``) or a protocol the stores implement.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "bots", "tools")
#: the concrete store classes (core/db's backends)
STORES = {"InMemoryDb", "SqliteDb", "PostgresDb", "RedisDb", "SqlDb"}


def _modules() -> list[Path]:
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def test_every_module_is_under_400_lines() -> None:
    """One job per module: a module of 400 lines or more is split by job."""
    long = [
        f"{path.relative_to(ROOT)} ({count})"
        for path in _modules()
        if "migrations" not in path.parts
        and (count := len(path.read_text(encoding="utf-8").splitlines())) >= 400
    ]
    assert long == []


def _names(node: ast.AST) -> set[str]:
    return {
        child.id if isinstance(child, ast.Name) else child.attr
        for child in ast.walk(node)
        if isinstance(child, ast.Name | ast.Attribute)
    }


def test_only_storage_asks_which_store_it_holds() -> None:
    """No isinstance on a concrete store class outside core/db."""
    found = []
    for path in _modules():
        if path.is_relative_to(ROOT / "core" / "db"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            is_check = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance"
            if is_check and len(node.args) == 2 and _names(node.args[1]) & STORES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
