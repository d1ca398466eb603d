"""No module outside a platform's folder names a platform: shared modules ask the
traits (``bots.platforms``) or the registry. Read from the source (AST): every string
constant but docstrings, and every import. The registry's lines are the one place
names stand, plus a few strings that only look like a platform's name."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from bots.adapters import registry

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
#: the platform SDKs, imported only inside their adapter's folder
SDKS = ("slack_sdk", "slack_bolt", "discord", "telegram")
#: strings that are not the platform they spell (path, value, why)
NOT_A_PLATFORM = {
    ("bots/ops/logging.py", "console"): "the log renderer STATEBOT_LOG_FORMAT=console",
    ("bots/settings/serving.py", "console"): "the log renderer STATEBOT_LOG_FORMAT=console",
    ("bots/settings/combined.py", "console"): "the log renderer STATEBOT_LOG_FORMAT=console",
    ("bots/web/__init__.py", "console_mounts"): "the web console's public function",
}


def _names() -> tuple[str, ...]:
    return tuple(registry.BUILTIN)


def _shared_modules() -> Iterator[Path]:
    """Every module of bots/ but those inside a built-in platform's folder."""
    for path in sorted(BOTS.rglob("*.py")):
        parts = path.relative_to(BOTS).parts
        if len(parts) >= 2 and parts[0] == "adapters" and parts[1] in registry.BUILTIN:
            continue
        yield path


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _registry_lines(tree: ast.AST) -> set[int]:
    """The constants of ``BUILTIN = {...}`` and ``DEFAULT = ...`` in the registry."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id in ("BUILTIN", "DEFAULT") for t in targets):
                found |= {id(n) for n in ast.walk(node) if isinstance(n, ast.Constant)}
    return found


def _names_a_platform(text: str) -> bool:
    low = text.lower()
    return any(low == n or low.startswith((f"{n}:", f"{n}_")) for n in _names())


def _imports_a_platform(module: str) -> bool:
    platforms = tuple(f"bots.adapters.{name}" for name in _names())
    return module.split(".")[0] in SDKS or module.startswith(platforms)


def _offences(path: Path, root: Path = ROOT) -> Iterator[str]:
    rel = path.relative_to(root).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt = _docstrings(tree)
    if rel == "bots/adapters/registry.py":
        exempt |= _registry_lines(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            listed = (rel, node.value) in NOT_A_PLATFORM
            if id(node) not in exempt and not listed and _names_a_platform(node.value):
                yield f"{rel}:{node.lineno}: {node.value!r}"
        elif isinstance(node, ast.Import):
            yield from (
                f"{rel}:{node.lineno}: import {alias.name}"
                for alias in node.names
                if _imports_a_platform(alias.name)
            )
        elif isinstance(node, ast.ImportFrom) and _imports_a_platform(node.module or "."):
            yield f"{rel}:{node.lineno}: from {node.module} import …"


def test_no_shared_module_names_a_platform() -> None:
    """Outside bots/adapters/<platform>/, no string or import names a platform."""
    offences = [line for path in _shared_modules() for line in _offences(path)]
    assert offences == []


def test_the_guard_sees_a_platform_name(tmp_path: Path) -> None:
    """The check above is not blind: a name, a key prefix, a field and an import count."""
    module = tmp_path / "bad.py"
    module.write_text(
        '"""a docstring may say slack"""\n'
        "import slack_sdk\n"
        "from bots.adapters.discord.parse import parse_message\n"
        'if platform == "slack": pass\n'
        'PREFIX = "discord:"\n'
        "token = settings.get('slack_bot_token')\n",
        encoding="utf-8",
    )
    found = sorted(line.split(": ", 1)[1] for line in _offences(module, tmp_path))
    assert found == [
        "'discord:'",
        "'slack'",
        "'slack_bot_token'",
        "from bots.adapters.discord.parse import …",
        "import slack_sdk",
    ]


def test_the_exceptions_are_still_needed() -> None:
    """Each string let through above still stands where it is listed (else drop it)."""
    for rel, value in NOT_A_PLATFORM:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        values = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert value in values, rel
