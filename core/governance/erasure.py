"""Erase one user from every store: the one path (``statebot state erase``, chat
``/state erase`` both call :func:`erase_user`). docs/erasure.md is the user's guide.

0. **Runs of the user are kept out** (``erasure_fence``): a marker refuses them for
   the whole erasure, and the runs in flight when it began are waited for.
1. **Memories**: every memory of the user is deleted (``adelete_memory``); so are
   their usage-budget counters and those of their deleted sessions (``erase_usage``).
2. **Finding sessions**: every session that may name the user, in every store the
   deployment uses, through each store's ``asessions_naming`` (``core/db``): the
   durable tables (last user, state, data, history, schedules) and, for a hot store,
   every session it holds (dirty ones are flushed to the durable store first). Other
   stores are read whole.
3. **Own sessions** (every user seen in the session — its last user, its runs, its
   stored versions — is this user) are deleted by ``sessions.delete_session``: hot and
   durable copies, history, schedules, under the session's lease, only if the session
   is still at the version it was classified at (else it is classified again).
4. **Shared sessions** (someone else ran there too): under the lease, the user's runs
   leave the run history and every exact occurrence of their id, in the state and in
   the session's data (audit entries, ...), becomes a pseudonym; the session's
   summary, free text the model wrote, is dropped when it was made from their runs
   or names them (:func:`core.governance.pseudonym.summary_names`); saved through the
   normal save path as a new version (fenced, snapshotted). Then the stored versions
   (durable history rows; Redis undo records, conflict copy, quarantine entry) are
   rewritten the same way, and the user's schedules there are cancelled.

Steps 1-4 are repeated until a pass finds nothing (``complete`` needs that final,
clean scan). Each session is handled on its own: a failure is recorded in the report with what
was done so far, and the others go on. Re-running is safe: what was erased is no
longer found, what failed is found again.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from core.db.base import BaseDb
from core.db.maintenance import UserRewrite
from core.db.records import SessionMeta
from core.exceptions import SessionNotFoundError, StaleVersionError, StoreError
from core.governance import sessions
from core.governance.budgets.stores import erase_usage
from core.governance.erasure_fence import wait_for_runs_in_flight
from core.governance.pseudonym import (
    new_pseudonym,
    participants,
    run_users,
    user_rewrite,
    user_runs,
)
from core.governance.save import check_user_id
from core.redaction import redact_text
from core.schedule.stores import schedule_store

__all__ = [
    "ERASURE_ACTOR",
    "ErasureReport",
    "erase_user",
    "known_users",
    "participants",
    "sessions_naming",
]

#: the "last user" of the version an erasure saves
ERASURE_ACTOR = "erasure"
#: stored versions read to decide whose session it is
_HISTORY_SCAN = 10_000
#: how often an own session is classified again when runs keep landing before its delete
_CLASSIFY_TRIES = 3
#: passes over the stores; the last must find nothing (the "final scan")
_PASSES = 3


@dataclass(slots=True)
class ErasureReport:
    """What an erasure did, per store; ``errors`` names what was not done, and why."""

    user_id: str
    pseudonym: str
    memories_deleted: int = 0
    sessions_deleted: list[str] = field(default_factory=list)
    sessions_scrubbed: list[str] = field(default_factory=list)
    runs_removed: int = 0
    history_rows_scrubbed: int = 0
    redis_records_scrubbed: int = 0
    schedules_deleted: int = 0
    #: budget counters of the user and of their deleted sessions (``core.governance.budgets.model``)
    usage_counters_deleted: int = 0
    #: step or session id -> why it failed (the rest of the erasure went on)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when nothing failed: no trace of the user is left in the stores."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the CLI prints it)."""
        return {
            "user_id": self.user_id,
            "complete": self.complete,
            "pseudonym": self.pseudonym,
            "memories_deleted": self.memories_deleted,
            "sessions_deleted": sorted(self.sessions_deleted),
            "sessions_scrubbed": sorted(self.sessions_scrubbed),
            "runs_removed": self.runs_removed,
            "history_rows_scrubbed": self.history_rows_scrubbed,
            "redis_records_scrubbed": self.redis_records_scrubbed,
            "schedules_deleted": self.schedules_deleted,
            "usage_counters_deleted": self.usage_counters_deleted,
            "errors": dict(self.errors),
        }

    def fail(self, where: str, exc: BaseException) -> None:
        self.errors[where] = redact_text(f"{type(exc).__name__}: {exc}")


