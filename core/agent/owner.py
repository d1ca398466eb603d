"""SessionOwner: what Agent, Team and Workflow share — the settings of a session's owner.

An owner is a *template*: runs never change it. It names the store (``db``, or
Agno's ``storage``), the default ``session_state`` (deep-copied into a session only
when that session is created), the default ``session_id`` / ``user_id``, the run
deadline, ``overwrite_db_session_state`` and ``dependencies``. Its one requirement
is :meth:`SessionOwner.arun_on_session`: run on a session that is already open.
Everything around that — lease, load, resolve, deadline, history, save, output —
is the runner's (:mod:`core.agent.runner`), the same for every kind of owner.

Typed state (optional, :mod:`core.state.schema`): ``session_state_schema`` (a pydantic
model or TypedDict), ``session_state_schema_version`` (default 1) and
``session_state_migrations`` (``{2: fn, 3: fn}``: ``fn`` turns a state of version n - 1
into version n). The default ``session_state`` must fit the schema (checked here, once);
each session is checked and migrated when a run opens it
(:mod:`core.state.schema_session`). ``budget``: the owner's usage limits
(:class:`core.governance.budgets.model.Budget`), kept as ``self.budget``.

Dependencies are merged one way, decided here only (:meth:`SessionOwner.run_dependencies`):
the run's ``dependencies=`` over the owner's, key by key, the run's keys winning, one
level deep (Agno 3.1's Agent and Team rule: runtime values override static config,
the owner's other keys and resolver callables are kept). Nested runs (a team's members,
a workflow's agent and team steps) receive the outer run's resolved dependencies as
their run argument, merged over their own the same way.
"""

from __future__ import annotations

import abc
import contextlib
import copy
import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from core.agent.deadline import DEFAULT_RUN_TIMEOUT, check_timeout
from core.agent.loop import ContentSink, Resume
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.records import SessionMeta
from core.exceptions import RunError
from core.governance.budgets.model import Budget
from core.run.output import RunOutput
from core.session.summary import SessionSummaryManager
from core.state.schema import Migration, StateSchema, schema_of
from core.state.schema_session import typed_session
from core.state.session import SessionHandle, open_session
from core.tools.function import Function
from core.utils.ids import slug


