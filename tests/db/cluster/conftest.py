"""A real local Redis Cluster (3 primaries + 3 replicas) for the tests in this package.

The cluster is started once per test session (about 2 s) in a temporary directory and
killed afterwards. Failing to start it is an error, never a skip: redis-server and
redis-cli are part of the test environment. ``redis_url`` is overridden here, so any
test written for ``redis_url`` runs unchanged against the cluster.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from core.db.redis.client import connect
from tests.db.cluster.harness import LocalCluster


@pytest.fixture(scope="session")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """The running cluster, shared by every test of the session."""
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("redis-cluster")))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def raw_cluster(url: str) -> RedisCluster:
    """A plain cluster client (no counting) to look at or clean up what the store wrote."""
    client = connect(url, decode_responses=True)
    assert isinstance(client, RedisCluster)
    return client


@pytest.fixture
async def redis_url(local_cluster: LocalCluster, key_prefix: str) -> AsyncIterator[str]:
    """The cluster's URL; keys under this test's prefix are removed from every node after."""
    local_cluster.wait_ok()  # a failover test before this one may still be settling
    yield local_cluster.url
    client = raw_cluster(local_cluster.url)
    try:
        async for key in client.scan_iter(match=f"*{key_prefix}*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()
