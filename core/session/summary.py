"""Session summaries: a short account of a session, written by a model after each run.

With Agno's ``enable_session_summaries=True`` on an Agent or Team, every model run
ends (before its final save) by sending the session's completed runs — the last
``last_n_runs`` of them, at most ``conversation_limit`` messages — to a model (the
manager's, else the owner's) with a prompt asking for ``{"summary", "topics"}`` as
JSON. The answer becomes the session's summary, kept in the session's data
(:attr:`core.run.history.SessionData.summary`) and written in the run's own save: it
is versioned, snapshotted, exported, erased and encrypted at rest with the session,
and bounded (:func:`core.run.history.bounded_summary`). It also records whose runs
it was made from, so erasing a user finds it (docs/erasure.md).

A summary that cannot be made (the model failed, or did not answer with the JSON
asked for) leaves the previous one in place and the run still succeeds, as in Agno;
the failure is logged. ``add_session_summary_to_context`` (on by default when
summaries are enabled or a manager is given, as in Agno) shows the stored summary in
the system message. Unlike Agno, the manager is a template a run never changes (Agno
sets its ``model`` and ``summaries_updated`` on use).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.models.base import Message, Model, Usage
from core.run.history import SessionData
from core.run.output import RunOutput, RunStatus
from core.state.session import SessionHandle
from core.utils.log import log_warning
from core.utils.sync import run_sync

__all__ = ["SessionSummary", "SessionSummaryManager", "summarize_run", "summary_manager"]

DEFAULT_PROMPT = (
    "Read the conversation between a user and an assistant below and summarize it for "
    "later conversations: keep what will matter then, be brief, and never add anything "
    "that was not said. Also list the topics discussed.\n"
)
JSON_REQUEST = (
    '\nAnswer with one JSON object and nothing else: {"summary": "<the summary>", '
    '"topics": ["<topic>", ...]}'
)


@dataclass
class SessionSummary:
    """A session's summary, as Agno's ``SessionSummary``."""

    summary: str
    topics: list[str] | None = None
    updated_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, without the members that are None (Agno's shape)."""
        out: dict[str, Any] = {"summary": self.summary}
        if self.topics is not None:
            out["topics"] = list(self.topics)
        if self.updated_at is not None:
            out["updated_at"] = self.updated_at.isoformat()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionSummary:
        """From :meth:`to_dict` output (or the stored form, whose other members are
        this project's bookkeeping)."""
        updated = data.get("updated_at")
        topics = data.get("topics")
        return cls(
            summary=str(data["summary"]),
            topics=[str(t) for t in topics] if isinstance(topics, list) else None,
            updated_at=datetime.fromisoformat(updated) if isinstance(updated, str) else None,
        )


