"""Agno's per-run options of an Agent or Team: hooks, structured output, the time in context.

- ``pre_hooks``: functions called before the model, once per run (not again when a
  paused run resumes), after the run holds its session, with the parameters they name
  among ``run_input``, ``run_context``, ``agent`` / ``team``, ``user_id``, ``metadata``
  and ``debug_mode`` (all of them with ``**kwargs``); sync or async. A hook may change
  ``run_input.input_content``: the model is sent the changed input. ``post_hooks``: the
  same after the answer, with ``run_output`` in place of ``run_input``. As in Agno, a
  hook that raises ``InputCheckError`` / ``OutputCheckError`` refuses the run (status
  ERROR; a refused input's message is the content, a refused output keeps its
  content); any other error in a hook is logged and the run goes on.
- ``output_schema``: a pydantic model class (or a dict ``response_format``); the model
  is asked for that JSON (:mod:`core.models.structured`), and the output's ``content``
  is the parsed instance. A reply that does not parse stays text, with a warning
  logged (Agno's behaviour). As in Agno, the markdown instruction is then left out.
- ``add_datetime_to_context``: "The current time is ..." in the system message (Agno's
  words and format: ``str(datetime)``, or ``datetime_format`` with strftime), in
  ``timezone_identifier``'s zone (an IANA name) or the machine's local time. Unlike
  Agno, which logs a warning and falls back to local time, an unknown zone is refused
  when the agent is built: a wrong clock shown to the model would be silent.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.agent.callables import RunCallables
from core.agent.loop import LoopSpec
from core.exceptions import InputCheckError, MCPConnectionRequiredError, OutputCheckError
from core.models.structured import (
    OutputSchema,
    check_output_schema,
    json_prompt,
    parse_reply,
    response_format_of,
)
from core.run.context import RunContext
from core.run.output import RunOutput, RunStatus
from core.run.run_input import RunInput
from core.state.session import SessionHandle
from core.tools.workers import run_in_worker
from core.utils.log import logger

#: the clock the time line reads (tests pass their own)
Clock = Callable[[tzinfo | None], datetime]


def zone_of(timezone_identifier: str | None) -> tzinfo | None:
    """The zone named ``timezone_identifier`` (None: local time); an unknown name is refused."""
    if timezone_identifier is None:
        return None
    try:
        return ZoneInfo(timezone_identifier)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"timezone_identifier {timezone_identifier!r} is not a known IANA time zone "
            "(for example 'Europe/Paris' or 'UTC')"
        ) from None


def time_line(
    zone: tzinfo | None, datetime_format: str | None, clock: Clock = datetime.now
) -> Callable[[], str]:
    """A function giving the current time as Agno words it in the system message."""

    def current_time() -> str:
        now = clock(zone)
        shown = now.strftime(datetime_format) if datetime_format else str(now)
        return f"The current time is {shown}."

    return current_time


@dataclasses.dataclass(slots=True)
class RunOptions:
    """An owner's hooks and output schema, applied to each of its runs."""

    pre_hooks: Sequence[Callable[..., Any]] = ()
    post_hooks: Sequence[Callable[..., Any]] = ()
    output_schema: OutputSchema | None = None

    def __post_init__(self) -> None:
        self.output_schema = check_output_schema(self.output_schema)
        for hook in (*self.pre_hooks, *self.post_hooks):
            if not callable(hook):
                raise TypeError(f"a hook must be a function, not {hook!r}")

    @property
    def any(self) -> bool:
        """Whether a run needs anything from these options."""
        return bool(self.pre_hooks or self.post_hooks or self.output_schema is not None)

    def stage(
        self, callables: RunCallables, owner_values: Mapping[str, Any], owner_id: str
    ) -> RunStage:
        """What one run does with these options (and the owner's callables)."""
        return RunStage(self, callables, owner_values, owner_id)


