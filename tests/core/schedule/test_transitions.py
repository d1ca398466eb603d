"""The rules of a schedule's life, as pure functions."""

from __future__ import annotations

from core.schedule import transitions
from core.schedule.model import CancelOutcome, Schedule, Status
from core.schedule.settings import ScheduleSettings

SETTINGS = ScheduleSettings(max_attempts=3, backoff_base=10, backoff_cap=100)


def pending(**changes: object) -> Schedule:
    base = Schedule("s1", "chat:1", "remind me", nominal_at=100.0, due_at=100.0)
    return base.evolve(**changes) if changes else base


def test_claim_only_when_due_and_counts_the_attempt() -> None:
    """Not due: no claim. Due: claimed with our token until now + claim_ttl."""
    assert transitions.claim(pending(), now=99.0, token="t", claim_ttl=60) is None
    claimed = transitions.claim(pending(), now=100.0, token="t", claim_ttl=60)
    assert claimed is not None
    assert (claimed.status, claimed.claim_token, claimed.due_at, claimed.attempts) == (
        Status.CLAIMED,
        "t",
        160.0,
        1,
    )
    assert claimed.rev == pending().rev + 1


def test_start_needs_our_own_claim() -> None:
    """Another token, or a schedule no longer claimed, cannot start."""
    claimed = transitions.claim(pending(), now=100.0, token="t", claim_ttl=60)
    assert claimed is not None
    assert transitions.start(claimed, token="other") is None
    started = transitions.start(claimed, token="t")
    assert started is not None and started.status == Status.FIRING
    assert transitions.start(started, token="t") is None


def test_fail_backs_off_then_drops() -> None:
    """Retries after 10 s, 20 s; the third failure drops a one-off run."""
    current = pending()
    delays = []
    for now in (100.0, 200.0):
        claimed = transitions.claim(current.evolve(due_at=now), now=now, token="t", claim_ttl=60)
        assert claimed is not None
        revised, dropped = transitions.fail(claimed, now=now, error="boom", settings=SETTINGS)
        assert revised is not None and not dropped
        delays.append(revised.due_at - now)
        current = revised
    assert delays == [10.0, 20.0]
    claimed = transitions.claim(current.evolve(due_at=300.0), now=300, token="t", claim_ttl=60)
    assert claimed is not None and claimed.attempts == 3
    assert transitions.fail(claimed, now=300.0, error="boom", settings=SETTINGS) == (None, True)


def test_cron_moves_on_after_success_failure_drop_or_skip() -> None:
    """A cron schedule never ends by itself: each outcome gives its next time after now."""
    hourly = pending(cron="0 * * * *", tz="UTC", nominal_at=3600.0, due_at=3600.0)
    following = transitions.finish(hourly, now=3601.0)
    assert following is not None and following.nominal_at == following.due_at == 7200.0
    assert following.attempts == 0 and following.status == Status.PENDING
    skipped = transitions.skip(hourly, now=5 * 3600.0 + 10)
    assert skipped is not None and skipped.nominal_at == 6 * 3600.0


def test_cancel_before_start_deletes_and_after_start_only_stops_repeats() -> None:
    """Pending/claimed: deleted. Firing: the run goes on, the cron stops after it."""
    assert transitions.cancel(pending()) == (None, CancelOutcome.CANCELLED)
    firing = pending(status=Status.FIRING, cron="0 * * * *")
    marked, outcome = transitions.cancel(firing)
    assert outcome == CancelOutcome.ALREADY_FIRING and marked is not None
    assert marked.cancel_requested
    assert transitions.finish(marked, now=200.0) is None
