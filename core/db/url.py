"""Open a store from one URL (CLI flags, environment settings).

``sqlite:///path.db`` or a bare path → SqliteDb; ``postgresql://…`` (any driver
suffix, or ``postgres://``) → PostgresDb; ``memory://`` → InMemoryDb; ``redis://…``
or ``rediss://…`` (one server), ``redis+cluster://host:port[,host:port…]/`` or
``rediss+cluster://…`` (a Redis Cluster) → RedisDb, snapshotting to the durable store
named by ``snapshot_to``.

``cipher`` (a :class:`~core.db.cipher.StateCipher`) seals state at rest in every
store it builds (the Redis store and its durable store get the same one); InMemoryDb
keeps state in process memory only and takes none.
"""

from __future__ import annotations

import importlib
from typing import Any

from core.db.base import BaseDb
from core.db.cipher import StateCipher

#: one Redis server, or a Redis Cluster (``core/db/redis/cluster.py``)
REDIS_SCHEMES = ("redis", "rediss", "redis+cluster", "rediss+cluster")


def open_store(
    url: str,
    *,
    snapshot_to: str | None = None,
    cipher: StateCipher | None = None,
    **options: Any,
) -> BaseDb:
    """The store a URL names; ValueError for a scheme this project does not know."""
    url = url.strip()
    if not url:
        raise ValueError("empty database URL; e.g. sqlite:///statebot.db")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if snapshot_to is not None and not scheme.startswith("redis"):
        raise ValueError("snapshot_to only applies to redis:// and redis+cluster:// URLs")
    if scheme == "" or scheme.startswith("sqlite"):
        from core.db.sqlite import SqliteDb

        if scheme:
            return SqliteDb(db_url=url, cipher=cipher, **options)
        return SqliteDb(db_file=url, cipher=cipher, **options)
    if scheme.startswith(("postgresql", "postgres")):
        from core.db.postgres import PostgresDb

        return PostgresDb(db_url=url, cipher=cipher, **options)
    if scheme == "memory":
        from core.db.in_memory import InMemoryDb

        return InMemoryDb(**options)
    if scheme in REDIS_SCHEMES:
        # imported by name: the Redis backend is optional for users of the durable stores
        redis_module = importlib.import_module("core.db.redis")
        durable = open_store(snapshot_to, cipher=cipher) if snapshot_to else None
        store: BaseDb = redis_module.RedisDb(
            db_url=url, snapshot_to=durable, cipher=cipher, **options
        )
        return store
    raise ValueError(
        f"unknown database URL scheme {scheme!r}; use sqlite:///file.db, "
        "postgresql://user@host/db, redis://host:6379/0, "
        "redis+cluster://host1:7000,host2:7000/ or memory://"
    )
