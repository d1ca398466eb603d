"""Export one user's data for an access request (``statebot state export --user``).

What the user is entitled to, and nothing of anyone else's:

* ``sessions``: the sessions only they acted in (the ones erasure would delete), whole:
  state, run history, other data (name, audit trail), meta;
* ``shared_sessions``: in sessions others acted in too, their own runs, the audit
  entries naming them, and the top-level state keys whose value names them exactly
  (key names only: the values also hold other people's data); ``summary_withheld``
  says the session's summary was made from their runs or names them (it is not
  shown: it tells of the others too; erasure deletes it);
* ``memories`` and ``schedules`` they made;
* ``connections``: the per-user MCP servers they connected (server, how, when), never
  the credential itself (``core.governance.credentials``): a secret is not data about
  them, and an export file must not become a way to steal it.

Sessions are found as erasure finds them (:func:`core.governance.erasure.sessions_naming`),
and "own" versus "shared" is decided by the same rule, so an export lists exactly
what an erasure would delete or scrub.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from core.db.base import BaseDb
from core.governance.credentials import connection_of, is_credential_session
from core.governance.erasure import participants, sessions_naming
from core.governance.pseudonym import audit_entries, replace_user, summary_names, user_runs
from core.governance.save import check_user_id
from core.schedule.model import Schedule
from core.schedule.stores import schedule_store

__all__ = ["export_user"]

_HISTORY_SCAN = 10_000


async def export_user(db: BaseDb, user_id: str) -> dict[str, Any]:
    """Everything stored about ``user_id``, as JSON data."""
    if not isinstance(user_id, str) or not user_id.strip():
        raise ValueError("user_id must be a non-empty user key (platform:workspace:user)")
    check_user_id(db, user_id)
    own: list[dict[str, Any]] = []
    shared: list[dict[str, Any]] = []
    schedules: list[dict[str, Any]] = []
    connections: list[dict[str, Any]] = []
    for session_id in sorted(await sessions_naming(db, user_id)):
        record = await db.aload(session_id)
        if record is None:
            continue
        if is_credential_session(session_id):
            connection = connection_of(record) if record.user_id == user_id else None
            if connection is not None:
                connections.append(dataclasses.asdict(connection))
            continue
        history = await db.ahistory(session_id, limit=_HISTORY_SCAN)
        data = json.loads(record.data) if record.data else {}
        if "audit" in data:  # entries as objects, as the JSON Lines export shows them
            data["audit"] = audit_entries(record.data)
        if participants(record, history) == {user_id}:
            own.append(
                {
                    "session_id": session_id,
                    "version": record.version,
                    "owner_id": record.owner_id,
                    "created_at": record.created_at,
                    "updated_at": record.updated_at,
                    "state": record.state,
                    "data": data,
                }
            )
        else:
            entry = _shared_entry(session_id, record.state, data, record.data, user_id)
            if entry is not None:
                shared.append(entry)
        schedules += [
            _schedule(s) for s in await schedule_store(db).alist(session_id) if s.user_id == user_id
        ]
    memories = [
        {"memory_id": m.memory_id, "memory": m.memory, "topics": list(m.topics)}
        | {"created_at": m.created_at}
        for m in await db.aget_memories(user_id)
    ]
    return {
        "user_id": user_id,
        "exported_at": time.time(),
        "sessions": own,
        "shared_sessions": shared,
        "memories": memories,
        "schedules": schedules,
        "connections": connections,
    }


def _shared_entry(
    session_id: str, state: dict[str, Any], data: dict[str, Any], text: str, user_id: str
) -> dict[str, Any] | None:
    """The user's part of a session others share (None when nothing names them exactly)."""
    runs = user_runs(text, user_id)
    audit = [e for e in data.get("audit") or () if replace_user(e, user_id, "")[1]]
    keys = sorted(k for k, v in state.items() if k == user_id or replace_user(v, user_id, "")[1])
    # the summary tells of everyone's runs: withheld like state values, and erased
    withheld = summary_names(data, user_id)
    if not (runs or audit or keys or withheld):
        return None
    return {
        "session_id": session_id,
        "runs": runs,
        "audit": audit,
        "state_keys_naming": keys,
        "summary_withheld": withheld,
    }


def _schedule(schedule: Schedule) -> dict[str, Any]:
    return {
        "schedule_id": schedule.schedule_id,
        "session_id": schedule.session_id,
        "input": schedule.input,
        "nominal_at": schedule.nominal_at,
        "tz": schedule.tz,
        "cron": schedule.cron,
        "status": schedule.status.value,
    }
