"""Team: a leader model that delegates to member agents (or teams) on one shared state.

A team run opens ONE session (kind ``"team"``). The leader runs the ordinary model loop
with the team's tools plus ``delegate_task_to_member``; a delegated member runs its own
loop on the same open session, so leader and members read and write one
``session_state``. Like an Agent, the Team object is a template a run never changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.agent.callables import (
    CallableCacheMethods,
    Factory,
    PerRun,
    owner_callables,
    split_callable,
    static_list,
)
from core.agent.deadline import DEFAULT_RUN_TIMEOUT, DEFAULT_TOOL_TIMEOUT, check_timeout
from core.agent.direct_tool import DirectToolMethods
from core.agent.history_options import check_history_runs
from core.agent.loop import ContentSink, LoopSpec, run_loop
from core.agent.past_sessions import past_session_functions
from core.agent.prompt import PromptSpec
from core.agent.run_methods import RunMethods
from core.agent.run_options import RunOptions, time_line, zone_of
from core.agent.session_api import SessionStateApi
from core.agent.streaming import observe_run
from core.agent.summary_api import SessionSummaryApi
from core.db.base import BaseDb
from core.exceptions import InputCheckError, OutputCheckError
from core.governance.budgets.model import Budget
from core.memory.tools import memory_functions
from core.models.base import Model
from core.run.context import RunContext
from core.run.output import RunOutput
from core.run.run_input import RunInput
from core.session.summary import SessionSummaryManager
from core.state.merge import deep_merge
from core.state.schema import Migration, StateSchema
from core.state.session import SessionHandle
from core.team.history import (
    check_count,
    leader_history_messages,
    leader_history_runs,
    member_history,
)
from core.team.inherit import ModelInheritance, inherit_model
from core.team.members import (
    DELEGATE_ALL_TOOL,
    DELEGATE_TOOL,
    Delegation,
    Member,
    check_members,
    members_prompt,
)
from core.team.modes import COLLABORATE, ROUTE, RouteModel, TeamMode, resolve_mode
from core.tools.collect import agentic_state_function, collect_functions
from core.tools.function import Function


class Team(
    RunMethods,
    DirectToolMethods,
    SessionStateApi,
    SessionSummaryApi,
    CallableCacheMethods,
    ModelInheritance,
):
    """An Agno-compatible team whose members share the team's session state."""

    owner_param = "team"
    kind = "team"

    def __init__(
        self,
        members: Sequence[Any] | Callable[..., Any],
        model: Model | None = None,
        *,
        db: BaseDb | None = None,
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
        mode: str | TeamMode | None = None,
        respond_directly: bool = False,
        delegate_to_all_members: bool = False,
        role: str | None = None,
        share_member_interactions: bool = False,
        show_members_responses: bool = False,
        enable_agentic_memory: bool = False,
        update_memory_on_run: bool = False,
        add_history_to_context: bool = False,
        num_history_runs: int | None = None,
        add_dependencies_to_context: bool = False,
        telemetry: bool = True,
        session_state_schema: type[Any] | StateSchema | None = None,
        session_state_schema_version: int = 1,
        session_state_migrations: Mapping[int, Migration] | None = None,
        budget: Budget | None = None,
        num_history_messages: int | None = None,
        add_team_history_to_members: bool = False,
        num_team_history_runs: int | None = 3,
        cache_session: bool = False,
        cache_callables: bool = True,
        callable_tools_cache_key: Callable[..., Any] | None = None,
        callable_members_cache_key: Callable[..., Any] | None = None,
        pre_hooks: Sequence[Callable[..., Any]] | None = None,
        post_hooks: Sequence[Callable[..., Any]] | None = None,
        output_schema: type[Any] | dict[str, Any] | None = None,
        add_datetime_to_context: bool = False,
        timezone_identifier: str | None = None,
        datetime_format: str | None = None,
        enable_session_summaries: bool = False,
        session_summary_manager: SessionSummaryManager | None = None,
        add_session_summary_to_context: bool | None = None,
        search_past_sessions: bool = False,
        num_past_sessions_to_search: int | None = None,
        num_past_session_runs_in_search: int | None = None,
    ) -> None:
        """Build the team (a template: runs never change it).

        ``members`` may be a factory, and ``instructions`` / ``system_message`` / ``tools``
        callables, read per run like an Agent's (:mod:`core.agent.callables`); a members
        factory's members bring no default state into the team's template.
        ``pre_hooks`` / ``post_hooks`` (hooks name ``team``), ``output_schema`` and
        ``add_datetime_to_context`` are the Agent's (:mod:`core.agent.run_options`).

        ``mode`` (or Agno's ``respond_directly`` / ``delegate_to_all_members``) is how
        the leader works with the members (:mod:`core.team.modes`). ``role`` is shown to
        a parent team's leader. ``share_member_interactions`` lets a member see what
        earlier members were asked and answered in this run; ``show_members_responses``
        makes ``print_response`` print each member's answer too.
        ``update_memory_on_run`` (like ``enable_agentic_memory``) gives the leader the
        user-memory tools, so the model records what it learns about the user during
        the run (Agno runs a separate memory pass after the run instead).
        ``add_history_to_context`` / ``num_history_runs`` (or ``num_history_messages``)
        give the leader the session's earlier runs; ``add_team_history_to_members`` gives
        each member the team's last ``num_team_history_runs`` runs with its task
        (:mod:`core.team.history`). ``cache_session`` is accepted for Agno code: sessions
        are always cached per process here and checked against the store on every run
        (core.state.cache), so both values read the same, current session.
        ``enable_session_summaries`` / ``session_summary_manager`` /
        ``add_session_summary_to_context``: session summaries (:mod:`core.session.summary`).
        ``telemetry`` is accepted for Agno code: this project sends no telemetry at
        all, whatever its value.
        """
        self.members: list[Member] | Callable[..., Any]
        self.members = members if callable(members) else check_members(members)
        self.cache_callables = cache_callables
        self.mode = resolve_mode(
            mode, respond_directly=respond_directly, delegate_to_all_members=delegate_to_all_members
        )
        self.respond_directly = self.mode == ROUTE
        self.delegate_to_all_members = self.mode == COLLABORATE
        self.role = role
        self.share_member_interactions = share_member_interactions
        self.show_members_responses = show_members_responses
        self.update_memory_on_run = update_memory_on_run
        self.add_history_to_context = add_history_to_context
        self.num_history_runs = check_history_runs(num_history_runs)
        self.num_history_messages = check_count("num_history_messages", num_history_messages)
        self.add_team_history_to_members = add_team_history_to_members
        self.num_team_history_runs = check_count("num_team_history_runs", num_team_history_runs)
        self.cache_session = cache_session
        self.telemetry = telemetry  # no-op by design: nothing is ever sent anywhere
        # members' own defaults come first, so their tools find the keys they expect
        template: dict[str, Any] = {}
        for member in self.members if isinstance(self.members, list) else ():
            template = deep_merge(template, member.session_state)
        super().__init__(
            name=name,
            id=id,
            db=db,
            session_state=deep_merge(template, dict(session_state or {})),
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
        self.tool_hooks = list(tool_hooks or [])
        extra = [agentic_state_function()] if enable_agentic_state else []
        if enable_agentic_memory or update_memory_on_run:
            extra.extend(memory_functions(self.db))
        if search_past_sessions:  # Agno's past-session tools (core.agent.past_sessions)
            extra += past_session_functions(
                self.db, self.kind, num_past_sessions_to_search, num_past_session_runs_in_search
            )
        self.tools = tools
        self.callables = owner_callables(
            instructions,
            system_message,
            tools,
            extra,
            cache=cache_callables,
            tools_key=callable_tools_cache_key,
        )
        self.members_factory = (
            Factory(
                self.members,
                what="members",
                cache=cache_callables,
                key_function=callable_members_cache_key,
            )
            if callable(self.members)
            else None
        )
        self.functions: dict[str, Function] = collect_functions([*static_list(tools), *extra])
        for reserved in (DELEGATE_TOOL, DELEGATE_ALL_TOOL):
            if reserved in self.functions:
                raise ValueError(f"the tool name {reserved!r} is reserved for delegation")
        self.pre_hooks = list(pre_hooks or [])
        self.post_hooks = list(post_hooks or [])
        self.output_schema = output_schema
        self.options = RunOptions(self.pre_hooks, self.post_hooks, output_schema)
        self.add_datetime_to_context = add_datetime_to_context
        self.timezone_identifier = timezone_identifier
        self.datetime_format = datetime_format
        zone = zone_of(timezone_identifier)
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
            add_session_summary_to_context=self.set_summary_options(
                enable_session_summaries=enable_session_summaries,
                session_summary_manager=session_summary_manager,
                add_session_summary_to_context=add_session_summary_to_context,
                model=model,
            ),
        )

    def loop_spec(
        self,
        functions: Mapping[str, Function],
        injected: Mapping[str, Any] | None = None,
        model: Model | None = None,
        per_run: PerRun | None = None,
    ) -> LoopSpec:
        """How the leader runs the model loop with ``functions`` (team tools + delegation)."""
        return LoopSpec(
            history_runs=leader_history_runs(
                self.add_history_to_context, self.num_history_runs, self.num_history_messages
            ),
            history_messages=leader_history_messages(
                self.num_history_runs, self.num_history_messages
            ),
            owner_id=self.id,
            model=model or self.model,
            functions=functions,
            hooks=self.tool_hooks,
            prompt=self.prompt,
            tool_call_limit=self.tool_call_limit,
            tool_timeout=self.tool_timeout,
            injected={**(injected or {}), "team": self},
            per_run=per_run,
        )

    async def run_members(
        self, run_context: RunContext, injected: Mapping[str, Any]
    ) -> list[Member]:
        """This run's members: the team's list, or what its members factory gives now."""
        given = self.members
        if self.members_factory is not None:
            given = check_members(await self.members_factory.resolve(run_context, injected))
        return inherit_model(given if isinstance(given, list) else [], self._model)

    def cached_factories(self) -> list[Factory | None]:
        """The tools and members factories (:meth:`clear_callable_cache` empties them)."""
        return [self.callables.tools, self.members_factory]

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
        """Run the leader on an open session (this team's, or a workflow's)."""
        deps = self.run_dependencies(dependencies)
        member_outputs: list[RunOutput] = []
        leader = RouteModel(self.model) if self.mode == ROUTE and self.model else None
        stage = self.options.stage(self.callables, {"team": self}, self.id)

        async def per_run(
            spec: LoopSpec,
            run_context: RunContext,
            values: Mapping[str, Any],
            run_input: RunInput | None,
        ) -> LoopSpec:
            """Hooks, callables and output schema, then delegation to the run's members."""
            spec = await stage.per_run(spec, run_context, values, run_input)
            members = await self.run_members(run_context, values)
            if not members:
                return spec
            functions = dict(spec.functions)
            delegation = Delegation(
                members,
                handle,
                dependencies=deps,
                metadata=metadata or {},
                injected={"team": self},
                on_member_output=lambda _member, out: member_outputs.append(out),
                share_member_interactions=self.share_member_interactions,
                team_history=member_history(handle, self.id, self.kind, self.num_team_history_runs)
                if self.add_team_history_to_members
                else None,
            )
            if self.mode == COLLABORATE:
                functions[DELEGATE_ALL_TOOL] = delegation.delegate_all_function()
            else:
                on_answer = leader.answers.append if leader is not None else None
                functions[DELEGATE_TOOL] = delegation.delegate_function(on_answer)
            extra = (*spec.prompt.extra, members_prompt(members, self.mode))
            prompt = dataclasses.replace(spec.prompt, extra=extra)
            return dataclasses.replace(spec, functions=functions, prompt=prompt)

        async with observe_run(self, handle.run_id, handle.session_id) as observer:
            try:
                output = await run_loop(
                    self.loop_spec(dict(self.functions), injected, leader, per_run),
                    handle,
                    input,
                    dependencies=deps,
                    metadata=metadata or {},
                    on_content=on_content,
                    on_tool_event=observer.on_tool,
                )
                await stage.finish(output, handle)
            except (InputCheckError, OutputCheckError) as error:  # a pre-hook refused the run
                output = stage.refused(error)
            if leader is not None:  # turns that returned a member's answer were no model call
                output.metrics.model_calls -= leader.routed_turns
            for member_output in member_outputs:  # the run's cost includes its members'
                output.metrics.model_calls += member_output.metrics.model_calls
                output.metrics.tool_calls += member_output.metrics.tool_calls
                output.metrics.input_tokens += member_output.metrics.input_tokens
                output.metrics.output_tokens += member_output.metrics.output_tokens
            output.member_responses = member_outputs
            observer.output = output
        return output

    def print_response(self, input: str, *, stream: bool = False, **kwargs: Any) -> RunOutput:
        """Print the answer; with ``show_members_responses`` each member's answer after it."""
        output = super().print_response(input, stream=stream, **kwargs)
        if self.show_members_responses:
            for member_output in output.member_responses:
                who = member_output.agent_id or "member"
                print(f"--- {who} ---\n{member_output.get_content_as_string()}")
        return output

    def __repr__(self) -> str:
        members = [m.id for m in self.members] if isinstance(self.members, list) else self.members
        return f"Team(id={self.id!r}, members={members})"
