"""Platforms stay apart: an adapter's folder is imported by nothing outside it (the
registry names it by its module path) and imports no other platform (docs/adapters.md).
Every import counts: module level, inside functions and under ``TYPE_CHECKING``. The
folders' layer order and the absence of cycles are import-linter contracts in
pyproject.toml, run by ``make test``; these checks discover the platform folders
themselves, so a new one is covered without being listed."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in BOTS.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every ``bots`` module ``name`` imports (``from bots.x import y`` counts bots.x, and
    bots.x.y when that is a module), wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("bots") and target != name:
                yield target


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: set(_imports(name, path, known)) for name, path in modules.items()}


def _platform(name: str) -> str | None:
    """The platform folder of an adapter module (``bots.adapters.slack.x`` -> slack)."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] == "adapters" and (BOTS / "adapters" / parts[2]).is_dir():
        return parts[2]
    return None


def test_the_graph_sees_imports_in_functions_and_type_checking() -> None:
    """The checks below read every import: a module-level one, one inside a function
    (``bots.cli.serve`` imports the registry there, an adapter its command) and one
    under TYPE_CHECKING."""
    graph = _graph()
    assert "bots.keys" in graph["bots.chat.service"]
    assert "bots.adapters.registry" in graph["bots.cli.serve"]
    assert "bots.adapters.slack.cli" in graph["bots.adapters.slack.adapter"]
    assert "bots.chat.service" in graph["bots.admin.commands"]


def test_platforms_do_not_import_each_other() -> None:
    """An adapter shares nothing with another platform except through lower layers."""
    sideways = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        for target in targets
        if _platform(name) and _platform(target) and _platform(name) != _platform(target)
    ]
    assert sideways == []


def test_only_a_platform_imports_its_folder() -> None:
    """Outside its folder a platform is reached through the registry's line naming it
    (``bots.adapters.registry.BUILTIN``), never by an import: adding one edits no
    shared module (docs/adapters.md)."""
    reaching = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        for target in targets
        if _platform(target) and _platform(name) != _platform(target)
    ]
    assert reaching == []
