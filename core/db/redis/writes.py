"""RedisDb's writes. A save is one SAVE script (fencing, version check, the changed fields, the
version bump, the dirty mark, the TTL), read back and tried once more when Redis lost
the session meanwhile, then copied through to the durable store in write-through mode.
A snapshot's upsert (imports, restores) writes a whole record if it is newer; a delete
removes Redis's keys in one script, then the durable copy.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.data_parts import DataParts
from core.db.records import KnownVersion, Lease, SessionMeta, SessionRecord
from core.db.redis import lease_scripts, scripts
from core.db.redis.eviction import lease_gone
from core.db.redis.keys import SessionKeys
from core.db.redis.loading import UNVERIFIED_SAVE
from core.db.redis.records import save_args, upsert_args
from core.db.redis.scripts import LuaScript
from core.db.redis.write_through import copy_through, durable_budget
from core.exceptions import (
    LeaseLostError,
    RedisDataLostError,
    StaleVersionError,
    StateLimitError,
)

if TYPE_CHECKING:
    from core.db.redis.store import RedisDb

__all__ = ["delete", "run_save", "save", "upsert_snapshot"]

#: SAVE's status when the run's lease was held by nobody (expired, or evicted)
LEASE_GONE = -4
#: SAVE's status when it was to append to a data that is not a log (``data_log.py``)
NOT_A_LOG = -5


def _seal_payload(cipher: StateCipher, session_id: str, text: str) -> str:
    return cipher.seal(text, session_id, None)


async def save(
    db: RedisDb,
    session_id: str,
    *,
    expected_version: int,
    changed: Mapping[str, str],
    removed: frozenset[str] | set[str],
    meta: SessionMeta,
    lease: Lease | None,
    data: str | None,
    data_parts: DataParts | None = None,
    release: bool,
) -> int:
    """``RedisDb.asave``: the new version, or the error saying why nothing was written."""
    texts = changed
    db.limits.check_keys(session_id, texts)
    db.limits.check_ids(session_id, meta.user_id, meta.owner_id, meta.kind)
    db.limits.check_data(session_id, data)
    gone = set(removed) - set(texts)
    db.limits.check_size(session_id, texts)  # the delta alone already too big
    seal = None
    if db.cipher is not None:  # limits count plaintext; Redis holds it sealed
        texts = db.cipher.seal_texts(session_id, texts)
        seal = functools.partial(_seal_payload, db.cipher, session_id)
    parts = data_parts if data is not None else None
    append = parts is not None and parts.append is not None
    if parts is not None:  # the data log (data_log.py): its new lines, or written anew
        data = data_log.appended(parts, seal) if append else data_log.whole(parts, seal)
    elif data is not None and seal is not None:
        data = seal(data)
    keys = SessionKeys(db.key_prefix, session_id)
    if expected_version == 0 and db.snapshot_to is not None:
        # an empty Redis must not start a session the durable store already has
        existing = await db._load_stored(session_id)
        if existing is not None:
            raise StaleVersionError(session_id, expected_version, existing.version)
    save_id = uuid.uuid4().hex
    token = lease.token if lease is not None else ""

    def args_for(data: str | None, append: bool) -> list[Any]:
        return save_args(
            keys,
            expected_version,
            texts,
            gone,
            meta,
            token,
            save_id=save_id,  # the same on a retry: it stays one save
            ttl_ms=db._ttl_ms,
            history_limit=db.history_limit,
            max_bytes=db.limits.max_state_bytes,
            guard_dirty=db.snapshot_to is not None,
            verify=db.snapshot_to is not None,
            data=data,
            undoable=db.write_through,
            append=append,
        )

    args = args_for(data, append)
    # write-through may still undo this save if the durable store fails, so the
    # lease goes back only after it (the lock's exit), never with the save
    releasing = release and bool(token) and not db.write_through

    async def attempt() -> tuple[int, int, str, bool]:
        nonlocal args
        reply = await run_save(db, keys, args, releasing)
        if reply[0] == NOT_A_LOG and parts is not None:  # stored whole before the log
            args = args_for(data_log.whole(parts, seal), False)
            reply = await run_save(db, keys, args, releasing)
        return reply

    status, value, epoch, released = await attempt()
    # the session was opened at expected_version, and Redis no longer holds it
    vanished = status == 0 and value == -1 and expected_version > 0
    if db.snapshot_to is not None and (status == UNVERIFIED_SAVE or vanished):
        # expired, flushed or restarted while the run was busy: read back, try once more
        await db._load_stored(session_id)  # reads back or checks the durable copy
        status, value, epoch, released = await attempt()
    if (vanished and status in (0, -1, UNVERIFIED_SAVE) and not await _deleted(db, keys)) or (
        status in (-1, LEASE_GONE)  # a lease gone with a restarted Redis is its data lost
        and lease is not None
        and await _restarted_since(db, keys, lease.epoch)
    ):
        # not another change: Redis lost the session and the lease with it
        raise RedisDataLostError(session_id, expected_version)
    if status == 0 or status == UNVERIFIED_SAVE:
        raise StaleVersionError(session_id, expected_version, None if value == -1 else value)
    if status == -1:
        raise LeaseLostError(session_id, expected_version)
    if status == LEASE_GONE:
        raise await lease_gone(db._clients.get(), session_id, expected_version)
    if status == -2:
        raise StateLimitError(
            f"session {session_id!r}: session_state would be {value:,} bytes of JSON; "
            f"the limit is {db.limits.max_state_bytes:,}. Nothing was written."
        )
    if db.write_through:
        budget = durable_budget(
            db.durable_timeout, lease.renew_until if lease is not None else None
        )
        await write_through(db, keys, value, save_id, budget)
    if lease is not None:
        lease.saved = KnownVersion(value, save_id, epoch)
        lease.released = lease.released or released
    return value


async def _deleted(db: RedisDb, keys: SessionKeys) -> bool:
    """Whether the session's tombstone is there: deleted, not lost (the failure path only)."""
    with db._clients.unavailable(f"read the tombstone of session {keys.session_id!r}"):
        return bool(await db._clients.get().exists(keys.gone))


