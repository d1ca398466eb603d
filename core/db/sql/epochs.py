"""Which Redis incarnation a SQL store answers to, per session (migration 0010).

Redis can lose a session (restarted empty, flushed, failed over) while a snapshot pass
holds a copy it read before. The new incarnation reads the session back from here and
continues from the durable version; if the slow pass then committed its copy, one
version number would name two contents (ARCHITECTURE invariant 1). So the read-back is
a *claim* (:func:`claim`): in the transaction that reads the row, the row's ``epoch``
becomes the reading incarnation's run id, and from then on a snapshot read from another
incarnation is refused (:func:`refusal`: StaleSnapshotError, nothing written).

The claim takes the row lock before it reads: a pass committing at the same moment is
either seen by the read (it committed first: the new incarnation continues from it) or
refused (it comes after). A row never claimed ("" : written before the claims existed,
or by a store without Redis) and a snapshot that names no incarnation are guarded by
the version alone, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.db.records import SessionRecord
from core.db.sql.rows import read_record
from core.exceptions import StaleSnapshotError

if TYPE_CHECKING:
    from core.db.sql.store import SqlDb

__all__ = ["claim", "refusal"]


def refusal(record: SessionRecord, claimed: str) -> StaleSnapshotError | None:
    """The refusal of ``record`` by a row claimed by incarnation ``claimed``, or None."""
    if claimed and record.epoch and claimed != record.epoch:
        return StaleSnapshotError(record.session_id, record.version, record.epoch, claimed)
    return None


def claim(db: SqlDb, session_id: str, epoch: str) -> SessionRecord | None:
    """Mark the session as answering to ``epoch`` and read it, in one transaction."""
    if "\x00" in session_id:  # never stored (check_ids); PostgreSQL cannot compare it
        return None
    s = db.tables.sessions
    with db.writer.begin() as conn:
        if epoch:
            conn.execute(
                sa.update(s)
                .where(s.c.session_id == session_id, s.c.epoch != epoch)
                .values(epoch=epoch)
            )
        row = conn.execute(sa.select(s).where(s.c.session_id == session_id)).first()
    return None if row is None else read_record(row, db.cipher)
