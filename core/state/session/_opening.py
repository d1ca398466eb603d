"""Opening a session for a run: take the lease, load, and resolve the state to use.

Precedence on each run: run argument > stored > default, merged deeply; the default
only applies to a new session, ``overwrite`` replaces the stored state with the run's
argument. The session is opened with one store call (``BaseDb.open_run``: lease and
load together), told what this process already holds (:mod:`core.state.cache`): when
the stored session is still exactly that, nothing is loaded, decoded or copied.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from core.db import codec
from core.db.base import BaseDb
from core.db.records import KnownVersion, OpenedRun, SessionMeta, SessionRecord
from core.state.cache import CachedSession, cache_of
from core.state.merge import deep_merge
from core.state.session._handle import SessionHandle
from core.state.tracked import TrackedState
from core.state.tracker import StateTracker
from core.utils.observe import observe
from core.utils.observe import record as record_event

__all__ = ["open_session", "resolve_state"]


def resolve_state(
    stored: dict[str, Any] | None,
    default: Mapping[str, Any] | None,
    run_state: Mapping[str, Any] | None,
    *,
    overwrite: bool,
    fill_missing: bool = False,
) -> dict[str, Any]:
    """Run argument > stored > default; the default only applies to a new session.

    ``fill_missing``: the session was last saved by another owner (two agents routed
    into one chat thread), so this owner's top-level default keys that are absent are
    added; nothing present is touched.
    """
    if stored is None:
        base = copy.deepcopy(dict(default or {}))
    else:
        base = stored
        if fill_missing:
            for key, value in (default or {}).items():
                base.setdefault(key, copy.deepcopy(value))
    if run_state is None:
        return base
    if overwrite:
        return copy.deepcopy(dict(run_state))
    return deep_merge(base, run_state)


@contextlib.asynccontextmanager
async def open_session(
    db: BaseDb,
    *,
    session_id: str,
    user_id: str | None,
    run_id: str,
    meta: SessionMeta,
    default: Mapping[str, Any] | None,
    run_state: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> AsyncIterator[SessionHandle]:
    """Hold the session's run lease for the block and yield its live state.

    The session is taken out of this process's cache for the run and put back only
    when the block ends with the store holding exactly the live state.
    """
    if run_state is not None:
        codec.encode_state(dict(run_state))  # a non-JSON argument fails before anything is touched
    cache = cache_of(db)
    cached = cache.take(session_id)
    async with contextlib.AsyncExitStack() as stack:
        waiting = time.perf_counter()
        # one store call takes the lease and loads (or finds the cached copy current);
        # a run of a user being erased is refused there, under the lease (docs/erasure.md)
        with observe("store_call", op="load"):
            known = cached.known if cached else None
            opened = await stack.enter_async_context(
                db.open_run(session_id, known=known, user_id=user_id)
            )
        # beside the store call, not inside it: tracing shows the wait as the run's child
        record_event("lease_wait", time.perf_counter() - waiting, store=type(db).__name__)
        reused = _reusable(cached, opened.record) if not opened.unchanged else cached
        if cached is not None:
            if reused is not None:
                cache.hits += 1
            else:
                cache.misses += 1
        cached = None
        # no local of this frame may hold the live dict: the cache reuses it at the end
        # only if the tracker alone does (core.state.cache.held_only_by)
        handle = _start(
            db,
            opened,
            reused,
            session_id=session_id,
            user_id=user_id,
            run_id=run_id,
            meta=meta,
            default=default,
            run_state=run_state,
            overwrite=overwrite,
        )
        reused = None
        try:
            yield handle
        finally:
            await handle.settle(raise_failure=False)
        entry = handle.cache_entry(cache)
        if entry is not None:
            cache.put(session_id, entry)


def _start(
    db: BaseDb,
    opened: OpenedRun,
    reused: CachedSession | None,
    *,
    session_id: str,
    user_id: str | None,
    run_id: str,
    meta: SessionMeta,
    default: Mapping[str, Any] | None,
    run_state: Mapping[str, Any] | None,
    overwrite: bool,
) -> SessionHandle:
    """The run's handle over the state to use: the cached dict, the loaded one, or merged."""
    record = opened.record
    texts: dict[str, str]
    size: int | None = None
    if reused is not None:
        texts = reused.texts
        version, data, owner_id = reused.known.version, reused.data, reused.owner_id
        pieces = reused.pieces
        known: KnownVersion | None = KnownVersion.of(record) if record is not None else reused.known
        size = reused.size
    else:
        texts = dict(record.texts) if record is not None else {}
        version = record.version if record is not None else 0
        data = record.data if record is not None else ""
        pieces = None
        owner_id = record.owner_id if record is not None else None
        known = KnownVersion.of(record) if record is not None else None
    exists = reused is not None or record is not None
    other_owner = version > 0 and owner_id not in (None, meta.owner_id)
    # with nothing merged in, the state to use is the stored one: its texts hold
    exact = run_state is None and exists and not other_owner
    if exact:  # the tracker alone holds the live dict (no local here binds it)
        tracker = StateTracker(
            reused.take_state() if reused is not None else TrackedState(codec.decode_state(texts)),
            texts,
            texts,
            size=size,
        )
        if reused is not None:
            tracker.keys.shared = reused.shared  # the texts may still be an output's
    else:
        stored = None
        if reused is not None:
            stored = dict(dict.items(reused.take_state()))
        elif record is not None:
            stored = codec.decode_state(texts)
        state = resolve_state(
            stored, default, run_state, overwrite=overwrite, fill_missing=other_owner
        )
        tracker = StateTracker(TrackedState(state), texts)
    dict.__setitem__(tracker.state, "current_session_id", session_id)
    dict.__setitem__(tracker.state, "current_user_id", user_id)
    dict.__setitem__(tracker.state, "current_run_id", run_id)
    return SessionHandle(
        db,
        session_id=session_id,
        user_id=user_id,
        run_id=run_id,
        meta=meta,
        lease=opened.lease,
        version=version,
        tracker=tracker,
        data_text=data,
        data_pieces=pieces,
        epoch=known.epoch if known is not None else "",
        loaded=known,
        exact_start=exact,
        baseline=None if exists else dict(tracker.keys.texts),
    )


def _reusable(cached: CachedSession | None, record: SessionRecord | None) -> CachedSession | None:
    """The cached session when ``record`` (loaded in full) holds exactly its texts."""
    if cached is None or record is None or record.version != cached.known.version:
        return None
    if record.texts != cached.texts:  # compares text by text, far cheaper than decoding
        return None
    cached.data = record.data
    cached.owner_id = record.owner_id
    return cached