# -- finding the user ------------------------------------------------------------------
async def sessions_naming(db: BaseDb, user_id: str) -> set[str]:
    """Every session (of every store behind ``db``) that may name the user.

    A superset: the callers check each one exactly. A hot store reads every session it
    holds (dirty and quarantined ones are not in the durable store yet), and the
    durable store behind it is searched too.
    """
    return await _sessions_naming(db, user_rewrite(user_id, ""))


async def known_users(db: BaseDb) -> set[str]:
    """Every user id the sessions behind ``db`` name as a user: their last user and the
    users in their run history. The CLI offers these when it is given a partial id."""
    users: set[str] = set()
    for record in await db.alist_sessions(limit=sys.maxsize):
        users |= run_users(record.data)
        if record.user_id:
            users.add(record.user_id)
    return users


async def _sessions_naming(db: BaseDb, rewrite: UserRewrite) -> set[str]:
    found = await db.asessions_naming(rewrite)
    if db.durable is not None:
        found |= await db.durable.asessions_naming(rewrite)
    return found


# -- erasing ---------------------------------------------------------------------------
async def erase_user(db: BaseDb, user_id: str, *, pseudonym: str | None = None) -> ErasureReport:
    """Erase ``user_id`` from every store behind ``db``; the report says what was done.

    The user's runs are refused for the whole erasure, and the runs in flight when it
    began are waited for (``core.governance.erasure_fence``); ``complete`` is true only
    when a last pass over the stores found nothing left to erase.
    """
    if not isinstance(user_id, str) or not user_id.strip():
        raise ValueError("user_id must be a non-empty user key (platform:workspace:user)")
    check_user_id(db, user_id)
    report = ErasureReport(user_id, pseudonym or new_pseudonym())
    try:
        async with db.user_block(user_id):
            await _erase_fenced(db, report)
            if not await db.auser_blocked(user_id):  # the marker expired under us
                report.errors["blocking runs"] = (
                    "the block on the user's runs was lost during the erasure (the store "
                    "was unreachable too long); their runs may have saved since. Run it again"
                )
    except StoreError as exc:  # the marker could not be taken: nothing was done
        report.fail("blocking runs", exc)
    return report


async def _erase_fenced(db: BaseDb, report: ErasureReport) -> None:
    """The erasure proper, with the user's runs kept out."""
    rewrite = user_rewrite(report.user_id, report.pseudonym)
    try:
        await wait_for_runs_in_flight(db)
    except StoreError as exc:
        report.fail("runs in flight", exc)
    if db.durable is not None:
        try:  # the durable rows then hold the versions the erasure rewrites
            await db.aflush()
        except StoreError as exc:
            report.fail("snapshot before erasure", exc)
    for _ in range(_PASSES):
        try:
            if not await _erase_pass(db, rewrite, report):
                break  # this pass found nothing left: the final scan is clean
        except StoreError as exc:
            report.fail("finding sessions", exc)
            return
    else:
        report.errors["final scan"] = (
            f"the user's data was still found after {_PASSES} passes (something kept "
            "writing it); run the erasure again"
        )
    try:
        report.usage_counters_deleted = await erase_usage(
            db, user_id=report.user_id, session_ids=report.sessions_deleted
        )
    except StoreError as exc:
        report.fail("usage counters", exc)
    if db.durable is not None and report.sessions_scrubbed:
        try:  # the scrubbed versions replace the durable rows now, not at the next pass
            await db.aflush()
        except StoreError as exc:
            report.fail("snapshot of scrubbed sessions", exc)


async def _erase_pass(db: BaseDb, rewrite: UserRewrite, report: ErasureReport) -> bool:
    """One pass over every store; whether it erased anything (what failed is in the
    report's errors, and leaves them if a later pass erases it)."""
    changed = await _erase_memories(db, report)
    for session_id in sorted(await _sessions_naming(db, rewrite)):
        try:
            changed = await _erase_in_session(db, session_id, rewrite, report) or changed
        except StoreError as exc:  # reported; a pass runs again only for new findings
            report.fail(session_id, exc)
        else:
            report.errors.pop(session_id, None)
    return changed


