"""The budget check before a run and the recording after it (the runner calls both).

Decided here, once:

* **What a run is checked against.** A model turn (and a resumed confirmation, which
  may call the model again) is refused when any of its scopes has used up its daily
  token *or* tool-call budget. A direct tool call (slash command, ``arun_tool``)
  spends no tokens, so only the tool-call budgets apply to it: an exhausted token
  budget still lets people use their commands.
* **When.** The check runs under the session's run lease, before the model is called
  and before anything is stored; a refused run stores nothing. The run's usage is
  added to every scope it counts in when its body ends (failed runs included), still
  under the lease, so the next run of the session sees it.
* **Overshoot.** The check compares what was used *before* the run; a run that starts
  under the limit may finish over it, and runs of different sessions checked at the
  same moment (one user in two threads) each pass: the overshoot is bounded by the
  usage of the runs in flight, one run per concurrent session.
* **What counts.** The run's ``RunOutput.metrics`` (input + output tokens, tool
  calls), which already include a team's members and a workflow's steps. A run that
  failed has no output: what the model loop reported to :func:`metered` as it went
  counts instead (:func:`meter_model_call`, :func:`meter_tool_call`, called by
  ``core/agent/loop.py`` after each model call and tool call).

An owner without a ``budget`` counts nothing and costs nothing. One with a Budget,
even without limits, counts its usage (so ``/state usage`` can show it).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence

from core.db.base import BaseDb
from core.exceptions import BudgetExceededError
from core.governance.budgets.model import Budget, Scope, Usage, next_reset, utc_day
from core.governance.budgets.stores import usage_store
from core.run.output import RunMetrics
from core.utils.log import log_warning

_meter: contextvars.ContextVar[Usage | None] = contextvars.ContextVar(
    "statebot_budget_meter", default=None
)


@contextlib.contextmanager
def metered() -> Iterator[Usage]:
    """Collect what the model loop reports (:func:`meter_model_call`) during a run."""
    usage = Usage()
    token = _meter.set(usage)
    try:
        yield usage
    finally:
        _meter.reset(token)


def meter_model_call(input_tokens: int, output_tokens: int) -> None:
    """Count one model call's tokens for the run in progress (no-op outside a run)."""
    usage = _meter.get()
    if usage is not None:
        usage.tokens += input_tokens + output_tokens


def meter_tool_call() -> None:
    """Count one tool call for the run in progress (no-op outside a run)."""
    usage = _meter.get()
    if usage is not None:
        usage.tool_calls += 1


def usage_of(metrics: RunMetrics) -> Usage:
    """What a finished run spent, from its metrics."""
    return Usage(metrics.input_tokens + metrics.output_tokens, metrics.tool_calls)


def _limited(budget: Budget, scope: Scope, spends_tokens: bool) -> bool:
    if spends_tokens and budget.tokens(scope.kind) is not None:
        return True
    return budget.tool_calls(scope.kind) is not None


async def check_budget(
    budget: Budget, db: BaseDb, scopes: Sequence[Scope], *, spends_tokens: bool
) -> None:
    """Raise BudgetExceededError when a scope's budget for today is used up.

    One store read for all scopes, and none when no limit applies to them.
    """
    limited = [scope for scope in scopes if _limited(budget, scope, spends_tokens)]
    if not limited:
        return
    now = budget.clock()
    used = await usage_store(db).aread(limited, utc_day(now))
    for scope, spent in zip(limited, used, strict=True):
        token_limit = budget.tokens(scope.kind) if spends_tokens else None
        if token_limit is not None and spent.tokens >= token_limit:
            raise _exceeded(scope, "tokens", spent.tokens, token_limit, now)
        call_limit = budget.tool_calls(scope.kind)
        if call_limit is not None and spent.tool_calls >= call_limit:
            raise _exceeded(scope, "tool calls", spent.tool_calls, call_limit, now)


def _exceeded(scope: Scope, what: str, used: int, limit: int, now: float) -> BudgetExceededError:
    reset = next_reset(now)
    return BudgetExceededError(
        scope=scope.kind,
        scope_id=scope.id,
        what=what,
        used=used,
        limit=limit,
        resets_at=reset.isoformat(),
        resets_in=reset.timestamp() - now,
    )


async def record_usage(budget: Budget, db: BaseDb, scopes: Sequence[Scope], usage: Usage) -> None:
    """Add a run's usage to today's counters of each of its scopes (one store call).

    A failure to record is logged, not raised: the run's work is done and saved (or
    about to be), and failing it would tell the user something untrue; the counters
    then miss that run (an undercount, logged with its numbers).
    """
    if not usage or not scopes:
        return
    try:
        await usage_store(db).aadd(scopes, utc_day(budget.clock()), usage)
    except Exception as exc:  # the run is not failed by its own bookkeeping
        log_warning(
            "budget_record_failed",
            tokens=usage.tokens,
            tool_calls=usage.tool_calls,
            scopes=[str(scope) for scope in scopes],
            error=repr(exc),
        )
