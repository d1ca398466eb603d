"""Batched snapshots under faults: refused sessions are parked, a dying database loses nothing.

The database "dies" through a TCP proxy in front of the real PostgreSQL that cuts every
connection at a chosen point (mid-COPY, or right after COMMIT left the client) and
then refuses new ones, as a crashed server would; restarting the proxy brings it back.
The proxy can also *blackhole* the database: connections stay open and nothing
answers, as when a network drops packets (``blackholed``).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Sequence

import pytest
import sqlalchemy as sa

from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.db.postgres import PostgresDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sql.snapshots import Outcome
from core.exceptions import StoreUnavailableError, VersionConflictError
from tests.db.test_snapshot_batch import write

LONG_ID = "slack:T1:C1:" + secrets.token_hex(1500)
NOTES = "a realistic note of some length, repeated to about a kilobyte; " * 15


class BatchedPostgresDb(PostgresDb):
    """PostgresDb taking snapshot batches through the COPY + merge path."""

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[Outcome]:
        return await write(self, records)


class PostgresProxy:
    """A TCP proxy to the real PostgreSQL that can die mid-transaction and come back."""

    def __init__(self) -> None:
        self.port = 0
        self.cut_after_bytes: int | None = None  # client bytes, counted once armed
        self.cut_at_commit = False
        #: drop every byte both ways, new connections too (no error, no answer)
        self.blackholed = False
        self._sent = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        """Accept connections (again, on the same port after a death)."""
        self._sent = 0
        self.cut_after_bytes, self.cut_at_commit = None, False
        self.blackholed = False
        self._server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    def die(self) -> None:
        """Stop accepting and drop every client connection at once."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for link in self._links:
            link.transport.abort()
        self._links.clear()

    async def _link(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self._links.add(client_w)
        if self.blackholed:  # the connection opens, then nothing ever answers
            while await client_r.read(65536):
                pass
            self._links.discard(client_w)
            return
        server_r, server_w = await asyncio.open_connection("127.0.0.1", 5432)

        async def upstream() -> None:
            while data := await client_r.read(65536):
                if self.blackholed:
                    continue
                self._sent += len(data)
                if self.cut_after_bytes is not None and self._sent >= self.cut_after_bytes:
                    self.die()  # mid-statement: the server sees the client vanish
                    break
                server_w.write(data)
                await server_w.drain()
                # a Query message holding exactly COMMIT (the wire protocol's framing)
                if self.cut_at_commit and b"Q\x00\x00\x00\x0bCOMMIT\x00" in data:
                    self.die()  # the COMMIT reached the server; its answer never returns
                    break
            server_w.close()  # a clean close: what was forwarded is processed

        async def downstream() -> None:
            while data := await server_r.read(65536):
                if self.blackholed:
                    continue
                client_w.write(data)
                await client_w.drain()
            client_w.close()

        try:
            await asyncio.gather(upstream(), downstream())
        except (ConnectionError, OSError):
            pass
        finally:
            self._links.discard(client_w)
            server_w.close()


@pytest.fixture
async def proxy() -> AsyncIterator[PostgresProxy]:
    """A running proxy to the local PostgreSQL."""
    server = PostgresProxy()
    await server.start()
    yield server
    server.die()


def through(url: str, proxy: PostgresProxy) -> str:
    """The PostgreSQL URL, reaching the server through the proxy."""
    return sa.make_url(url).set(port=proxy.port).render_as_string(hide_password=False)


async def fill(hot: RedisDb, n: int) -> list[str]:
    """N dirty sessions of about 1 KB each."""
    ids = [f"slack:T1:C1:{i}" for i in range(n)]
    for i, sid in enumerate(ids):
        await hot.asave(sid, expected_version=0, changed=texts({"n": i, "notes": NOTES}))
    return ids


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_conflict_and_a_bad_id_among_good_sessions_are_parked_after_retries(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str]
) -> None:
    """One batch: every good session is written at once; the two bad ones are retried
    with backoff and quarantined at max_attempts, the durable copy kept untouched."""
    url, schema = postgres_schema
    durable = BatchedPostgresDb(db_url=url, schema=schema)
    roomy = StateLimits(max_id_bytes=10_000)  # Redis accepts the id PostgreSQL cannot hold
    hot = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        limits=roomy,
        run_snapshotter=False,
    )
    try:
        good = await fill(hot, 40)
        await hot.asave(LONG_ID, expected_version=0, changed=texts({"n": -1}))
        await hot.asave("clash", expected_version=0, changed=texts({"n": "hot"}))
        # the durable store already holds version 1 of "clash" from another save
        other = SessionRecord.from_state("clash", {"n": "durable"}, 1, save_id="other-save")
        assert await durable.aupsert_snapshot(other)
        clock = Clock()
        snapshotter = Snapshotter(
            hot.dirty, durable, batch_size=100, max_attempts=3, backoff=5.0, clock=clock
        )
        assert await snapshotter.drain_once() == 40  # one pass: every good session
        assert snapshotter.written == 40
        stored = await durable.aload_many(good)
        assert sorted(r.state["n"] for r in stored.values()) == list(range(40))
        assert await hot.dirty.count() == 2
        assert await snapshotter.drain_once() == 0  # both backing off: not even tried
        for _ in range(2):
            clock.now += 60.0
            await snapshotter.drain_once()
        assert await hot.dirty.count() == 0 and snapshotter.quarantined == 2
        status = await hot.asnapshot_status()
        assert status is not None
        reasons = {e.session_id: e.reason for e in status.quarantined}
        assert set(reasons) == {"clash", LONG_ID}
        assert reasons["clash"].startswith(VersionConflictError.__name__)
        assert reasons[LONG_ID].startswith("InvalidIdError")
        kept = await durable.aload("clash")
        assert kept is not None and kept.state == {"n": "durable"} and kept.save_id == "other-save"
    finally:
        await hot.aclose()
        await durable.aclose()