class SessionOwner(abc.ABC):
    """The settings every session owner has, and the one method it must implement."""

    #: "agent", "team" or "workflow": stored with the session, names events and metrics
    kind: ClassVar[str]
    #: the parameter name under which tools and hooks receive the owner
    owner_param: ClassVar[str]
    #: not Agno's: how a chat front end keys this owner's conversations, ``"thread"``,
    #: ``"channel"`` or ``"user"`` (``bots.chat.registry.scope_of``); None leaves it to
    #: the front end (a thread). Set it on an instance: ``agent.session_scope = "channel"``
    #: makes one board the whole channel shares, whether mentioned in a thread or used
    #: through its slash command.
    session_scope: str | None = None
    #: not Agno's: how many earlier messages of a thread a chat front end lets the model
    #: read when it is first asked there (``bots.chat.catch_up``); None leaves it to the
    #: front end (``STATEBOT_CATCH_UP``), 0 turns it off. ``agent.catch_up = 20``.
    catch_up: int | None = None
    #: writes the session's summary after each model run (None: no summaries)
    summaries: SessionSummaryManager | None = None
    #: whether a streamed run passes on the events of the agents and teams it runs
    #: (a workflow's ``stream_executor_events``); their terminal events always pass
    stream_executor_events: bool = True
    #: the first run of every session this owner creates (core.agent.introduction)
    introduction: str | None = None

    def __init__(
        self,
        *,
        name: str | None,
        id: str | None,
        db: BaseDb | None,
        session_state: Mapping[str, object] | None,
        session_id: str | None,
        user_id: str | None,
        dependencies: Mapping[str, object] | None,
        overwrite_db_session_state: bool,
        run_timeout: float | None = DEFAULT_RUN_TIMEOUT,
        session_state_schema: type[Any] | StateSchema | None = None,
        session_state_schema_version: int = 1,
        session_state_migrations: Mapping[int, Migration] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.name = name
        self.id: str = id or (
            slug(name, self.kind) if name else f"{self.kind}-{uuid.uuid4().hex[:8]}"
        )
        self.db: BaseDb = db or InMemoryDb()
        #: the template of a new session's state (a private deep copy)
        self.session_state: dict[str, Any] = copy.deepcopy(dict(session_state or {}))
        # without a session_id a run uses this owner's own default session
        self.session_id: str = session_id or uuid.uuid4().hex
        self.user_id = user_id
        self.dependencies: dict[str, Any] = copy.deepcopy(dict(dependencies or {}))
        self.overwrite_db_session_state = overwrite_db_session_state
        # not an Agno argument: seconds a run may take once it holds its session
        self.run_timeout = check_timeout("run_timeout", run_timeout)
        #: tools that can be called directly (``arun_tool``); none unless set
        self.functions: dict[str, Function] = {}
        #: the type every saved state must fit, its version and migrations (None: untyped)
        self.state_schema: StateSchema | None = schema_of(
            session_state_schema, session_state_schema_version, session_state_migrations
        )
        if self.state_schema is not None:  # every new session starts from the template
            try:
                self.state_schema.check_state(self.session_state)
            except ValueError as exc:
                raise ValueError(f"{self.kind} {self.id!r}: default session_state: {exc}") from None
        self.budget = budget

    # -- the one requirement --------------------------------------------------------
    @abc.abstractmethod
    async def arun_on_session(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        on_content: ContentSink | None = None,
        injected: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        """Run on a session that is already open (its own, or a team's or workflow's)."""

    async def arun_top(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, object] | None,
        metadata: Mapping[str, object] | None,
        on_content: ContentSink | None,
        resume: Resume | None = None,
    ) -> RunOutput:
        """Run as the top run of a session (the runner calls this).

        Only agents pause for confirmation (they override this); a resume reaching
        another owner is refused.
        """
        if resume is not None:
            raise RunError(f"{self.kind} {self.id!r} runs never pause, so none can be resumed")
        return await self.arun_on_session(
            handle, input, dependencies=dependencies, metadata=metadata, on_content=on_content
        )

    @property
    def model_id(self) -> str | None:
        """The id of the model this owner runs (None: it runs none itself, or has none)."""
        return None

    def check_runnable(self) -> None:
        """Raise before any session is opened when this owner cannot run.

        Every owner can run by default; an agent without a model cannot answer free text.
        """
        return

    # -- shared rules ----------------------------------------------------------------
    def run_dependencies(
        self, run_dependencies: Mapping[str, object] | None
    ) -> Mapping[str, object]:
        """The owner's dependencies with the run's over them: read-only, a private copy."""
        merged = {**self.dependencies, **dict(run_dependencies or {})}
        return MappingProxyType(copy.deepcopy(merged))

    def session_meta(self, user_id: str | None) -> SessionMeta:
        """The meta record saved with this owner's sessions."""
        return SessionMeta(kind=self.kind, owner_id=self.id, user_id=user_id)

    def open_run_session(
        self,
        session_id: str | None,
        user_id: str | None,
        session_state: Mapping[str, object] | None = None,
        *,
        run_id: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[SessionHandle]:
        """Open this owner's session for one run (run argument > stored > default).

        With a schema, the session is checked and migrated first, and the run argument
        merged after the migration (:func:`core.state.schema_session.typed_session`).
        """
        schema = self.state_schema
        opened = open_session(
            self.db,
            session_id=session_id or self.session_id,
            user_id=user_id,
            run_id=run_id or uuid.uuid4().hex,
            meta=self.session_meta(user_id),
            default=self.session_state,
            run_state=session_state if schema is None else None,
            overwrite=self.overwrite_db_session_state,
        )
        if schema is None:
            return opened
        return typed_session(
            opened, schema, session_state, overwrite=self.overwrite_db_session_state
        )
