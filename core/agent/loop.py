"""The model <-> tools loop of one run, on a session that is already open.

Agents, team leaders and members, and workflow agent steps all run this loop. Each
tool batch is a persistence point: its changes are saved before the run waits on
anything slow (:meth:`SessionHandle.persist_soon`: unless the run reaches its next
save within ``BATCH_SAVE_GRACE``, 50 ms by default, the batch's save starts then,
overlapped with the model call). The caller persists once more at the end; with a
model that answers within the grace period a turn costs that one save.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.agent.callables import PerRun
from core.agent.deadline import DEFAULT_TOOL_TIMEOUT
from core.agent.prompt import PromptSpec, build_system_message
from core.agent.tool_calls import execute_tool_call, prepare_run, signal_messages
from core.db.text_checks import sanitised
from core.exceptions import AgentRunException, NoModelError, ToolCallLimitError
from core.governance.budgets.gate import meter_model_call, meter_tool_call
from core.models.base import Message, Model, ModelResponse, ToolCall
from core.models.tool_choice import ToolChoice, choosing
from core.run.catch_up import earlier_context
from core.run.context import RunContext
from core.run.history import history_messages, message_to_dict
from core.run.output import RunOutput, RunStatus, ToolExecution
from core.run.run_input import RunInput
from core.state.checkpoints import Checkpoint
from core.state.session import SessionHandle
from core.tools.function import Function
from core.utils.observe import observe

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
    #: earlier completed runs put before the question (``add_history_to_context``);
    #: None: no history
    history_runs: int | None = None
    #: at most this many of those runs' messages, the latest (None: every message)
    history_messages: int | None = None
    #: messages put after the system message, before history (Agno's ``additional_input``)
    additional: tuple[Message, ...] = ()
    #: Agno's ``tool_choice``, sent with each call that offers tools (None: not sent)
    tool_choice: ToolChoice | None = None
    #: a tool that ``requires_confirmation`` pauses the run (agents); else its call is
    #: refused with an error result (a team or workflow step cannot ask a person)
    can_pause: bool = False
    #: resolves what the owner reads per run (callable instructions, tool and member
    #: factories, pre-hooks) into the spec this run uses (:mod:`core.agent.callables`)
    per_run: PerRun | None = None
    #: the structured output asked of the model (``output_schema``); None: plain text
    response_format: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # decided here, once for every owner: the model is offered (and may call) only the
        # tools that are not internal; internal ones run by direct calls alone
        self.functions = {n: f for n, f in self.functions.items() if not f.internal}


@dataclass(slots=True)
class Resume:
    """A paused run taken up again: its messages so far and the decisions made."""

    messages: list[Message]
    round: int
    pending: list[ToolCall]
    approved: frozenset[str]  # tool call ids


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
    resume: Resume | None = None,
) -> RunOutput:
    """Run the model with tools until it answers (or pauses); returns the run's output."""
    try:
        return await _run_loop(
            spec,
            handle,
            user_input,
            dependencies=dependencies,
            metadata=metadata,
            memories=memories,
            on_content=on_content,
            on_tool_event=on_tool_event,
            resume=resume,
        )
    except BaseException:
        # a batch save not yet started is dropped (the caller's save, if any, takes it);
        # one under way is waited for, so whether it happened is known
        await handle.settle(raise_failure=False)
        raise


