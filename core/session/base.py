"""What Agno's session classes share: fields, dict form, runs and their messages.

A session object is a copy: reading it takes nothing from the store and changing it
changes nothing stored until it is saved (``agent.save_session(session)`` or
``db.upsert_session(session)``), which goes through the session's lease and leaves an
audit entry. ``session_data`` holds ``session_state`` and ``session_name`` (when set)
besides a program's own keys; ``summary`` stays None unless a summary was stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

from core.db.session_types import SessionType
from core.models.base import Message
from core.run.output import RunOutput, RunStatus
from core.session.runs import output_from_dict, output_to_dict
from core.session.summary import SessionSummary

__all__ = ["BaseSession", "messages_of"]

#: statuses whose messages ``get_messages`` leaves out unless told otherwise (Agno's)
_SKIPPED = (RunStatus.paused, RunStatus.cancelled, RunStatus.error)
#: fields the dict form leaves out (runs are converted apart; the version is ours)
_NOT_AGNOS = frozenset({"runs", "version"})


@dataclass
class BaseSession:
    """One stored session of an agent, team or workflow (Agno's fields)."""

    session_type: ClassVar[SessionType]
    #: the field that names the owner (``agent_id``, ``team_id``, ``workflow_id``)
    owner_field: ClassVar[str]

    session_id: str
    user_id: str | None = None
    session_data: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    runs: list[RunOutput] | None = field(default=None)
    summary: Any = None
    created_at: int | None = None
    updated_at: int | None = None
    #: the stored version this object was read at (None: built by the program). A
    #: save refuses when the session has moved on since (StaleVersionError, nothing
    #: written), so saving an old copy never rolls back a run's changes.
    version: int | None = field(default=None, compare=False, kw_only=True)

    @property
    def owner_id(self) -> str | None:
        """The id of the agent, team or workflow the session belongs to."""
        owner = getattr(self, self.owner_field)
        return None if owner is None else str(owner)

    # -- dict form ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Agno's dict form (runs as dicts)."""
        out: dict[str, Any] = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_AGNOS
        }
        out["runs"] = [output_to_dict(r) for r in self.runs] if self.runs is not None else None
        to_dict = getattr(self.summary, "to_dict", None)
        if callable(to_dict):
            out["summary"] = to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self | None:
        """A session from its dict form; None without a ``session_id`` (Agno's rule)."""
        if data.get("session_id") is None:
            return None
        names = {f.name for f in fields(cls)} - _NOT_AGNOS
        known = {k: v for k, v in data.items() if k in names}
        summary = known.get("summary")
        if isinstance(summary, Mapping) and isinstance(summary.get("summary"), str):
            known["summary"] = SessionSummary.from_dict(summary)  # Agno's from_dict does too
        runs = data.get("runs")
        known["runs"] = _runs(runs or ())
        return cls(**known)

    # -- runs -----------------------------------------------------------------------
    def upsert_run(self, run: RunOutput) -> None:
        """Add a run, or replace the one with the same ``run_id``."""
        if self.runs is None:
            self.runs = []
        for i, known in enumerate(self.runs):
            if known.run_id == run.run_id:
                self.runs[i] = run
                return
        self.runs.append(run)

    def get_run(self, run_id: str) -> RunOutput | None:
        """The run with this id, None when the session does not hold it."""
        return next((r for r in self.runs or () if r.run_id == run_id), None)

    def get_messages(
        self,
        agent_id: str | None = None,
        team_id: str | None = None,
        last_n_runs: int | None = None,
        limit: int | None = None,
        skip_roles: Iterable[str] | None = None,
        skip_statuses: Iterable[RunStatus] | None = None,
        skip_history_messages: bool = True,
    ) -> list[Message]:
        """The messages of the session's runs, oldest first, one system message at most.

        Runs paused, cancelled or failed are left out unless ``skip_statuses`` says
        otherwise; ``last_n_runs`` keeps the newest runs, ``limit`` the newest messages
        (the system message first, and never a tool result without its call).
        """
        runs = list(self.runs or ())
        if agent_id:
            runs = [r for r in runs if r.agent_id == agent_id]
        if team_id:
            runs = [r for r in runs if r.team_id == team_id]
        runs = [r for r in runs if r.parent_run_id is None]  # a member's run is its team's
        return messages_of(
            runs, last_n_runs, limit, skip_roles, skip_statuses, skip_history_messages
        )

    def get_chat_history(self, last_n_runs: int | None = None) -> list[Message]:
        """The user and assistant messages of the session's runs, oldest first."""
        return self.get_messages(
            last_n_runs=last_n_runs, skip_roles=("system", "tool"), skip_statuses=()
        )

    def get_tool_calls(self, num_calls: int | None = None) -> list[dict[str, Any]]:
        """The tool calls of the session's runs, newest run first (``num_calls`` at most)."""
        calls: list[dict[str, Any]] = []
        for run in reversed(self.runs or ()):
            for message in run.messages or ():
                for call in message.tool_calls or ():
                    calls.append(
                        dict(call)
                        if isinstance(call, Mapping)  # a program's Agno-style dict
                        else {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                    )
                    if num_calls is not None and len(calls) >= num_calls:
                        return calls
        return calls

    def get_session_summary(self) -> Any:
        """The session's summary, None when none was stored."""
        return self.summary


def messages_of(
    runs: Iterable[RunOutput],
    last_n_runs: int | None = None,
    limit: int | None = None,
    skip_roles: Iterable[str] | None = None,
    skip_statuses: Iterable[RunStatus] | None = None,
    skip_history_messages: bool = True,
) -> list[Message]:
    """The messages of ``runs`` by ``get_messages``' rules (its docstring)."""
    skipped = {RunStatus(s) for s in (_SKIPPED if skip_statuses is None else skip_statuses)}
    roles = set(skip_roles or ())
    kept = [r for r in runs if RunStatus(r.status) not in skipped]
    if last_n_runs is not None:
        kept = kept[-last_n_runs:] if last_n_runs > 0 else []
    system: Message | None = None
    others: list[Message] = []
    for run in kept:
        for message in run.messages or ():  # a program's run may hold None
            if message.role in roles or (
                skip_history_messages and getattr(message, "from_history", False)
            ):
                continue
            if message.role != "system":
                others.append(message)
            elif system is None:
                system = message
    if limit is not None:
        room = limit - 1 if system else limit  # the system message takes one place
        others = others[-room:] if room > 0 else []
        while others and others[0].role == "tool":  # a result without its call
            others.pop(0)
    return ([system] if system else []) + others


def _runs(runs: Iterable[RunOutput | Mapping[str, Any]]) -> list[RunOutput]:
    return [r if isinstance(r, RunOutput) else output_from_dict(r) for r in runs]
