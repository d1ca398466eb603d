"""Running one tool directly, without the model (slash commands, ``arun_tool``).

The call goes through the same hooks, validation, rollback and persistence as a call
the model makes; only the model is left out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.agent.deadline import DEFAULT_TOOL_TIMEOUT, run_deadline
from core.agent.tool_calls import execute_tool_call, prepare_run
from core.exceptions import UnknownToolError
from core.run.output import RunOutput
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
    dependencies: Mapping[str, Any],
    injected: Mapping[str, Any],
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
) -> RunOutput:
    """Run one tool call on an open session and persist; the output carries its result."""
    run_context, values = await prepare_run(handle, dependencies=dependencies, extra=injected)
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
    )
    await handle.persist()
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = owner_id
    output.content = execution.result
    output.tools.append(execution)
    output.metrics.tool_calls = 1
    output.session_state = handle.tracker.public_state()
    return output


class DirectToolMethods:
    """``arun_tool`` / ``run_tool`` for an owner with tools (agents and teams)."""

    #: the parameter name under which tools and hooks receive the owner
    owner_param = "agent"
    id: str
    user_id: str | None
    functions: dict[str, Function]
    tool_hooks: list[Callable[..., Any]]
    run_timeout: float | None
    tool_timeout: float | None

    # provided by the owner class (and RunMethods)
    _dependencies: Callable[[Mapping[str, Any] | None], Mapping[str, Any]]
    open_run_session: Callable[..., contextlib.AbstractAsyncContextManager[SessionHandle]]

    async def arun_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> RunOutput:
        """Run one tool without the model: same hooks, validation, rollback, persistence."""
        check_direct_call(self.functions, name, arguments)
        user_id = user_id or self.user_id
        async with (
            self.open_run_session(session_id, user_id) as handle,
            run_deadline(handle, self.run_timeout),
        ):
            return await run_tool_on_session(
                handle,
                owner_id=self.id,
                name=name,
                arguments=arguments,
                functions=self.functions,
                hooks=self.tool_hooks,
                dependencies=self._dependencies(None),
                injected={self.owner_param: self},
                tool_timeout=self.tool_timeout,
            )

    def run_tool(self, name: str, arguments: Mapping[str, Any], **kwargs: Any) -> RunOutput:
        """Sync twin of :meth:`arun_tool`."""
        return run_sync(self.arun_tool(name, arguments, **kwargs))
