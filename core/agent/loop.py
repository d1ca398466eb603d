"""The model <-> tools loop of one run, on a session that is already open.

Agents, team leaders and members, and workflow agent steps all run this loop. State is
persisted after every tool batch (the run's persistence points); the caller persists
once more at the end.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.agent.deadline import DEFAULT_TOOL_TIMEOUT
from core.agent.prompt import PromptSpec, build_system_message
from core.agent.tool_calls import execute_tool_call, run_injections
from core.exceptions import NoModelError, ToolCallLimitError
from core.models.base import Message, Model, ModelResponse
from core.run.output import RunOutput, ToolExecution
from core.state.session import SessionHandle
from core.tools.function import Function

ContentSink = Callable[[str], Awaitable[None] | None]
#: told ("started", call) before each tool call and ("completed", execution) after it
ToolEventSink = Callable[[str, ToolExecution], None]


@dataclass(slots=True)
class LoopSpec:
    """Everything the loop needs from its owner (agent, team leader, member)."""

    owner_id: str
    model: Model | None
    functions: Mapping[str, Function]
    hooks: Sequence[Callable[..., Any]]
    prompt: PromptSpec
    tool_call_limit: int = 10
    injected: Mapping[str, Any] = field(default_factory=dict)
    #: seconds one tool call may take unless the tool sets its own (None: no limit)
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT


async def run_loop(
    spec: LoopSpec,
    handle: SessionHandle,
    user_input: str,
    *,
    dependencies: Mapping[str, Any],
    metadata: Mapping[str, Any],
    memories: Sequence[str] = (),
    on_content: ContentSink | None = None,
    on_tool_event: ToolEventSink | None = None,
) -> RunOutput:
    """Run the model with tools until it answers; returns the run's output."""
    if spec.model is None:
        raise NoModelError(
            f"{spec.owner_id!r} has no model: set OPENAI_API_KEY or OPENAI_BASE_URL, "
            "or pass model=... (tools can still be called directly)"
        )
    started = time.perf_counter()
    run_context, injected = run_injections(
        handle, dependencies=dependencies, metadata=metadata, extra=spec.injected
    )
    identity = {"user_id": handle.user_id, "session_id": handle.session_id}
    tools = [f.to_openai() for f in spec.functions.values()]
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = spec.owner_id
    history: list[Message] = [Message("user", user_input)]
    for round_number in range(spec.tool_call_limit + 1):
        system = build_system_message(
            spec.prompt,
            state=handle.tracker.public_state(),
            dependencies=dependencies,
            identity=identity,
            memories=memories,
        )
        messages = ([Message("system", system)] if system else []) + history
        response = await _call_model(spec.model, messages, tools, on_content)
        output.metrics.model_calls += 1
        output.metrics.input_tokens += response.usage.input_tokens
        output.metrics.output_tokens += response.usage.output_tokens
        history.append(Message("assistant", response.content, list(response.tool_calls)))
        if not response.tool_calls:
            output.content = response.content
            break
        if round_number == spec.tool_call_limit:
            raise ToolCallLimitError(spec.tool_call_limit)
        checkpoint = handle.tracker.known_checkpoint()
        for call in response.tool_calls:
            if on_tool_event is not None:
                on_tool_event("started", _pending_call(call.id, call.name, call.arguments))
            execution, checkpoint = await execute_tool_call(
                call_id=call.id,
                name=call.name,
                raw_arguments=call.arguments,
                functions=spec.functions,
                hooks=spec.hooks,
                handle=handle,
                run_context=run_context,
                injected=injected,
                checkpoint=checkpoint,
                tool_timeout=spec.tool_timeout,
            )
            output.tools.append(execution)
            if on_tool_event is not None:
                on_tool_event("completed", execution)
            output.metrics.tool_calls += 1
            history.append(Message("tool", execution.result, tool_call_id=call.id, name=call.name))
        await handle.persist()
    output.messages = history
    output.session_state = handle.tracker.public_state()
    output.metrics.duration_s = time.perf_counter() - started
    return output


def _pending_call(call_id: str, name: str, raw_arguments: str) -> ToolExecution:
    """A call about to run, for the started event: its arguments as the model sent them."""
    try:
        arguments = json.loads(raw_arguments or "{}")
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):  # invalid JSON: the call will report the error
        arguments = {"_raw": raw_arguments}
    return ToolExecution(tool_call_id=call_id, tool_name=name, tool_args=arguments, result="")


async def _call_model(
    model: Model,
    messages: list[Message],
    tools: list[dict[str, Any]],
    on_content: ContentSink | None,
) -> ModelResponse:
    if on_content is None:
        return await model.ainvoke(messages, tools)
    final: ModelResponse | None = None
    async for item in model.astream(messages, tools):
        if isinstance(item, ModelResponse):
            final = item
        else:
            sent = on_content(item)
            if inspect.isawaitable(sent):
                await sent
    return final if final is not None else ModelResponse()
