"""Retention: expire sessions and their history after N days, per kind of session.

core knows nothing of chat scopes: a :class:`RetentionPolicy` is a list of rules, each
a predicate over session ids and a number of days; the first rule that matches a
session decides (none: kept forever). The chat layer builds the policy from its
settings and its key format (``bots/retention.py``: DM, thread, channel).

A :class:`Retention` pass, bounded by ``batch_size``:

* **sessions** not updated for their rule's days are deleted through
  ``sessions.delete_session`` (under the lease: hot and durable copies, history,
  schedules), with their usage-budget counters. Candidates come from the durable
  sessions table (oldest first, by an index on ``updated_at``) and from Redis's
  listing indexes (sessions that never reached the durable store); each is re-read
  through the store before it goes, so a session Redis holds a newer version of is
  kept;
* **history rows** of live sessions saved before their cutoff are deleted from the
  durable store (at most ``batch_size`` per pass).

A pass remembers where it stopped, so sessions kept longer (another rule) never starve
the others; the next pass goes on from there and starts over at the end. It is run by
the snapshotter (``Snapshotter(retention=...)``, ``statebot snapshotter``) and on
demand by ``statebot state expire [--dry-run]``. Redis's undo records of a live session
are not trimmed by age: they are bounded by ``history_limit`` and go with the session.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.db.base import BaseDb
from core.exceptions import SessionNotFoundError, StaleVersionError, StoreError
from core.governance import sessions
from core.governance.budgets.stores import erase_usage
from core.redaction import redact_text

__all__ = ["Retention", "RetentionPolicy", "RetentionReport", "RetentionRule", "expire"]

DAY = 86_400.0
#: sessions looked at (and at most deleted) per pass; history rows deleted per pass
DEFAULT_BATCH_SIZE = 500


@dataclass(frozen=True, slots=True)
class RetentionRule:
    """Sessions ``matches`` accepts expire ``days`` after their last update."""

    name: str
    days: float
    matches: Callable[[str], bool]

    def __post_init__(self) -> None:
        if not self.days > 0:
            raise ValueError(f"retention {self.name!r}: days must be positive, not {self.days}")

    @classmethod
    def prefix(cls, name: str, prefix: str, days: float) -> RetentionRule:
        """Sessions whose id starts with ``prefix``."""
        return cls(name, days, lambda session_id: session_id.startswith(prefix))


@dataclass(frozen=True, slots=True)
class _ClassIs:
    """A rule's predicate: ``classify`` puts the session in class ``name``."""

    classify: Callable[[str], str | None]
    name: str

    def __call__(self, session_id: str) -> bool:
        return self.classify(session_id) == self.name


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """Rules tried in order; the first that matches a session decides."""

    rules: tuple[RetentionRule, ...] = ()

    @classmethod
    def by_class(
        cls, classify: Callable[[str], str | None], days: Mapping[str, float | None]
    ) -> RetentionPolicy:
        """One rule per class ``classify`` puts sessions in (DM, thread, ...); a class
        with None or no days is kept forever."""
        rules = [
            RetentionRule(name, n, _ClassIs(classify, name))
            for name, n in days.items()
            if n is not None
        ]
        return cls(tuple(rules))

    def rule_for(self, session_id: str) -> RetentionRule | None:
        """The rule deciding a session, or None (kept forever)."""
        return next((r for r in self.rules if r.matches(session_id)), None)

    def cutoff(self, session_id: str, now: float) -> float | None:
        """Sessions (and history rows) of ``session_id`` older than this expire."""
        rule = self.rule_for(session_id)
        return None if rule is None else now - rule.days * DAY

    def latest_cutoff(self, now: float) -> float | None:
        """The cutoff of the shortest rule: nothing newer ever expires."""
        return None if not self.rules else now - min(r.days for r in self.rules) * DAY


