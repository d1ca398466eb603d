"""The ``store`` fixture: every conformance test runs once per backend.

A backend is an async factory taking the pytest ``request`` (so it can reach the
shared ``postgres_schema`` / ``redis_url`` / ``key_prefix`` fixtures through
``request.getfixturevalue``) plus the names of fixtures to resolve before it runs:
async fixtures cannot be set up from inside the running event loop, so they are
resolved up front by the synchronous ``backend`` fixture. Adding a backend is one
entry in ``STORE_FACTORIES``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb
from tests.db.test_redis_store import redis_store


@dataclass(frozen=True)
class Backend:
    """How to build one store for one test."""

    make: Callable[[pytest.FixtureRequest], Awaitable[BaseDb]]
    fixtures: tuple[str, ...] = ()


async def memory_store(request: pytest.FixtureRequest) -> BaseDb:
    return InMemoryDb()


async def sqlite_store(request: pytest.FixtureRequest) -> BaseDb:
    tmp_path: Path = request.getfixturevalue("tmp_path")
    return SqliteDb(db_file=tmp_path / "store" / "state.db")


async def postgres_store(request: pytest.FixtureRequest) -> BaseDb:
    url, schema = request.getfixturevalue("postgres_schema")
    return PostgresDb(db_url=url, schema=schema)


STORE_FACTORIES: dict[str, Backend] = {
    "memory": Backend(memory_store),
    "sqlite": Backend(sqlite_store, ("tmp_path",)),
    "postgres": Backend(postgres_store, ("postgres_schema",)),
    "redis": Backend(redis_store, ("redis_url",)),
}


@pytest.fixture(params=list(STORE_FACTORIES))
def backend(request: pytest.FixtureRequest) -> Backend:
    """One backend per parameter, its service fixtures already set up."""
    chosen = STORE_FACTORIES[request.param]
    for name in chosen.fixtures:
        request.getfixturevalue(name)
    return chosen


@pytest.fixture
async def store(backend: Backend, request: pytest.FixtureRequest) -> AsyncIterator[BaseDb]:
    """A fresh, empty store of the parametrized backend."""
    db = await backend.make(request)
    try:
        yield db
    finally:
        await db.aclose()


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    """A SqliteDb on a fresh file."""
    db = SqliteDb(db_file=tmp_path / "state.db")
    try:
        yield db
    finally:
        await db.aclose()
