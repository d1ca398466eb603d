"""The diff between two versions of a state: difflib over indented JSON, keys sorted,
so a change reads as the lines of the keys that changed."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from bots.web.render import pretty

LineKind = Literal["same", "added", "removed", "hunk"]


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a diff, and whether it was added, removed or kept."""

    kind: LineKind
    text: str


def state_diff(old: Any, new: Any, *, context: int = 3) -> list[DiffLine]:
    """Lines of the unified diff from ``old`` to ``new`` (empty when equal)."""
    lines = difflib.unified_diff(
        pretty(old).splitlines(), pretty(new).splitlines(), lineterm="", n=context
    )
    out: list[DiffLine] = []
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            out.append(DiffLine("hunk", line))
        elif line.startswith("+"):
            out.append(DiffLine("added", line[1:]))
        elif line.startswith("-"):
            out.append(DiffLine("removed", line[1:]))
        else:
            out.append(DiffLine("same", line[1:]))
    return out


def changed_keys(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """Top-level keys added, removed or changed from ``old`` to ``new``."""
    old = old or {}
    return sorted(k for k in set(old) | set(new) if old.get(k, _MISSING) != new.get(k, _MISSING))


_MISSING = object()
