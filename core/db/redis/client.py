"""Connections to Redis: one client per event loop, errors made clear, round trips counted.

A ``redis.asyncio`` client is bound to the loop it was created in, and the runtime's
sync API runs on a background loop while async callers use their own; so each loop
gets its own client (and pool), created on first use. ``redis://`` and ``rediss://``
URLs give a :class:`~redis.asyncio.Redis`; ``redis+cluster://`` and
``rediss+cluster://`` a :class:`~redis.asyncio.cluster.RedisCluster` (``cluster.py``),
with the same error mapping, retries and round-trip counting.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Iterator
from typing import Any, TypeAlias, cast

from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.db.redis.cluster import cluster_client, is_cluster_url, parse_cluster_url
from core.exceptions import StoreFullError, StoreUnavailableError

#: what the stores talk to: one server, or a cluster (the same command surface)
RedisClient: TypeAlias = Redis | RedisCluster

#: how RedisCluster words a topology it cannot use (no node reachable, slots uncovered,
#: a node without cluster mode); its other RedisClusterExceptions are programming errors
_TOPOLOGY_PHRASES = ("cannot be connected", "not covered", "not enabled", "could not agree")


class RoundTripCounter:
    """Counts packets sent to Redis: one per command, one per pipeline (a round trip)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def reset(self) -> int:
        """Zero the counter and return what it held."""
        count, self.count = self.count, 0
        return count


def _counting(connection_class: type[Any], counter: RoundTripCounter) -> type[Any]:
    """A subclass of the pool's connection class that counts each send."""

    async def send_packed_command(self: Any, command: Any, check_health: bool = True) -> None:
        counter.count += 1
        try:
            await connection_class.send_packed_command(self, command, check_health)
        except AttributeError as exc:
            # the cluster client resets every node's connections when the cluster
            # reconfigures, also ones another command is opening; sending on one then
            # meets a closed stream (None): a lost connection, which is retried, and
            # the command was not sent
            if getattr(self, "_writer", True) is not None:
                raise
            raise RedisConnectionError("connection closed while sending") from exc

    return type(
        f"Counting{connection_class.__name__}",
        (connection_class,),
        {"send_packed_command": send_packed_command},
    )


def connect(url: str, **settings: Any) -> RedisClient:
    """A plain client (no counting, one pool) for any Redis URL this project accepts.

    For single-key uses outside the stores (de-duplication flags, approvals):
    ``redis://`` and ``rediss://`` give a Redis, ``redis+cluster://`` and
    ``rediss+cluster://`` a RedisCluster. ``settings`` are client keyword arguments.
    """
    if is_cluster_url(url):
        return cluster_client(parse_cluster_url(url), wrap=lambda cls: cls, **settings)
    return Redis.from_url(url, **settings)


async def _close(client: RedisClient) -> None:
    if isinstance(client, RedisCluster):
        await client.aclose()  # closes every node's connections
    else:
        await client.aclose(close_connection_pool=True)


class RedisClients:
    """Hands out the client of the running event loop."""

    __slots__ = ("_by_loop", "_cluster", "_max_connections", "counter", "location", "url")

    def __init__(self, url: str, *, max_connections: int = 1000) -> None:
        self.url = url
        self.counter = RoundTripCounter()
        self._max_connections = max_connections
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RedisClient] = (
            weakref.WeakKeyDictionary()
        )
        # parse once, so a bad URL fails at construction and messages never show a password
        self._cluster = parse_cluster_url(url) if is_cluster_url(url) else None
        if self._cluster is not None:
            self.location = self._cluster.location
        else:
            kwargs = ConnectionPool.from_url(url).connection_kwargs
            self.location = (
                kwargs.get("path")
                or f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"
            )

    @property
    def is_cluster(self) -> bool:
        """True when the URL names a Redis Cluster."""
        return self._cluster is not None

    def get(self) -> Redis:
        """The client for the current loop (created on first use).

        Typed as ``Redis`` for the callers written against it: a RedisCluster serves
        every command they send (scripts, single-slot pipelines, pub/sub). Callers
        that need to tell the two apart use :meth:`client` (a ``RedisClient``).
        """
        return cast(Redis, self.client())

    def client(self) -> RedisClient:
        """The client for the current loop (created on first use): server or cluster."""
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None:
            client = self._new_client()
            self._by_loop[loop] = client
        return client

    def _new_client(self) -> RedisClient:
        if self._cluster is not None:
            return cluster_client(
                self._cluster,
                wrap=lambda cls: _counting(cls, self.counter),
                decode_responses=True,
                # past it a command waits (up to 10 s) for one in flight to finish
                max_commands=self._max_connections,
                wait=10.0,
                socket_connect_timeout=2.0,
                socket_timeout=10.0,
                # MOVED/ASK are followed regardless; these retries cover a lost node
                # (the client re-reads the slot map) and a cluster that is failing over
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 3),
            )
        # past max_connections a command waits (up to 10 s) for a free connection
        # instead of failing, so a burst of runs queues rather than erroring out
        pool = BlockingConnectionPool.from_url(
            self.url,
            decode_responses=True,
            max_connections=self._max_connections,
            timeout=10.0,
            socket_connect_timeout=2.0,
            socket_timeout=10.0,
            # a down Redis should fail fast; the caller decides whether to retry
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
        )
        pool.connection_class = _counting(pool.connection_class, self.counter)
        return Redis(connection_pool=pool)

    async def aclose_loop(self) -> None:
        """Close the running loop's client only (a thread whose loop is about to end)."""
        client = self._by_loop.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await _close(client)

    async def aclose(self) -> None:
        """Close the current loop's client; ask other live loops to close theirs."""
        current = asyncio.get_running_loop()
        for loop, client in list(self._by_loop.items()):
            if loop is current:
                await _close(client)
            elif loop.is_running():
                asyncio.run_coroutine_threadsafe(_close(client), loop)
        self._by_loop.clear()

    @contextlib.contextmanager
    def unavailable(self, action: str) -> Iterator[None]:
        """Turn failures of the server, not of the request, into StoreUnavailableError.

        Besides lost connections: out of memory (``maxmemory`` reached under
        ``noeviction``), a read-only replica, and a server still loading its data set.
        Each refuses the command before it runs, so nothing was written.
        """
        try:
            yield
        except OutOfMemoryError as exc:
            raise StoreFullError(
                f"Redis at {self.location} is out of memory (maxmemory reached) while trying "
                f"to {action}; nothing was written"
            ) from exc
        except (ReadOnlyError, BusyLoadingError) as exc:
            raise StoreUnavailableError(
                f"Redis at {self.location} cannot take writes right now while trying to "
                f"{action} ({exc}); nothing was written"
            ) from exc
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError(
                f"Redis at {self.location} is unavailable while trying to {action}: {exc}"
            ) from exc
        except (ClusterDownError, TryAgainError) as exc:
            # a failover or resharding in progress: the command was refused, not run
            raise StoreUnavailableError(
                f"Redis at {self.location} is reconfiguring (failover or resharding) while "
                f"trying to {action} ({exc}); nothing was written, try again"
            ) from exc
        except RedisClusterException as exc:
            if not any(phrase in str(exc) for phrase in _TOPOLOGY_PHRASES):
                raise
            raise StoreUnavailableError(
                f"Redis at {self.location} cannot serve while trying to {action}: {exc}"
            ) from exc
