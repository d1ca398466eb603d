"""Rotation of the state keys: seal again, under the newest key, what an older key sealed.

After a new key is put first in ``STATEBOT_STATE_KEYS`` (every process restarted with
it), :func:`rekey` rewrites every stored state value, data text and history version
that is not sealed under the newest key yet (plaintext stored before encryption was
turned on included), so the old key can then be dropped. ``statebot state rekey``
calls it.

* Values are rewritten *in place*: same version, same save id, same plaintext, only
  the ciphertext changes. No version is added (the audit trail and undo see nothing),
  and a per-process cache that knows the version stays right (it holds plaintext).
* A live session is rewritten under its run lease (Redis's, or the SQL store's when it
  stands alone), guarded by its version and save id; a session that moved on meanwhile
  is counted as ``moved`` and left to the next run (its new version was sealed by a
  process that has the new key).
* RedisDb: the dirty sessions are flushed first, then Redis is rewritten (hash fields,
  data, undo records), then the durable store (sessions and history tables).
* A value sealed with a key that is no longer configured is not touched: it is reported
  under ``failed`` with the key id, and the run goes on with the other sessions.
* Idempotent: a second run finds nothing to do (``rewritten == 0``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.db.base import BaseDb

__all__ = ["RekeyCounts", "RekeyReport", "rekey"]


@dataclass(slots=True)
class RekeyCounts:
    """What one store's pass did."""

    store: str
    #: sessions looked at
    sessions: int = 0
    #: sessions whose current state or data was sealed again
    rewritten: int = 0
    #: state values, data texts and history versions sealed again
    values: int = 0
    data: int = 0
    history: int = 0
    #: sessions that changed while they were rewritten (left for the next run)
    moved: int = 0
    #: "session: reason" of sessions that could not be opened (a key not configured)
    failed: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RekeyReport:
    """The passes of one rekey run, hot store first; ``primary_id`` sealed everything."""

    primary_id: str
    passes: tuple[RekeyCounts, ...]

    @property
    def rewritten(self) -> int:
        """Values, data texts and history versions sealed again, over every store."""
        return sum(p.values + p.data + p.history for p in self.passes)

    @property
    def failed(self) -> list[str]:
        """Every failure, over every store."""
        return [f for p in self.passes for f in p.failed]


async def rekey(db: BaseDb) -> RekeyReport:
    """Seal again under the newest key everything ``db`` holds under another one.

    ValueError for a store without a cipher (nothing is encrypted to rotate).
    """
    # imported here: a deployment uses one backend, and the backends import this module
    from core.db.in_memory import InMemoryDb
    from core.db.redis import RedisDb
    from core.db.redis.rekey import rekey_redis
    from core.db.sql.rekey import rekey_sql
    from core.db.sql.store import SqlDb

    if isinstance(db, InMemoryDb):
        raise ValueError("an in-memory store keeps state in process memory: nothing to rekey")
    cipher = getattr(db, "cipher", None)
    if cipher is None:
        raise ValueError(
            f"{type(db).__name__} has no state keys (STATEBOT_STATE_KEYS is empty): "
            "nothing is encrypted, so there is nothing to rekey"
        )
    passes: list[RekeyCounts] = []
    if isinstance(db, RedisDb):
        await db.aflush()  # the durable store gets what is pending, then both are rewritten
        passes.append(await rekey_redis(db))
        if isinstance(db.snapshot_to, SqlDb):
            passes.append(await rekey_sql(db.snapshot_to, lock=False))
    elif isinstance(db, SqlDb):
        passes.append(await rekey_sql(db, lock=True))
    else:
        raise ValueError(f"{type(db).__name__} cannot be rekeyed")
    return RekeyReport(cipher.primary_id, tuple(passes))
