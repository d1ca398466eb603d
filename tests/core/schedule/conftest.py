"""Schedule backends for the tests: each gives a factory of *new* store objects over the
same data, so a second call stands for another process (or the same one restarted).

``memory`` has one object only (process memory cannot be shared); the others open
new connections on every call: SQLite on one file, PostgreSQL in one schema, Redis
alone under one key prefix, and Redis in front of SQLite (the durable authority).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


class FakeClock:
    """An injected clock: time moves only when the test says so."""

    __slots__ = ("now",)

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class World:
    """Opens store objects over one backend's data; closes them all at the end."""

    name: str
    make: Callable[[], BaseDb]
    shared: bool = True  # False: every call returns the same object (memory)
    opened: list[BaseDb] = field(default_factory=list)

    def open(self) -> BaseDb:
        db = self.make()
        if db not in self.opened:
            self.opened.append(db)
        return db


BACKENDS = ("memory", "sqlite", "postgres", "redis", "redis+sqlite")
SHARED = ("sqlite", "postgres", "redis", "redis+sqlite")


def _world(name: str, request: pytest.FixtureRequest) -> World:
    if name == "memory":
        only = InMemoryDb()
        return World(name, lambda: only, shared=False)
    if name == "postgres":
        url, schema = request.getfixturevalue("postgres_schema")
        return World(name, lambda: PostgresDb(db_url=url, schema=schema))
    tmp_path: Path = request.getfixturevalue("tmp_path")
    if name == "sqlite":
        return World(name, lambda: SqliteDb(db_file=tmp_path / "state.db"))
    redis_url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("key_prefix")
    if name == "redis":
        return World(name, lambda: RedisDb(db_url=redis_url, key_prefix=prefix))
    return World(
        name,
        lambda: RedisDb(
            db_url=redis_url,
            key_prefix=prefix,
            snapshot_to=SqliteDb(db_file=tmp_path / "durable.db"),
            run_snapshotter=False,
        ),
    )


async def _close(world: World) -> None:
    for db in world.opened:
        durable = getattr(db, "snapshot_to", None)
        await db.aclose()
        if durable is not None:
            await durable.aclose()


@pytest.fixture(params=BACKENDS)
def any_backend(request: pytest.FixtureRequest) -> World:
    """Every backend, including process memory (its service fixtures set up first:
    async fixtures cannot be resolved from inside the running loop)."""
    return _world(request.param, request)


@pytest.fixture(params=SHARED)
def shared_backend(request: pytest.FixtureRequest) -> World:
    """Backends that several processes share."""
    return _world(request.param, request)


@pytest.fixture
async def world(any_backend: World) -> AsyncIterator[World]:
    """Every backend; its stores are closed after the test."""
    yield any_backend
    await _close(any_backend)


@pytest.fixture
async def shared_world(shared_backend: World) -> AsyncIterator[World]:
    """A shared backend; its stores are closed after the test."""
    yield shared_backend
    await _close(shared_backend)


@pytest.fixture
def clock() -> FakeClock:
    """The injected clock, at a fixed instant."""
    return FakeClock()
