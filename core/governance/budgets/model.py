"""Usage budgets: how many model tokens and tool calls a run may spend, per day.

A :class:`Budget` names daily limits for three scopes: the session, the user (across
all their sessions) and the channel (every session of one chat channel). ``None``
means no limit for that scope. An owner (Agent, Team, Workflow) takes one as
``budget=``.

Days are UTC days; a day's counters start at zero at 00:00 UTC. What a scope is, and
which scopes a run belongs to, is decided here (:func:`run_scopes`); the check and the
recording live in :mod:`core.governance.budgets.gate`, the counters in the store's
:mod:`usage store <core.governance.budgets.stores>`, the report in
:mod:`core.governance.budgets.report` (:func:`usage_report` here too). See docs/budgets.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from core.run.origin import CHANNEL_KEY, origin_value

if TYPE_CHECKING:
    from core.db.base import BaseDb
    from core.governance.budgets.report import UsageReport

ScopeKind = Literal["session", "user", "channel"]
#: the order scopes are checked and shown in
SCOPE_KINDS: tuple[ScopeKind, ...] = ("session", "user", "channel")


@dataclass(frozen=True, slots=True)
class Budget:
    """Daily limits per scope (UTC days); None: unlimited.

    ``clock`` (seconds since the epoch) decides which day a run counts in; tests
    inject one to move across midnight without sleeping.
    """

    tokens_per_session: int | None = None
    tokens_per_user: int | None = None
    tokens_per_channel: int | None = None
    tool_calls_per_session: int | None = None
    tool_calls_per_user: int | None = None
    tool_calls_per_channel: int | None = None
    clock: Callable[[], float] = field(default=time.time, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in _LIMIT_FIELDS:
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"Budget.{name} must be an int or None, not {value!r}")
            if value is not None and value < 0:
                raise ValueError(f"Budget.{name} must be 0 or more (None: unlimited), not {value}")

    def tokens(self, kind: ScopeKind) -> int | None:
        """The daily token limit of a scope kind (None: unlimited)."""
        limit: int | None = getattr(self, f"tokens_per_{kind}")
        return limit

    def tool_calls(self, kind: ScopeKind) -> int | None:
        """The daily tool-call limit of a scope kind (None: unlimited)."""
        limit: int | None = getattr(self, f"tool_calls_per_{kind}")
        return limit

    def limits_any(self) -> bool:
        """True when at least one limit is set (else a run needs no counting at all)."""
        return any(getattr(self, name) is not None for name in _LIMIT_FIELDS)


_LIMIT_FIELDS = tuple(
    f"{what}_per_{kind}" for what in ("tokens", "tool_calls") for kind in SCOPE_KINDS
)


@dataclass(frozen=True, slots=True)
class Scope:
    """One counted scope: its kind and its id (a session id, user id or channel key)."""

    kind: ScopeKind
    id: str

    def __str__(self) -> str:
        return f"{self.kind} {self.id}"


@dataclass(slots=True)
class Usage:
    """What one scope spent on one day (or one run spent)."""

    tokens: int = 0
    tool_calls: int = 0

    def __bool__(self) -> bool:
        return bool(self.tokens or self.tool_calls)


def run_scopes(
    session_id: str, user_id: str | None, metadata: Mapping[str, Any] | None
) -> list[Scope]:
    """The scopes a run counts in: always its session; its user and channel when known.

    The channel is the run metadata's :data:`~core.run.origin.CHANNEL_KEY`, which the
    chat layer fills in; a run without it (a library call) has no channel scope.
    """
    scopes = [Scope("session", session_id)]
    if user_id:
        scopes.append(Scope("user", user_id))
    channel = origin_value(metadata, CHANNEL_KEY)
    if channel is not None:
        scopes.append(Scope("channel", channel))
    return scopes


def utc_day(now: float) -> str:
    """The UTC day ``now`` falls in, as ``YYYY-MM-DD`` (the counters' day key)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def next_reset(now: float) -> datetime:
    """When the day's counters start again: the next 00:00 UTC after ``now``."""
    day = datetime.fromtimestamp(now, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day + timedelta(days=1)


def budget_of(owner: object) -> Budget | None:
    """The ``budget`` of an owner-like object (None: none, or not an owner)."""
    budget = getattr(owner, "budget", None)
    return budget if isinstance(budget, Budget) else None


async def usage_report(
    db: BaseDb,
    budget: Budget | None,
    *,
    session_id: str | None = None,
    user_id: str | None = None,
    channel: str | None = None,
) -> UsageReport:
    """Today's usage of the given scopes against ``budget``: see
    :func:`core.governance.budgets.report.usage_report` (imported on use: it needs the stores)."""
    from core.governance.budgets.report import usage_report as report

    return await report(db, budget, session_id=session_id, user_id=user_id, channel=channel)
