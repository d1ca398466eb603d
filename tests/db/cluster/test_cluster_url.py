"""Redis Cluster URLs: parsed once, clear errors, the right client and store behind them."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from core.db.redis import RedisDb
from core.db.redis.client import RedisClients, connect
from core.db.redis.cluster import is_cluster_url, parse_cluster_url
from core.db.url import open_store
from core.exceptions import StoreUnavailableError
from tests.conftest import REDIS_URL, require_service


def test_cluster_url_names_every_node_and_keeps_options() -> None:
    """Each host:port becomes a startup node; credentials and query options are kept."""
    address = parse_cluster_url(
        "redis+cluster://me:s%40cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002/?socket_timeout=5"
    )
    assert address.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 7001), ("::1", 7002))
    assert address.options == {"username": "me", "password": "s@cret", "socket_timeout": 5.0}
    assert address.tls is False


def test_rediss_cluster_url_speaks_tls_and_defaults_the_port() -> None:
    """rediss+cluster:// turns TLS on; a node without a port is on 6379."""
    address = parse_cluster_url("rediss+cluster://redis.internal/")
    assert address.nodes == (("redis.internal", 6379),)
    assert address.tls is True


def test_location_never_shows_the_password() -> None:
    """Messages name the nodes, never the credentials."""
    clients = RedisClients("redis+cluster://me:topsecret@10.0.0.1:7000,10.0.0.2:7000/")
    assert clients.location == "cluster 10.0.0.1:7000,10.0.0.2:7000"
    assert "topsecret" not in clients.location
    assert clients.is_cluster


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis+cluster://h:7000/3", "one database"),
        ("redis+cluster:///", "at least one node"),
        ("redis+cluster://h:notaport/", "bad port"),
        ("redis+cluster://h:7000/?db=2", "one database"),
        ("redis+cluster://h:7000/?no_such_option=1", "not supported: no_such_option"),
        ("redis://h:7000/", "not a Redis Cluster URL"),
    ],
)
def test_bad_cluster_urls_are_clear_errors(url: str, message: str) -> None:
    """A database number, no node, a bad port or an unknown option: ValueError saying so."""
    with pytest.raises(ValueError, match=message):
        parse_cluster_url(url)


def test_cluster_schemes_are_told_apart_from_single_server_ones() -> None:
    """Only the +cluster schemes name a cluster (case-insensitive)."""
    assert is_cluster_url("redis+cluster://h:1/") and is_cluster_url("REDISS+CLUSTER://h:1/")
    assert not is_cluster_url("redis://h:1/0") and not is_cluster_url("rediss://h/")


async def test_each_url_kind_gets_its_client() -> None:
    """redis:// gives a Redis, redis+cluster:// a RedisCluster (no connection is made)."""
    single, cluster = connect("redis://127.0.0.1:1/0"), connect("redis+cluster://127.0.0.1:1/")
    assert isinstance(single, Redis) and isinstance(cluster, RedisCluster)
    await single.aclose()
    await cluster.aclose()


def test_open_store_accepts_cluster_urls_with_a_durable_store() -> None:
    """open_store('redis+cluster://…', snapshot_to=…) is a RedisDb on the cluster."""
    store = open_store("redis+cluster://127.0.0.1:1,127.0.0.1:2/", snapshot_to="memory://")
    assert isinstance(store, RedisDb)
    assert store.location == "cluster 127.0.0.1:1,127.0.0.1:2"
    assert store.snapshot_to is not None


async def test_unreachable_cluster_is_a_clear_store_unavailable_error() -> None:
    """No node answers: StoreUnavailableError naming the nodes and the action."""
    db = RedisDb(db_url="redis+cluster://127.0.0.1:1,127.0.0.1:2/", key_prefix="t:")
    with pytest.raises(StoreUnavailableError, match=r"cluster 127\.0\.0\.1:1,127\.0\.0\.1:2"):
        await db.aload("s")
    await db.aclose()


async def test_cluster_url_to_a_plain_server_says_cluster_mode_is_off() -> None:
    """A +cluster URL naming a server without cluster mode: a clear error, nothing written."""
    plain = REDIS_URL.replace("redis://", "redis+cluster://").rsplit("/", 1)[0] + "/"
    require_service("Redis", "127.0.0.1", 6379)
    db = RedisDb(db_url=plain, key_prefix="t:")
    with pytest.raises(StoreUnavailableError, match="Cluster mode is not enabled"):
        await db.asave("s", expected_version=0, changed={})
    await db.aclose()
