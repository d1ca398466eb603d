"""RedisDb's read path: the LOAD reply, and a record checked or read back.

A record Redis serves is trusted only when this Redis incarnation wrote it; one from
another incarnation (a restart, a failover) is checked against the durable store
first (``repair.py``), and a session Redis does not hold is read back from the
durable store (an empty Redis never overwrites a durable snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.db.base import BaseDb
from core.db.cipher import StateCipher, refuse_sealed
from core.db.records import HistoryEntry, SessionRecord
from core.db.redis import scripts
from core.db.redis.bounded import bounded
from core.db.redis.keys import SessionKeys
from core.db.redis.records import history_from_undo, record_from_hashes, seed_args
from core.db.redis.repair import check_against_durable
from core.exceptions import StoreUnavailableError

if TYPE_CHECKING:
    from core.db.redis.store import RedisDb

__all__ = [
    "Loaded",
    "check_same_keys",
    "history",
    "load_hot",
    "parse_load",
    "read_back",
    "resolve",
    "unsealed",
    "verify",
]

# LOAD script statuses, and the SAVE status for a session another Redis incarnation wrote
ABSENT, SERVED, UNVERIFIED = 0, 1, 2
#: OPEN's status for a session that is exactly the version the caller knows
UNCHANGED = 3
#: OPEN's reply when the lease is held but the run's user is being erased
ERASING = 4
UNVERIFIED_SAVE = -3
#: checks of one session against the durable store before giving up (it kept changing)
MAX_CHECKS = 5


@dataclass(frozen=True, slots=True)
class Loaded:
    """What the LOAD script found."""

    status: int
    record: SessionRecord | None
    dirty: bool = False
    #: the run id of the Redis that answered (claimed in the durable store on read-back)
    epoch: str = ""


def check_same_keys(cipher: StateCipher | None, durable: BaseDb | None) -> None:
    """ValueError unless Redis and its durable store seal with the same key ring: the
    snapshotter copies sealed texts as they are, and read-backs seal them again."""
    if durable is None:
        return
    theirs: StateCipher | None = getattr(durable, "cipher", None)
    mine_ids = None if cipher is None else cipher.ring.ids
    their_ids = None if theirs is None else theirs.ring.ids
    if mine_ids != their_ids:
        raise ValueError(
            "RedisDb and its durable store (snapshot_to) must be given the same state key "
            f"ring (cipher): Redis has {_ids(mine_ids)}, the durable store {_ids(their_ids)}"
        )


def unsealed(session_id: str, key: str, text: str) -> str:
    """A stored text as it is, refused when it is sealed (a store given no cipher)."""
    refuse_sealed(session_id, {key: text})
    return text


def _ids(ids: tuple[str, ...] | None) -> str:
    return "none" if ids is None else "keys " + ", ".join(ids)


def _pairs(flat: list[str]) -> dict[str, str]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def parse_load(keys: SessionKeys, reply: list[Any], cipher: StateCipher | None) -> Loaded:
    """A LOAD reply (layout in scripts.py) as a record with the epoch that served it."""
    status = int(reply[0])
    if status == ABSENT:
        return Loaded(ABSENT, None, epoch=str(reply[5]))
    record = record_from_hashes(
        keys.session_id, _pairs(reply[1]), _pairs(reply[2]), reply[3], reply[5], cipher
    )
    return Loaded(status, record, bool(status == UNVERIFIED and int(reply[4])), str(reply[5]))


async def resolve(db: RedisDb, keys: SessionKeys, loaded: Loaded) -> SessionRecord | None:
    """The record a LOAD found, read back from or checked against the durable store
    when it is absent or comes from another Redis incarnation (``repair.py``)."""
    for _ in range(MAX_CHECKS):
        if loaded.status == ABSENT:
            if db.snapshot_to is None:
                return None
            found, record = await read_back(db, keys.session_id, loaded.epoch)
            if found:
                return record
        elif loaded.status == SERVED:
            return loaded.record
        else:
            assert db.snapshot_to is not None and loaded.record is not None
            check = check_against_durable(
                db._clients,
                keys,
                loaded.record,
                loaded.dirty,
                db.snapshot_to,
                db._ttl_ms,
                db.cipher,
            )
            try:  # a late verdict, applied in the background, is guarded like a concurrent one
                await bounded(check, db.durable_timeout)
            except TimeoutError:
                raise StoreUnavailableError(
                    f"session {keys.session_id!r} must be checked against the durable store "
                    f"after a Redis restart, and it did not answer within "
                    f"{db.durable_timeout:g} s; nothing was written"
                ) from None
        loaded = await load_hot(db, keys)
    raise StoreUnavailableError(
        f"session {keys.session_id!r} kept changing while it was checked against the "
        "durable store after a Redis restart; try again"
    )


async def load_hot(db: RedisDb, keys: SessionKeys) -> Loaded:
    with db._clients.unavailable(f"load session {keys.session_id!r}"):
        reply = await scripts.LOAD(
            db._clients.get(),
            [keys.state, keys.meta, keys.bucket.dirty, keys.data],
            [keys.hashed, verify(db)],
        )
    return parse_load(keys, reply, db.cipher)


def verify(db: RedisDb) -> str:
    """ "1": a copy from another Redis incarnation is checked against the durable store."""
    return "1" if db.snapshot_to is not None else "0"


async def read_back(db: RedisDb, session_id: str, epoch: str) -> tuple[bool, SessionRecord | None]:
    """Copy a session from the durable store into Redis incarnation ``epoch``; Redis wins
    if it has one. (False, None) when Redis restarted since ``epoch``: load again.

    The durable read claims the session for ``epoch`` (``aclaim``): a snapshot pass that
    read it from an earlier incarnation can no longer commit over what this one builds
    on, and the SEED script seeds nothing unless Redis is still that incarnation. The
    durable read is bounded by ``durable_timeout`` (``bounded.py``).
    """
    assert db.snapshot_to is not None
    try:
        durable = await bounded(db.snapshot_to.aclaim(session_id, epoch), db.durable_timeout)
    except TimeoutError:
        # whether the durable store holds it is unknown, and an empty Redis must never
        # start a session over a durable snapshot: refuse, having written nothing
        raise StoreUnavailableError(
            f"session {session_id!r} is not in Redis and the durable store did not answer "
            f"within {db.durable_timeout:g} s to read it back; nothing was written"
        ) from None
    if durable is None:
        return True, None
    if db.cipher is not None:  # read opened through the durable store's API
        durable = db.cipher.resealed_record(durable)
    keys = SessionKeys(db.key_prefix, session_id)
    args = seed_args(keys, durable, db._ttl_ms, epoch)
    with db._clients.unavailable(f"read back session {session_id!r}"):
        seed_keys = [keys.state, keys.meta, keys.bucket.index, keys.gone, keys.data]
        reply = await scripts.SEED(db._clients.get(), seed_keys, args)
    if int(reply[0]) == -2:
        return False, None
    if int(reply[0]) == -1:
        # deleted while a snapshot of it was in flight: that copy must not come back
        await db.snapshot_to.adelete(session_id, upto_version=int(reply[1]))
        return True, None
    loaded = await load_hot(db, keys)
    return True, loaded.record


async def history(db: RedisDb, session_id: str, limit: int) -> list[HistoryEntry]:
    """``RedisDb.ahistory``: the undo records Redis keeps, then older durable versions."""
    keys = SessionKeys(db.key_prefix, session_id)
    if db.snapshot_to is not None:
        await db._load_stored(session_id)  # a copy from an older Redis is checked first
    with db._clients.unavailable(f"read the history of session {session_id!r}"):
        pipe = db._clients.get().pipeline(transaction=True)
        pipe.hgetall(keys.state)
        pipe.hgetall(keys.meta)
        pipe.lrange(keys.hist, 0, max(limit, 1) - 1)
        state, meta, undo = await pipe.execute()
    opener = db._text_opener(session_id)
    entries = history_from_undo(session_id, state, undo, opener)[:limit] if meta else []
    if len(entries) < limit and db.snapshot_to is not None:
        oldest = entries[-1].version if entries else None
        for entry in await db.snapshot_to.ahistory(session_id, limit=limit):
            if oldest is None or entry.version < oldest:
                entries.append(entry)
    return entries[:limit]
