"""``/state restore vN`` and ``/state erase @user``: ask first, act on an admin's Confirm.

The question is a Reply with an :class:`bots.chat.approvals.Approval` whose ``action`` says
what to do, so every adapter shows it with the buttons it already has for paused runs
(Confirm / Cancel; Slack Block Kit, Discord components) and sends the click back as a
:class:`bots.chat.approvals.Decision` to :meth:`bots.chat.service.ChatService.handle_decision`,
in whatever process gets it. Actions::

    ("restore", version, version_when_asked)     on the approval's session
    ("erase", user_key)                          the approval's session_id is that user key

A click is applied only for an admin whose grant covers the session (or, for erase,
the user's workspace); anyone else is refused and nothing happens. Cancel does
nothing. Confirm runs the operation once: a restore passes the version its question
saw (``expected_version``), checked under the session's lease, so it is refused when
the session moved on since the question, even by a click handled in another process
at the same moment (that click then reads "already restored as vM"); the same card
never restores twice. A second erase finds nothing left and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

from bots.admin.policy import allows
from bots.chat.approvals import Approval, Decision
from bots.chat.names import user_reference
from bots.chat.replies import Reply
from core.db.base import BaseDb
from core.exceptions import (
    RestoreSchemaError,
    SessionNotFoundError,
    StaleVersionError,
    VersionNotFoundError,
)
from core.governance.audit import audit_log
from core.governance.erasure import ErasureReport, erase_user
from core.governance.save import load_session
from core.governance.sessions import restore_version

if TYPE_CHECKING:
    from bots.admins import AdminGrant

log = structlog.get_logger("bots.admin")

RESTORE_ASK = (
    "Restore `{session}` to v{version}? It is at v{current} now. The restore is saved "
    "as a new version; no version is deleted."
)
ERASE_ASK = (
    "Erase everything stored about {who} (`{user}`): their own sessions, their runs in "
    "shared sessions, their memories and schedules, in every store? This cannot be undone."
)
NOT_ADMIN = "Only an admin whose grant covers `{target}` can decide this; nothing was done."
CANCELLED = "Cancelled by {who}; nothing was done."
BUSY = "This is being applied right now (another click); nothing more was done."
UNKNOWN = "This button no longer works (unknown action); nothing was done."
#: how many audit entries back a second click looks to recognise its own restore
HISTORY_REACH = 500
NO_STORE = "This agent keeps no stored state (it has no db); nothing was done."


def ask_restore(
    agent_id: str, session_id: str, version: int, current: int, *, requester: str
) -> Reply:
    """The Confirm / Cancel question for restoring ``version`` (the session is at ``current``)."""
    approval = Approval(
        agent_id, session_id, "", requester, (), action=("restore", str(version), str(current))
    )
    text = RESTORE_ASK.format(session=session_id, version=version, current=current)
    return Reply(text, ephemeral=True, approval=approval)


async def restore_question(
    db: BaseDb, agent_id: str, session_id: str, version: int, *, requester: str
) -> Reply:
    """Ask to restore ``version`` of ``session_id``, or say plainly why there is nothing to ask."""
    try:
        current = await load_session(db, session_id)
    except SessionNotFoundError:
        return Reply(f"Session `{session_id}` has no stored state; nothing to restore.", True)
    if version >= current.version:
        return Reply(
            f"v{version} is not an earlier version of `{session_id}` (it is at "
            f"v{current.version}); nothing to restore. /state history lists the versions.",
            ephemeral=True,
        )
    return ask_restore(agent_id, session_id, version, current.version, requester=requester)


def ask_erase(agent_id: str, target: str, *, requester: str, who: str) -> Reply:
    """The Confirm / Cancel question for erasing the user ``target`` (a user key)."""
    approval = Approval(agent_id, target, "", requester, (), action=("erase", target))
    return Reply(ERASE_ASK.format(who=who, user=target), ephemeral=True, approval=approval)


class Confirmations:
    """Applies confirmed admin actions; one click at a time per question in this process."""

    __slots__ = ("_busy",)

    def __init__(self) -> None:
        self._busy: set[str] = set()

    async def decide(
        self, decision: Decision, stores: Sequence[BaseDb], grant: AdminGrant | None
    ) -> Reply:
        """Apply a Confirm / Cancel click on an admin question; every outcome is ephemeral.

        ``stores``: the store of the approval's agent first (a restore acts there), then
        every other store the agents use (an erase reaches all of them).
        """
        wanted = decision.approval
        clicker = decision.clicker
        who = user_reference(clicker, platform=decision.platform, workspace=decision.workspace)
        action = wanted.action[0] if wanted.action else ""
        if not allows(grant, wanted.session_id):
            log.warning(
                "admin_confirm_refused", action=action, target=wanted.session_id, actor=clicker
            )
            return Reply(NOT_ADMIN.format(target=wanted.session_id), ephemeral=True)
        if not decision.approve:
            log.info("admin_confirm_cancelled", action=action, target=wanted.session_id)
            return Reply(CANCELLED.format(who=who), ephemeral=True)
        if not stores:
            return Reply(NO_STORE, ephemeral=True)
        key = wanted.encode()
        if key in self._busy:
            return Reply(BUSY, ephemeral=True)
        self._busy.add(key)
        try:
            log.info(
                "admin_command", action=action, target_session=wanted.session_id, actor=clicker
            )
            if action == "restore" and len(wanted.action) == 3:
                return await _restore(stores[0], wanted, clicker, who)
            if action == "erase" and len(wanted.action) == 2:
                return await _erase(stores, wanted.action[1], who)
            return Reply(UNKNOWN, ephemeral=True)
        finally:
            self._busy.discard(key)


async def _restore(db: BaseDb, wanted: Approval, clicker: str, who: str) -> Reply:
    session_id = wanted.session_id
    try:
        version, asked_at = int(wanted.action[1]), int(wanted.action[2])
    except ValueError:
        return Reply(UNKNOWN, ephemeral=True)
    try:  # checked under the session's lease: of two clicks in two processes, one restores
        new = await restore_version(
            db, session_id, version, actor=clicker, expected_version=asked_at
        )
    except SessionNotFoundError:
        return Reply(f"Session `{session_id}` no longer exists; nothing was restored.", True)
    except StaleVersionError as exc:
        now = exc.actual if exc.actual is not None else asked_at
        return Reply(await _moved_on(db, session_id, version, asked_at, now), True)
    except (VersionNotFoundError, RestoreSchemaError) as exc:
        return Reply(f"{exc}; nothing was restored.", ephemeral=True)
    log.info("admin_restored", target_session=session_id, version=version, new_version=new)
    return Reply(
        f"Restored `{session_id}` to v{version}, saved as v{new} (confirmed by {who}).",
        ephemeral=True,
    )


async def _moved_on(db: BaseDb, session_id: str, version: int, asked_at: int, now: int) -> str:
    """Why a restore was not applied: this card did it already, or the session changed."""
    entries = await audit_log(db, session_id, limit=min(now - asked_at, HISTORY_REACH))
    after = next((e for e in entries if e.version == asked_at + 1), None)
    if after is not None and after.kind == "restore" and after.source_version == version:
        later = "" if now == asked_at + 1 else f" (it is at v{now} now)"
        return (
            f"Already done: `{session_id}` was restored to v{version} as v{asked_at + 1}"
            f"{later}; nothing more was done."
        )
    return (
        f"Not restored: `{session_id}` changed since this was asked (v{asked_at} → v{now}), "
        "so nothing was done. Run /state history and ask again if it is still wanted."
    )


async def _erase(stores: Sequence[BaseDb], target: str, who: str) -> Reply:
    reports = [await erase_user(db, target) for db in stores]
    log.info("admin_erased", target_user=target, stores=len(stores))
    lines = [f"Erased `{target}` (confirmed by {who}):"]
    lines += [erasure_summary(report) for report in reports]
    return Reply("\n".join(lines), ephemeral=True)


def erasure_summary(report: ErasureReport) -> str:
    """One store's erasure in a line or two: counts, and what failed (retry is safe)."""
    counts = (
        (len(report.sessions_deleted), "own session", "s deleted"),
        (len(report.sessions_scrubbed), "shared session", "s scrubbed"),
        (report.runs_removed, "run", "s removed from shared histories"),
        (report.history_rows_scrubbed, "stored version", "s rewritten"),
        (report.memories_deleted, "memor", "ies deleted"),
        (report.schedules_deleted, "schedule", "s cancelled"),
    )
    done = [f"{n} {noun}{_plural(n, noun, tail)}" for n, noun, tail in counts if n]
    line = "• " + ", ".join(done)
    if not done and not report.errors:
        return "• nothing stored about them was found in this store (erased before, or never here)."
    if report.errors:
        failed = "; ".join(f"{where}: {why}" for where, why in sorted(report.errors.items()))
        return f"{line}\n  Not done (run /state erase again to retry): {failed}"
    return line + "; nothing of them is left in this store."


def _plural(count: int, noun: str, tail: str) -> str:
    """``tail`` is the plural ending plus the verb; one item drops the ending."""
    if count != 1:
        return tail
    return ("y" if noun.endswith("memor") else "") + tail[tail.index(" ") :]
