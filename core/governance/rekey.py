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
  data, undo records, the conflict copy), then the durable store (sessions and history tables). A
  snapshot pass that read Redis before it was rewritten and commits after this pass
  leaves nothing under the old key either: the durable store seals again, on commit,
  what a snapshot holds under an older key (``StateCipher.current_record``).
* A value sealed with a key that is no longer configured is not touched: it is reported
  under ``failed`` with the key id, and the run goes on with the other sessions.
* Idempotent: a second run finds nothing to do (``rewritten == 0``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.db.base import BaseDb
from core.db.maintenance import RekeyCounts

__all__ = ["RekeyCounts", "RekeyReport", "rekey"]


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
    passes = await db.arekey()  # ValueError for a store that cannot be rekeyed
    cipher = getattr(db, "cipher", None)
    assert cipher is not None  # a store that rekeyed seals with it
    return RekeyReport(cipher.primary_id, tuple(passes))
