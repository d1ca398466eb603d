"""A run's history entry built from its output (what the runner stores when a run ends)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from core.run.history import OpenRun, RunRecord, RunStatus, ToolCallRecord
from core.run.output import RunMetrics, RunOutput, ToolExecution, content_as_text
from core.run.output import RunStatus as OutputStatus
from core.run.transcript import cut as _cut
from core.run.transcript import transcript_of

__all__ = ["metrics_dict", "run_record", "tool_records"]

_STORED_STATUS: dict[OutputStatus, RunStatus] = {
    OutputStatus.paused: "paused",
    OutputStatus.error: "error",
    OutputStatus.cancelled: "cancelled",
}

#: the roles a system message is sent with (Agno's ``system_message_role``)
SYSTEM_ROLES = ("system", "developer")


def run_record(
    handle: OpenRun,
    input: str,
    output: RunOutput | None,
    *,
    owner_id: str | None,
    team_id: str | None = None,
    media: tuple[Mapping[str, Any], ...] = (),
) -> RunRecord:
    """The history entry of a run that just ended (``output`` None: it failed);
    ``team_id``: the owner's id when the owner is a team; ``media``: the references
    of the images and files it was given."""
    known = handle.data.find(handle.run_id)
    created = known.created_at if known is not None else time.time()
    if output is None:
        return RunRecord(
            handle.run_id,
            "error",
            input,
            None,
            handle.user_id,
            owner_id,
            (),
            created,
            team_id=team_id,
            media=media,
        )
    status = _STORED_STATUS.get(OutputStatus(output.status), "completed")
    content = None if output.content is None else content_as_text(output.content)
    return RunRecord(
        run_id=handle.run_id,
        status=status,
        input=input,
        output=content,
        user_id=handle.user_id,
        owner_id=owner_id,
        # a resumed run keeps the calls it made before its pause
        tool_calls=(known.tool_calls if known is not None else ()) + tool_records(output.tools),
        created_at=created,
        paused=output.paused_data,
        # not the system message: it is rebuilt each run from the state, so keeping it
        # would copy the state where erasure's exact-id rule cannot reach it
        transcript=transcript_of(m for m in output.messages if m.role not in SYSTEM_ROLES),
        metrics=metrics_dict(output.metrics),
        team_id=team_id,
        media=media or (known.media if known is not None else ()),
    )


def metrics_dict(metrics: RunMetrics) -> dict[str, float]:
    """A run's counts as stored."""
    return {
        "model_calls": metrics.model_calls,
        "tool_calls": metrics.tool_calls,
        "input_tokens": metrics.input_tokens,
        "output_tokens": metrics.output_tokens,
        "duration_s": metrics.duration_s,
    }


def tool_records(calls: Iterable[ToolExecution]) -> tuple[ToolCallRecord, ...]:
    """ToolCallRecords from a RunOutput's tool executions (results cut short)."""
    return tuple(
        ToolCallRecord(
            c.tool_call_id, c.tool_name, dict(c.tool_args), _cut(c.result), bool(c.error)
        )
        for c in calls
    )
