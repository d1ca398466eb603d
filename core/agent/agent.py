"""Agent: a model with tools, running against one session's state per run.

The Agent object is a template and is never changed by a run: ``session_state=`` is
copied into a session only when that session is created, and one instance serves many
sessions at once. Runs of one session are serialized through the store's session lock.
"""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from core.agent.loop import ContentSink, LoopSpec, run_loop
from core.agent.prompt import PromptSpec
from core.agent.session_api import SessionStateApi
from core.agent.streaming import stream_run
from core.agent.tool_calls import execute_tool_call
from core.db.base import BaseDb, SessionMeta
from core.db.in_memory import InMemoryDb
from core.exceptions import NoModelError, ToolArgumentError, UnknownToolError
from core.memory.tools import memory_functions
from core.models.base import Model
from core.run.context import RunContext
from core.run.events import RunEvent
from core.run.output import RunOutput
from core.state.session import SessionHandle, open_session
from core.state.view import AgentState
from core.tools.collect import agentic_state_function, collect_functions
from core.tools.function import Function
from core.utils.sync import iterate_sync, run_sync


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "agent"


class Agent(SessionStateApi):
    """An Agno-compatible agent (see the seed documents for usage)."""

    kind = "agent"

    def __init__(
        self,
        model: Model | None = None,
        *,
        db: BaseDb | None = None,
        storage: BaseDb | None = None,
        session_state: Mapping[str, Any] | None = None,
        tools: Sequence[Any] | None = None,
        tool_hooks: Sequence[Callable[..., Any]] | None = None,
        instructions: str | Sequence[str] | None = None,
        description: str | None = None,
        system_message: str | None = None,
        name: str | None = None,
        id: str | None = None,
        add_session_state_to_context: bool = False,
        enable_agentic_state: bool = False,
        overwrite_db_session_state: bool = False,
        resolve_in_context: bool = True,
        dependencies: Mapping[str, Any] | None = None,
        markdown: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        tool_call_limit: int = 10,
        enable_agentic_memory: bool = False,
        add_memories_to_context: bool = False,
    ) -> None:
        self.model = model
        self.db: BaseDb = db or storage or InMemoryDb()
        self.name = name
        self.id = id or (_slug(name) if name else f"agent-{uuid.uuid4().hex[:8]}")
        self.description = description
        self.instructions = instructions
        self.session_state: dict[str, Any] = copy.deepcopy(dict(session_state or {}))
        self.overwrite_db_session_state = overwrite_db_session_state
        self.dependencies: dict[str, Any] = dict(dependencies or {})
        # without a session_id a run uses this agent's own default session
        self.session_id = session_id or uuid.uuid4().hex
        self.user_id = user_id
        self.tool_call_limit = tool_call_limit
        self.add_memories_to_context = add_memories_to_context
        self.tool_hooks = list(tool_hooks or [])
        extra_tools: list[Function] = []
        if enable_agentic_state:
            extra_tools.append(agentic_state_function())
        if enable_agentic_memory:
            extra_tools.extend(memory_functions(self.db))
        self.functions: dict[str, Function] = collect_functions([*(tools or []), *extra_tools])
        self.prompt = PromptSpec(
            description=description,
            instructions=instructions,
            system_message=system_message,
            markdown=markdown,
            resolve_in_context=resolve_in_context,
            add_session_state_to_context=add_session_state_to_context,
            enable_agentic_state=enable_agentic_state,
        )

    # -- runs -------------------------------------------------------------------------
    def loop_spec(self, injected: Mapping[str, Any] | None = None) -> LoopSpec:
        """How this agent runs the model loop (teams and workflows reuse it)."""
        return LoopSpec(
            owner_id=self.id,
            model=self.model,
            functions=self.functions,
            hooks=self.tool_hooks,
            prompt=self.prompt,
            tool_call_limit=self.tool_call_limit,
            injected={"agent": self, **(injected or {})},
        )

    def _meta(self, user_id: str | None) -> SessionMeta:
        return SessionMeta(kind=self.kind, owner_id=self.id, user_id=user_id)

    def _dependencies(self, run_dependencies: Mapping[str, Any] | None) -> Mapping[str, Any]:
        # read-only per run and never persisted: a proxy over a private copy
        merged = {**copy.deepcopy(self.dependencies), **copy.deepcopy(dict(run_dependencies or {}))}
        return MappingProxyType(merged)

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
        """Run on a session someone else opened (a team's or workflow's)."""
        memories: list[str] = []
        if self.add_memories_to_context and handle.user_id:
            memories = [m.memory for m in await self.db.aget_memories(handle.user_id)]
        return await run_loop(
            self.loop_spec(injected),
            handle,
            input,
            dependencies=self._dependencies(dependencies),
            metadata=metadata or {},
            memories=memories,
            on_content=on_content,
        )

    async def _arun(
        self,
        input: str,
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, Any] | None = None,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
    ) -> RunOutput:
        if self.model is None:
            # fail before a session is opened, so a refused run stores nothing
            raise NoModelError(
                f"{self.id!r} has no model: set OPENAI_API_KEY or OPENAI_BASE_URL, "
                "or pass model=... (tools can still be called directly)"
            )
        user_id = user_id or self.user_id
        async with open_session(
            self.db,
            session_id=session_id or self.session_id,
            user_id=user_id,
            run_id=uuid.uuid4().hex,
            meta=self._meta(user_id),
            default=self.session_state,
            run_state=session_state,
            overwrite=self.overwrite_db_session_state,
        ) as handle:
            try:
                output = await self.arun_on_session(
                    handle,
                    input,
                    dependencies=dependencies,
                    metadata=metadata,
                    on_content=on_content,
                )
            finally:
                await handle.persist()  # keep what earlier tool batches did, even on error
            # the live dict is discarded after the run, so no copy is needed
            output.session_state = handle.tracker.public_state()
            return output

    def arun(self, input: str, *, stream: bool = False, **kwargs: Any) -> Any:
        """``await agent.arun(...)`` -> RunOutput; ``stream=True``: an async iterator of events."""
        if stream:
            return stream_run(lambda sink: self._arun(input, on_content=sink, **kwargs))
        return self._arun(input, **kwargs)

    def run(self, input: str, *, stream: bool = False, **kwargs: Any) -> Any:
        """Sync twin of :meth:`arun`; with ``stream=True`` an iterator of events."""
        if stream:
            events: AsyncIterator[RunEvent] = self.arun(input, stream=True, **kwargs)
            return iterate_sync(events)
        return run_sync(self._arun(input, **kwargs))

    def print_response(self, input: str, *, stream: bool = False, **kwargs: Any) -> RunOutput:
        """Run and print the answer (chunk by chunk with ``stream=True``)."""
        if not stream:
            output: RunOutput = self.run(input, **kwargs)
            print(output.content or "")
            return output
        final: RunOutput | None = None
        stream_events: Iterator[RunEvent] = self.run(input, stream=True, **kwargs)
        for event in stream_events:
            if event.run_output is None:
                print(event.content, end="", flush=True)
            else:
                final = event.run_output
        print()
        assert final is not None
        return final

    async def aprint_response(self, input: str, **kwargs: Any) -> RunOutput:
        """Async twin of :meth:`print_response` (non-streaming)."""
        output: RunOutput = await self._arun(input, **kwargs)
        print(output.content or "")
        return output

    # -- direct tool calls --------------------------------------------------------------
    async def arun_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> RunOutput:
        """Run one tool without the model: same hooks, validation, rollback, persistence."""
        function = self.functions.get(name)
        if function is None:
            raise UnknownToolError(name, list(self.functions))
        function.validate(dict(arguments))  # bad arguments fail before any session is touched
        user_id = user_id or self.user_id
        async with open_session(
            self.db,
            session_id=session_id or self.session_id,
            user_id=user_id,
            run_id=uuid.uuid4().hex,
            meta=self._meta(user_id),
            default=self.session_state,
        ) as handle:
            run_context = RunContext(
                run_id=handle.run_id,
                session_id=handle.session_id,
                user_id=user_id,
                session_state=handle.tracker.state,
                dependencies=self._dependencies(None),
            )
            injected = {
                "session_state": handle.tracker.state,
                "run_context": run_context,
                "agent_state": AgentState(handle.tracker.state),
                "agent": self,
            }
            execution, _ = await execute_tool_call(
                call_id=f"direct_{handle.run_id}",
                name=name,
                raw_arguments=arguments,
                functions=self.functions,
                hooks=self.tool_hooks,
                handle=handle,
                run_context=run_context,
                injected=injected,
                checkpoint=handle.tracker.known_checkpoint(),
            )
            await handle.persist()
            output = RunOutput(run_id=handle.run_id, session_id=handle.session_id, user_id=user_id)
            output.agent_id = self.id
            output.content = execution.result
            output.tools.append(execution)
            output.metrics.tool_calls = 1
            output.session_state = handle.tracker.public_state()
            return output

    def run_tool(self, name: str, arguments: Mapping[str, Any], **kwargs: Any) -> RunOutput:
        """Sync twin of :meth:`arun_tool`."""
        return run_sync(self.arun_tool(name, arguments, **kwargs))

    def __repr__(self) -> str:
        return f"Agent(id={self.id!r}, tools={list(self.functions)})"


__all__ = ["Agent", "ToolArgumentError"]
