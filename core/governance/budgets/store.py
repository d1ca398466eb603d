"""The storage seam of budgets: per-scope, per-day counters, and the in-memory one.

A counter store only adds and reads; what is over a limit is decided by
:mod:`core.governance.budgets.gate`. ``aadd`` adds one run's usage to every scope it counts
in, in one store call (RedisDb: one pipelined round trip; SQL: one transaction).
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Sequence

from core.governance.budgets.model import Scope, Usage

#: days of counters an in-memory store keeps (today and yesterday), so it stays bounded
KEPT_DAYS = 2


class UsageStore(abc.ABC):
    """Where a store's usage counters live. Safe to call from several processes."""

    @abc.abstractmethod
    async def aread(self, scopes: Sequence[Scope], day: str) -> list[Usage]:
        """What each scope spent on ``day`` (UTC ``YYYY-MM-DD``), in ``scopes``' order."""

    @abc.abstractmethod
    async def aadd(self, scopes: Sequence[Scope], day: str, usage: Usage) -> None:
        """Add ``usage`` to each scope's counters of ``day``, atomically per counter."""

    @abc.abstractmethod
    async def aerase(self, scopes: Sequence[Scope], today: str) -> int:
        """Delete every day's counters of ``scopes`` (erasure); how many were deleted.

        ``today`` bounds the days a store with expiring counters looks at.
        """


class MemoryUsageStore(UsageStore):
    """Counters in process memory (InMemoryDb, private SQLite): gone with the process."""

    __slots__ = ("_days", "_lock")

    def __init__(self) -> None:
        self._days: dict[str, dict[Scope, Usage]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemoryUsageStore(days={sorted(self._days)})"

    async def aread(self, scopes: Sequence[Scope], day: str) -> list[Usage]:
        with self._lock:
            counters = self._days.get(day, {})
            return [_copy(counters.get(scope)) for scope in scopes]

    async def aadd(self, scopes: Sequence[Scope], day: str, usage: Usage) -> None:
        with self._lock:
            counters = self._days.setdefault(day, {})
            for scope in scopes:
                held = counters.setdefault(scope, Usage())
                held.tokens += usage.tokens
                held.tool_calls += usage.tool_calls
            for old in sorted(self._days)[:-KEPT_DAYS]:  # day keys sort by date
                del self._days[old]

    async def aerase(self, scopes: Sequence[Scope], today: str) -> int:
        with self._lock:
            return sum(
                counters.pop(scope, None) is not None
                for counters in self._days.values()
                for scope in scopes
            )


def _copy(usage: Usage | None) -> Usage:
    return Usage() if usage is None else Usage(usage.tokens, usage.tool_calls)
