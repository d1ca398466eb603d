"""Sign-out that holds: a per-admin generation counter in the deployment's store.

The signed cookie alone cannot be taken back: a copy stays valid for its lifetime. So
sign-in writes the admin's current generation into the cookie, every request compares
it with the store's, and sign-out (or an admin id found removed from
``STATEBOT_ADMIN_IDS``) raises it by one, which ends every cookie of that admin at once,
in every process serving the same store.

Where the counter lives, owned by the console and reached through the store's public
accessors (``core/db`` knows nothing of it):

- Redis when the deployment uses it: ``{key_prefix}web:generation:<admin id>`` (never
  expires), and also the durable store behind Redis (see :class:`Revocations`);
- the durable store (SQLite, PostgreSQL): a table beside the sessions table,
  ``<sessions>_web_generations`` (created on first use);
- an in-process store: a counter held beside that store object.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateTable

from core.db.base import BaseDb
from core.db.redis.store import RedisDb
from core.db.sql.store import SqlDb
from core.exceptions import StoreError


class Generations(Protocol):
    """The admins' sign-in generations in one store."""

    async def current(self, admin_id: str) -> int:
        """The admin's generation now (0 before the first sign-out)."""
        ...

    async def raise_to(self, admin_id: str, generation: int) -> None:
        """Make the admin's generation at least ``generation`` (never lower it)."""
        ...


#: SET the key to ARGV[1] unless it already holds as much (atomic, one key)
_RAISE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 0
"""


class RedisGenerations:
    """The generations as Redis keys beside the store's sessions (same prefix)."""

    __slots__ = ("_db",)

    def __init__(self, db: RedisDb) -> None:
        self._db = db

    def _key(self, admin_id: str) -> str:
        return f"{self._db.key_prefix}web:generation:{admin_id}"

    async def current(self, admin_id: str) -> int:
        with self._db.clients.unavailable("check the console session"):
            value = await self._db.clients.get().get(self._key(admin_id))
        return int(value) if value is not None else 0

    async def raise_to(self, admin_id: str, generation: int) -> None:
        with self._db.clients.unavailable("sign out of the console"):
            await self._db.clients.get().eval(_RAISE, 1, self._key(admin_id), str(generation))


class SqlGenerations:
    """The generations as rows of a table beside the store's sessions table."""

    __slots__ = ("_created", "_db", "_table")

    def __init__(self, db: SqlDb) -> None:
        self._db = db
        self._table = sa.Table(
            f"{db.names.sessions}_web_generations",
            sa.MetaData(schema=db.names.schema),
            sa.Column("admin_id", sa.Text, primary_key=True),
            sa.Column("generation", sa.BigInteger, nullable=False),
        )
        self._created = False

    async def _ensure_table(self) -> None:
        # CREATE TABLE IF NOT EXISTS: harmless when another process made it first; on
        # PostgreSQL two creating it in the same instant can still collide (IntegrityError
        # on its type), and then it exists
        if not self._created:
            with contextlib.suppress(sa.exc.IntegrityError):
                await self._db.atransact(self._db.writer, self._create)
            self._created = True

    def _create(self, conn: sa.Connection) -> None:
        conn.execute(CreateTable(self._table, if_not_exists=True))

    async def current(self, admin_id: str) -> int:
        await self._ensure_table()
        found: int = await self._db.atransact(self._db.engine, self._select, admin_id)
        return found

    def _select(self, conn: sa.Connection, admin_id: str) -> int:
        t = self._table
        query = sa.select(t.c.generation).where(t.c.admin_id == admin_id)
        value = conn.execute(query).scalar_one_or_none()
        return int(value) if value is not None else 0

    async def raise_to(self, admin_id: str, generation: int) -> None:
        await self._ensure_table()
        await self._db.atransact(self._db.writer, self._upsert, admin_id, generation)

    def _upsert(self, conn: sa.Connection, admin_id: str, generation: int) -> None:
        t = self._table
        insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert
        statement = insert(t).values(admin_id=admin_id, generation=generation)
        higher = sa.case(
            (t.c.generation < statement.excluded.generation, statement.excluded.generation),
            else_=t.c.generation,
        )
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[t.c.admin_id], set_={"generation": higher}
            )
        )


class LocalGenerations:
    """The generations of an in-process store: shared by every console over that store."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    async def current(self, admin_id: str) -> int:
        return self._counts.get(admin_id, 0)

    async def raise_to(self, admin_id: str, generation: int) -> None:
        self._counts[admin_id] = max(self._counts.get(admin_id, 0), generation)


class Revocations:
    """Every store of the deployment that keeps generations (Redis and the durable store
    behind it, or just one).

    Sign-out writes the new generation to each that answers, and fails unless all took
    it; a check reads those that answer and takes the highest. So while either store is
    down the console still opens (the operations page says which one), and no store that
    answers can hold a generation older than the last sign-out that succeeded. (A
    sign-out only one store took holds while that store answers.) Each check reads every
    store: one Redis GET and one indexed SQL row per request, fine for an admin console.
    """

    __slots__ = ("_stores",)

    def __init__(self, stores: list[Generations]) -> None:
        self._stores = stores

    async def current(self, admin_id: str) -> int:
        """The admin's generation: the highest any reachable store holds."""
        found: list[int] = []
        failure: StoreError | None = None
        for store in self._stores:
            try:
                found.append(await store.current(admin_id))
            except StoreError as exc:
                failure = exc
        if not found and failure is not None:
            raise failure
        return max(found, default=0)

    async def revoke(self, admin_id: str) -> int:
        """End every session of the admin; the new generation. StoreError when a store
        did not take it (the stores that answered hold it; sign in and out again to
        record it in all)."""
        generation = await self.current(admin_id) + 1
        failure: StoreError | None = None
        for store in self._stores:
            try:  # every store that answers takes it, even when another does not
                await store.raise_to(admin_id, generation)
            except StoreError as exc:
                failure = exc
        if failure is not None:
            raise failure
        return generation


#: the counters of in-process stores, kept as long as their store
_LOCAL: weakref.WeakKeyDictionary[Any, LocalGenerations] = weakref.WeakKeyDictionary()


@functools.singledispatch
def _generations_of(db: BaseDb) -> Generations:
    """An in-process store's counter, kept beside it (the fallback of every store class)."""
    return _LOCAL.setdefault(db, LocalGenerations())


@_generations_of.register
def _redis_generations(db: RedisDb) -> Generations:
    return RedisGenerations(db)


@_generations_of.register
def _sql_generations(db: SqlDb) -> Generations:
    if db.private:  # a private in-memory database holds no tables of other concerns
        return _LOCAL.setdefault(db, LocalGenerations())
    return SqlGenerations(db)


def revocations_for(db: BaseDb) -> Revocations:
    """Where ``db``'s deployment keeps the generations: a hot store and the durable
    store it snapshots to, or the one store there is."""
    stores = [_generations_of(db)]
    if db.durable is not None:
        stores.append(_generations_of(db.durable))
    return Revocations(stores)
