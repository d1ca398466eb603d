"""Schedules in SQL (SQLite, PostgreSQL): one table beside the store's sessions table.

The table (migration 0007) is named after the sessions table like the lease tables
(``session_schedules`` by default). A change is one transaction: the fencing check
(the session's lease row still holds the caller's token, the check a session save
makes) and an ``UPDATE``/``DELETE`` guarded by ``rev``. Polling reads the ``due_at``
index. The store shares its SqlDb's engines, pool and migrations.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from core.db.records import Lease
from core.db.sql.lease_sql import LeaseStatements
from core.db.sql.schedule_tables import build_schedules_table
from core.db.sql.store import SqlDb
from core.exceptions import LeaseLostError
from core.schedule.errors import ScheduleLimitError
from core.schedule.model import Schedule, Status
from core.schedule.store import ScheduleStore


def _values(schedule: Schedule) -> dict[str, Any]:
    return {
        "schedule_id": schedule.schedule_id,
        "session_id": schedule.session_id,
        "owner_id": schedule.owner_id,
        "kind": schedule.kind,
        "user_id": schedule.user_id,
        "input": schedule.input,
        "tz": schedule.tz,
        "cron": schedule.cron,
        "target": schedule.target_text,
        "status": schedule.status.value,
        "rev": schedule.rev,
        "attempts": schedule.attempts,
        "nominal_at": schedule.nominal_at,
        "due_at": schedule.due_at,
        "claim_token": schedule.claim_token,
        "cancel_requested": schedule.cancel_requested,
        "last_error": schedule.last_error,
        "created_at": schedule.created_at,
    }


def _schedule(row: Any) -> Schedule:
    return Schedule(
        schedule_id=row.schedule_id,
        session_id=row.session_id,
        input=row.input,
        nominal_at=row.nominal_at,
        due_at=row.due_at,
        owner_id=row.owner_id,
        kind=row.kind,
        user_id=row.user_id,
        tz=row.tz,
        cron=row.cron,
        target_text=row.target,
        status=Status(row.status),
        attempts=row.attempts,
        rev=row.rev,
        claim_token=row.claim_token,
        cancel_requested=bool(row.cancel_requested),
        last_error=row.last_error,
        created_at=row.created_at,
    )


class SqlScheduleStore(ScheduleStore):
    """The schedules of one SqliteDb or PostgresDb, in its database."""

    __slots__ = ("_db", "_leases", "_table")

    def __init__(self, db: SqlDb) -> None:
        self._db = db
        # the store's own lease statements, built from its public tables: a schedule's
        # write is fenced by the session's lease inside the same transaction
        self._leases = LeaseStatements(db.tables, db.writer.dialect.name)
        self._table = build_schedules_table(db.names)

    def __repr__(self) -> str:
        return f"SqlScheduleStore({self._db!r})"

    # the SqlDb's plumbing: its worker threads, migrations and error translation
    async def _write(self, fn: Any, *args: Any) -> Any:
        return await self._db.atransact(self._db.writer, fn, *args)

    async def _read(self, fn: Any, *args: Any) -> Any:
        return await self._db.atransact(self._db.engine, fn, *args)

    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        await self._write(self._add, schedule, max_per_session)

    def _add(self, conn: sa.Connection, schedule: Schedule, limit: int) -> None:
        t = self._table
        held = conn.execute(
            sa.select(sa.func.count()).where(t.c.session_id == schedule.session_id)
        ).scalar_one()
        if held >= limit:
            raise ScheduleLimitError(schedule.session_id, limit)
        conn.execute(sa.insert(t).values(**_values(schedule)))

    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        t = self._table
        query = sa.select(t).where(t.c.session_id == session_id, t.c.schedule_id == schedule_id)
        found: list[Schedule] = await self._read(self._select, query)
        return found[0] if found else None

    async def alist(self, session_id: str) -> list[Schedule]:
        t = self._table
        query = (
            sa.select(t)
            .where(t.c.session_id == session_id)
            .order_by(t.c.nominal_at, t.c.schedule_id)
        )
        listed: list[Schedule] = await self._read(self._select, query)
        return listed

    async def adue(self, now: float, limit: int) -> list[Schedule]:
        t = self._table
        query = sa.select(t).where(t.c.due_at <= now).order_by(t.c.due_at).limit(limit)
        due: list[Schedule] = await self._read(self._select, query)
        return due

    @staticmethod
    def _select(conn: sa.Connection, query: sa.Select[Any]) -> list[Schedule]:
        return [_schedule(row) for row in conn.execute(query)]

    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        token = lease.token if lease is not None else ""
        return bool(await self._write(self._cas, old, new, token))

    def _cas(self, conn: sa.Connection, old: Schedule, new: Schedule | None, token: str) -> bool:
        if token and not self._leases.holds(conn, old.session_id, token):
            raise LeaseLostError(old.session_id, old.rev)
        t = self._table
        where = (
            t.c.schedule_id == old.schedule_id,
            t.c.session_id == old.session_id,
            t.c.rev == old.rev,
        )
        if new is None:
            statement: sa.Executable = sa.delete(t).where(*where)
        else:
            statement = sa.update(t).where(*where).values(**_values(new))
        return bool(conn.execute(statement).rowcount == 1)

    async def adelete_for_session(self, session_id: str) -> int:
        t = self._table
        return int(
            await self._write(self._delete, sa.delete(t).where(t.c.session_id == session_id))
        )

    @staticmethod
    def _delete(conn: sa.Connection, statement: sa.Delete) -> int:
        return int(conn.execute(statement).rowcount)

    async def aall_pending(self) -> list[Schedule]:
        """Every stored schedule (to rebuild a hot index after Redis lost it)."""
        t = self._table
        everything: list[Schedule] = await self._read(self._select, sa.select(t))
        return everything
