"""Executing one tool call against a session: validate, run hooks + tool, roll back on error.

Whatever goes wrong — bad JSON, unknown tool, wrong argument types, a tool or hook
that raises, a value that is not JSON, a call past its timeout — becomes an error
result for the model, and the state is put back to what it was before that call.
A tool with ``requires_confirmation=True`` runs only when the caller says the call
was confirmed; otherwise it is not run and the model is told why.

A sync tool runs on a worker thread (so it never blocks the event loop) against a
private copy of the state, adopted into the live state only when the call returns in
time. The copy decodes a key from its saved text only when the tool reads it, and only
the keys the tool may have changed are adopted, so a call costs what it touches, not
the size of the state. A sync tool declared ``inline`` (``@tool(inline=True)``: cheap,
never blocking), or measured cheap (:mod:`core.tools.inline`), runs on the loop against
the live state instead, like an async one. A
call past its timeout is abandoned: its thread may go on changing its copy, which
nothing reads or saves any more. Async tools work on the live state; a timeout cancels
them.

With a ``session_state_schema`` (:mod:`core.state.schema`), the keys a call may have
changed are checked against it once the call returns; a state that does not fit is
rolled back like a failed call, and the model (or the slash command's user) is told
which field and what is wrong.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ParamSpec

from core.agent.deadline import DEFAULT_TOOL_TIMEOUT
from core.db.text_checks import MAX_DEPTH, sanitised, text_problem
from core.db.values import TRANSIENT_KEYS, StateValueError
from core.exceptions import AgentRunException, ToolArgumentError, ToolRefusedError
from core.models.base import Message
from core.run.context import RunContext
from core.run.output import ToolExecution
from core.state.checkpoints import Checkpoint
from core.state.schema_session import checked_checkpoint
from core.state.session import SessionHandle
from core.state.tracked import LazyState
from core.state.view import AgentState
from core.tools.call import call_function
from core.tools.dependencies import resolve_dependencies
from core.tools.function import Function
from core.tools.result import ToolResult
from core.utils.log import logger
from core.utils.observe import observe

P = ParamSpec("P")


def run_injections(
    handle: SessionHandle,
    *,
    dependencies: Mapping[str, object],
    metadata: Mapping[str, object] | None = None,
    extra: Mapping[str, object] | None = None,
) -> tuple[RunContext, dict[str, Any]]:
    """The RunContext of a run and the values tools and hooks may ask for by name."""
    run_context = RunContext(
        run_id=handle.run_id,
        session_id=handle.session_id,
        user_id=handle.user_id,
        session_state=handle.tracker.state,
        dependencies=dependencies,
        metadata=dict(metadata or {}),
    )
    injected = {
        "session_state": handle.tracker.state,
        "run_context": run_context,
        "agent_state": AgentState(handle.tracker.state),
        **(extra or {}),
    }
    return run_context, injected


async def prepare_run(
    handle: SessionHandle,
    *,
    dependencies: Mapping[str, object],
    metadata: Mapping[str, object] | None = None,
    extra: Mapping[str, object] | None = None,
) -> tuple[RunContext, dict[str, Any]]:
    """:func:`run_injections` with callable dependencies resolved for this run.

    Use ``run_context.dependencies`` (resolved) for the prompt and the tools.
    """
    run_context, injected = run_injections(
        handle, dependencies=dependencies, metadata=metadata, extra=extra
    )
    run_context.dependencies = await resolve_dependencies(dependencies, injected)
    return run_context, injected


#: re-encodes decoded arguments for the storability checks
_ARGUMENTS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def parse_arguments(function: Function, raw: str | Mapping[str, Any]) -> dict[str, Any]:
    """Raw model arguments -> validated kwargs, or ToolArgumentError."""
    nested = f"it is nested more than {MAX_DEPTH} levels deep"
    if isinstance(raw, str):
        try:
            decoded = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentError(
                f"{function.name}: arguments are not valid JSON ({exc})"
            ) from None
        except RecursionError:
            raise ToolArgumentError(f"{function.name}: arguments refused: {nested}") from None
    else:
        decoded = dict(raw)
    # what enters the run (and its stored history) must be storable: no value nested
    # too deep, no lone surrogate (core/db/text_checks.py)
    try:
        problem = text_problem(_ARGUMENTS.encode(decoded))
    except RecursionError:
        problem = nested
    except (TypeError, ValueError):
        problem = None  # not JSON data (a direct call's objects): validation says why
    if problem is not None:
        raise ToolArgumentError(f"{function.name}: arguments refused: {problem}")
    return function.validate(decoded)


def result_text(result: object) -> str:
    """How a tool's return value is shown to the model."""
    if result is None:
        return "OK"
    if isinstance(result, ToolResult):
        return sanitised(result.content)
    if isinstance(result, str):
        text = result
    else:
        try:
            text = json.dumps(result, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = _shown(result)
    return sanitised(text)  # kept in the run history, which must encode as UTF-8


def _shown(result: object) -> str:
    try:
        return str(result)
    except RecursionError:
        return f"<{type(result).__name__} nested too deep to show>"


def _adopt_reassigned_state(handle: SessionHandle, run_context: RunContext) -> None:
    """A tool may assign a new dict to run_context.session_state: keep it as the live state."""
    replaced = run_context.session_state
    live = handle.tracker.state
    if replaced is live:
        return
    _replace_public(live, replaced if isinstance(replaced, dict) else {})
    run_context.session_state = live


def _private_copy(
    handle: SessionHandle,
    run_context: RunContext,
    injected: Mapping[str, Any],
) -> tuple[RunContext, dict[str, Any], LazyState]:
    """Injected values over a copy of the state that decodes keys from their texts on use.

    The live state matches its texts here (the call's checkpoint was just taken), and
    they do not change while the call runs. A call abandoned at its timeout may read
    texts changed later: nothing reads or saves its copy any more.
    """
    live = handle.tracker.state
    transient = {k: dict.__getitem__(live, k) for k in TRANSIENT_KEYS if k in live}
    state = LazyState(handle.tracker.keys.texts, transient)
    context = dataclasses.replace(run_context, session_state=state)
    values = {**injected, "session_state": state, "run_context": context}
    if "agent_state" in injected:
        values["agent_state"] = AgentState(state)
    return context, values, state


def _adopt_private_copy(handle: SessionHandle, context: RunContext, private: LazyState) -> None:
    """Make a sync call's changes live: the keys it may have changed, or all of them."""
    replaced = context.session_state
    live = handle.tracker.state
    if replaced is not private:  # the tool assigned a new dict: it is the whole state
        _replace_public(live, replaced if isinstance(replaced, dict) else {})
        return
    touched = private.touched_values()
    if touched is None:
        _replace_public(live, {k: v for k, v in private.items() if k not in TRANSIENT_KEYS})
        return
    present, removed = touched
    for key in removed:
        if key not in TRANSIENT_KEYS:
            live.pop(key, None)
    for key, value in present.items():
        if key not in TRANSIENT_KEYS:
            live[key] = value


def _overdue(scope: asyncio.Timeout) -> bool:
    """The scope's deadline has passed (an inline call ran past it: nothing could fire)."""
    when = scope.when()
    return when is not None and asyncio.get_running_loop().time() >= when


def _replace_public(live: dict[str, Any], public: Mapping[str, Any]) -> None:
    """Make ``public`` the live state, in place (transient keys kept)."""
    transient = {k: live.get(k) for k in TRANSIENT_KEYS}
    live.clear()
    live.update(public)
    live.update(transient)


def _observed(
    run: Callable[P, Awaitable[tuple[ToolExecution, Checkpoint]]],
) -> Callable[P, Awaitable[tuple[ToolExecution, Checkpoint]]]:
    """Report each tool call to the observers (core.utils.observe), error or not."""

    @functools.wraps(run)
    async def observed_run(*args: P.args, **kwargs: P.kwargs) -> tuple[ToolExecution, Checkpoint]:
        with observe("tool_call", tool=str(kwargs.get("name", ""))) as observed:
            execution, after = await run(*args, **kwargs)
            observed.error = execution.error
        return execution, after

    return observed_run


@_observed
async def execute_tool_call(
    *,
    call_id: str,
    name: str,
    raw_arguments: str | Mapping[str, Any],
    functions: Mapping[str, Function],
    hooks: Sequence[Callable[..., Any]],
    handle: SessionHandle,
    run_context: RunContext,
    injected: Mapping[str, Any],
    checkpoint: Checkpoint,
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    confirmed: bool = False,
    on_signal: Callable[[AgentRunException], None] | None = None,
) -> tuple[ToolExecution, Checkpoint]:
    """Run one call; returns its record and the state checkpoint after it.

    ``confirmed``: a person approved this call (needed for ``requires_confirmation``
    tools; the run loop pauses for it and passes True when it resumes).
    ``on_signal``: told of a RetryAgentRun / StopAgentRun the tool raised (its extra
    messages and whether to stop); the call's record then carries the message.
    """
    function = functions.get(name)
    if function is None:
        known = ", ".join(sorted(functions)) or "none"
        message = f"Error: unknown tool {name!r}. Available tools: {known}."
        return ToolExecution(call_id, name, {}, message, error=True), checkpoint
    try:
        arguments = parse_arguments(function, raw_arguments)
    except ToolArgumentError as exc:
        return ToolExecution(call_id, name, {}, f"Error: {exc}", error=True), checkpoint
    if function.requires_confirmation and not confirmed:
        text = (
            f"Error: tool {name!r} needs a person's confirmation before it runs, "
            "and this call was not confirmed; it was not run and nothing changed."
        )
        return ToolExecution(call_id, name, arguments, text, error=True), checkpoint
    handle.tracker.touched()
    call_context, values = run_context, injected
    private: LazyState | None = None
    inline = not function.is_async and function.runs_inline(hooks)
    if not function.is_async and not inline:  # runs on a thread that may outlive the call
        call_context, values, private = _private_copy(handle, run_context, injected)
    timeout = function.timeout if function.timeout is not None else tool_timeout
    scope = asyncio.timeout(timeout)
    signal: AgentRunException | None = None
    try:
        try:
            async with scope:
                result = await call_function(
                    function, arguments, hooks, values, call_id=call_id, inline=inline
                )
                if inline and _overdue(scope):  # it could not be interrupted: time out now
                    raise TimeoutError
        except AgentRunException as exc:  # a signal, not a failure: the changes stand
            signal, result = exc, str(exc)
        if private is None:
            _adopt_reassigned_state(handle, call_context)
        else:
            _adopt_private_copy(handle, call_context, private)
        after = checked_checkpoint(handle)  # the schema's checks, where one is set
        handle.note_tool(name)
    except asyncio.CancelledError:  # the run's deadline: undo the call in flight
        handle.tracker.rollback(checkpoint)
        raise
    except Exception as exc:  # any failure of user code is reported, never fatal to the run
        if call_context is run_context:
            _adopt_reassigned_state(handle, run_context)
        handle.tracker.rollback(checkpoint)
        if isinstance(exc, TimeoutError) and (scope.expired() or _overdue(scope)):
            reason = f"tool {name!r} timed out after {timeout:g} s"
            logger.warning(
                "tool_timed_out", tool=name, timeout=timeout, session_id=handle.session_id
            )
            text = f"Error: {reason}; its changes were undone."
            return ToolExecution(call_id, name, arguments, text, error=True), checkpoint
        reason = (  # a deliberate refusal is a sentence for people; other failures name their type
            str(exc).rstrip(".")
            if isinstance(exc, StateValueError | ToolRefusedError)
            else f"{type(exc).__name__}: {exc}"
        )
        logger.warning("tool_failed", tool=name, error=reason, session_id=handle.session_id)
        text = f"Error: {reason}. The session state was left unchanged."
        return ToolExecution(call_id, name, arguments, text, error=True), checkpoint
    if signal is not None:
        if on_signal is not None:
            on_signal(signal)
        execution = ToolExecution(call_id, name, arguments, str(signal), error=True)
        execution.stop_after_tool_call = signal.stop_execution
        return execution, after
    execution = ToolExecution(call_id, name, arguments, result_text(result))
    if isinstance(result, ToolResult):  # its media go to the person, not to the model
        execution.images = list(result.images or ()) or None
        execution.files = list(result.files or ()) or None
    return execution, after


def signal_messages(signal: AgentRunException) -> list[Message]:
    """The messages a RetryAgentRun / StopAgentRun asks to add, as Agno adds them:
    its user message, its agent message, then its list (messages or role dicts)."""
    added: list[Message] = []
    for role, given in (("user", signal.user_message), ("assistant", signal.agent_message)):
        if isinstance(given, Message):
            added.append(given)
        elif given is not None:
            added.append(Message(role, str(given)))
    for item in signal.messages or ():
        if isinstance(item, Message):
            added.append(item)
        elif isinstance(item, Mapping) and isinstance(item.get("role"), str):
            content = item.get("content")
            added.append(Message(item["role"], None if content is None else str(content)))
        else:
            logger.warning("signal_message_ignored", type=type(item).__name__)
    return added
