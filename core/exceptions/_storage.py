"""Storage errors: the store could not do what was asked, or refused to."""

from __future__ import annotations

__all__ = [
    "DamagedDataError",
    "InvalidIdError",
    "LeaseGoneError",
    "LeaseLostError",
    "LockTimeoutError",
    "OutcomeUnknownError",
    "RedisDataLostError",
    "SessionBusyError",
    "StaleSnapshotError",
    "StaleVersionError",
    "StateLimitError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
    "VersionConflictError",
]


class StoreError(Exception):
    """Base class of every storage error."""


class DamagedDataError(StoreError):
    """A session's run history and audit trail in Redis cannot be read as written (a
    hand-edited or corrupted key): refused by name, never read as something else."""

    def __init__(self, session_id: str, detail: str) -> None:
        super().__init__(
            f"session {session_id!r}: its run history and audit trail in Redis are damaged "
            f"({detail}); its state values are not affected"
        )
        self.session_id = session_id


class StoreUnavailableError(StoreError):
    """The backing service (Redis, the database) cannot be reached."""


class StoreFullError(StoreUnavailableError):
    """Redis refused a write because it is out of memory (``maxmemory``); nothing was written."""


class OutcomeUnknownError(StoreUnavailableError):
    """The store failed while committing: the write may or may not have been applied.

    Only idempotent operations may be retried after it (a snapshot upsert is: the same
    version and save id again is a no-op).
    """


class StaleVersionError(StoreError):
    """A save was based on a version that is no longer current; nothing was written."""

    def __init__(self, session_id: str, expected: int, actual: int | None) -> None:
        super().__init__(
            f"session {session_id!r} is at version {actual}, not {expected}: "
            "another run saved first, nothing was written"
        )
        self.session_id = session_id
        self.expected = expected
        self.actual = actual


class LeaseLostError(StaleVersionError):
    """A save under a run lease that expired (and may have been taken over); nothing written."""

    def __init__(self, session_id: str, version: int) -> None:
        StoreError.__init__(
            self,
            f"session {session_id!r}: the run lease expired before the save; another run "
            "may hold it now, so nothing was written",
        )
        self.session_id = session_id
        self.expected = version
        self.actual = version


class LeaseGoneError(LeaseLostError):
    """The run's lease was no longer in Redis at the save, and no other run held it.

    ``evicted``: Redis was out of memory and evicting keys (a ``maxmemory-policy`` other
    than ``noeviction``), which is how a lease vanishes before its time; otherwise it
    expired. Either way nothing was written.
    """

    def __init__(self, session_id: str, version: int, *, evicted: bool, why: str) -> None:
        StoreError.__init__(self, f"session {session_id!r}: {why}; nothing was written")
        self.session_id = session_id
        self.expected = version
        self.actual = version
        self.evicted = evicted


class RedisDataLostError(StaleVersionError):
    """Redis lost the session (restarted empty, flushed) while a run had it open.

    Not applied, like every StaleVersionError, but for this reason: nothing of the run
    was written, and no other change came first.
    """

    def __init__(self, session_id: str, version: int) -> None:
        StoreError.__init__(
            self,
            f"session {session_id!r}: Redis lost its data (restarted empty or flushed) "
            "while this run had the session open; nothing from this run was saved",
        )
        self.session_id = session_id
        self.expected = version
        self.actual = None


class LockTimeoutError(StoreError):
    """Waiting for a session's run lock took longer than allowed; nothing was changed."""


class SessionBusyError(LockTimeoutError):
    """Too many runs already wait for this session; refused at once, nothing was changed."""

    def __init__(self, session_id: str, max_waiters: int) -> None:
        super().__init__(
            f"session {session_id!r} is busy: {max_waiters} requests are already waiting "
            "for it (max_waiters); nothing was changed, try again in a moment"
        )
        self.session_id = session_id
        self.max_waiters = max_waiters


class StateLimitError(StoreError):
    """A state exceeds a configured limit (size of a session, length of a key)."""


class InvalidIdError(StoreError, ValueError):
    """An id (session, user, owner) that no durable store can hold: too long, or with NUL."""


class VersionConflictError(StoreError):
    """One version number names two different contents (a hot store fell behind).

    Raised by a snapshot upsert that finds the durable store holding the same version
    from a different save; nothing is overwritten.
    """

    def __init__(self, session_id: str, version: int, durable_save: str, hot_save: str) -> None:
        super().__init__(
            f"session {session_id!r}: version {version} in the durable store comes from save "
            f"{durable_save!r}, the hot store's from save {hot_save!r}; the durable copy "
            "was kept and nothing was overwritten"
        )
        self.session_id = session_id
        self.version = version


class StaleSnapshotError(StoreError):
    """A snapshot read from a Redis incarnation the durable store no longer answers to.

    Redis restarted (or failed over) after the snapshot pass read the session, and the
    new incarnation already read it back from the durable store: the pass's copy may
    name a version the new incarnation reuses for other content. Nothing is written.
    """

    def __init__(self, session_id: str, version: int, epoch: str, claimed: str) -> None:
        super().__init__(
            f"session {session_id!r}: the snapshot of version {version} was read from "
            f"Redis incarnation {epoch[:12]!r}, but incarnation {claimed[:12]!r} has "
            "since read the session back from the durable store; nothing was written"
        )
        self.session_id = session_id
        self.version = version
