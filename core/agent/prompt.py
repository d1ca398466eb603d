"""Building the system message, fresh before every model call.

Rebuilding per call means templated values and the state shown in context always
reflect what earlier tool calls in the same run changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.state.template import fill_template


@dataclass(frozen=True, slots=True)
class PromptSpec:
    """The parts of an agent that shape its system message."""

    description: str | None = None
    instructions: str | Sequence[str] | None = None
    system_message: str | None = None
    markdown: bool = False
    resolve_in_context: bool = True
    add_session_state_to_context: bool = False
    enable_agentic_state: bool = False
    extra: tuple[str, ...] = ()


def build_system_message(
    spec: PromptSpec,
    *,
    state: Mapping[str, Any],
    dependencies: Mapping[str, Any],
    identity: Mapping[str, Any],
    memories: Sequence[str] = (),
) -> str | None:
    """The system message for one model call, or None when there is nothing to say."""

    def fill(text: str) -> str:
        if not spec.resolve_in_context:
            return text
        return fill_template(text, state, dependencies, identity)

    if spec.system_message is not None:
        return fill(spec.system_message)
    parts: list[str] = []
    if spec.description:
        parts.append(fill(spec.description))
    if isinstance(spec.instructions, str):
        parts.append(fill(spec.instructions))
    elif spec.instructions:
        parts.append("\n".join(f"- {fill(line)}" for line in spec.instructions))
    parts.extend(spec.extra)
    if spec.markdown:
        parts.append("Use markdown to format your answers.")
    if spec.add_session_state_to_context:
        shown = json.dumps(dict(state), ensure_ascii=False, indent=None)
        parts.append(f"<session_state>\n{shown}\n</session_state>")
    if spec.enable_agentic_state:
        parts.append(
            "You can change the session state with the update_session_state tool: "
            "pass a JSON merge patch (objects merge, null deletes a key)."
        )
    if memories:
        listed = "\n".join(f"- {m}" for m in memories)
        parts.append(f"<memories_about_user>\n{listed}\n</memories_about_user>")
    return "\n\n".join(p for p in parts if p) or None
