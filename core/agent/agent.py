"""Agent: a model with tools, running against one session's state per run.

The Agent object is a template and is never changed by a run: ``session_state=`` is
copied into a session only when that session is created, and one instance serves many
sessions at once. Runs of one session are serialized through the store's session lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.agent.callables import (
    CallableCacheMethods,
    PerRun,
    owner_callables,
    split_callable,
    static_list,
)
from core.agent.context_args import check_context_args
from core.agent.deadline import DEFAULT_RUN_TIMEOUT, DEFAULT_TOOL_TIMEOUT, check_timeout
from core.agent.direct_tool import DirectToolMethods
from core.agent.history_options import DEFAULT_HISTORY_RUNS as DEFAULT_HISTORY_RUNS
from core.agent.history_options import check_history_runs, history_runs
from core.agent.history_tool import chat_history_function
from core.agent.loop import ContentSink, LoopSpec, Resume, run_loop
from core.agent.past_sessions import past_session_functions
from core.agent.prompt import PromptSpec
from core.agent.run_methods import RunMethods
from core.agent.run_options import RunOptions, connection_hint, time_line, zone_of
from core.agent.session_api import SessionStateApi
from core.agent.streaming import observe_run
from core.agent.summary_api import SessionSummaryApi
from core.agent.tool_table import ToolTableMethods
from core.db.base import BaseDb
from core.exceptions import (
    InputCheckError,
    MCPConnectionRequiredError,
    NoModelError,
    OutputCheckError,
)
from core.governance.budgets.model import Budget
from core.memory.manager import MemoryManager, user_memory_manager
from core.memory.tools import memory_functions
from core.models.base import Model
from core.models.default import default_model
from core.models.message import as_message
from core.models.tool_choice import check_tool_choice
from core.run.output import RunOutput
from core.session.summary import SessionSummaryManager
from core.state.schema import Migration, StateSchema
from core.state.session import SessionHandle
from core.tools.collect import (
    LiveToolkit,
    agentic_state_function,
    collect_functions,
)
from core.tools.function import Function


class Agent(
    RunMethods,
    DirectToolMethods,
    SessionStateApi,
    SessionSummaryApi,
    CallableCacheMethods,
    ToolTableMethods,
):
    """An Agno-compatible agent (see the seed documents for usage)."""

    kind = "agent"
    owner_param = "agent"

    def __init__(
        self,
        model: Model | None = None,
        *,
        db: BaseDb | None = None,
        storage: BaseDb | None = None,
        session_state: Mapping[str, Any] | None = None,
        tools: Sequence[Any] | Callable[..., Any] | None = None,
        tool_hooks: Sequence[Callable[..., Any]] | None = None,
        instructions: str | Sequence[str] | Callable[..., Any] | None = None,
        description: str | None = None,
        system_message: str | Callable[..., Any] | None = None,
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
        run_timeout: float | None = DEFAULT_RUN_TIMEOUT,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        enable_agentic_memory: bool = False,
        add_memories_to_context: bool | None = None,
        enable_user_memories: bool = False,
        update_memory_on_run: bool = False,
        memory_manager: MemoryManager | None = None,
        role: str | None = None,
        add_history_to_context: bool = False,
        num_history_runs: int | None = None,
        read_chat_history: bool = False,
        add_dependencies_to_context: bool = False,
        telemetry: bool = True,
        session_state_schema: type[Any] | StateSchema | None = None,
        session_state_schema_version: int = 1,
        session_state_migrations: Mapping[int, Migration] | None = None,
        budget: Budget | None = None,
        cache_callables: bool = True,
        callable_tools_cache_key: Callable[..., Any] | None = None,
        pre_hooks: Sequence[Callable[..., Any]] | None = None,
        post_hooks: Sequence[Callable[..., Any]] | None = None,
        output_schema: type[Any] | dict[str, Any] | None = None,
        add_datetime_to_context: bool = False,
        timezone_identifier: str | None = None,
        datetime_format: str | None = None,
        enable_session_summaries: bool = False,
        session_summary_manager: SessionSummaryManager | None = None,
        add_session_summary_to_context: bool | None = None,
        add_name_to_context: bool = False,
        system_message_role: str = "system",
        search_past_sessions: bool = False,
        num_past_sessions_to_search: int | None = None,
        num_past_session_runs_in_search: int | None = None,
        store_history_messages: bool = False,
        max_tool_calls_from_history: int | None = None,
        additional_input: Sequence[Any] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        introduction: str | None = None,
    ) -> None:
        """Build the agent (a template: runs never change it).

        ``instructions`` / ``system_message`` may be functions and ``tools`` a factory,
        called per run (``cache_callables`` / ``callable_tools_cache_key``: how tool
        lists are cached, :mod:`core.agent.callables`). ``pre_hooks`` / ``post_hooks``,
        ``output_schema`` and ``add_datetime_to_context`` (with ``timezone_identifier``,
        ``datetime_format``) work as in Agno (:mod:`core.agent.run_options`).

        Agno arguments kept as plain attributes for the part that honours them:
        ``add_history_to_context`` / ``num_history_runs`` (None: Agno's default) /
        ``read_chat_history`` for run history, ``add_dependencies_to_context`` for the
        system message. ``role`` is what a team leader is told this member does.
        ``telemetry`` is accepted for Agno code and honoured trivially: this project
        sends no telemetry at all, whatever its value. ``enable_session_summaries`` /
        ``session_summary_manager`` / ``add_session_summary_to_context``: session
        summaries (:mod:`core.session.summary`). ``enable_user_memories`` (Agno's older
        name of ``update_memory_on_run``) / ``memory_manager``: automatic user memories
        (:mod:`core.memory.manager`), in the context by default when on.
        ``add_name_to_context`` tells the
        model the agent's name; ``system_message_role`` is the system message's role.
        ``search_past_sessions``: tools to list and read the user's earlier sessions
        (:mod:`core.agent.past_sessions`). ``store_history_messages``: False, Agno's
        default, is what every run does; True is refused (docs/runtime.md).
        ``max_tool_calls_from_history`` holds for any value: history here is each earlier
        run's question and answer, never its tool calls. ``additional_input``: messages
        (``Message``, ``{"role", "content"}`` or text, sent as the user's) put after the
        system message in every model call, such as few-shot examples. ``introduction``:
        a new session's first run (:mod:`core.agent.introduction`).
        """
        super().__init__(
            name=name,
            id=id,
            db=db or storage,
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
        self.model = model
        self.description = description
        self.instructions = instructions
        self.tool_call_limit = tool_call_limit
        # not an Agno argument: each tool call's deadline (core.agent.deadline)
        self.tool_timeout = check_timeout("tool_timeout", tool_timeout)
        #: updates the user's memories after each completed run (None: off)
        self.user_memories = user_memory_manager(
            enable_user_memories or update_memory_on_run, memory_manager, self.db
        )
        self.enable_user_memories = self.user_memories is not None
        in_context = add_memories_to_context
        self.add_memories_to_context = (
            in_context if in_context is not None else self.enable_user_memories
        )
        self.role = role
        self.introduction = introduction
        self.add_history_to_context = add_history_to_context
        self.num_history_runs = check_history_runs(num_history_runs)
        self.read_chat_history = read_chat_history
        self.add_dependencies_to_context = add_dependencies_to_context
        self.telemetry = telemetry  # no-op by design: nothing is ever sent anywhere
        self.tool_hooks = list(tool_hooks or [])
        extra_tools: list[Function] = []
        if enable_agentic_state:
            extra_tools.append(agentic_state_function())
        if enable_agentic_memory:
            extra_tools.extend(memory_functions(self.db))
        if self.read_chat_history:
            extra_tools.append(chat_history_function(self.db))
        if search_past_sessions:
            extra_tools += past_session_functions(
                self.db, self.kind, num_past_sessions_to_search, num_past_session_runs_in_search
            )
        self.tools = tools
        self.cache_callables = cache_callables
        self.callable_tools_cache_key = callable_tools_cache_key
        #: toolkits whose tools are read per run (MCP servers: core.tools.mcp)
        self.live_toolkits: list[LiveToolkit] = []
        # direct calls (arun_tool) reach the static tools; a factory's exist per run only
        self.functions = collect_functions(
            [*static_list(tools), *extra_tools], live=self.live_toolkits
        )
        self.callables = owner_callables(
            instructions,
            system_message,
            tools,
            extra_tools,
            cache=cache_callables,
            tools_key=callable_tools_cache_key,
        )
        self.pre_hooks = list(pre_hooks or [])
        self.post_hooks = list(post_hooks or [])
        self.output_schema = output_schema
        self.options = RunOptions(self.pre_hooks, self.post_hooks, output_schema)
        self.add_datetime_to_context = add_datetime_to_context
        self.timezone_identifier = timezone_identifier
        self.datetime_format = datetime_format
        zone = zone_of(timezone_identifier)
        check_context_args(
            system_message_role=system_message_role,
            store_history_messages=store_history_messages,
            max_tool_calls_from_history=max_tool_calls_from_history,
        )
        self.max_tool_calls_from_history = max_tool_calls_from_history
        self.additional_input = [as_message(m, "additional_input") for m in additional_input or ()]
        check_tool_choice(tool_choice)
        self.tool_choice = tool_choice
        self.prompt = PromptSpec(
            description=description,
            instructions=split_callable(instructions)[0],
            system_message=split_callable(system_message)[0],
            markdown=markdown,
            resolve_in_context=resolve_in_context,
            add_session_state_to_context=add_session_state_to_context,
            add_dependencies_to_context=add_dependencies_to_context,
            enable_agentic_state=enable_agentic_state,
            current_time=time_line(zone, datetime_format) if add_datetime_to_context else None,
            name=name if add_name_to_context else None,
            role=system_message_role,
            add_session_summary_to_context=self.set_summary_options(
                enable_session_summaries=enable_session_summaries,
                session_summary_manager=session_summary_manager,
                add_session_summary_to_context=add_session_summary_to_context,
                model=model,
            ),
        )

    # -- runs -------------------------------------------------------------------------
    def loop_spec(
        self,
        injected: Mapping[str, Any] | None = None,
        *,
        can_pause: bool = False,
        per_run: PerRun | None = None,
    ) -> LoopSpec:
        """How this agent runs the model loop (teams and workflows reuse it)."""
        return LoopSpec(
            history_runs=history_runs(self.add_history_to_context, self.num_history_runs),
            can_pause=can_pause,
            owner_id=self.id,
            model=self.model,
            functions=self.functions,
            hooks=self.tool_hooks,
            prompt=self.prompt,
            tool_call_limit=self.tool_call_limit,
            tool_timeout=self.tool_timeout,
            injected={"agent": self, **(injected or {})},
            per_run=per_run,
            additional=tuple(self.additional_input),
            tool_choice=self.tool_choice,
        )

    async def arun_on_session(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
        injected: Mapping[str, Any] | None = None,
        can_pause: bool = False,
        resume: Resume | None = None,
    ) -> RunOutput:
        """Run on an open session (its own, or a team's or workflow's).

        ``can_pause``: a tool that requires confirmation pauses the run (only when
        the agent itself was asked to run: a team or workflow step cannot pause);
        ``resume``: continue a paused run with the decisions made.
        """
        try:
            for toolkit in self.live_toolkits:  # connected before the tools are offered
                await toolkit.aready(handle.user_id)
        except MCPConnectionRequiredError as needed:  # a per-user server not connected
            return connection_hint(self.id, handle, input, needed)
        memories: list[str] = []
        if self.add_memories_to_context and handle.user_id:
            # the store that holds this session (a team's or workflow's, when shared)
            memories = [m.memory for m in await handle.db.aget_memories(handle.user_id)]
        stage = self.options.stage(self.callables, {"agent": self}, self.id)
        spec = self.loop_spec(
            injected,
            can_pause=can_pause or resume is not None,
            per_run=stage.per_run if stage.needed else None,
        )
        async with observe_run(self, handle.run_id, handle.session_id) as observer:
            try:
                output = await run_loop(
                    spec,
                    handle,
                    input,
                    dependencies=self.run_dependencies(dependencies),
                    metadata=metadata or {},
                    memories=memories,
                    on_content=on_content,
                    on_tool_event=observer.on_tool,
                    resume=resume,
                )
                await stage.finish(output, handle)
            except (InputCheckError, OutputCheckError) as error:  # a pre-hook refused the run
                output = stage.refused(error)
            except MCPConnectionRequiredError as needed:  # a tools factory's per-user server
                output = connection_hint(self.id, handle, input, needed)
            observer.output = output
        return output

    async def arun_top(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, Any] | None,
        metadata: Mapping[str, Any] | None,
        on_content: ContentSink | None,
        resume: Resume | None = None,
    ) -> RunOutput:
        """As the top run, an agent may pause for confirmation, and be resumed."""
        return await self.arun_on_session(
            handle,
            input,
            dependencies=dependencies,
            metadata=metadata,
            on_content=on_content,
            can_pause=True,
            resume=resume,
        )

    @property
    def model(self) -> Model | None:
        """The model given, else the environment's default model (None: no model).

        Resolved on each use, so an agent defined before ``OPENAI_API_KEY`` /
        ``OPENAI_BASE_URL`` are set still finds it (:mod:`core.models.default`).
        """
        return self._model if self._model is not None else default_model()

    @model.setter
    def model(self, model: Model | None) -> None:
        self._model = model

    @property
    def model_id(self) -> str | None:
        """The id of this owner's model (None without one)."""
        return self.model.id if self.model is not None else None

    def check_runnable(self) -> None:
        """Free text needs a model; fail before a session is opened, storing nothing."""
        if self.model is None:
            raise NoModelError(
                f"{self.id!r} has no model: set OPENAI_API_KEY or OPENAI_BASE_URL, "
                "or pass model=... (tools can still be called directly)"
            )

    def __repr__(self) -> str:
        return f"Agent(id={self.id!r}, tools={list(self.functions)})"
