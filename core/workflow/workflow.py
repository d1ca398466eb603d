"""Workflow: steps (agents, teams, functions, Condition/Router/Loop/Parallel) on ONE session.

A workflow run opens one session (kind ``"workflow"``) and every step — an agent's
tools, a team's members, a function step, an evaluator or selector — reads and writes
that session's ``session_state``. The session is saved after each step. The run's
output records every step's output in ``step_outputs`` (by step name) and takes the
last step's content as its ``content``.
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from core.agent.deadline import DEFAULT_RUN_TIMEOUT, check_timeout
from core.agent.loop import ContentSink
from core.agent.run_methods import RunMethods
from core.agent.session_api import SessionStateApi
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.exceptions import NoModelError, UnknownToolError
from core.run.output import RunOutput
from core.state.session import SessionHandle
from core.tools.function import Function
from core.utils.ids import slug
from core.workflow.execution import WorkflowRun
from core.workflow.step import as_step
from core.workflow.types import content_text


class Workflow(RunMethods, SessionStateApi):
    """An Agno-compatible workflow whose steps share one session state."""

    kind = "workflow"

    def __init__(
        self,
        name: str | None = None,
        *,
        steps: Sequence[Any] | Callable[..., Any],
        session_state: Mapping[str, Any] | None = None,
        db: BaseDb | None = None,
        id: str | None = None,
        description: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        dependencies: Mapping[str, Any] | None = None,
        overwrite_db_session_state: bool = False,
        run_timeout: float | None = DEFAULT_RUN_TIMEOUT,
    ) -> None:
        entries = [steps] if callable(steps) else list(steps)
        if not entries:
            raise ValueError("a Workflow needs at least one step")
        self.steps = [as_step(s) for s in entries]
        self.name = name
        self.id = id or (slug(name, "workflow") if name else f"workflow-{uuid.uuid4().hex[:8]}")
        self.description = description
        self.db: BaseDb = db or InMemoryDb()
        self.session_state: dict[str, Any] = copy.deepcopy(dict(session_state or {}))
        self.session_id = session_id or uuid.uuid4().hex
        self.user_id = user_id
        self.dependencies: dict[str, Any] = copy.deepcopy(dict(dependencies or {}))
        self.overwrite_db_session_state = overwrite_db_session_state
        # not an Agno argument: the whole run's deadline (core.agent.deadline)
        self.run_timeout = check_timeout("run_timeout", run_timeout)

    @property
    def functions(self) -> dict[str, Function]:
        """Tools that can be called directly: none (a workflow answers free text only)."""
        return {}

    async def arun_on_session(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
        injected: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        """Run every step on an open session; persists after each step."""
        started = time.perf_counter()
        merged = {**copy.deepcopy(self.dependencies), **copy.deepcopy(dict(dependencies or {}))}
        run = WorkflowRun(
            handle,
            input=input,
            workflow=self,
            dependencies=MappingProxyType(merged),
            metadata=dict(metadata or {}),
            on_content=on_content,
        )
        outputs = await run.run_sequence(self.steps, None)
        output = RunOutput(
            run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id
        )
        output.agent_id = self.id
        last = outputs[-1].content if outputs else None
        output.content = None if last is None else content_text(last)
        output.step_outputs = dict(run.outputs)
        output.tools = run.tools
        output.metrics = run.metrics
        output.metrics.duration_s = time.perf_counter() - started
        output.session_state = handle.tracker.public_state()
        return output

    async def arun_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> RunOutput:
        """A workflow has no directly callable tools: always UnknownToolError."""
        raise UnknownToolError(name, [])

    def check_runnable(self) -> None:
        """Refuse before the session is opened when a top-level agent step has no model."""
        for step in self.steps:
            agent = getattr(step, "agent", None)
            if agent is not None and agent.model is None:
                raise NoModelError(
                    f"workflow {self.id!r}: step {step.name!r} runs agent {agent.id!r}, "
                    "which has no model; set OPENAI_API_KEY or OPENAI_BASE_URL"
                )

    def __repr__(self) -> str:
        return f"Workflow(id={self.id!r}, steps={[s.name for s in self.steps]})"
