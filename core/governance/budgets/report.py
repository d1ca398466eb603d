"""What the scopes of a conversation spent today, against their budgets (``/state usage``).

:func:`usage_report` reads the counters (one store call) and returns a
:class:`UsageReport`; :meth:`UsageReport.describe` is the text chat and the terminal
show, :meth:`UsageReport.as_dict` the JSON form.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.db.base import BaseDb
from core.governance.budgets.model import Budget, Scope, ScopeKind, Usage, next_reset, utc_day
from core.governance.budgets.stores import usage_store
from core.governance.save import limits_of

#: how chat names a scope to the person asking about their own conversation
_CHAT_NAMES = {"session": "this conversation", "user": "you", "channel": "this channel"}


@dataclass(frozen=True, slots=True)
class ScopeUsage:
    """One scope's use today and its limits (None: unlimited)."""

    scope: Scope
    used: Usage
    token_limit: int | None
    tool_call_limit: int | None

    def exhausted(self) -> bool:
        """True when a run in this scope would be refused now (any of its budgets)."""
        tokens = self.token_limit is not None and self.used.tokens >= self.token_limit
        calls = self.tool_call_limit is not None and self.used.tool_calls >= self.tool_call_limit
        return tokens or calls


@dataclass(frozen=True, slots=True)
class UsageReport:
    """Today's usage of the scopes asked about, in the order session, user, channel."""

    day: str
    resets_at: datetime
    scopes: tuple[ScopeUsage, ...]

    def describe(self, *, for_chat: bool = True) -> str:
        """Readable lines; ``for_chat`` names scopes "this conversation", "you", "this
        channel" (the terminal shows their ids)."""
        head = f"Usage today ({self.day}, UTC; counters reset at 00:00 UTC)"
        if not self.scopes:
            return f"{head}: nothing to show (no session, user or channel given)."
        lines = [f"{head}:"]
        for item in self.scopes:
            name = _CHAT_NAMES[item.scope.kind] if for_chat else str(item.scope)
            tokens = _amount(item.used.tokens, item.token_limit, "tokens")
            calls = _amount(item.used.tool_calls, item.tool_call_limit, "tool calls")
            flag = " (used up: new runs are refused until the reset)" if item.exhausted() else ""
            lines.append(f"• {name}: {tokens}, {calls}{flag}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (``statebot state usage --json``)."""
        return {
            "day": self.day,
            "resets_at": self.resets_at.isoformat(),
            "scopes": [
                {
                    "scope": item.scope.kind,
                    "id": item.scope.id,
                    "tokens": item.used.tokens,
                    "token_limit": item.token_limit,
                    "tool_calls": item.used.tool_calls,
                    "tool_call_limit": item.tool_call_limit,
                    "exhausted": item.exhausted(),
                }
                for item in self.scopes
            ],
        }


def _amount(used: int, limit: int | None, unit: str) -> str:
    if limit is None:
        return f"{used:,} {unit if used != 1 else unit[:-1]} (no limit)"
    return f"{used:,} of {limit:,} {unit}"


async def usage_report(
    db: BaseDb,
    budget: Budget | None,
    *,
    session_id: str | None = None,
    user_id: str | None = None,
    channel: str | None = None,
) -> UsageReport:
    """Today's usage of the given scopes in ``db``'s counters, with ``budget``'s limits.

    Scopes not given are left out. Without a budget every limit shows as none (and
    nothing was counted unless some owner of ``db`` has one).
    """
    budget = budget or Budget()
    given: tuple[tuple[ScopeKind, str | None], ...] = (
        ("session", session_id),
        ("user", user_id),
        ("channel", channel),
    )
    limits = limits_of(db)
    for kind, value in given:  # before any store sees them
        limits.check_id(f"{kind} id", value)
    asked = [Scope(kind, value) for kind, value in given if value]
    now = budget.clock()
    day = utc_day(now)
    used = await usage_store(db).aread(asked, day) if asked else []
    return UsageReport(
        day=day,
        resets_at=next_reset(now),
        scopes=tuple(
            ScopeUsage(scope, spent, budget.tokens(scope.kind), budget.tool_calls(scope.kind))
            for scope, spent in zip(asked, used, strict=True)
        ),
    )