#: the run id of the Redis holding the session's keys (routed by them on a cluster)
_RUN_ID = LuaScript(scripts.RUN_ID + "return run_id()\n")


async def _restarted_since(db: RedisDb, keys: SessionKeys, epoch: str) -> bool:
    """Whether the Redis that granted a lease (run id ``epoch``) has been replaced: a
    lease lost to a restart, not to an expiry (the failure path only)."""
    if not epoch:
        return False
    with db._clients.unavailable(f"read the Redis run id for session {keys.session_id!r}"):
        return str(await _RUN_ID(db._clients.get(), [keys.meta], [])) != epoch


async def run_save(
    db: RedisDb, keys: SessionKeys, args: list[Any], release: bool
) -> tuple[int, int, str, bool]:
    """(status, value, epoch, released): SAVE, or SAVE_RELEASE when ``release``."""
    save_keys = [
        keys.state,
        keys.meta,
        keys.hist,
        keys.bucket.dirty,
        keys.bucket.index,
        keys.lease,
        keys.gone,
        keys.data,
    ]
    with db._clients.unavailable(f"save session {keys.session_id!r}"):
        if release:
            reply = await lease_scripts.SAVE_RELEASE(
                db._clients.get(),
                [*save_keys, keys.queue, keys.alive],
                [*args, *db.leases.handoff_args()],
            )
        else:
            reply = await scripts.SAVE(db._clients.get(), save_keys, args)
    epoch = str(reply[2]) if len(reply) > 2 else ""
    return int(reply[0]), int(reply[1]), epoch, len(reply) > 3 and int(reply[3]) == 1


async def write_through(
    db: RedisDb, keys: SessionKeys, version: int, save_id: str, budget: float
) -> None:
    assert db.snapshot_to is not None
    # what this leaves dirty (the durable store failed or was silent) the snapshotter
    # copies later
    await copy_through(db._clients, db.dirty, db.snapshot_to, keys, version, save_id, budget)


async def upsert_snapshot(db: RedisDb, record: SessionRecord) -> bool:
    """Write a whole record into Redis if it is newer (imports, restores)."""
    texts = record.texts
    db.limits.check_keys(record.session_id, texts)
    db.limits.check_ids(record.session_id, record.user_id, record.owner_id, record.kind)
    db.limits.check_size(record.session_id, texts)
    db.limits.check_data(record.session_id, record.data)
    if db.cipher is not None:
        record = db.cipher.sealed_record(record)
        texts = record.texts
    keys = SessionKeys(db.key_prefix, record.session_id)
    args = upsert_args(
        keys,
        record,
        texts,
        ttl_ms=db._ttl_ms,
        history_limit=db.history_limit,
        guard_dirty=db.snapshot_to is not None,
    )
    session_keys = [
        keys.state,
        keys.meta,
        keys.hist,
        keys.bucket.dirty,
        keys.bucket.index,
        keys.gone,
        keys.data,
    ]
    with db._clients.unavailable(f"write a snapshot of session {record.session_id!r}"):
        written = await scripts.UPSERT(db._clients.get(), session_keys, args)
    return bool(written)


async def delete(db: RedisDb, session_id: str, upto_version: int | None) -> bool:
    """``RedisDb.adelete``: Redis's keys in one script, then the durable copy."""
    keys = SessionKeys(db.key_prefix, session_id)
    if upto_version is not None:
        hot = await db._load_stored(session_id)
        if hot is not None and hot.version > upto_version:
            return False
    with db._clients.unavailable(f"delete session {session_id!r}"):
        existed = await scripts.DELETE(
            db._clients.get(),
            [
                keys.state,
                keys.meta,
                keys.hist,
                keys.bucket.dirty,
                keys.bucket.index,
                keys.gone,
                keys.data,
                keys.conflict,
                keys.bucket.quarantine,
            ],
            [keys.hashed],
        )
    durable = False
    if db.snapshot_to is not None:
        durable = await db.snapshot_to.adelete(session_id, upto_version=upto_version)
    return bool(existed) or durable
