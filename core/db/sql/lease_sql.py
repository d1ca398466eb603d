"""The statements of the SQL run lease, each run inside the caller's transaction.

Time is the database's clock (``clock_timestamp()`` on PostgreSQL, ``julianday('now')``
on SQLite) in every statement, so the clocks of the processes never matter. Taking a
free lease is one guarded upsert: it only replaces a row whose lease has expired, and
PostgreSQL re-checks that condition on the newest row version after waiting for a
concurrent writer, so two takers can never both win (SQLite serializes writers with
``BEGIN IMMEDIATE`` anyway). No advisory lock is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from core.db.sql.tables import Tables


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try: held; or queued as ``seq`` with ``ahead`` live tickets before it; or
    refused because ``max_waiters`` tickets already wait (``busy``)."""

    held: bool
    ahead: int = 0
    seq: int = 0
    busy: bool = False


def db_now(dialect: str) -> sa.ColumnElement[float]:
    """The database's clock as Unix seconds (a float)."""
    if dialect == "postgresql":
        return sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Double)
    return (sa.func.julianday("now", type_=sa.Double) - 2440587.5) * 86400.0


class LeaseStatements:
    """Acquire, renew, release and fence against the lease and ticket tables.

    Statements are built once, with bound parameters, so a lease operation costs only
    the round trips (building a SQLAlchemy statement costs more than running it).
    """

    __slots__ = (
        "_ahead",
        "_beat",
        "_cancel_lease",
        "_cancel_ticket",
        "_count",
        "_enqueue",
        "_heartbeat",
        "_held",
        "_held_all",
        "_holds",
        "_live",
        "_look",
        "_next",
        "_peek",
        "_prune",
        "_release",
        "_renew",
        "_take",
        "_taken",
    )

    def __init__(self, tables: Tables, dialect: str) -> None:
        lease, waiters, now = tables.leases, tables.lease_waiters, db_now(dialect)
        insert: Any = (postgresql if dialect == "postgresql" else sqlite).insert
        session_id, ticket, token = (
            sa.bindparam("sid", type_=sa.Text),
            sa.bindparam("ticket_id", type_=sa.Text),
            sa.bindparam("held_by", type_=sa.Text),
        )
        ttl, stale = sa.bindparam("ttl", type_=sa.Double), sa.bindparam("stale", type_=sa.Double)
        live_lease = sa.and_(lease.c.session_id == session_id, lease.c.expires_at > now)
        live_ticket = sa.and_(waiters.c.session_id == session_id, waiters.c.alive_until >= now)
        holder = sa.select(lease.c.token).where(live_lease).scalar_subquery()
        head = (
            sa.select(waiters.c.ticket)
            .where(live_ticket)
            .order_by(waiters.c.seq)
            .limit(1)
            .scalar_subquery()
        )
        mine = sa.select(waiters.c.seq).where(waiters.c.ticket == ticket).scalar_subquery()
        self._look = sa.select(holder.label("holder"), head.label("head"), mine.label("mine"))
        self._next = sa.select(head)
        take = insert(lease).values(session_id=session_id, token=ticket, expires_at=now + ttl)
        self._take = take.on_conflict_do_update(
            index_elements=[lease.c.session_id],
            set_={"token": take.excluded.token, "expires_at": take.excluded.expires_at},
            where=lease.c.expires_at <= now,  # only an expired lease is replaced
        ).returning(lease.c.token)
        # the taker waited: drop its ticket and any dead ones of the session
        self._taken = sa.delete(waiters).where(
            sa.or_(
                waiters.c.ticket == ticket,
                sa.and_(waiters.c.session_id == session_id, waiters.c.alive_until < now),
            )
        )
        self._enqueue = (
            sa.insert(waiters)
            .values(session_id=session_id, ticket=ticket, alive_until=now + stale)
            .returning(waiters.c.seq)
        )
        self._heartbeat = (
            sa.update(waiters).where(waiters.c.ticket == ticket).values(alive_until=now + stale)
        )
        self._beat = (
            sa.update(waiters)
            .where(waiters.c.ticket.in_(sa.bindparam("tickets", expanding=True)))
            .values(alive_until=now + stale)
        )
        self._live = sa.select(sa.func.count()).where(live_ticket)
        self._prune = sa.delete(waiters).where(
            waiters.c.session_id == session_id, waiters.c.alive_until < now
        )
        ahead = sa.select(sa.func.count()).where(live_ticket, waiters.c.seq < mine)
        self._ahead = ahead
        self._peek = sa.select(
            holder.label("holder"), mine.label("mine"), ahead.scalar_subquery().label("ahead")
        )
        held_by_token = sa.and_(live_lease, lease.c.token == token)
        self._renew = sa.update(lease).where(held_by_token).values(expires_at=now + ttl)
        self._release = sa.delete(lease).where(
            lease.c.session_id == session_id, lease.c.token == token
        )
        self._cancel_ticket = sa.delete(waiters).where(waiters.c.ticket == ticket)
        self._cancel_lease = sa.delete(lease).where(
            lease.c.session_id == session_id, lease.c.token == ticket
        )
        # PostgreSQL locks the lease row until the save commits: it cannot change hands
        self._holds = sa.select(lease.c.token).where(held_by_token).with_for_update()
        self._count = sa.select(sa.func.count()).where(waiters.c.session_id == session_id)
        self._held = sa.select(lease.c.token).where(live_lease)
        self._held_all = sa.select(lease.c.session_id, lease.c.token).where(
            lease.c.expires_at > now
        )

    def try_acquire(
        self,
        conn: sa.Connection,
        session_id: str,
        ticket: str,
        ttl: float,
        stale: float,
        max_waiters: int | None = None,
    ) -> Attempt:
        """Take the lease when it is free and ``ticket`` is first in line, else queue it
        (unless ``max_waiters`` live tickets already wait: then ``busy``)."""
        ids = {"sid": session_id, "ticket_id": ticket}
        row = conn.execute(self._look, ids).one()
        if (
            row.holder is None
            and row.head in (None, ticket)
            and conn.execute(self._take, {**ids, "ttl": ttl}).first() is not None
        ):
            if row.mine is not None:
                conn.execute(self._taken, ids)
            return Attempt(held=True)
        seq = row.mine
        if seq is None:
            full = max_waiters is not None and (
                conn.execute(self._live, ids).scalar_one() >= max_waiters
            )
            if full:
                return Attempt(held=False, busy=True)
            seq = conn.execute(self._enqueue, {**ids, "stale": stale}).scalar_one()
        else:  # the heartbeat: a waiter that stops polling is pruned after ``stale``
            conn.execute(self._heartbeat, {**ids, "stale": stale})
        conn.execute(self._prune, ids)
        ahead = int(conn.execute(self._ahead, ids).scalar_one())
        return Attempt(held=False, ahead=ahead, seq=int(seq))

    def beat(self, conn: sa.Connection, tickets: list[str], stale: float) -> None:
        """Keep many waiting tickets alive with one statement (one process's heartbeat)."""
        conn.execute(self._beat, {"tickets": tickets, "stale": stale})

    def peek(self, conn: sa.Connection, session_id: str, ticket: str) -> tuple[bool, int | None]:
        """Read only: (is the lease free, live tickets ahead of ours or None if not queued)."""
        row = conn.execute(self._peek, {"sid": session_id, "ticket_id": ticket}).one()
        return row.holder is None, None if row.mine is None else int(row.ahead)

    def renew(self, conn: sa.Connection, session_id: str, token: str, ttl: float) -> bool:
        """Extend a lease still held by ``token``; False once it expired or was released."""
        params = {"sid": session_id, "held_by": token, "ttl": ttl}
        return conn.execute(self._renew, params).rowcount == 1

    def release(
        self, conn: sa.Connection, session_id: str, token: str, *, want_head: bool
    ) -> tuple[bool, str | None]:
        """Free the lease held by ``token``; with ``want_head``, also the next live ticket."""
        params = {"sid": session_id, "held_by": token}
        released = conn.execute(self._release, params).rowcount == 1
        if not want_head:
            return released, None
        return released, conn.execute(self._next, params).scalar()

    def cancel(self, conn: sa.Connection, session_id: str, ticket: str) -> None:
        """Forget a ticket, and the lease if it was granted to a caller that gave up."""
        ids = {"sid": session_id, "ticket_id": ticket}
        conn.execute(self._cancel_ticket, ids)
        conn.execute(self._cancel_lease, ids)

    def holds(self, conn: sa.Connection, session_id: str, token: str) -> bool:
        """Fencing, inside a save's transaction: is ``token`` the live holder?"""
        params = {"sid": session_id, "held_by": token}
        return conn.execute(self._holds, params).first() is not None

    def held(self, conn: sa.Connection, session_id: str) -> bool:
        """Read only: is the session's lease held (and not expired) now?"""
        return conn.execute(self._held, {"sid": session_id}).first() is not None

    def held_all(self, conn: sa.Connection) -> dict[str, str]:
        """Read only: every live lease, session id -> holder token."""
        return {row.session_id: row.token for row in conn.execute(self._held_all)}

    def waiting(self, conn: sa.Connection, session_id: str) -> int:
        """Tickets queued for a session (dead ones until they are pruned)."""
        return int(conn.execute(self._count, {"sid": session_id}).scalar_one())