class RunStage:
    """One run's hooks, callables and structured output, around the model loop."""

    __slots__ = ("callables", "options", "owner_id", "owner_values", "run_context", "run_input")

    def __init__(
        self,
        options: RunOptions,
        callables: RunCallables,
        owner_values: Mapping[str, Any],
        owner_id: str | None = None,
    ) -> None:
        self.options = options
        self.callables = callables
        self.owner_values = owner_values
        self.owner_id = owner_id
        self.run_context: RunContext | None = None
        self.run_input: RunInput | None = None

    @property
    def needed(self) -> bool:
        """Whether the loop must call :meth:`per_run`."""
        return self.options.any or self.callables.any

    async def per_run(
        self,
        spec: LoopSpec,
        run_context: RunContext,
        injected: Mapping[str, Any],
        run_input: RunInput | None,
    ) -> LoopSpec:
        """Pre-hooks (a fresh run only), then the callables, then the output schema."""
        self.run_context = run_context
        self.run_input = run_input
        if run_input is not None:
            await self._hooks(self.options.pre_hooks, "run_input", run_input)
        if self.callables.any:
            spec = await self.callables(spec, run_context, injected, run_input)
        schema = self.options.output_schema
        if schema is None:
            return spec
        prompt = dataclasses.replace(spec.prompt, markdown=False)
        if spec.model is not None and spec.model.supports_response_format:
            return dataclasses.replace(
                spec, prompt=prompt, response_format=response_format_of(schema)
            )
        prompt = dataclasses.replace(prompt, extra=(*prompt.extra, json_prompt(schema)))
        return dataclasses.replace(spec, prompt=prompt)

    async def finish(self, output: RunOutput, handle: SessionHandle) -> None:
        """The answer parsed into the output schema, then the post-hooks (on ``handle``'s
        state: they may change it in place)."""
        schema = self.options.output_schema
        if schema is not None and isinstance(output.content, str) and not output.is_paused:
            parsed = parse_reply(output.content, schema)
            if parsed is None:
                logger.warning(
                    "output_schema_mismatch",
                    schema=getattr(schema, "__name__", "dict"),
                    detail="the reply does not fit output_schema; content kept as text",
                    run_id=output.run_id,
                )
            else:
                output.content = parsed
        if output.is_paused:
            return
        if self.options.post_hooks:
            handle.tracker.touched()
        try:
            await self._hooks(self.options.post_hooks, "run_output", output)
        except (InputCheckError, OutputCheckError) as error:
            _refuse(error, output)

    def refused(self, error: InputCheckError | OutputCheckError) -> RunOutput:
        """The output of a run a pre-hook refused: status ERROR, the message as content."""
        context = self.run_context
        if context is None:  # raised before the run began: nothing to report it on
            raise error
        output = RunOutput(
            run_id=context.run_id, session_id=context.session_id, user_id=context.user_id
        )
        output.agent_id = self.owner_id
        output.input = self.run_input
        _refuse(error, output)
        return output

    async def _hooks(self, hooks: Sequence[Callable[..., Any]], name: str, value: Any) -> None:
        context = self.run_context
        values: dict[str, Any] = {
            name: value,
            "run_context": context,
            "user_id": context.user_id if context is not None else None,
            "metadata": context.metadata if context is not None else None,
            "debug_mode": False,
            **self.owner_values,
        }
        for number, hook in enumerate(hooks, 1):
            params = inspect.signature(hook).parameters
            takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            kwargs = values if takes_all else {k: v for k, v in values.items() if k in params}
            try:
                if inspect.iscoroutinefunction(hook):
                    await hook(**kwargs)
                else:
                    # on a worker thread, as Agno calls it outside any loop: a sync hook may
                    # block, or run another agent with the sync API
                    result = await run_in_worker(hook, **kwargs)
                    if inspect.isawaitable(result):
                        await result
            except (InputCheckError, OutputCheckError):
                raise
            except Exception:  # Agno's rule: a failing hook is logged, the run goes on
                kind = "pre" if name == "run_input" else "post"
                logger.exception("hook_failed", kind=kind, number=number, hook=_name(hook))


def connection_hint(
    owner_id: str | None, handle: SessionHandle, text: str, needed: MCPConnectionRequiredError
) -> RunOutput:
    """The answer of a run whose per-user MCP server the user has not connected: the
    ``/connect`` hint (status ERROR, as a refused run; the model is never called)."""
    logger.info("mcp_connection_required", server=needed.server, user_id=handle.user_id)
    output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=handle.user_id)
    output.agent_id = owner_id
    output.input = RunInput(input_content=text)
    output.status = RunStatus.error
    output.content = needed.hint
    return output


def _refuse(error: InputCheckError | OutputCheckError, output: RunOutput) -> None:
    """Mark ``output`` refused (Agno: status ERROR; content, if none, the message)."""
    logger.warning("run_refused", error=str(error), error_id=error.error_id, run_id=output.run_id)
    output.status = RunStatus.error
    if output.content is None:
        output.content = str(error)


def _name(hook: Callable[..., Any]) -> str:
    return getattr(hook, "__name__", type(hook).__name__)
