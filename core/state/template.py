"""``{key}`` templating of instructions, descriptions and system messages.

Deliberately not ``str.format``: only plain names are substituted, so ``{x.y}``,
``{x[0]}``, ``{x!r}`` and ``{__class__}`` can never reach attributes or run code
through a format spec. Unknown names stay literal. The caller passes the sources in
order of precedence: session state, dependencies, run metadata, then ``user_id`` /
``session_id`` (Agno's order).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def render_value(value: Any) -> str:
    """How a value reads inside a prompt: strings as-is, containers as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def fill_template(text: str, *sources: Mapping[str, Any]) -> str:
    """Replace ``{name}`` from the first source that has it; leave the rest alone."""

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("__"):
            return match.group(0)
        for source in sources:
            if name in source:
                return render_value(source[name])
        return match.group(0)

    return _PLACEHOLDER.sub(substitute, text)
