"""Erasure with encryption at rest: the values of stored versions are sealed, so they
are opened, scrubbed and sealed again; read through the API, no version names the user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.erasure import erase_user
from tests.db.erasure_fixtures import ANA, BOB, SHARED, fill, traces

CIPHER = StateCipher([Fernet.generate_key().decode()])


@pytest.fixture(params=["redis+postgres", "sqlite"])
def sealed_kind(request: pytest.FixtureRequest) -> str:
    """Which encrypted deployment; its services' fixtures set up first (they are async)."""
    if request.param != "sqlite":
        request.getfixturevalue("redis_url")
        request.getfixturevalue("postgres_schema")
    return str(request.param)


@pytest.fixture
async def sealed(
    sealed_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseDb]:
    """A deployment that stores state values, data and history sealed."""
    if sealed_kind == "sqlite":
        db: BaseDb = SqliteDb(db_file=tmp_path / "state.db", cipher=CIPHER)
    else:
        url, schema = request.getfixturevalue("postgres_schema")
        db = RedisDb(
            db_url=request.getfixturevalue("redis_url"),
            key_prefix=request.getfixturevalue("key_prefix"),
            snapshot_to=PostgresDb(db_url=url, schema=schema, cipher=CIPHER),
            run_snapshotter=False,
            cipher=CIPHER,
        )
    try:
        yield db
    finally:
        await db.aclose()
        if isinstance(db, RedisDb) and db.snapshot_to is not None:
            await db.snapshot_to.aclose()


async def test_sealed_versions_no_longer_name_the_user(sealed: BaseDb) -> None:
    """Every stored version of the shared thread, opened, names Bob and not Ana."""
    await fill(sealed)
    history = await sealed.ahistory(SHARED, limit=50)
    assert any(ANA in repr(e.state) for e in history)

    report = await erase_user(sealed, ANA, pseudonym="erased-user-x")

    assert report.complete
    history = await sealed.ahistory(SHARED, limit=50)
    assert history and all(ANA not in repr(e.state) for e in history)
    assert any(BOB in repr(e.state) for e in history)
    assert all(e.user_id != ANA for e in history)
    if isinstance(sealed, RedisDb) and sealed.snapshot_to is not None:
        durable = await sealed.snapshot_to.ahistory(SHARED, limit=50)
        assert durable and all(ANA not in repr(e.state) for e in durable)
    assert await traces(sealed, ANA) == []