async def _run_loop(
    spec: LoopSpec,
    handle: SessionHandle,
    user_input: str,
    *,
    dependencies: Mapping[str, Any],
    metadata: Mapping[str, Any],
    memories: Sequence[str],
    on_content: ContentSink | None,
    on_tool_event: ToolEventSink | None,
    resume: Resume | None,
) -> RunOutput:
    model = spec.model
    if model is None:
        raise NoModelError(
            f"{spec.owner_id!r} has no model: set OPENAI_API_KEY or OPENAI_BASE_URL, "
            "or pass model=... (tools can still be called directly)"
        )
    started = time.perf_counter()
    run_context, injected = await prepare_run(
        handle, dependencies=dependencies, metadata=metadata, extra=spec.injected
    )
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = spec.owner_id
    images, files = list(handle.media.images) or None, list(handle.media.files) or None
    output.input = RunInput(input_content=user_input, images=images, files=files)
    if spec.per_run is not None:  # a resumed run's input was checked when it started
        handle.tracker.touched()  # pre-hooks and callables are user code: they may change it
        spec = await spec.per_run(spec, run_context, injected, output.input if not resume else None)
        user_input = output.input.input_content_string()  # a pre-hook may have changed it
    identity = {"user_id": handle.user_id, "session_id": handle.session_id}
    tools = [f.to_openai() for f in spec.functions.values()]
    earlier = []
    if spec.history_runs is not None:
        earlier = history_messages(handle.data, spec.history_runs, current_user=handle.user_id)
    if spec.history_messages is not None:  # Agno's num_history_messages: the latest ones
        earlier = earlier[-spec.history_messages :] if spec.history_messages > 0 else []
    if resume is None:  # a thread's earlier messages, for a new session only (once)
        earlier = await earlier_context(handle.version == 0) + earlier
    # the data is decoded only when something needs it (here: the stored summary)
    wants_summary = spec.prompt.add_session_summary_to_context
    summary = (handle.data.summary or {}).get("summary") if wants_summary else None
    batch = _Batch(spec, handle, run_context, injected, output, on_tool_event)
    if resume is None:
        history: list[Message] = [Message("user", user_input, images=images, files=files)]
        first_round = 0
    else:
        history = resume.messages
        first_round = resume.round + 1
        for call in resume.pending:
            if call.id in resume.approved:
                history.append(await batch.run(call, confirmed=True))
            else:
                history.append(batch.rejected(call))
        history.extend(batch.take_extra())
        handle.persist_soon()
    system: str | None = None
    for round_number in range(first_round, spec.tool_call_limit + 1):
        system = build_system_message(
            spec.prompt,
            state=handle.tracker.public_view(),
            dependencies=run_context.dependencies,
            metadata=run_context.metadata,
            identity=identity,
            memories=memories,
            functions=spec.functions,
            summary=summary,
        )
        messages = [Message(spec.prompt.role, system)] if system else []
        messages += [*spec.additional, *earlier, *history]
        run_context.messages = messages
        with observe("model_call", owner_id=spec.owner_id), choosing(spec.tool_choice):
            response = await _call_model(model, messages, tools, on_content, spec.response_format)
        handle.check_saves()  # a batch save that failed meanwhile ends the run here
        output.metrics.add_model_call(model.id, type(model).__name__, response.usage)
        # counted as it happens, so a run that fails later is still charged (budgets)
        meter_model_call(response.usage.input_tokens, response.usage.output_tokens)
        said = _storable(response)
        history.append(said)
        if not response.tool_calls:
            output.content = _with_shown_results(batch.shown, said.content)
            break
        if round_number == spec.tool_call_limit:
            raise ToolCallLimitError(spec.tool_call_limit)
        calls = list(response.tool_calls)
        for i, call in enumerate(calls):
            function = spec.functions.get(call.name)
            if spec.can_pause and function is not None and function.requires_confirmation:
                handle.persist_soon()  # the caller's save, with the paused run, takes it
                _pause(output, history, calls[i:], round_number, spec)
                output.messages = ([Message(spec.prompt.role, system)] if system else []) + history
                return output
            history.append(await batch.run(call))
        history.extend(batch.take_extra())  # a tool's RetryAgentRun messages, after the results
        handle.persist_soon()
        if batch.stop:  # stop_after_tool_call: the results are the answer
            output.content = _with_shown_results(batch.shown, None)
            break
    output.messages = ([Message(spec.prompt.role, system)] if system else []) + history
    output.keep_state(handle.final_state())
    output.metrics.duration_s = time.perf_counter() - started
    return output


def _storable(response: ModelResponse) -> Message:
    """The model's turn as kept (sent back to it, stored in the run history): text that
    is not valid Unicode (a lone surrogate) becomes U+FFFD; tool calls still run from
    the raw arguments, which refuse such text with an error to the model."""
    calls = [dataclasses.replace(c, arguments=sanitised(c.arguments)) for c in response.tool_calls]
    content = None if response.content is None else sanitised(response.content)
    return Message("assistant", content, calls)


