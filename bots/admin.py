"""``/state dump|reset|history [agent | session id]``: admin commands on a session.

Only configured admin ids may use them (immutable platform user ids, matched on the
raw id or on the full user key, never on a display name). Every use, and every
refusal, is logged. Replies are ephemeral and sensitive keys are redacted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection

import structlog

from bots.replies import Reply
from core.db.admin import redact
from core.db.base import BaseDb

log = structlog.get_logger("bots.admin")

ACTIONS = ("dump", "reset", "history")
USAGE = (
    "usage: /state dump|reset|history [agent or session id] — "
    "the session of this conversation for that agent (default: the channel's agent)"
)
REFUSED = "Only admins can use /state. This attempt was logged."
_HISTORY_LIMIT = 10


def is_admin(raw_user: str, user_id: str, admin_ids: Collection[str]) -> bool:
    """True when the raw platform id or the full user key is configured as admin."""
    return raw_user in admin_ids or user_id in admin_ids


def refuse(action: str, *, user_id: str) -> Reply:
    """The reply to a non-admin, logged."""
    log.warning("admin_command_refused", action=action, actor=user_id)
    return Reply(REFUSED, ephemeral=True)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


async def run_admin(action: str, db: BaseDb, session_id: str, *, user_id: str) -> Reply:
    """Do one admin action on ``session_id`` (the caller has checked the rights)."""
    log.info("admin_command", action=action, target_session=session_id, actor=user_id)
    if action == "dump":
        record = await db.aload(session_id)
        if record is None:
            return Reply(f"Session `{session_id}` has no stored state yet.", ephemeral=True)
        state = json.dumps(redact(record.state), indent=2, sort_keys=True, ensure_ascii=False)
        head = (
            f"Session `{session_id}` ({record.kind} {record.owner_id}, version "
            f"{record.version}, updated {_when(record.updated_at)}):"
        )
        return Reply(f"{head}\n```\n{state}\n```", ephemeral=True)
    if action == "reset":
        # under the run lock, so a reset never interleaves with a run of the session
        async with db.session_lock(session_id):
            existed = await db.adelete(session_id)
        if not existed:
            return Reply(f"Session `{session_id}` had no stored state; nothing to reset.", True)
        return Reply(
            f"Session `{session_id}` reset: its next run starts from the default state.", True
        )
    if action == "history":
        entries = await db.ahistory(session_id, limit=_HISTORY_LIMIT)
        if not entries:
            return Reply(f"Session `{session_id}` has no saved versions.", ephemeral=True)
        lines = [f"Last {len(entries)} versions of `{session_id}` (newest first):"]
        for entry in entries:
            keys = ", ".join(sorted(entry.state)) or "empty"
            who = entry.user_id or "unknown"
            lines.append(f"• v{entry.version} {_when(entry.saved_at)} by {who}: {keys}")
        return Reply("\n".join(lines), ephemeral=True)
    return Reply(f"Unknown action {action!r}. {USAGE}", ephemeral=True)
