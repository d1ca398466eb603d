"""The storage conformance suite, run against RedisDb on a real local Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.db.base import BaseDb
from core.db.redis import RedisDb
from tests.db.test_conformance import *  # noqa: F403  (the suite's tests, collected here)

pytestmark = pytest.mark.slow


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[BaseDb]:
    """A RedisDb on the cluster under the test's own key prefix (no durable store)."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    try:
        yield db
    finally:
        await db.aclose()
