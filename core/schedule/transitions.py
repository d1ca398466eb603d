"""Every change of a schedule, decided in one place, as pure functions.

Each function takes the stored schedule and returns its next revision (or None: the
schedule is finished and deleted). Stores apply the result with a compare-and-set on
``rev``, so of two schedulers that computed a change from the same revision only one
writes it. The rules:

* **claim** (under the session's lease): a pending schedule that is due, or a claim
  whose holder vanished (its ``due_at``, the claim's expiry, passed), is taken with a
  fresh token; ``attempts`` counts claims, so a run that crashed its process counts.
* **start**: a claimed schedule moves to firing, only if the claim is still ours; a
  cancel in between removed it, so the run never starts (cancel wins over fire).
* **finish**: a one-off schedule is deleted; a cron schedule returns to pending at its
  next time after now (missed occurrences are not replayed one by one), unless it was
  cancelled while firing.
* **fail**: retried after an exponential backoff; after ``max_attempts`` tries the run
  is dropped (a cron schedule moves on to its next time).
* **skip**: a run more than ``max_late`` late is not started; like a drop.
* **cancel**: pending or claimed means deleted; firing means the running run goes on
  and a cron schedule stops after it.
"""

from __future__ import annotations

from core.schedule.model import CancelOutcome, Schedule, Status
from core.schedule.settings import ScheduleSettings
from core.schedule.timing import backoff, next_cron


def claimable(schedule: Schedule, now: float) -> bool:
    """Due now: pending and due, or claimed/firing by a holder whose claim expired."""
    return schedule.due_at <= now


def claim(schedule: Schedule, *, now: float, token: str, claim_ttl: float) -> Schedule | None:
    """Take a due schedule; None when it is not due (another scheduler got there first)."""
    if not claimable(schedule, now):
        return None
    if schedule.cancel_requested:
        return None  # cancelled while firing, and that holder vanished: nothing left to run
    return schedule.evolve(
        status=Status.CLAIMED,
        claim_token=token,
        due_at=now + claim_ttl,
        attempts=schedule.attempts + 1,
    )


def start(schedule: Schedule, *, token: str) -> Schedule | None:
    """Move our claim to firing; None when the claim is no longer ours."""
    if schedule.status != Status.CLAIMED or schedule.claim_token != token:
        return None
    return schedule.evolve(status=Status.FIRING)


def _next_occurrence(schedule: Schedule, now: float) -> Schedule | None:
    """The cron schedule at its next time after now; None for a one-off (or a stopped one)."""
    if schedule.cron is None or schedule.cancel_requested:
        return None
    after = max(now, schedule.nominal_at)
    due = next_cron(schedule.cron, schedule.tz, after)
    return schedule.evolve(
        status=Status.PENDING,
        nominal_at=due,
        due_at=due,
        attempts=0,
        claim_token="",
        last_error="",
    )


def finish(schedule: Schedule, *, now: float) -> Schedule | None:
    """After a successful run: the next cron occurrence, or None (delete)."""
    return _next_occurrence(schedule, now)


def fail(
    schedule: Schedule, *, now: float, error: str, settings: ScheduleSettings
) -> tuple[Schedule | None, bool]:
    """After a failed run: (next revision or None, whether this run was dropped)."""
    if schedule.attempts >= settings.max_attempts or schedule.cancel_requested:
        return _next_occurrence(schedule, now), True
    retry_at = now + backoff(schedule.attempts, settings.backoff_base, settings.backoff_cap)
    revised = schedule.evolve(
        status=Status.PENDING, due_at=retry_at, claim_token="", last_error=error[:500]
    )
    return revised, False


def too_late(schedule: Schedule, *, now: float, settings: ScheduleSettings) -> bool:
    """Missed by more than ``max_late``: the run is skipped rather than started."""
    return now - schedule.nominal_at > settings.max_late


def skip(schedule: Schedule, *, now: float) -> Schedule | None:
    """A run not started because it is too late: the next cron time, or None."""
    return _next_occurrence(schedule, now)


def cancel(schedule: Schedule) -> tuple[Schedule | None, CancelOutcome]:
    """(next revision or None to delete, what the cancel achieved)."""
    if schedule.status != Status.FIRING:
        return None, CancelOutcome.CANCELLED
    if schedule.cancel_requested:
        return schedule, CancelOutcome.ALREADY_FIRING  # nothing to write
    return schedule.evolve(cancel_requested=True), CancelOutcome.ALREADY_FIRING
