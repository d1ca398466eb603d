"""``/state …``: admin commands on a session (the grammar: :mod:`bots.admin.parse`).

    dump | reset | history [n] | diff v1 v2 | restore vN   [agent | session id]
    erase @user                                            (asks first: bots.admin.confirm)
    usage [agent | session id]                             (anyone, on their own conversation)

Who is an admin: ``STATEBOT_ADMIN_IDS`` lists immutable platform user keys, never
names. ``slack:T123:U456`` is user U456 of workspace T123 and may act only on sessions
of that workspace (ids starting ``slack:T123:``); ``slack:*:U456`` is that user id in
every workspace of the platform, acting on all of its sessions. A bare ``U456`` is
refused when the settings load (``bots.admins.check_admin_id``), because a user id alone does not
say which workspace it belongs to. Who may do what is decided in ``bots.admin.policy``.

What they do: the operations themselves are ``core.governance`` (the same functions
``statebot state`` calls), so reset and restore run under the session lease and reach
the hot and durable stores together. History and diff read the audit trail
(:mod:`bots.admin.audit`); restore and erase show a Confirm / Cancel question and act
only on an admin's Confirm (:mod:`bots.admin.confirm`). Replies are ephemeral,
sensitive keys redacted, and every use, refusal and out-of-scope attempt is logged.
"""

from __future__ import annotations

import json
import math
import time

import structlog

from bots.admin.audit import diff_reply, history_reply
from bots.admin.confirm import restore_question
from bots.admin.parse import USAGE, StateRequest
from bots.admin.policy import allows
from bots.admins import AdminGrant
from bots.chat.cards import state_card
from bots.chat.replies import Reply
from bots.inbound import SlashCommand
from bots.keys import user_key
from core.db.base import BaseDb
from core.exceptions import SessionNotFoundError
from core.governance.sessions import delete_session, dump_session

log = structlog.get_logger("bots.admin")

__all__ = ["USAGE", "refuse", "run_admin"]

REFUSED = (
    "Only admins can use /state (anyone may use /state usage for their own conversation). "
    "This attempt was logged. Your admin key is `{key}`{alias}: an operator can add it to "
    "STATEBOT_ADMIN_IDS."
)
#: on Enterprise Grid the workspace's own team id is accepted too
REFUSED_ALIAS = " (or `{key}`, with this workspace's team id)"
OUT_OF_SCOPE = (
    "You are an admin for sessions starting `{scope}` only; `{session}` is not one of "
    "them. Nothing was done; this attempt was logged."
)
def refuse(action: str, *, user_id: str, cmd: SlashCommand | None = None) -> Reply:
    """The reply to a non-admin, logged; it names the caller's own key to copy."""
    log.warning("admin_command_refused", action=action, actor=user_id)
    alias = ""
    if cmd is not None and cmd.team:
        alias = REFUSED_ALIAS.format(key=user_key(cmd.platform, cmd.team, cmd.user))
    return Reply(REFUSED.format(key=user_id, alias=alias), ephemeral=True)


def _when(timestamp: float | None) -> str:
    if timestamp is None or not math.isfinite(timestamp):
        return "at an unknown time"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))
    except (OverflowError, OSError, ValueError):
        return "at an unknown time"


def out_of_scope(grant: AdminGrant, target: str, *, action: str, user_id: str) -> Reply | None:
    """The refusal (logged) when ``target`` (a session or user key) is outside ``grant``."""
    if allows(grant, target):
        return None
    log.warning(
        "admin_command_out_of_scope",
        action=action,
        target_session=target,
        actor=user_id,
        admin_id=grant.admin_id,
    )
    return Reply(OUT_OF_SCOPE.format(scope=grant.scope, session=target), ephemeral=True)


async def run_admin(
    request: StateRequest,
    db: BaseDb,
    session_id: str,
    *,
    grant: AdminGrant,
    user_id: str,
    agent_id: str,
    platform: str,
    workspace: str,
) -> Reply:
    """Do one admin action on ``session_id``, if ``grant`` covers it."""
    action = request.action
    refused = out_of_scope(grant, session_id, action=action, user_id=user_id)
    if refused is not None:
        return refused
    log.info("admin_command", action=action, target_session=session_id, actor=user_id)
    if action == "dump":
        return await _dump(db, session_id)
    if action == "reset":
        return await _reset(db, session_id)
    if action == "history":
        return await history_reply(
            db, session_id, request.count, platform=platform, workspace=workspace
        )
    if action == "diff":
        first, second = request.versions
        return await diff_reply(db, session_id, first, second)
    if action == "restore":
        return await restore_question(
            db, agent_id, session_id, request.versions[0], requester=user_id
        )
    return Reply(f"Unknown action {action!r}. {USAGE}", ephemeral=True)


async def _dump(db: BaseDb, session_id: str) -> Reply:
    try:
        dump = await dump_session(db, session_id, versions=0)
    except SessionNotFoundError:
        return Reply(f"Session `{session_id}` has no stored state yet.", ephemeral=True)
    state = json.dumps(dump["state"], indent=2, sort_keys=True, ensure_ascii=False)
    head = (
        f"Session `{session_id}` ({dump['kind']} {dump['owner_id']}, version "
        f"{dump['version']}, updated {_when(dump['updated_at'])}):"
    )
    card = state_card(session_id, dump, _when(dump["updated_at"]))
    return Reply(f"{head}\n```\n{state}\n```", ephemeral=True, card=card)


async def _reset(db: BaseDb, session_id: str) -> Reply:
    try:
        await delete_session(db, session_id)
    except SessionNotFoundError:
        return Reply(f"Session `{session_id}` had no stored state; nothing to reset.", True)
    return Reply(f"Session `{session_id}` reset: its next run starts from the default state.", True)