async def _erase_memories(db: BaseDb, report: ErasureReport) -> bool:
    before = report.memories_deleted
    try:
        for memory in await db.aget_memories(report.user_id):
            if await db.adelete_memory(report.user_id, memory.memory_id):
                report.memories_deleted += 1
    except StoreError as exc:
        report.fail("memories", exc)
        return False
    report.errors.pop("memories", None)
    return report.memories_deleted > before


async def _erase_in_session(
    db: BaseDb, session_id: str, rewrite: UserRewrite, report: ErasureReport
) -> bool:
    """Delete or scrub one session; whether anything of the user was found there."""
    if await _delete_if_own(db, session_id, report):
        return True
    changed = await _scrub_session(db, session_id, rewrite, report)
    changed = await _scrub_versions(db, session_id, rewrite, report) or changed
    changed = await _cancel_schedules(db, session_id, report) or changed
    if changed and session_id not in report.sessions_scrubbed:
        report.sessions_scrubbed.append(session_id)
    return changed


async def _delete_if_own(db: BaseDb, session_id: str, report: ErasureReport) -> bool:
    """Delete the session if only the user ever acted in it; whether it was deleted.

    The delete names the version the session was classified at (``expected_version``),
    checked under its lease: a run that landed in between (another user writing to
    the DM) refuses it, and the session is classified again, so their data is never
    deleted with it. After ``_CLASSIFY_TRIES`` such races, StaleVersionError goes to
    the report (re-running the erasure is safe).
    """
    for attempt in range(_CLASSIFY_TRIES):
        record = await db.aload(session_id)
        history = await db.ahistory(session_id, limit=_HISTORY_SCAN)
        if record is None or participants(record, history) != {report.user_id}:
            return False
        schedules = len(await schedule_store(db).alist(session_id))
        try:
            await sessions.delete_session(db, session_id, expected_version=record.version)
        except SessionNotFoundError:
            pass  # deleted meanwhile: nothing of it is left either way
        except StaleVersionError:
            if attempt + 1 == _CLASSIFY_TRIES:
                raise
            continue  # a run landed since the classification: classify again
        await db.aforget_extras(session_id)
        report.sessions_deleted.append(session_id)
        report.schedules_deleted += schedules
        return True
    return False  # not reached: the last attempt returns or raises


async def _scrub_session(
    db: BaseDb, session_id: str, rewrite: UserRewrite, report: ErasureReport
) -> bool:
    """Save the session without the user, as its next version, under its lease."""
    async with db.session_lock(session_id) as lease:
        record = await db.aload(session_id)
        if record is None:
            return False
        changed, removed = rewrite.texts(record.texts)
        data = rewrite.data(record.data)
        if not (changed or removed or data != record.data or record.user_id == rewrite.user_id):
            return False
        await db.asave(
            session_id,
            expected_version=record.version,
            changed=changed,
            removed=removed,
            meta=SessionMeta(kind=record.kind, owner_id=record.owner_id, user_id=ERASURE_ACTOR),
            lease=lease,
            data=data if data != record.data else None,
        )
        report.runs_removed += len(user_runs(record.data, rewrite.user_id))
        return True


async def _scrub_versions(
    db: BaseDb, session_id: str, rewrite: UserRewrite, report: ErasureReport
) -> bool:
    """Rewrite the stored versions of a session: a hot store's undo records (the one of
    the erasure's own save holds the old texts), the durable store's history."""
    before = report.history_rows_scrubbed + report.redis_records_scrubbed
    for store in (db, db.durable):
        if store is None:
            continue
        rewritten = await store.ascrub_versions(session_id, rewrite)
        if store.hot:
            report.redis_records_scrubbed += rewritten
        else:
            report.history_rows_scrubbed += rewritten
    return report.history_rows_scrubbed + report.redis_records_scrubbed > before


async def _cancel_schedules(db: BaseDb, session_id: str, report: ErasureReport) -> bool:
    """Delete the schedules the user made in a session others keep."""
    store = schedule_store(db)
    deleted = 0
    for schedule in await store.alist(session_id):
        if schedule.user_id == report.user_id and await store.acas(schedule, None):
            deleted += 1
    report.schedules_deleted += deleted
    return deleted > 0
