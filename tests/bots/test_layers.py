"""The chat layer's folders import only the folders below them, and no module imports
itself back through others (docs/chat.md, "Layers"). Every import counts: module level,
inside functions and under ``TYPE_CHECKING``, because hiding an import hides no cycle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"

#: top to bottom; the vocabulary (``bots/<module>.py`` and ``bots/settings/``) is below all
LAYERS = ("cli", "adapters", "web", "app", "admin", "chat", "ops")


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


def _layer(name: str) -> int:
    """0 for the ``bots`` face, then LAYERS in order, then the vocabulary."""
    parts = name.split(".")
    if len(parts) == 1:
        return 0
    if parts[1] in LAYERS:
        return 1 + LAYERS.index(parts[1])
    return 1 + len(LAYERS)


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


def test_every_import_points_down_the_layers() -> None:
    """A module imports its own folder or folders below it, never one above."""
    upward = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        for target in targets
        if _layer(target) < _layer(name)
    ]
    assert upward == []


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


def test_no_module_imports_itself_back() -> None:
    """No import cycle between bots modules (strongly connected parts of the graph)."""
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert cycles == []
