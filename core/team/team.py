"""Team: a leader model that delegates to member agents (or teams) on one shared state.

A team run opens ONE session (kind ``"team"``). The leader runs the ordinary model loop
with the team's tools plus ``delegate_task_to_member``; a delegated member runs its own
loop on the same open session, so leader and members read and write one
``session_state``. Like an Agent, the Team object is a template a run never changes.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from core.agent.deadline import DEFAULT_RUN_TIMEOUT, DEFAULT_TOOL_TIMEOUT, check_timeout
from core.agent.direct_tool import DirectToolMethods
from core.agent.loop import ContentSink, LoopSpec, run_loop
from core.agent.prompt import PromptSpec
from core.agent.run_methods import RunMethods
from core.agent.session_api import SessionStateApi
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.models.base import Model
from core.run.output import RunOutput
from core.state.merge import deep_merge
from core.state.session import SessionHandle
from core.team.members import DELEGATE_TOOL, check_members, delegate_function, members_prompt
from core.tools.collect import agentic_state_function, collect_functions
from core.tools.function import Function
from core.utils.ids import slug


class Team(RunMethods, DirectToolMethods, SessionStateApi):
    """An Agno-compatible team whose members share the team's session state."""

    owner_param = "team"
    kind = "team"

    def __init__(
        self,
        members: Sequence[Any],
        model: Model | None = None,
        *,
        db: BaseDb | None = None,
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
        run_timeout: float | None = DEFAULT_RUN_TIMEOUT,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    ) -> None:
        self.members = check_members(members)
        self.model = model
        self.db: BaseDb = db or InMemoryDb()
        self.name = name
        self.id = id or (slug(name, "team") if name else f"team-{uuid.uuid4().hex[:8]}")
        self.description = description
        self.instructions = instructions
        # members' own defaults come first, so their tools find the keys they expect
        template: dict[str, Any] = {}
        for member in self.members:
            template = deep_merge(template, getattr(member, "session_state", None) or {})
        self.session_state: dict[str, Any] = deep_merge(template, dict(session_state or {}))
        self.overwrite_db_session_state = overwrite_db_session_state
        self.dependencies: dict[str, Any] = copy.deepcopy(dict(dependencies or {}))
        self.session_id = session_id or uuid.uuid4().hex
        self.user_id = user_id
        self.tool_call_limit = tool_call_limit
        # not Agno arguments: the run's deadline and each tool call's (core.agent.deadline)
        self.run_timeout = check_timeout("run_timeout", run_timeout)
        self.tool_timeout = check_timeout("tool_timeout", tool_timeout)
        self.tool_hooks = list(tool_hooks or [])
        extra = [agentic_state_function()] if enable_agentic_state else []
        self.functions: dict[str, Function] = collect_functions([*(tools or []), *extra])
        if DELEGATE_TOOL in self.functions:
            raise ValueError(f"the tool name {DELEGATE_TOOL!r} is reserved for delegation")
        self.prompt = PromptSpec(
            description=description,
            instructions=instructions,
            system_message=system_message,
            markdown=markdown,
            resolve_in_context=resolve_in_context,
            add_session_state_to_context=add_session_state_to_context,
            enable_agentic_state=enable_agentic_state,
            extra=(members_prompt(self.members),) if self.members else (),
        )

    def _dependencies(self, run_dependencies: Mapping[str, Any] | None) -> Mapping[str, Any]:
        merged = {**copy.deepcopy(self.dependencies), **copy.deepcopy(dict(run_dependencies or {}))}
        return MappingProxyType(merged)

    def loop_spec(
        self, functions: Mapping[str, Function], injected: Mapping[str, Any] | None = None
    ) -> LoopSpec:
        """How the leader runs the model loop with ``functions`` (team tools + delegation)."""
        return LoopSpec(
            owner_id=self.id,
            model=self.model,
            functions=functions,
            hooks=self.tool_hooks,
            prompt=self.prompt,
            tool_call_limit=self.tool_call_limit,
            tool_timeout=self.tool_timeout,
            injected={**(injected or {}), "team": self},
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
    ) -> RunOutput:
        """Run the leader on an open session (this team's, or a workflow's)."""
        deps = self._dependencies(dependencies)
        member_outputs: list[RunOutput] = []
        functions = dict(self.functions)
        if self.members:
            functions[DELEGATE_TOOL] = delegate_function(
                self.members,
                handle,
                dependencies=deps,
                metadata=metadata or {},
                injected={"team": self},
                on_member_output=member_outputs.append,
            )
        output = await run_loop(
            self.loop_spec(functions, injected),
            handle,
            input,
            dependencies=deps,
            metadata=metadata or {},
            on_content=on_content,
        )
        for member_output in member_outputs:  # the run's cost includes its members'
            output.metrics.model_calls += member_output.metrics.model_calls
            output.metrics.tool_calls += member_output.metrics.tool_calls
            output.metrics.input_tokens += member_output.metrics.input_tokens
            output.metrics.output_tokens += member_output.metrics.output_tokens
        return output

    def __repr__(self) -> str:
        return f"Team(id={self.id!r}, members={[m.id for m in self.members]})"
