"""RunContext: the live view of one run, injected into tools, hooks and workflow steps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class RunContext:
    """Identity and live state of the current run.

    ``session_state`` is the live state: changes made to it (or a new dict assigned to
    it) are what the run persists. ``dependencies`` and ``metadata`` are read-only
    per-run data and are never persisted.
    """

    run_id: str
    session_id: str
    user_id: str | None = None
    session_state: dict[str, Any] = field(default_factory=dict)
    dependencies: Mapping[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the messages of the run so far, earlier turns included (``add_history_to_context``)
    messages: list[Any] = field(default_factory=list)
