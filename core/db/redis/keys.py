"""Redis key schema: every key of a session shares one Redis Cluster slot.

A session id is never put in a key as-is: it is hashed (BLAKE2b, 128 bits), so ids
with ``:``, ``{``, ``}``, unicode or 1 KB of text give fixed-size keys that cannot
collide or break a hash tag. The hash also picks one of :data:`BUCKETS` buckets; the
bucket number is the hash tag, so a session's keys and the dirty set of its bucket
live in the same slot and one Lua script may touch them all::

    {prefix}{b<bucket>}:s:<hash>:state   hash   one field per top-level key (JSON text)
    {prefix}{b<bucket>}:s:<hash>:meta    hash   id, v, kind, owner, user, created, updated, ...
    {prefix}{b<bucket>}:s:<hash>:data    string the session's own data (run history, audit, name)
                                                as a log of lines a save appends to (data_log.py)
    {prefix}{b<bucket>}:s:<hash>:hist    list   recent saves (undo records), newest first
    {prefix}{b<bucket>}:s:<hash>:lease   string token of the run lease holder (PX lock_ttl)
    {prefix}{b<bucket>}:s:<hash>:queue   zset   waiting tickets by arrival number
    {prefix}{b<bucket>}:s:<hash>:alive   zset   waiting tickets by heartbeat deadline
    {prefix}{b<bucket>}:s:<hash>:seq     string arrival counter
    {prefix}{b<bucket>}:s:<hash>:gone    string tombstone after a delete (the deleted version)
    {prefix}{b<bucket>}:s:<hash>:conflict string a Redis copy that reused a durable version
    {prefix}{b<bucket>}:dirty            set    hashes of sessions not yet snapshotted
    {prefix}{b<bucket>}:index            zset   hashes by last update (listing)
    {prefix}{b<bucket>}:quarantine       hash   hash -> why the durable store refused it
    {prefix}{b<bucket>}:erasing          hash   erasure marker -> until (ms, Redis clock)
"""

from __future__ import annotations

import hashlib

#: number of dirty-set buckets; changing it re-homes every key, so it is fixed
BUCKETS = 256


def check_prefix(prefix: str) -> str:
    """The prefix, or ValueError when it would break the hash tag that follows it."""
    if "{" in prefix or "}" in prefix:
        raise ValueError(f"key_prefix {prefix!r} must not contain '{{' or '}}' (hash tags)")
    return prefix


def session_hash(session_id: str) -> str:
    """Fixed-size, collision-resistant name of a session inside keys."""
    if not isinstance(session_id, str):
        raise TypeError(f"session_id must be a string, not {type(session_id).__name__}")
    return hashlib.blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def bucket_of(hashed: str) -> int:
    """The bucket (and hash tag) of a hashed session id."""
    return int(hashed[:8], 16) % BUCKETS


class BucketKeys:
    """Keys shared by every session of one bucket."""

    __slots__ = ("bucket", "dirty", "erasing", "index", "quarantine", "tag")

    def __init__(self, prefix: str, bucket: int) -> None:
        self.bucket = bucket
        self.tag = f"{prefix}{{b{bucket}}}"
        self.dirty = f"{self.tag}:dirty"
        self.index = f"{self.tag}:index"
        self.quarantine = f"{self.tag}:quarantine"
        # the same erasure markers in every bucket, so OPEN reads them in its own slot
        self.erasing = f"{self.tag}:erasing"


class SessionKeys:
    """Every key of one session, computed once."""

    __slots__ = (
        "alive",
        "base",
        "bucket",
        "conflict",
        "data",
        "gone",
        "hashed",
        "hist",
        "lease",
        "meta",
        "queue",
        "seq",
        "session_id",
        "state",
    )

    def __init__(self, prefix: str, session_id: str, hashed: str | None = None) -> None:
        self.session_id = session_id
        self.hashed = hashed or session_hash(session_id)
        self.bucket = BucketKeys(prefix, bucket_of(self.hashed))
        self.base = f"{self.bucket.tag}:s:{self.hashed}"
        self.state = f"{self.base}:state"
        self.meta = f"{self.base}:meta"
        self.data = f"{self.base}:data"
        self.hist = f"{self.base}:hist"
        self.lease = f"{self.base}:lease"
        self.queue = f"{self.base}:queue"
        self.alive = f"{self.base}:alive"
        self.seq = f"{self.base}:seq"
        self.gone = f"{self.base}:gone"
        self.conflict = f"{self.base}:conflict"