async def test_database_dying_mid_batch_loses_nothing(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str], proxy: PostgresProxy
) -> None:
    """PostgreSQL gone halfway through the batch's COPY: the pass stops, nothing of the
    batch is in the database, every session stays dirty; once it is back, all arrive."""
    url, schema = postgres_schema
    durable = BatchedPostgresDb(db_url=through(url, proxy), schema=schema, connect_timeout=2)
    direct = PostgresDb(db_url=url, schema=schema)
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    try:
        ids = await fill(hot, 300)
        await durable.aping()  # connected and migrated; now cut 100 KB into the batch
        proxy.cut_after_bytes = 100_000
        snapshotter = Snapshotter(hot.dirty, durable, batch_size=300, max_attempts=1)
        with pytest.raises(StoreUnavailableError):
            await snapshotter.drain_once()
        assert await direct.aload_many(ids) == {}  # the batch was one transaction
        assert await hot.dirty.count() == 300
        assert snapshotter.quarantined == 0 and await hot.dirty.quarantined() == []
        await proxy.start()
        assert await snapshotter.drain() == 300
        stored = await direct.aload_many(ids)
        assert sorted(r.state["n"] for r in stored.values()) == list(range(300))
        assert await hot.dirty.count() == 0
    finally:
        await hot.aclose()
        await durable.aclose()
        await direct.aclose()


async def test_database_dying_at_commit_is_retried_without_duplicates(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str], proxy: PostgresProxy
) -> None:
    """The COMMIT reached the database but its answer was lost: the sessions stay dirty,
    and the next pass finds them written (no-ops, one history row each) and retires them."""
    url, schema = postgres_schema
    durable = BatchedPostgresDb(db_url=through(url, proxy), schema=schema, connect_timeout=2)
    direct = PostgresDb(db_url=url, schema=schema)
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    try:
        ids = await fill(hot, 50)
        await durable.aping()
        proxy.cut_at_commit = True
        snapshotter = Snapshotter(hot.dirty, durable, batch_size=50, max_attempts=1)
        with pytest.raises(StoreUnavailableError):
            await snapshotter.drain_once()
        assert await hot.dirty.count() == 50  # not retired: the outcome was unknown
        assert len(await direct.aload_many(ids)) == 50  # (it had committed)
        await proxy.start()
        assert await snapshotter.drain() == 50
        assert snapshotter.written == 0  # all no-ops: already there
        assert await hot.dirty.count() == 0
        for sid in ids[:5]:
            assert [e.version for e in await direct.ahistory(sid)] == [1]
    finally:
        await hot.aclose()
        await durable.aclose()
        await direct.aclose()


class BatchBug(InMemoryDb):
    """A durable store whose batch write fails for a reason that is not an outage."""

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[Outcome]:
        raise RuntimeError("batch path broken")


async def test_a_failing_batch_call_falls_back_to_one_session_at_a_time(
    redis_url: str, key_prefix: str
) -> None:
    """The batch call raising while the store answers: each session is written alone."""
    durable = BatchBug()
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    try:
        ids = [f"s{n}" for n in range(5)]
        for n, sid in enumerate(ids):
            await hot.asave(sid, expected_version=0, changed=texts({"n": n}))
        snapshotter = Snapshotter(hot.dirty, durable)
        assert await snapshotter.drain() == 5 and snapshotter.written == 5
        assert set(await durable.aload_many(ids)) == set(ids)
    finally:
        await hot.aclose()
