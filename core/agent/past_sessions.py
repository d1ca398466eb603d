"""``search_past_sessions=True``: Agno's ``search_past_sessions`` and ``read_past_session``.

The first lists the latest earlier sessions of the same kind (agent or team) with a
short preview of their first runs; the second reads one of them in full. Both see
only the sessions of the run's own user (a run without a user: the sessions without
one). Agno lists every user's sessions when no ``user_id`` is given; a model must not
be able to read another person's conversation, so here it never can.
"""

from __future__ import annotations

import json
from typing import Any

from core.db.base import BaseDb
from core.db.records import SessionRecord
from core.run.context import RunContext
from core.run.history import RunRecord, SessionData
from core.tools.function import Function

#: Agno's defaults: sessions listed, and runs previewed per session
DEFAULT_SESSIONS = 20
DEFAULT_RUNS = 3
#: the most recently updated sessions a search looks through
SCAN_LIMIT = 1000
PREVIEW_CHARS = 200


def _short(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "..."


def _visible(record: SessionRecord | None, kind: str, user_id: str | None) -> bool:
    return record is not None and record.kind == kind and record.user_id == user_id


def _runs(record: SessionRecord) -> list[RunRecord]:
    return SessionData.decode(record.data).completed()


def past_session_functions(
    db: BaseDb, kind: str, sessions: int | None = None, runs: int | None = None
) -> list[Function]:
    """The two tools for an owner of ``kind`` ("agent" or "team") on store ``db``."""
    limit = DEFAULT_SESSIONS if sessions is None else sessions
    shown = DEFAULT_RUNS if runs is None else runs

    async def search_past_sessions(run_context: RunContext) -> str:
        """List previous chat sessions with short previews.
        Use read_past_session to read the full conversation for a specific session.
        """
        records = await db.alist_sessions(limit=SCAN_LIMIT)
        mine = [r for r in records if _visible(r, kind, run_context.user_id) and _runs(r)]
        mine.sort(key=lambda r: r.created_at, reverse=True)
        found: list[dict[str, Any]] = []
        for record in mine[:limit]:
            if record.session_id == run_context.session_id:
                continue
            previews = [
                {"user": _short(run.input), "assistant": _short(run.output or "")}
                for run in _runs(record)[:shown]
            ]
            found.append(
                {
                    "session_id": record.session_id,
                    "created_at": str(int(record.created_at)),
                    "runs": previews,
                }
            )
        return json.dumps(found, ensure_ascii=False)

    async def read_past_session(
        run_context: RunContext, session_id: str, num_runs: int | None = None
    ) -> str:
        """Read the full conversation from a previous session.
        Use search_past_sessions first to find relevant sessions.

        Args:
            session_id: The session ID to read (from search results).
            num_runs: Maximum number of runs to include. Default: all runs.
        """
        record = await db.aload(session_id)
        if record is None or not _visible(record, kind, run_context.user_id):
            return "Session not found."
        done = _runs(record)
        if not done:
            return "Session not found."
        lines = [f"Session: {session_id}", f"Created: {int(record.created_at)}", ""]
        for run in done if num_runs is None else done[:num_runs]:
            for message in run.messages():
                label = "User" if message.role == "user" else "Assistant"
                lines += [f"{label}: {message.content}", ""]
        return "\n".join(lines)

    return [Function(search_past_sessions), Function(read_past_session)]
