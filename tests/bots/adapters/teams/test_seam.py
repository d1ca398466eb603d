"""Teams was added through the seam: its folder, one registry line, its traits; the
Microsoft SDK is imported only inside the folder, and no shared module names it."""

from __future__ import annotations

import ast
from pathlib import Path

from bots.adapters import registry
from bots.platforms import traits_for

BOTS = Path(__file__).resolve().parents[4] / "bots"
FOLDER = BOTS / "adapters" / "teams"


def test_the_registry_line_loads_the_adapter_and_its_traits() -> None:
    assert registry.BUILTIN["teams"] == "bots.adapters.teams.adapter"
    adapter = registry.get("teams")
    assert adapter.traits is traits_for("teams") and adapter.command().name == "teams"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_sdk_is_imported_only_in_the_teams_folder() -> None:
    outside = [
        path.relative_to(BOTS).as_posix()
        for path in BOTS.rglob("*.py")
        if FOLDER not in path.parents
        and any(m.split(".")[0] == "microsoft_agents" for m in _imports(path))
    ]
    assert outside == []
    inside = [p for p in FOLDER.rglob("*.py") if any("microsoft_agents" in m for m in _imports(p))]
    assert inside  # the adapter does use it


def test_the_light_modules_load_without_the_sdk() -> None:
    """The registry imports adapter.py (and traits, settings) in every process: none of
    them imports the SDK at module level, so `import bots` stays cheap."""
    for name in ("adapter.py", "traits.py", "settings.py", "__init__.py"):
        assert not any("microsoft_agents" in m for m in _imports(FOLDER / name)), name
