"""Redis memory settings: an unsafe eviction policy is reported, a full Redis says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.redis.eviction import eviction_problem
from core.exceptions import StoreFullError
from tests.db.crash.conftest import RedisServer


@pytest.mark.parametrize(
    ("policy", "safe"),
    [
        ("noeviction", True),
        ("volatile-lru", False),
        ("volatile-ttl", False),
        ("allkeys-lru", False),
        ("allkeys-random", False),
    ],
)
def test_eviction_policies_that_can_drop_unsnapshotted_state_are_named(
    policy: str, safe: bool
) -> None:
    """Only noeviction keeps every key: volatile-* evicts leases (they carry a TTL), and
    allkeys-* also dirty sessions (which carry none)."""
    problem = eviction_problem(policy)
    assert (problem is None) is safe
    if problem is not None:
        assert "leases" in problem and ("not in the durable store" in problem) is (
            policy.startswith("allkeys-")
        )


async def test_an_allkeys_lru_server_is_reported_at_first_use(tmp_path: Path) -> None:
    """A RedisDb on an allkeys-lru server warns once, at its first load."""
    server = RedisServer(tmp_path, "--maxmemory-policy", "allkeys-lru")
    server.start()
    store = RedisDb(db_url=server.url)
    try:
        problem = await store.acheck_server()
        assert problem is not None and "allkeys-lru" in problem
        assert await store.aload("s") is None  # serving still works
    finally:
        await store.aclose()
        server.kill()


async def test_out_of_memory_is_storage_unavailable_and_writes_nothing(tmp_path: Path) -> None:
    """maxmemory reached under noeviction: a clear StoreFullError, the old state kept."""
    server = RedisServer(tmp_path, "--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
    server.start()
    store = RedisDb(db_url=server.url)
    try:
        await store.asave("s", expected_version=0, changed=texts({"n": 0}))
        version = 1
        with pytest.raises(StoreFullError, match=r"out of memory.*nothing was written"):
            for n in range(1, 1000):
                version = await store.asave(
                    f"filler-{n}", expected_version=0, changed=texts({"blob": "x" * 50_000})
                )
        record = await store.aload("s")
        assert record is not None and record.state == {"n": 0} and version >= 1
    finally:
        await store.aclose()
        server.kill()
