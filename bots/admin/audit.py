"""``/state history [n]`` and ``/state diff v1 v2``: the audit trail, readable in chat.

The records and the wording of a change are core's (``core.governance.audit.audit_log``,
``describe``, ``diff_versions``); this module only adds what a chat reader needs: who
did it, as the platform's own user reference (:func:`bots.chat.names.user_reference`,
never a broadcast), and the patch one operation a line (core's wording, credentials
masked), in a code block where values from users and models stay inert text, which the
adapters chunk like any long reply.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bots.chat.names import user_reference
from bots.chat.replies import Reply
from core.db.base import BaseDb
from core.exceptions import SessionNotFoundError, VersionNotFoundError
from core.governance.audit import audit_log, describe, diff_versions
from core.state.audit_text import describe_op

#: diff lines shown at most; the rest are counted
DIFF_LINES = 200

Clock = Callable[[], float]


async def history_reply(
    db: BaseDb,
    session_id: str,
    count: int,
    *,
    platform: str,
    workspace: str,
    clock: Clock = time.time,
) -> Reply:
    """The last ``count`` audit lines of a session, newest first."""
    try:
        entries = await audit_log(db, session_id, limit=count)
    except SessionNotFoundError:
        entries = []
    if not entries:
        return Reply(f"Session `{session_id}` has no saved versions.", ephemeral=True)
    now = clock()
    lines = [f"Last {len(entries)} changes of `{session_id}` (newest first):"]
    for entry in entries:
        who = user_reference(entry.user_id, platform=platform, workspace=workspace)
        lines.append("• " + describe(entry, now=now, name=who))
    return Reply("\n".join(lines), ephemeral=True)


async def diff_reply(db: BaseDb, session_id: str, first: int, second: int) -> Reply:
    """What changed from version ``first`` to ``second``, one line per operation."""
    try:
        ops = await diff_versions(db, session_id, first, second)
    except (SessionNotFoundError, VersionNotFoundError) as exc:
        return Reply(f"{exc}. Nothing to compare; /state history lists the versions.", True)
    head = f"Changes in `{session_id}` from v{first} to v{second}"
    if not ops:
        return Reply(f"{head}: none (the two versions hold the same state).", ephemeral=True)
    lines = ["• " + describe_op(op) for op in ops[:DIFF_LINES]]
    if len(ops) > DIFF_LINES:
        lines.append(f"… and {len(ops) - DIFF_LINES} more operations")
    body = "\n".join(lines).replace("```", "'''")  # a value cannot close the block
    noun = "operation" if len(ops) == 1 else "operations"
    return Reply(f"{head} ({len(ops)} {noun}):\n```\n{body}\n```", ephemeral=True)
