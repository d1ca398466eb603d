"""Workflow: steps (agents, teams, functions, Condition/Router/Loop/Parallel) on ONE session.

A workflow run opens one session (kind ``"workflow"``) and every step — an agent's
tools, a team's members, a function step, an evaluator or selector — reads and writes
that session's ``session_state``. The session is saved after each step. The run's
output records every step's output in ``step_outputs`` (by step name) and takes the
last step's content, unchanged, as its ``content``. A workflow can itself be a step
of another workflow (``Step(workflow=...)``), running on the outer run's session.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.agent.agent import Agent
from core.agent.deadline import DEFAULT_RUN_TIMEOUT
from core.agent.history_options import DEFAULT_HISTORY_RUNS, check_history_runs
from core.agent.loop import ContentSink
from core.agent.prompt import run_flags
from core.agent.session_api import SessionStateApi
from core.agent.streaming import observe_run
from core.db.base import BaseDb
from core.exceptions import NoModelError, UnknownToolError
from core.governance.budgets.model import Budget
from core.run.output import RunOutput
from core.state.merge import deep_merge
from core.state.schema import Migration, StateSchema
from core.state.session import SessionHandle
from core.team.team import Team
from core.tools.dependencies import resolve_dependencies
from core.workflow.copying import deep_copy_workflow
from core.workflow.execution import WorkflowRun
from core.workflow.step import Step, as_step
from core.workflow.stream_options import StreamDefaults
from core.workflow.types import StepInput, StepOutput


class Workflow(StreamDefaults, SessionStateApi):
    """An Agno-compatible workflow whose steps share one session state."""

    kind = "workflow"
    owner_param = "workflow"

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
        session_state_schema: type[Any] | StateSchema | None = None,
        session_state_schema_version: int = 1,
        session_state_migrations: Mapping[int, Migration] | None = None,
        budget: Budget | None = None,
        add_workflow_history_to_steps: bool = False,
        num_history_runs: int | None = DEFAULT_HISTORY_RUNS,
        metadata: Mapping[str, Any] | None = None,
        cache_session: bool = False,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        stream: bool | None = None,
        stream_events: bool = False,
        stream_executor_events: bool = True,
    ) -> None:
        """Build the workflow (a template: runs never change it).

        ``add_workflow_history_to_steps``: agent and team steps get the session's last
        ``num_history_runs`` completed runs (input and output) before their message
        (:mod:`core.workflow.history`); a step's own ``add_workflow_history`` /
        ``num_history_runs`` wins. ``metadata`` is merged into every run's metadata,
        over what the call passes (this workflow's keys win, as in Agno).
        ``cache_session`` is accepted for Agno code: sessions are always cached per
        process here, checked against the store on every run (core.state.cache), so
        both values read the same, current session. ``add_dependencies_to_context`` /
        ``add_session_state_to_context``: for every agent and team of its steps (None:
        each its own; a run's own flags win). ``stream`` / ``stream_events``: the
        defaults of runs that do not pass them (:mod:`core.workflow.stream_options`);
        ``stream_executor_events=False`` leaves the events of its agents and teams out of
        streamed runs but for their completed, error and cancelled events.
        """
        entries = [steps] if callable(steps) else list(steps)
        if not entries:
            raise ValueError("a Workflow needs at least one step")
        self.steps = [as_step(s) for s in entries]
        super().__init__(
            name=name,
            id=id,
            db=db,
            session_state=session_state,
            session_id=session_id,
            user_id=user_id,
            dependencies=dependencies,
            overwrite_db_session_state=overwrite_db_session_state,
            run_timeout=run_timeout,
            session_state_schema=session_state_schema,
            session_state_schema_version=session_state_schema_version,
            session_state_migrations=session_state_migrations,
            budget=budget,
        )
        self.description = description
        self.add_workflow_history_to_steps = add_workflow_history_to_steps
        self.num_history_runs = check_history_runs(num_history_runs)
        self.metadata = dict(metadata) if metadata is not None else None
        self.cache_session = cache_session
        self.add_dependencies_to_context = add_dependencies_to_context
        self.add_session_state_to_context = add_session_state_to_context
        self.stream = stream
        self.stream_events = stream_events
        self.stream_executor_events = stream_executor_events
        # ``functions`` stays empty: a workflow answers free text only

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
        # callables are called once per run, as for agents (core.tools.dependencies)
        resolved = await resolve_dependencies(
            self.run_dependencies(dependencies), {"workflow": self, "session_state": handle.state}
        )
        run = WorkflowRun(
            handle,
            input=input,
            workflow=self,
            dependencies=resolved,
            metadata=self.run_metadata(metadata),
            on_content=on_content,
        )
        flags = run_flags(
            add_dependencies_to_context=self.add_dependencies_to_context,
            add_session_state_to_context=self.add_session_state_to_context,
            outer_wins=True,
        )
        async with observe_run(self, handle.run_id, handle.session_id) as observer:
            with flags:
                outputs = await run.run_sequence(self.steps, None)
            output = RunOutput(
                run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id
            )
            output.agent_id = self.id
            # kept as the step returned it (a pydantic model stays a model, as in Agno)
            output.content = outputs[-1].content if outputs else None
            output.step_outputs = dict(run.outputs)
            output.tools = run.tools
            output.metrics = run.metrics
            output.metrics.duration_s = time.perf_counter() - started
            output.keep_state(handle.final_state())
            observer.output = output
        return output

    async def arun_as_step(self, step_input: StepInput, outer: WorkflowRun) -> StepOutput:
        """Run this workflow as one step of another, on the outer run's session.

        Its steps see the outer workflow's input, and its first step the outer previous
        step's content. Its template's missing top-level keys are added to the shared
        state (nothing present is touched); run dependencies override its own. Its tool
        calls and costs count in the outer run; ``StepOutput(stop=True)`` inside it ends
        only this workflow. The outer step's checkpoint covers it as a whole.
        """
        state = outer.handle.state
        for key, value in self.session_state.items():
            if key not in state:
                state[key] = copy.deepcopy(value)
        run = WorkflowRun(
            outer.handle,
            input=step_input.input,
            workflow=self,
            dependencies=self.run_dependencies(outer.dependencies),
            metadata=self.run_metadata(outer.metadata),
            on_content=outer.on_content,
        )
        run.tools = outer.tools  # costs and tool calls are reported into the outer run
        run.metrics = outer.metrics
        handle = outer.handle
        async with observe_run(self, handle.run_id, handle.session_id) as observer:
            outputs = await run.run_sequence(self.steps, step_input.previous_step_content)
            content = outputs[-1].content if outputs else step_input.previous_step_content
            inner = RunOutput(
                run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id
            )
            inner.agent_id, inner.content, inner.step_outputs = self.id, content, dict(run.outputs)
            inner.keep_state(handle.final_state())
            observer.output = inner
        return StepOutput(content=content, step_type="workflow", steps=outputs)

    def deep_copy(self, *, update: Mapping[str, Any] | None = None) -> Workflow:
        """An isolated copy, ``update`` over its settings (:mod:`core.workflow.copying`)."""
        return deep_copy_workflow(self, update)

    def run_metadata(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """A run's metadata: what the call passed, with this workflow's merged over it."""
        if not self.metadata:
            return dict(given or {})  # nothing to merge: the caller's values, uncopied
        return deep_merge(dict(given or {}), self.metadata)

    async def arun_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        """A workflow has no directly callable tools: always UnknownToolError."""
        raise UnknownToolError(name, [])

    def check_runnable(self) -> None:
        """Refuse before the session is opened when a top-level agent step has no model."""
        for step in self.steps:
            agent = step.agent if isinstance(step, Step) else None
            if isinstance(agent, Agent | Team) and agent.model is None:
                raise NoModelError(
                    f"workflow {self.id!r}: step {step.name!r} runs agent {agent.id!r}, "
                    "which has no model; set OPENAI_API_KEY or OPENAI_BASE_URL"
                )

    def __repr__(self) -> str:
        return f"Workflow(id={self.id!r}, steps={[s.name for s in self.steps]})"
