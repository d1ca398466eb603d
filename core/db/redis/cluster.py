"""Redis Cluster URLs and clients: ``redis+cluster://host:port[,host:port...]/``.

A cluster URL names one or more nodes of the cluster (any reachable one is enough:
the client reads the slot map from it and finds the others); ``rediss+cluster://``
speaks TLS. Credentials and query options are those of ``redis://`` URLs
(``redis+cluster://user:secret@10.0.0.1:7000,10.0.0.2:7000/?socket_timeout=5``). A
cluster has one database, so a path other than ``/`` or ``/0`` is refused.

Every key a script or a pipeline command touches carries a hash tag (``keys.py``), so
the cluster client sends each command to the one node serving its slot.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import parse_url
from redis.exceptions import MaxConnectionsError

#: cluster scheme -> the plain scheme its options are parsed as
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

#: keyword arguments RedisCluster accepts (query options are checked against these)
_CLUSTER_OPTIONS = frozenset(inspect.signature(RedisCluster.__init__).parameters) - {
    "self",
    "max_connections",
}


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster."""
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


@dataclass(frozen=True)
class ClusterAddress:
    """Where a cluster is and how to talk to it, parsed from its URL."""

    nodes: tuple[tuple[str, int], ...]
    tls: bool
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def location(self) -> str:
        """The nodes as ``cluster host:port,...``, never with credentials."""
        return "cluster " + ",".join(f"{host}:{port}" for host, port in self.nodes)


def parse_cluster_url(url: str) -> ClusterAddress:
    """The nodes and options of a cluster URL; ValueError saying what is wrong."""
    scheme, _, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower())
    if plain is None:
        raise ValueError("not a Redis Cluster URL: use redis+cluster:// or rediss+cluster://")
    netloc, _, tail = rest.partition("/")
    path, _, query = tail.partition("?")
    if "?" in netloc:  # redis+cluster://h:1?x=y without the slash
        netloc, _, query = netloc.partition("?")
    if path not in ("", "0"):
        raise ValueError(
            f"a Redis Cluster has one database: the URL path must be / or /0, not /{path}"
        )
    auth, _, hosts = netloc.rpartition("@")
    nodes: list[tuple[str, int]] = []
    for item in hosts.split(","):
        item = item.strip()
        if not item:
            continue
        # urlsplit parses host, port and IPv6 brackets the way redis:// URLs do
        parsed = urlsplit(f"{plain}://{item}")
        try:
            port = parsed.port or 6379
        except ValueError:
            raise ValueError(f"bad port in Redis Cluster node {item!r}") from None
        if not parsed.hostname:
            raise ValueError(f"Redis Cluster node {item!r} has no host")
        nodes.append((unquote(parsed.hostname), port))
    if not nodes:
        raise ValueError("a Redis Cluster URL names at least one node: redis+cluster://host:port/")
    options: dict[str, Any] = dict(parse_url(f"{plain}://{auth + '@' if auth else ''}x/?{query}"))
    if options.pop("db", 0):
        raise ValueError("a Redis Cluster has one database: drop db= from the URL")
    for name in ("host", "port", "connection_class"):
        options.pop(name, None)
    unknown = sorted(set(options) - _CLUSTER_OPTIONS)
    if unknown:
        raise ValueError(f"Redis Cluster URL option(s) not supported: {', '.join(unknown)}")
    return ClusterAddress(tuple(nodes), plain == "rediss", options)


class _RoutedCluster(RedisCluster):
    """RedisCluster that knows the slot map before it routes a command.

    redis-py picks a command's node before it (re)reads the slot map, and without a
    map it sends the command to any node: at start-up, and after every reset (a lost
    node), concurrent commands then land on wrong nodes, get MOVED, and every fifth
    MOVED resets the client again, closing the connections of commands in flight.
    Reading the map first, and following a MOVED by patching the one slot
    (``reinitialize_steps=0``), keeps each command on the node that serves it.

    Its node pools fail at once when full; like the single-server client's blocking
    pool, commands past ``max_commands`` in flight wait (up to ``wait`` seconds) for
    one to finish, so a burst of runs queues rather than erroring out.
    """

    def __init__(self, *args: Any, max_commands: int, wait: float, **kwargs: Any) -> None:
        # node pools get headroom for pipelines and the pub/sub listener
        kwargs["max_connections"] = max_commands + 32
        super().__init__(*args, **kwargs)
        self._in_flight = asyncio.Semaphore(max_commands)
        self._wait = wait

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            async with asyncio.timeout(self._wait):
                await self._in_flight.acquire()
        except TimeoutError:
            raise MaxConnectionsError(
                f"{self._wait:g} s without a free connection ({args[0]})"
            ) from None
        try:
            if self._initialize:
                await self.initialize()
            return await super().execute_command(*args, **kwargs)
        finally:
            self._in_flight.release()


def cluster_client(
    address: ClusterAddress,
    *,
    wrap: Callable[[type[Any]], type[Any]],
    max_commands: int = 1000,
    wait: float = 10.0,
    **settings: Any,
) -> RedisCluster:
    """A cluster client whose node connections are of the class ``wrap(default class)``.

    At most ``max_commands`` commands are in flight; more wait up to ``wait`` seconds.
    ``settings`` are RedisCluster keyword arguments (timeouts, retry); options from the
    URL override them.
    """
    client = _RoutedCluster(
        max_commands=max_commands,
        wait=wait,
        startup_nodes=[ClusterNode(host, port) for host, port in address.nodes],
        ssl=address.tls,
        reinitialize_steps=0,
        **{**settings, **address.options},
    )
    # nodes found later are built from these kwargs (shared with the nodes manager)
    connection_class = wrap(client.connection_kwargs["connection_class"])
    client.connection_kwargs["connection_class"] = connection_class
    for node in client.startup_nodes:
        node.connection_class = connection_class
    return client