@dataclass(slots=True)
class RetentionReport:
    """What a pass (or a sweep of passes) expired, or would have (``dry_run``)."""

    dry_run: bool = False
    sessions_expired: list[str] = field(default_factory=list)
    history_rows_deleted: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    #: the pass stopped at its batch size: the next one has more to look at
    more: bool = False

    def add(self, other: RetentionReport) -> None:
        self.sessions_expired += other.sessions_expired
        self.history_rows_deleted += other.history_rows_deleted
        self.errors |= other.errors
        self.more = other.more

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the CLI prints it)."""
        return {
            "dry_run": self.dry_run,
            "sessions_expired": list(self.sessions_expired),
            "history_rows_deleted": self.history_rows_deleted,
            "errors": dict(self.errors),
        }


Keyset = tuple[float, str]


class Retention:
    """Retention passes over one store, resuming where the last pass stopped."""

    __slots__ = ("_after", "batch_size", "clock", "db", "policy")

    def __init__(
        self,
        db: BaseDb,
        policy: RetentionPolicy,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.db = db
        self.policy = policy
        self.batch_size = batch_size
        #: wall-clock seconds (updated_at and saved_at are wall-clock)
        self.clock = clock
        self._after: Keyset | None = None

    async def run_pass(self, *, dry_run: bool = False) -> RetentionReport:
        """One bounded pass: idle sessions, then old history rows."""
        report = RetentionReport(dry_run=dry_run)
        now = self.clock()
        latest = self.policy.latest_cutoff(now)
        if latest is None:
            return report
        candidates = await _idle(self.db, latest, self._after, self.batch_size)
        report.more = len(candidates) >= self.batch_size
        self._after = candidates[-1] if report.more else None
        seen: set[str] = set()
        for _, session_id in candidates:
            if session_id in seen:
                continue
            seen.add(session_id)
            try:
                if await self._expire(session_id, now, dry_run):
                    report.sessions_expired.append(session_id)
            except StoreError as exc:
                report.errors[session_id] = redact_text(f"{type(exc).__name__}: {exc}")
        try:
            report.history_rows_deleted = await self._old_history(latest, now, dry_run)
        except StoreError as exc:
            report.errors["history"] = redact_text(f"{type(exc).__name__}: {exc}")
        return report

    async def sweep(self, *, dry_run: bool = False, max_passes: int = 10_000) -> RetentionReport:
        """Passes until the store has been gone through once (the CLI)."""
        total = RetentionReport(dry_run=dry_run)
        self._after = None
        for _ in range(max_passes):
            report = await self.run_pass(dry_run=dry_run)
            total.add(report)
            if not report.more and (dry_run or report.history_rows_deleted < self.batch_size):
                break
        return total

    async def _expire(self, session_id: str, now: float, dry_run: bool) -> bool:
        cutoff = self.policy.cutoff(session_id, now)
        if cutoff is None:
            return False
        current = await self.db.aload(session_id)  # Redis may hold a newer version
        if current is None or current.updated_at >= cutoff:
            return False
        if dry_run:
            return True
        try:  # only the version found idle: a run landing meanwhile keeps the session
            await sessions.delete_session(self.db, session_id, expected_version=current.version)
        except SessionNotFoundError:
            pass  # gone meanwhile: fine
        except StaleVersionError:
            return False  # used since the check: not idle any more
        await self.db.aforget_extras(session_id)
        await erase_usage(self.db, session_ids=[session_id])  # its budget counters
        return True

    async def _old_history(self, latest: float, now: float, dry_run: bool) -> int:
        # a hot store's undo records go with the session (bounded by history_limit)
        durable = self.db.durable if self.db.hot else self.db
        if durable is None:
            return 0
        return await durable.adelete_old_history(
            latest,
            lambda session_id: self.policy.cutoff(session_id, now),
            limit=self.batch_size,
            dry_run=dry_run,
        )


async def expire(
    db: BaseDb,
    policy: RetentionPolicy,
    *,
    dry_run: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    clock: Callable[[], float] = time.time,
) -> RetentionReport:
    """Apply ``policy`` to the whole store now (``statebot state expire``)."""
    return await Retention(db, policy, batch_size=batch_size, clock=clock).sweep(dry_run=dry_run)


async def _idle(db: BaseDb, before: float, after: Keyset | None, limit: int) -> list[Keyset]:
    """(updated_at, session id) of sessions updated before ``before``, after the keyset
    ``after``, oldest first, at most ``limit``."""
    found = await db.aidle_sessions(before, after=after, limit=limit)
    if db.durable is not None:
        found += await _idle(db.durable, before, after, limit)
    oldest: dict[str, float] = {}  # one entry per session (Redis and the durable copy)
    for updated, session_id in found:
        if after is None or (updated, session_id) > after:
            oldest[session_id] = min(updated, oldest.get(session_id, updated))
    return sorted((t, sid) for sid, t in oldest.items())[:limit]
