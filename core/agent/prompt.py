"""Building the system message, fresh before every model call.

Rebuilding per call means templated values and the state shown in context always
reflect what earlier tool calls in the same run changed.

``{key}`` is filled from the state, then the run's (resolved) dependencies, then its
metadata, then ``user_id`` / ``session_id`` (:mod:`core.state.template`).
``add_dependencies_to_context`` shows the resolved dependencies as JSON in an
``<additional context>`` block of the system message (Agno appends that block to the
user message; here the user's message stays exactly what they typed). Tool
instructions (``@tool(instructions=...)``, a Toolkit's ``instructions`` with
``add_instructions=True``) follow the agent's own instructions, each text once.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from core.state.template import fill_template
from core.tools.function import Function


@dataclass(frozen=True, slots=True)
class PromptSpec:
    """The parts of an agent that shape its system message."""

    description: str | None = None
    instructions: str | Sequence[str] | None = None
    system_message: str | None = None
    markdown: bool = False
    resolve_in_context: bool = True
    add_session_state_to_context: bool = False
    add_dependencies_to_context: bool = False
    enable_agentic_state: bool = False
    add_session_summary_to_context: bool = False
    extra: tuple[str, ...] = ()
    #: "The current time is ..." (``add_datetime_to_context``), read per model call
    current_time: Callable[[], str] | None = None
    #: the agent's name, told to the model (``add_name_to_context``); None: not told
    name: str | None = None
    #: the role the system message is sent with (Agno's ``system_message_role``)
    role: str = "system"


#: a run's own ``add_dependencies_to_context`` and ``add_session_state_to_context``
#: (Agno's ``run`` arguments, and a Workflow's for its steps; None: the owner's): its
#: model calls see them, and so do its members' and steps' (they run in its context)
_RUN_FLAGS: ContextVar[tuple[bool | None, bool | None]] = ContextVar(
    "run_context_flags", default=(None, None)
)


@contextmanager
def run_flags(
    *,
    add_dependencies_to_context: bool | None = None,
    add_session_state_to_context: bool | None = None,
    outer_wins: bool = False,
) -> Iterator[None]:
    """Within: the given flags (not None) override every PromptSpec's own.

    ``outer_wins``: a flag already set around this (a run's, over its workflow's
    defaults) is kept.
    """
    given = (add_dependencies_to_context, add_session_state_to_context)
    outer = _RUN_FLAGS.get()
    first, second = (outer, given) if outer_wins else (given, outer)
    flags = (
        first[0] if first[0] is not None else second[0],
        first[1] if first[1] is not None else second[1],
    )
    token = _RUN_FLAGS.set(flags)
    try:
        yield
    finally:
        _RUN_FLAGS.reset(token)


def build_system_message(
    spec: PromptSpec,
    *,
    state: Mapping[str, Any],
    dependencies: Mapping[str, Any],
    identity: Mapping[str, Any],
    memories: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
    functions: Mapping[str, Function] | None = None,
    summary: str | None = None,
) -> str | None:
    """The system message for one model call, or None when there is nothing to say.

    ``dependencies`` are the run's resolved ones (``run_context.dependencies``);
    ``summary`` the session's stored summary, shown when the spec asks for it (never
    templated: it is the model's own text about the users' words).
    """
    dependencies_shown, state_shown = _RUN_FLAGS.get()
    if dependencies_shown is not None:
        spec = dataclasses.replace(spec, add_dependencies_to_context=dependencies_shown)
    if state_shown is not None:
        spec = dataclasses.replace(spec, add_session_state_to_context=state_shown)

    def fill(text: str) -> str:
        if not spec.resolve_in_context:
            return text
        return fill_template(text, state, dependencies, metadata or {}, identity)

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
    if spec.name:
        parts.append(f"Your name is: {spec.name}.")
    parts.extend(tool_instructions(functions or {}))
    if spec.markdown:
        parts.append("Use markdown to format your answers.")
    if spec.current_time is not None:
        parts.append(spec.current_time())
    if spec.add_session_state_to_context:
        shown = json.dumps(dict(state), ensure_ascii=False, indent=None)
        parts.append(f"<session_state>\n{shown}\n</session_state>")
    if spec.add_dependencies_to_context and dependencies:
        shown = json.dumps(dict(dependencies), ensure_ascii=False, indent=2, default=str)
        parts.append(f"<additional context>\n{shown}\n</additional context>")
    if spec.enable_agentic_state:
        parts.append(
            "You can change the session state with the update_session_state tool: "
            "pass a JSON merge patch (objects merge, null deletes a key)."
        )
    if memories:
        listed = "\n".join(f"- {m}" for m in memories)
        parts.append(f"<memories_about_user>\n{listed}\n</memories_about_user>")
    if spec.add_session_summary_to_context and summary:
        parts.append(
            "A summary of your earlier conversation in this session (it may be out of "
            "date: prefer what is said in this conversation):\n"
            f"<summary_of_previous_interactions>\n{summary}\n</summary_of_previous_interactions>"
        )
    return "\n\n".join(p for p in parts if p) or None


def tool_instructions(functions: Mapping[str, Function]) -> list[str]:
    """The instructions the tools ask to add, in tool order, each text once."""
    texts: list[str] = []
    for function in functions.values():
        for text in (
            function.toolkit_instructions,
            function.instructions if function.add_instructions else None,
        ):
            if text and text not in texts:
                texts.append(text)
    return texts
