"""Running one tool directly, without the model (slash commands, ``arun_tool``).

The call goes through the same hooks, validation, rollback and persistence as a call
the model makes, and the same run path (:mod:`core.agent.runner`: lease, load, deadline,
save); only the model is left out. A tool with ``requires_confirmation``
is not run: the call returns a *paused* output, stored in the session's history like
a model run's pause (marked ``direct``), and ``continue_run`` runs or rejects it once,
from any process, without a model turn after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.agent import runner
from core.agent.deadline import DEFAULT_TOOL_TIMEOUT
from core.agent.loop import Resume
from core.agent.owner import SessionOwner
from core.agent.tool_calls import execute_tool_call, prepare_run
from core.exceptions import UnknownToolError
from core.run.history import RunRecord
from core.run.output import RunOutput, RunStatus, ToolExecution
from core.state.session import SessionHandle
from core.tools.function import Function
from core.utils.sync import run_sync


def check_direct_call(
    functions: Mapping[str, Function], name: str, arguments: Mapping[str, Any]
) -> None:
    """Fail before any session is touched: unknown tool or bad arguments."""
    function = functions.get(name)
    if function is None:
        raise UnknownToolError(name, list(functions))
    function.validate(dict(arguments))


async def run_tool_on_session(
    handle: SessionHandle,
    *,
    owner_id: str,
    name: str,
    arguments: Mapping[str, Any],
    functions: Mapping[str, Function],
    hooks: Sequence[Callable[..., Any]],
    dependencies: Mapping[str, object],
    injected: Mapping[str, Any],
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    confirmed: bool = False,
    metadata: Mapping[str, object] | None = None,
) -> RunOutput:
    """Run one tool call on an open session; the output carries its result (the runner saves).

    ``confirmed``: a person approved the call (needed by ``requires_confirmation`` tools).
    ``metadata``: the run's metadata (``run_context.metadata``), as for a model run.
    """
    run_context, values = await prepare_run(
        handle, dependencies=dependencies, metadata=metadata, extra=injected
    )
    execution, _ = await execute_tool_call(
        call_id=f"direct_{handle.run_id}",
        name=name,
        raw_arguments=arguments,
        functions=functions,
        hooks=hooks,
        handle=handle,
        run_context=run_context,
        injected=values,
        checkpoint=handle.tracker.known_checkpoint(),
        tool_timeout=tool_timeout,
        confirmed=confirmed,
    )
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = owner_id
    output.content = execution.result
    output.tools.append(execution)
    output.add_media(execution.images, execution.files)  # a ToolResult's, for the person
    output.metrics.tool_calls = 1
    return output


def direct_input(name: str, arguments: Mapping[str, Any]) -> str:
    """How a direct call shows in the run history: ``name {json arguments}``."""
    return f"{name} {json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True)}"


def pause_direct_call(
    handle: SessionHandle, *, owner_id: str, name: str, arguments: Mapping[str, Any]
) -> RunOutput:
    """A paused output waiting for a person to confirm ``name(arguments)``; run nothing.

    The runner records it in the session's history (under :func:`direct_input`) and
    saves it, so ``continue_run`` finds it from any process.
    """
    call_id = f"direct_{handle.run_id}"
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = owner_id
    output.status = RunStatus.paused
    waiting = ToolExecution(call_id, name, dict(arguments), result="")
    waiting.requires_confirmation = True
    output.tools_requiring_confirmation = [waiting]
    output.paused_data = {
        "direct": True,  # resumed without a model turn (see resume_direct_call)
        "messages": [],
        "round": 0,
        "pending": [{"id": call_id, "name": name, "arguments": json.dumps(dict(arguments))}],
    }
    return output


async def resume_direct_call(
    owner: DirectToolMethods,
    handle: SessionHandle,
    run: RunRecord,
    resume: Resume,
) -> RunOutput:
    """Run (approved) or refuse (rejected) a waiting direct call (the runner records, saves)."""
    [call] = resume.pending
    arguments = json.loads(call.arguments or "{}")
    if call.id in resume.approved:
        output = await run_tool_on_session(
            handle,
            owner_id=owner.id,
            name=call.name,
            arguments=arguments,
            functions=owner.functions,
            hooks=owner.tool_hooks,
            dependencies=owner.run_dependencies(None),
            injected={owner.owner_param: owner},
            tool_timeout=owner.tool_timeout,
            confirmed=True,
        )
    else:
        output = RunOutput(
            run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id
        )
        output.agent_id = owner.id
        output.content = f"The call to {call.name!r} was rejected; it was not run."
        rejected_call = ToolExecution(
            tool_call_id=call.id, tool_name=call.name, tool_args=arguments, result=output.content
        )
        rejected_call.requires_confirmation, rejected_call.confirmed = True, False
        output.tools.append(rejected_call)
    return output


class DirectToolMethods(SessionOwner):
    """``arun_tool`` / ``run_tool`` for an owner with tools (agents and teams)."""

    #: hooks around every tool call, the first outermost (set by the owner's constructor)
    tool_hooks: list[Callable[..., Any]]
    #: seconds one tool call may take (None: no limit)
    tool_timeout: float | None

    async def arun_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
    ) -> RunOutput:
        """Run one tool without the model: same hooks, validation, rollback, persistence.

        A ``requires_confirmation`` tool is not run: the output is paused
        (``is_paused``) until ``continue_run`` approves or rejects it. ``metadata``
        reaches the tool as ``run_context.metadata``, as in a model run.
        """
        check_direct_call(self.functions, name, arguments)

        async def call(handle: SessionHandle, body: runner.RunBody) -> RunOutput:
            if self.functions[name].requires_confirmation:
                body.history_input = direct_input(name, arguments)
                return pause_direct_call(handle, owner_id=self.id, name=name, arguments=arguments)
            return await run_tool_on_session(
                handle,
                owner_id=self.id,
                name=name,
                arguments=arguments,
                functions=self.functions,
                hooks=self.tool_hooks,
                dependencies=self.run_dependencies(None),
                injected={self.owner_param: self},
                tool_timeout=self.tool_timeout,
                metadata=metadata,
            )

        # a tool runs without a model: no runnable check
        body = runner.RunBody(call)
        return await runner.execute(
            self, body, session_id=session_id, user_id=user_id, check=False, metadata=metadata
        )

    def run_tool(self, name: str, arguments: Mapping[str, Any], **kwargs: Any) -> RunOutput:
        """Sync twin of :meth:`arun_tool`."""
        return run_sync(self.arun_tool(name, arguments, **kwargs))