class _Batch:
    """Runs the tool calls of a run one by one, recording each in the output."""

    __slots__ = (
        "checkpoint",
        "extra",
        "handle",
        "injected",
        "on_tool_event",
        "output",
        "run_context",
        "shown",
        "spec",
        "stop",
    )

    def __init__(
        self,
        spec: LoopSpec,
        handle: SessionHandle,
        run_context: RunContext,
        injected: Mapping[str, Any],
        output: RunOutput,
        on_tool_event: ToolEventSink | None,
    ) -> None:
        self.spec = spec
        self.handle = handle
        self.run_context = run_context
        self.injected = injected
        self.output = output
        self.on_tool_event = on_tool_event
        self.checkpoint: Checkpoint = handle.tracker.known_checkpoint()
        #: results of tools with ``show_result``, shown with (or as) the answer
        self.shown: list[str] = []
        #: a tool with ``stop_after_tool_call`` ran: no more model turns
        self.stop = False
        #: messages tools asked to add (RetryAgentRun / StopAgentRun), in call order
        self.extra: list[Message] = []

    async def run(self, call: ToolCall, *, confirmed: bool = False) -> Message:
        """Run one call; the tool message for the model."""
        if self.on_tool_event is not None:
            self.on_tool_event("started", _pending_call(call.id, call.name, call.arguments))
        self.checkpoint = self.handle.tracker.known_checkpoint()
        execution, self.checkpoint = await execute_tool_call(
            call_id=call.id,
            name=call.name,
            raw_arguments=call.arguments,
            functions=self.spec.functions,
            hooks=self.spec.hooks,
            handle=self.handle,
            run_context=self.run_context,
            injected=self.injected,
            checkpoint=self.checkpoint,
            tool_timeout=self.spec.tool_timeout,
            confirmed=confirmed,
            on_signal=self._signalled,
        )
        function = self.spec.functions.get(call.name)
        if function is not None:
            stops = execution.stop_after_tool_call or function.stops_run(error=execution.error)
            execution.stop_after_tool_call = stops
            if function.show_result or stops:
                self.shown.append(execution.result)
            self.stop = self.stop or stops
        self._record(execution)
        return Message("tool", execution.result, tool_call_id=call.id, name=call.name)

    def _signalled(self, signal: AgentRunException) -> None:
        self.extra.extend(signal_messages(signal))

    def take_extra(self) -> list[Message]:
        """The messages tools asked to add since the last call (then forgotten)."""
        extra, self.extra = self.extra, []
        return extra

    def rejected(self, call: ToolCall) -> Message:
        """A call the person rejected: never run; the model is told so."""
        text = f"The user rejected the call to {call.name!r}; it was not run."
        execution = _pending_call(call.id, call.name, call.arguments)
        execution.result = text
        execution.requires_confirmation = True
        execution.confirmed = False
        self._record(execution)
        return Message("tool", text, tool_call_id=call.id, name=call.name)

    def _record(self, execution: ToolExecution) -> None:
        self.output.tools.append(execution)
        self.output.add_media(execution.images, execution.files)  # a ToolResult's
        self.output.metrics.tool_calls += 1
        meter_tool_call()
        if self.on_tool_event is not None:
            self.on_tool_event("completed", execution)


def _pause(
    output: RunOutput,
    history: list[Message],
    pending: list[ToolCall],
    round_number: int,
    spec: LoopSpec,
) -> None:
    """Mark the run paused, listing the calls that wait, with what resuming needs."""
    output.status = RunStatus.paused
    waiting = []
    for call in pending:
        execution = _pending_call(call.id, call.name, call.arguments)
        function = spec.functions.get(call.name)
        execution.requires_confirmation = bool(function and function.requires_confirmation)
        waiting.append(execution)
    output.tools_requiring_confirmation = waiting
    output.paused_data = {
        "messages": [message_to_dict(m) for m in history],
        "round": round_number,
        "pending": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in pending],
    }


def _with_shown_results(shown: list[str], answer: str | None) -> str | None:
    """The answer, after the results of ``show_result`` tools (Agno shows them as is)."""
    if not shown:
        return answer
    return "\n\n".join([*shown, *([answer] if answer else [])])


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
    response_format: dict[str, Any] | None = None,
) -> ModelResponse:
    if on_content is None:
        if response_format is not None:
            return await model.ainvoke_structured(messages, tools, response_format)
        return await model.ainvoke(messages, tools)
    final: ModelResponse | None = None
    chunks = (
        model.astream(messages, tools)
        if response_format is None
        else model.astream_structured(messages, tools, response_format)
    )
    async for item in chunks:
        if isinstance(item, ModelResponse):
            final = item
        else:
            sent = on_content(item)
            if inspect.isawaitable(sent):
                await sent
    return final if final is not None else ModelResponse()
