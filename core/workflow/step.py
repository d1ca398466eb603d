"""Step: one unit of a workflow — an agent, a team, or a Python function.

Agent and team steps run on the workflow's open session (``arun_on_session``), so they
read and write the workflow's one ``session_state``; so does a whole workflow run as
one step (``Step(workflow=...)``, see ``Workflow.arun_as_step``). Their message is, as in
Agno, the previous step's content when there is some, else the workflow input. Function steps
receive ``step_input`` (or whatever their first parameter is called), and by name
``run_context``, ``session_state``, ``agent_state`` and ``workflow``; they may be sync
or async and return a StepOutput, or any value (used as the step's content).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.agent.history_options import check_history_runs
from core.agent.owner import SessionOwner
from core.workflow.execution import StepLike, WorkflowRun, call_user_function
from core.workflow.history import history_context
from core.workflow.types import StepInput, StepOutput, content_text

if TYPE_CHECKING:  # workflow.py imports this module
    from core.workflow.workflow import Workflow


def agent_message(step_input: StepInput) -> str:
    """What an agent or team step is asked, as in Agno: the previous step's content
    when there is some (steps chain), else the workflow input."""
    if step_input.previous_step_content is not None:
        previous = content_text(step_input.previous_step_content)
        if previous:
            return previous
    return step_input.input or ""


def as_step_output(result: Any, name: str | None) -> StepOutput:
    """A function step's return value as a StepOutput."""
    if isinstance(result, StepOutput):
        if result.step_name is None:
            result.step_name = name
        return result
    return StepOutput(content=result, step_name=name)


class Step:
    """A named step running exactly one of ``agent``, ``team``, ``executor`` or ``workflow``."""

    def __init__(
        self,
        name: str | None = None,
        agent: SessionOwner | None = None,
        team: SessionOwner | None = None,
        executor: Callable[..., Any] | None = None,
        description: str | None = None,
        step_id: str | None = None,
        workflow: Workflow | None = None,
        add_workflow_history: bool | None = None,
        num_history_runs: int | None = None,
    ) -> None:
        """``add_workflow_history`` / ``num_history_runs``: this step's own choice of
        whether (and how many of) the session's earlier runs go before its agent's or
        team's message; None takes the workflow's (``add_workflow_history_to_steps``,
        ``num_history_runs``)."""
        given = [x for x in (agent, team, executor, workflow) if x is not None]
        if len(given) != 1:
            raise ValueError("a Step needs exactly one of agent=, team=, executor= or workflow=")
        if workflow is not None and not callable(getattr(workflow, "arun_as_step", None)):
            raise TypeError(f"step {name!r}: {workflow!r} is not a Workflow")
        runner = agent if agent is not None else team
        if runner is not None and not isinstance(runner, SessionOwner):
            raise TypeError(f"step {name!r}: {runner!r} is not an Agent or a Team")
        if executor is not None and not callable(executor):
            raise TypeError(f"step {name!r}: executor must be a function")
        self.agent = agent
        self.team = team
        self.executor = executor
        self.workflow = workflow
        default_name = (
            getattr(executor, "__name__", None)  # any callable: a partial has no name
            or (runner.name if runner is not None else None)
            or (workflow.name if workflow is not None else None)
        )
        self.name: str | None = name or default_name or "step"
        self.description = description
        self.step_id = step_id
        self.add_workflow_history = add_workflow_history
        self.num_history_runs = check_history_runs(num_history_runs)

    def history_block(self, step_input: StepInput, run: WorkflowRun) -> str | None:
        """The earlier runs to put before this step's message (None: none, or not asked).

        The step's own setting wins over the workflow's, as in Agno.
        """
        workflow = run.workflow
        wanted = self.add_workflow_history
        if wanted is None:
            wanted = bool(getattr(workflow, "add_workflow_history_to_steps", False))
        if not wanted:
            return None
        count = self.num_history_runs
        if count is None:
            count = getattr(workflow, "num_history_runs", None)
        return history_context(step_input.workflow_history, count)

    @property
    def step_type(self) -> str:
        """``agent``, ``team``, ``workflow`` or ``function``."""
        if self.agent is not None:
            return "agent"
        if self.workflow is not None:
            return "workflow"
        return "team" if self.team is not None else "function"

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Run the step on the workflow's session."""
        if self.workflow is not None:
            output = await self.workflow.arun_as_step(step_input, run)
            output.step_name = self.name
            return output
        if self.executor is not None:
            try:
                result = await call_user_function(self.executor, step_input, run.values(step_input))
            finally:
                run.adopt_state()
            output = as_step_output(result, self.name)
            output.step_type = "function"
            return output
        runner = self.agent if self.agent is not None else self.team
        assert runner is not None  # exactly one of the four is set (see __init__)
        message = agent_message(step_input)
        history = self.history_block(step_input, run)
        if history:
            message = f"{history}{message}"  # Agno's layout: the block, then the message
        result = await runner.arun_on_session(
            run.handle,
            message,
            dependencies=run.dependencies,
            metadata=run.metadata,
            on_content=run.on_content,
        )
        run.tools.extend(result.tools)
        for field in ("model_calls", "tool_calls", "input_tokens", "output_tokens"):
            total = getattr(run.metrics, field) + getattr(result.metrics, field)
            setattr(run.metrics, field, total)
        return StepOutput(content=result.content, step_name=self.name, step_type=self.step_type)

    def __repr__(self) -> str:
        return f"Step({self.name!r}, {self.step_type})"


def as_step(item: Any) -> StepLike:
    """A workflow entry as a step: steps pass through, agents/teams/functions are wrapped."""
    if callable(getattr(item, "aexecute", None)):
        step: StepLike = item
        return step
    if isinstance(item, SessionOwner):
        return Step(agent=item)
    if callable(item):
        return Step(executor=item)
    raise TypeError(f"not a workflow step: {item!r} (expected a Step, Agent, Team or function)")
