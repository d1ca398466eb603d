"""A session's runs as Agno shows them (``RunOutput``), and as they are stored
(``core.run.history.RunRecord``): one conversion each way, and Agno's dict form."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from core.run.history import RunRecord, ToolCallRecord, metrics_dict
from core.run.history import RunStatus as StoredStatus
from core.run.output import RunMetrics, RunOutput, RunStatus, ToolExecution, content_as_text
from core.run.run_input import RunInput
from core.run.transcript import cut, message_from_dict, message_to_dict, transcript_of

__all__ = ["output_from_dict", "output_of", "output_to_dict", "record_of"]

#: how a RunOutput's status is stored (the stored form's statuses are lower case)
_STORED: dict[RunStatus, StoredStatus] = {
    RunStatus.pending: "pending",
    RunStatus.running: "running",
    RunStatus.completed: "completed",
    RunStatus.paused: "paused",
    RunStatus.cancelled: "cancelled",
    RunStatus.error: "error",
}


def output_of(record: RunRecord, session_id: str) -> RunOutput:
    """The stored run as a RunOutput, with its kept messages and counts."""
    return RunOutput(
        run_id=record.run_id,
        session_id=session_id,
        user_id=record.user_id,
        content=record.output,
        tools=[
            ToolExecution(c.tool_call_id, c.name, dict(c.arguments), c.result or "", c.error)
            for c in record.tool_calls
        ],
        # a run stored before transcripts were kept shows its question and answer
        messages=[message_from_dict(m) for m in record.transcript]
        or (record.messages() if record.input else []),
        metrics=_metrics(record.metrics),
        # a team's own run is named by its team_id (Agno's TeamRunOutput), not agent_id
        agent_id=record.owner_id if record.owner_id != record.team_id else None,
        team_id=record.team_id,
        parent_run_id=record.parent_run_id,
        status=RunStatus(record.status),
        paused_data=dict(record.paused) if record.paused is not None else None,
        input=RunInput(input_content=record.input),
    )


def record_of(output: RunOutput, owner_id: str | None) -> RunRecord:
    """A RunOutput a program built or changed, as stored (bounded like a run's own)."""
    now = time.time()
    return RunRecord(
        run_id=output.run_id,
        status=_STORED[RunStatus(output.status)],
        input=_input_text(output),
        output=None if output.content is None else content_as_text(output.content),
        user_id=output.user_id,
        owner_id=output.agent_id or output.team_id or owner_id,
        tool_calls=tuple(
            ToolCallRecord(
                c.tool_call_id, c.tool_name, dict(c.tool_args), cut(c.result), bool(c.error)
            )
            for c in output.tools or ()
        ),
        created_at=now,
        updated_at=now,
        paused=output.paused_data,
        transcript=transcript_of(output.messages or ()),
        metrics=metrics_dict(output.metrics),
        team_id=output.team_id,
        parent_run_id=output.parent_run_id,
    )


def output_to_dict(output: RunOutput) -> dict[str, Any]:
    """Agno's dict form of a run (``RunOutput.to_dict``'s main fields)."""
    return {
        "run_id": output.run_id,
        "session_id": output.session_id,
        "user_id": output.user_id,
        "agent_id": output.agent_id,
        "team_id": output.team_id,
        "parent_run_id": output.parent_run_id,
        "status": RunStatus(output.status).value,
        "content": output.content,
        "input": None if output.input is None else output.input.to_dict(),
        "messages": [message_to_dict(m) for m in output.messages or ()],
        "tools": [
            {
                "tool_call_id": c.tool_call_id,
                "tool_name": c.tool_name,
                "tool_args": c.tool_args,
                "result": c.result,
                "tool_call_error": c.error,
            }
            for c in output.tools
        ],
        "metrics": metrics_dict(output.metrics),
    }


def output_from_dict(data: Mapping[str, Any]) -> RunOutput:
    """A RunOutput from Agno's dict form (what :func:`output_to_dict` writes)."""
    given = data.get("input")
    content = given.get("input_content") if isinstance(given, Mapping) else given
    return RunOutput(
        run_id=str(data["run_id"]),
        session_id=data.get("session_id"),
        user_id=data.get("user_id"),
        content=data.get("content"),
        tools=[
            ToolExecution(
                str(t.get("tool_call_id", "")),
                str(t.get("tool_name", "")),
                dict(t.get("tool_args") or {}),
                str(t.get("result") or ""),
                bool(t.get("tool_call_error", False)),
            )
            for t in data.get("tools") or ()
        ],
        messages=[message_from_dict(m) for m in data.get("messages") or ()],
        metrics=_metrics(data.get("metrics")),
        agent_id=data.get("agent_id"),
        team_id=data.get("team_id"),
        parent_run_id=data.get("parent_run_id"),
        status=RunStatus(data.get("status") or RunStatus.completed),
        input=None if content is None else RunInput(input_content=content),
    )


def _input_text(output: RunOutput) -> str:
    if output.input is not None:
        return output.input.input_content_string()
    question = next((m for m in output.messages or () if m.role == "user"), None)
    return question.content or "" if question is not None else ""


def _metrics(stored: Mapping[str, Any] | None) -> RunMetrics:
    if not stored:
        return RunMetrics()
    return RunMetrics(
        model_calls=int(stored.get("model_calls", 0)),
        tool_calls=int(stored.get("tool_calls", 0)),
        input_tokens=int(stored.get("input_tokens", 0)),
        output_tokens=int(stored.get("output_tokens", 0)),
        duration_s=float(stored.get("duration_s", 0.0)),
    )