@dataclass
class SessionSummaryManager:
    """How summaries are written: ``SessionSummaryManager(model=..., last_n_runs=5)``.

    ``session_summary_prompt`` replaces the instructions (the conversation and the
    JSON shape asked for are still added); ``summary_request_message`` is the user
    message that asks for the summary. ``id`` and ``name`` label the manager.
    """

    model: Model | None = None
    session_summary_prompt: str | None = None
    summary_request_message: str = "Provide the summary of the conversation."
    last_n_runs: int | None = None
    conversation_limit: int | None = None
    id: str = field(default_factory=lambda: f"session_summary_manager_{uuid.uuid4().hex[:8]}")
    name: str | None = None

    def __post_init__(self) -> None:
        for name in ("last_n_runs", "conversation_limit"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"{name} must be a whole number > 0 or None, not {value!r}")
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be a whole number > 0 or None, not {value!r}")

    def conversation(self, session: SessionData) -> list[Message]:
        """The turns a summary is made from: completed runs, oldest first."""
        turns = [m for run in session.completed(self.last_n_runs) for m in run.messages()]
        return turns[-self.conversation_limit :] if self.conversation_limit else turns

    def messages(self, session: SessionData) -> list[Message] | None:
        """What the model is sent (None: nothing to summarize yet)."""
        turns = [m for m in self.conversation(session) if m.content]
        if not turns:
            return None
        lines = "\n".join(
            f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}" for m in turns
        )
        prompt = self.session_summary_prompt or DEFAULT_PROMPT
        system = f"{prompt}<conversation>\n{lines}\n</conversation>{JSON_REQUEST}"
        return [Message("system", system), Message("user", self.summary_request_message)]

    async def acreate_session_summary(
        self, session: SessionData, model: Model | None = None
    ) -> SessionSummary | None:
        """A summary of ``session`` (it is not stored; runs store theirs), or None when
        there is nothing to summarize or the answer could not be read."""
        made = await self.amake(session, model or self.model)
        return made[0] if made is not None else None

    def create_session_summary(
        self, session: SessionData, model: Model | None = None
    ) -> SessionSummary | None:
        """Sync twin of :meth:`acreate_session_summary`."""
        return run_sync(self.acreate_session_summary(session, model))

    async def amake(
        self, session: SessionData, model: Model | None
    ) -> tuple[SessionSummary | None, Usage] | None:
        """(summary or None when unreadable, the call's usage); None: no call made."""
        messages = self.messages(session)
        if messages is None:
            return None
        if model is None:
            raise ValueError("a session summary needs a model: pass model=... to the manager")
        response = await model.ainvoke(messages, [])
        return parse_summary(response.content), response.usage


def parse_summary(text: str | None) -> SessionSummary | None:
    """The summary in a model's answer: a JSON object, possibly in a code fence."""
    if not text or "{" not in text:
        return None
    try:
        data = json.loads(text[text.index("{") : text.rindex("}") + 1])
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
        return None
    topics = data.get("topics")
    return SessionSummary(
        summary=data["summary"].strip(),
        topics=[str(t) for t in topics] if isinstance(topics, list) else None,
        updated_at=datetime.now(UTC),
    )


def summary_manager(
    enable: bool, manager: SessionSummaryManager | None, model: Model | None
) -> SessionSummaryManager | None:
    """The manager an owner's runs write summaries with (None: they write none).

    As in Agno, only ``enable_session_summaries=True`` writes summaries; a manager
    without a model uses the owner's (a copy: the caller's manager is left as it is).
    """
    if not enable:
        return None
    manager = manager or SessionSummaryManager()
    return manager if manager.model is not None else dataclasses.replace(manager, model=model)


async def summarize_run(
    manager: SessionSummaryManager, handle: SessionHandle, output: RunOutput
) -> None:
    """After a model run, before its final save: write the session's new summary.

    The call's tokens count in the run's metrics (and so in its budget). A failure,
    or no answer within half the time left before the run's deadline, leaves the
    previous summary, and the run goes on to its save. Only a completed run
    is summarized (a paused one once it is resumed and completes), as in Agno.
    """
    if RunStatus(output.status) is not RunStatus.completed:
        return
    # half the time left before the run's deadline at most: the other half is the
    # save's, so a slow summary model never costs the run its answer
    left = None if handle.deadline is None else (handle.deadline - time.monotonic()) / 2
    try:
        async with asyncio.timeout(left):
            made = await manager.amake(handle.data, manager.model)
    except Exception as exc:  # the run's answer stands without a new summary (Agno's rule)
        log_warning(
            "session summary not written",
            session_id=handle.session_id,
            error=str(exc) or type(exc).__name__,
        )
        return
    if made is None:
        return
    summary, usage = made
    output.metrics.model_calls += 1
    output.metrics.input_tokens += usage.input_tokens
    output.metrics.output_tokens += usage.output_tokens
    if summary is None:
        log_warning("session summary not written: the answer was not the JSON asked for")
        return
    users = sorted({r.user_id for r in handle.data.completed(manager.last_n_runs) if r.user_id})
    handle.set_summary(summary.to_dict() | {"users": users})
