"""Stores for the typed-state tests: in memory, SQLite and Redis (over SQLite), all real."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


@pytest.fixture(name="services", params=["memory", "sqlite", "redis"])
def services_fixture(request: pytest.FixtureRequest) -> tuple[str, dict[str, object]]:
    """The backend and the service fixtures it needs, set up outside the event loop."""
    needs = {"redis": ["redis_url", "key_prefix"]}
    return request.param, {n: request.getfixturevalue(n) for n in needs.get(request.param, [])}


@pytest.fixture(name="db")
async def db_fixture(
    services: tuple[str, dict[str, object]], tmp_path: Path
) -> AsyncIterator[BaseDb]:
    """An empty store of each kind the checks must protect."""
    kind, fixtures = services
    store: BaseDb
    if kind == "memory":
        store = InMemoryDb()
    elif kind == "sqlite":
        store = SqliteDb(db_file=tmp_path / "s.db")
    else:
        store = RedisDb(
            db_url=str(fixtures["redis_url"]),
            key_prefix=str(fixtures["key_prefix"]),
            snapshot_to=SqliteDb(db_file=tmp_path / "durable.db"),
            run_snapshotter=False,
        )
    yield store
    await store.aclose()
