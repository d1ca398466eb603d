"""The storage contract again, on stores that seal state at rest (SQLite, PostgreSQL, Redis).

Every test of ``test_conformance.py`` is collected here a second time, with this
module's ``backend`` fixture: the same backends, each given a key ring. A store that
encrypts must behave exactly like one that does not, seen through its API.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from tests.db.conftest import Backend
from tests.db.test_conformance import *  # noqa: F403 - the contract, collected again here
from tests.db.test_data_conformance import *  # noqa: F403 - and the data's, sealed
from tests.db.test_encryption import K1, K2

CIPHER = StateCipher([K2, K1])


async def sqlite_store(request: pytest.FixtureRequest) -> BaseDb:
    tmp_path: Path = request.getfixturevalue("tmp_path")
    return SqliteDb(db_file=tmp_path / "store" / "state.db", cipher=CIPHER)


async def postgres_store(request: pytest.FixtureRequest) -> BaseDb:
    url, schema = request.getfixturevalue("postgres_schema")
    return PostgresDb(db_url=url, schema=schema, cipher=CIPHER)


async def redis_store(request: pytest.FixtureRequest) -> BaseDb:
    return RedisDb(
        db_url=request.getfixturevalue("redis_url"),
        key_prefix=request.getfixturevalue("key_prefix"),
        cipher=CIPHER,
    )


async def redis_sqlite_store(request: pytest.FixtureRequest) -> BaseDb:
    tmp_path: Path = request.getfixturevalue("tmp_path")
    return RedisDb(
        db_url=request.getfixturevalue("redis_url"),
        key_prefix=request.getfixturevalue("key_prefix"),
        snapshot_to=SqliteDb(db_file=tmp_path / "durable.db", cipher=CIPHER),
        cipher=CIPHER,
    )


ENCRYPTED: dict[str, Backend] = {
    "sqlite-sealed": Backend(sqlite_store, ("tmp_path",)),
    "postgres-sealed": Backend(postgres_store, ("postgres_schema",)),
    "redis-sealed": Backend(redis_store, ("redis_url",)),
    "redis+sqlite-sealed": Backend(redis_sqlite_store, ("redis_url", "tmp_path")),
}


@pytest.fixture(params=list(ENCRYPTED))
def backend(request: pytest.FixtureRequest) -> Backend:
    """One encrypting backend per parameter, its service fixtures already set up."""
    chosen = ENCRYPTED[request.param]
    for name in chosen.fixtures:
        request.getfixturevalue(name)
    return chosen
