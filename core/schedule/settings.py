"""The knobs of scheduling, in one place. The app fills them (bots read them from the
environment); core never reads the environment itself."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScheduleSettings:
    """Limits and timings shared by the scheduling API and the :class:`Scheduler`."""

    #: timezone for a schedule when neither the caller nor the user's profile gives one
    default_tz: str = "UTC"
    #: tries of one run before it is dropped with a logged error
    max_attempts: int = 5
    #: first retry delay in seconds; doubles on each failure, up to ``backoff_cap``
    backoff_base: float = 30.0
    backoff_cap: float = 3600.0
    #: a run that missed its time by more than this (seconds) is skipped, with a log line
    max_late: float = 24 * 3600.0
    #: runs that start later than this (seconds) are told how late they are
    late_tolerance: float = 60.0
    #: how long a claim holds before another scheduler may take the run over (seconds);
    #: keep it above the run deadline, or a slow run may be started twice
    claim_ttl: float = 600.0
    #: seconds the app's ``fire`` may take; past it the run is cancelled and retried.
    #: Below ``claim_ttl``, so no other scheduler takes over a run still going
    fire_timeout: float = 480.0
    #: seconds a scheduler waits for a busy session's lease before leaving the run for
    #: its next poll
    lease_wait: float = 10.0
    #: seconds between polls of the scheduler loop
    poll_interval: float = 1.0
    #: schedules handled per poll, and at once
    batch: int = 100
    concurrency: int = 16
    #: pending schedules one session may hold
    max_per_session: int = 100
    #: characters of a schedule's input, and bytes of its target
    max_input: int = 4000
    max_target: int = 4096

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.max_attempts}")
        for name in ("backoff_base", "claim_ttl", "fire_timeout", "poll_interval"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.fire_timeout >= self.claim_ttl:
            raise ValueError(
                f"fire_timeout ({self.fire_timeout}) must be below claim_ttl ({self.claim_ttl}): "
                "a run outliving its claim could be started again by another scheduler"
            )
