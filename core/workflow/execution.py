"""One workflow run in progress: its session handle, step outputs, and how steps run.

Every step kind (Step, Condition, Router, Loop, Parallel) implements
``aexecute(step_input, run) -> StepOutput``; :class:`WorkflowRun` runs them in order,
persisting the session after each step. A step that raises leaves the state as it was
before that step (earlier steps stay saved) and the error ends the run.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from core.agent.loop import ContentSink
from core.agent.streaming import step_scope
from core.db.codec import encode_state
from core.db.values import TRANSIENT_KEYS
from core.run.context import RunContext
from core.run.output import RunMetrics, ToolExecution
from core.state.schema_session import checked_checkpoint
from core.state.session import SessionHandle
from core.state.tracker import StateTracker
from core.state.view import AgentState
from core.tools.hooks import call_with
from core.workflow.history import HistoryPair, workflow_history
from core.workflow.types import StepInput, StepOutput


class StepLike(Protocol):
    """Anything a workflow can run as a step."""

    name: str | None

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput: ...


async def call_user_function(
    fn: Callable[..., Any], first: Any, available: Mapping[str, Any]
) -> Any:
    """Call a step function, evaluator or selector, sync or async.

    Values are injected by parameter name (``step_input``, ``run_context``,
    ``session_state``, ...); a first parameter with any other name receives ``first``,
    as in ``def my_step(inp: StepInput)``.
    """
    values = dict(available)
    params = list(inspect.signature(fn).parameters.values())
    head = params[0] if params else None
    if head is not None and head.kind is head.POSITIONAL_OR_KEYWORD and head.name not in values:
        values[head.name] = first
    result = call_with(fn, values)
    return await result if inspect.isawaitable(result) else result


class _BranchHandle(SessionHandle):
    """A Parallel branch's handle over a private copy of the state; it never saves."""

    __slots__ = ()

    async def persist(self) -> None:
        """Branches are merged into the run when all of them finish, not saved alone."""


class WorkflowRun:
    """The state of one run: live session handle, run context, outputs so far."""

    __slots__ = (
        "_history",
        "dependencies",
        "handle",
        "input",
        "metadata",
        "metrics",
        "on_content",
        "outputs",
        "run_context",
        "stopped",
        "tools",
        "workflow",
    )

    def __init__(
        self,
        handle: SessionHandle,
        *,
        input: str | None,
        workflow: Any,
        dependencies: Mapping[str, Any],
        metadata: Mapping[str, Any],
        on_content: ContentSink | None = None,
    ) -> None:
        self.handle = handle
        self.input = input
        self.workflow = workflow
        self.dependencies = dependencies
        self.metadata = metadata
        self.on_content = on_content
        self.run_context = RunContext(
            run_id=handle.run_id,
            session_id=handle.session_id,
            user_id=handle.user_id,
            session_state=handle.state,
            dependencies=dict(dependencies),
            metadata=dict(metadata),
        )
        self.outputs: dict[str, StepOutput] = {}
        self.tools: list[ToolExecution] = []
        self.metrics = RunMetrics()
        self.stopped = False
        self._history: list[HistoryPair] | None = None

    @property
    def history(self) -> list[HistoryPair]:
        """The session's earlier completed runs, (input, output), read once per run.

        The run itself is recorded only when it ends, so it is never among them.
        """
        if self._history is None:
            self._history = workflow_history(self.handle.data)
        return self._history

    # -- injection ------------------------------------------------------------------
    def values(self, step_input: StepInput) -> dict[str, Any]:
        """What step functions, evaluators and selectors may ask for by name."""
        return {
            "step_input": step_input,
            "run_context": self.run_context,
            "session_state": self.handle.state,
            "agent_state": AgentState(self.handle.state),
            "workflow": self.workflow,
        }

    def adopt_state(self) -> None:
        """A function may assign a new dict to run_context.session_state: make it live."""
        replaced = self.run_context.session_state
        live = self.handle.state
        if replaced is live:
            return
        transient = {k: live.get(k) for k in TRANSIENT_KEYS}
        live.clear()
        live.update(replaced if isinstance(replaced, dict) else {})
        live.update(transient)
        self.run_context.session_state = live

    def replace_state(self, public: Mapping[str, Any]) -> None:
        """Make ``public`` the live state, in place (transient keys kept)."""
        live = self.handle.state
        transient = {k: live.get(k) for k in TRANSIENT_KEYS}
        live.clear()
        live.update(public)
        live.update(transient)

    def step_input(self, previous_content: Any) -> StepInput:
        """The input of the next step."""
        return StepInput(
            input=self.input,
            previous_step_content=previous_content,
            previous_step_outputs=dict(self.outputs),
            workflow_history=self.history,
        )

    # -- running steps ----------------------------------------------------------------
    async def run_step(self, step: StepLike, step_input: StepInput) -> StepOutput:
        """Run one step and persist; on error the state goes back to before the step."""
        checkpoint = self.handle.tracker.checkpoint()
        async with step_scope(
            self.workflow, self.handle.run_id, self.handle.session_id, step.name
        ) as step_completed:
            try:
                output = await step.aexecute(step_input, self)
                self.adopt_state()
                checked_checkpoint(self.handle)  # a step's state must fit the schema, as a tool's
                await self.handle.persist()  # a value that is not JSON fails here, naming the key
            except BaseException:
                self.adopt_state()
                self.handle.tracker.rollback(checkpoint)
                raise
            step_completed(output)
        if output.step_name is None:
            output.step_name = step.name
        if output.step_name:
            self.outputs[output.step_name] = output
        if output.stop:
            self.stopped = True
        return output

    async def run_sequence(
        self, steps: Sequence[StepLike], previous_content: Any
    ) -> list[StepOutput]:
        """Run steps in order, each seeing the previous one's content."""
        outputs: list[StepOutput] = []
        for step in steps:
            if self.stopped:
                break
            output = await self.run_step(step, self.step_input(previous_content))
            outputs.append(output)
            previous_content = output.content
        return outputs

    def branch(self) -> WorkflowRun:
        """A run over a deep copy of the current state, for one Parallel branch."""
        state = copy.deepcopy(self.handle.state)
        handle = _BranchHandle(
            self.handle.db,
            session_id=self.handle.session_id,
            user_id=self.handle.user_id,
            run_id=self.handle.run_id,
            meta=self.handle.meta,
            lease=self.handle.lease,
            version=self.handle.version,
            tracker=StateTracker(state, encode_state(state)),
        )
        child = WorkflowRun(
            handle,
            input=self.input,
            workflow=self.workflow,
            dependencies=self.dependencies,
            metadata=self.metadata,
            on_content=self.on_content,
        )
        # outputs and costs are shared: branches report into the one run; a branch's
        # handle holds no run history, so it sees the run's
        child._history = self.history
        child.outputs = self.outputs
        child.tools = self.tools
        child.metrics = self.metrics
        return child
