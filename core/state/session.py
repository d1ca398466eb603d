"""One run's hold on a session: lease, load, resolve the state to use, save deltas.

Agents, teams and workflows all open sessions through :func:`open_session`, so the
precedence rules (run argument > stored > default; overwrite flag) and the persistence
points live in one place.

What a turn costs. The live state tracks the top-level keys code may have changed
(:mod:`core.state.tracked`), so a save encodes and sends only those. The session is
opened with one store call (``BaseDb.open_run``: lease and load together), told what
this process already holds (:mod:`core.state.cache`): when the stored session is still
exactly that, nothing is loaded, decoded or copied (the cached live dict itself is
handed to the run, see :mod:`core.state.cache`). The run's last save also gives the lease
back (:meth:`SessionHandle.persist_final`). On RedisDb that is 2 round trips a turn.

Persistence points. A tool batch's changes are saved before the run waits on anything
slow: :meth:`SessionHandle.persist_soon` starts the batch's save only if the run has
not reached its next persistence point within ``BATCH_SAVE_GRACE`` seconds (the next
model call usually answers first, and then the batch is saved with the run's final
save, or the next batch's). So a turn costs 2 round trips when the model answers
within the grace period, else 3, the third overlapped with the model call. Nothing is
saved after the run's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from core.db.base import BaseDb, KnownVersion, Lease, OpenedRun, SessionMeta, SessionRecord
from core.db.limits import StateLimits
from core.exceptions import RunTimeoutError
from core.run.history import RunRecord, SessionData
from core.state import codec
from core.state.audit import build_entry
from core.state.cache import CachedSession, SessionCache, cache_of, held_only_by
from core.state.checkpoints import StateTexts
from core.state.merge import deep_merge
from core.state.tracked import TrackedState
from core.state.tracker import StateTracker
from core.state.values import TRANSIENT_KEYS
from core.utils.observe import observe
from core.utils.observe import record as record_event

#: seconds a tool batch's changes may wait to be saved with the run's next save
BATCH_SAVE_GRACE = 0.05


class SessionHandle:
    """The live state of a session during one run, and how to persist it."""

    __slots__ = (
        "_baseline",
        "_data",
        "_data_changed",
        "_data_text",
        "_exact_start",
        "_failure",
        "_pending",
        "audit_kind",
        "audit_schema",
        "db",
        "deadline",
        "epoch",
        "lease",
        "loaded",
        "meta",
        "origin",
        "run_id",
        "run_timeout",
        "session_id",
        "tools",
        "tracker",
        "user_id",
        "version",
    )

    def __init__(
        self,
        db: BaseDb,
        *,
        session_id: str,
        user_id: str | None,
        run_id: str,
        meta: SessionMeta,
        lease: Lease,
        version: int,
        tracker: StateTracker,
        data_text: str = "",
        epoch: str = "",
    ) -> None:
        self.db = db
        self.session_id = session_id
        self.user_id = user_id
        self.run_id = run_id
        self.meta = meta
        self.lease = lease
        self.version = version
        self.tracker = tracker
        #: the hot store's incarnation the session was loaded from ("" when durable)
        self.epoch = epoch
        #: the identity of the stored session as this run found it (None: new session)
        self.loaded: KnownVersion | None = None
        #: ``time.monotonic()`` past which nothing is saved (set by the run's deadline)
        self.deadline: float | None = None
        self.run_timeout: float | None = None
        #: the run's metadata: which chat event (platform, event id) asked for the run
        self.origin: Mapping[str, Any] = {}
        #: tools whose changes to the state were kept since the last save, in call order
        self.tools: list[str] = []
        #: the kind the next save's audit entry records ("run"; a lazy migration may say
        #: "migrate"); back to "run" after each save
        self.audit_kind = "run"
        #: a "migrate" save's schema versions (from, to); None after each save
        self.audit_schema: tuple[int, int] | None = None
        self._data_text = data_text
        self._data: SessionData | None = None  # decoded on first use only
        self._data_changed = False
        #: the last tool batch's save (persist_soon), waiting or under way
        self._pending: _BatchSave | None = None
        #: the first save that failed: the state is no longer known to match the store
        self._failure: BaseException | None = None
        #: the live dict started as exactly the stored texts decoded (nothing merged in),
        #: so values no code touched may be reused by the next run
        self._exact_start = False
        #: a new session's starting texts (defaults merged with the run's argument): its
        #: first save's audit entry is the change from them (None once saved, or stored)
        self._baseline: dict[str, str] | None = None

    @property
    def data(self) -> SessionData:
        """The session's run history and name (decoded on first use)."""
        if self._data is None:
            self._data = SessionData.decode(self._data_text)
        return self._data

    def set_name(self, name: str | None) -> None:
        """Name the session; saved with the next persist."""
        self.data.name = name
        self._data_changed = True

    def set_schema_version(self, version: int | None) -> None:
        """Record the schema version the live state is now in; saved with the next persist."""
        if self.data.schema_version != version:
            self.data.schema_version = version
            self._data_changed = True

    def record_run(self, run: RunRecord) -> None:
        """Add (or replace, by run id) a run in the history; saved with the next persist."""
        self.data.upsert(run)
        self._data_changed = True

    def note_tool(self, name: str) -> None:
        """Remember that tool ``name`` ran and whatever it changed was kept (saves record it)."""
        if name not in self.tools:
            self.tools.append(name)

    @property
    def state(self) -> dict[str, Any]:
        """The live state dict, for code that may change it (the next save re-checks it)."""
        self.tracker.touched()
        return self.tracker.state

    def final_state(self) -> StateTexts:
        """The state as saved, for ``RunOutput.session_state`` (decoded when read)."""
        self.tracker.known_checkpoint()
        return self.tracker.keys.share(StateTexts)  # no copy: frozen while the output lives

    # -- saving -------------------------------------------------------------------------
    async def persist(self) -> None:
        """Save the top-level keys that changed since the last save (nothing if none).

        Refused with RunTimeoutError once the run's deadline has passed. A save that
        started finishes even if the run is cancelled meanwhile, so whether it
        happened is always known.
        """
        await self._persist(release=False)

    async def persist_final(self) -> None:
        """The run's last save, which also gives the run lease back in the same store call.

        The lease's block then releases nothing at its end (RedisDb: one script for
        both). With nothing to save, the lease goes back at the block's end as usual.
        """
        await self._persist(release=True)

    async def _persist(self, *, release: bool) -> None:
        await self.settle()
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise RunTimeoutError(self.run_timeout or 0.0, saved=False, what="the run")
        changed, removed = self.tracker.delta()
        if not changed and not removed and not self._data_changed and self.version > 0:
            return
        # nothing ran since delta(): the live values are exactly the changed texts
        await self._save(changed, removed, release=release, live=True)

    def persist_soon(self, grace: float = BATCH_SAVE_GRACE) -> None:
        """Save what changed unless the run reaches its next save within ``grace`` seconds.

        The changes are taken now (the texts as of this call), so a tool running
        meanwhile is never half saved. The next :meth:`persist` or :meth:`settle`
        drops a batch save that has not started (its changes go with that save) and
        waits for one that has.
        """
        if type(self).persist is not SessionHandle.persist:
            return  # a handle that never saves alone (a workflow branch) saves nothing here
        self.check_saves()
        changed, removed = self.tracker.delta()
        previous = self._pending
        if previous is not None and not previous.started:
            previous.task.cancel()  # superseded: this batch's delta includes its changes
            previous = None
        if not changed and not removed and not self._data_changed and self.version > 0:
            return
        batch = _BatchSave()
        batch.previous = previous
        batch.task = asyncio.ensure_future(
            self._save_after(batch, grace, previous, changed, removed)
        )
        self._pending = batch

    def check_saves(self) -> None:
        """Raise the error of a batch save that failed in the background, if one did."""
        if self._failure is not None:
            raise self._failure

    async def _save_after(
        self,
        batch: _BatchSave,
        grace: float,
        previous: _BatchSave | None,
        changed: dict[str, str],
        removed: set[str],
    ) -> None:
        await asyncio.sleep(grace)
        if previous is not None:
            await asyncio.shield(previous.task)  # one save at a time, in order
        if self._failure is not None:
            return
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return  # nothing is saved after the deadline
        batch.started = True
        await self._save(changed, removed, release=False)

    async def settle(self, *, raise_failure: bool = True) -> None:
        """Drop a batch save not yet started; wait for one under way; raise a save's error.

        A save under way finishes even if the caller is cancelled meanwhile (the
        cancellation is raised once it has), so whether it happened is always known.
        """
        batch = self._pending
        self._pending = None
        while batch is not None:
            if not batch.started:
                batch.task.cancel()
            try:
                await asyncio.shield(batch.task)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    # we were cancelled (not the batch): still let a save under way end
                    with contextlib.suppress(BaseException):
                        await _wait_quietly(batch.task)
                    raise
            except Exception:
                pass
            batch = batch.previous
        if raise_failure and self._failure is not None:
            raise self._failure

    async def _save(
        self, changed: dict[str, str], removed: set[str], *, release: bool, live: bool = False
    ) -> None:
        """Save a delta with its audit entry. ``live``: the live state still holds exactly
        ``changed`` (called right after ``delta()``), so the entry reads its values."""
        limits = self._limits()
        tools = list(self.tools)  # the tools this save covers (more may run meanwhile)
        entry = self._audit_entry(changed, removed, limits, tools, live=live)
        expected = self.version
        try:
            await self._store(changed, removed, release=release, limits=limits)
        except BaseException:
            if entry is not None and self.version == expected:  # not saved: not audited
                audit = self.data.audit
                if audit and audit[-1] is entry:
                    audit.pop()
            raise
        self._baseline = None
        del self.tools[: len(tools)]
        self.audit_kind = "run"
        self.audit_schema = None

    def _audit_entry(
        self,
        changed: dict[str, str],
        removed: set[str],
        limits: StateLimits,
        tools: list[str],
        *,
        live: bool,
    ) -> str | None:
        """Append the audit entry of a save that changes the state (from the texts at hand)."""
        if not changed and not removed:
            return None
        keys = self.tracker.keys
        baseline = self._baseline if self.version == 0 else None
        if baseline is not None:  # created now: the change is from the defaults
            touched = baseline.keys() | changed.keys()
            old = {k: baseline.get(k) for k in touched}
            new: dict[str, str | None] = {k: changed.get(k) for k in touched}
        else:
            old = {k: keys.saved_text(k) for k in (*changed, *removed)}
            new = {**changed, **dict.fromkeys(removed)}
        entry = build_entry(
            version=self.version + 1,  # every save adds exactly one version
            kind=self.audit_kind,
            old=old,
            new=new,
            max_entry_bytes=limits.audit_bytes // 4,
            user_id=self.user_id,
            origin=self.origin,
            run_id=self.run_id,
            tools=tools,
            created=baseline is not None,
            schema_versions=self.audit_schema,
            # read without marking: dict's own method, not the tracked dict's
            new_values={k: dict.__getitem__(self.tracker.state, k) for k in changed}
            if live
            else None,
        ).stored()
        text = self.data.add_audit(entry)
        self._data_changed = True
        return text

    async def _store(
        self, changed: dict[str, str], removed: set[str], *, release: bool, limits: StateLimits
    ) -> None:
        data = self.data.encode(limits) if self._data_changed else None
        with observe("store_call", op="save"):
            save = asyncio.ensure_future(
                self.db.asave(
                    self.session_id,
                    expected_version=self.version,
                    changed=changed,
                    removed=removed,
                    meta=self.meta,
                    lease=self.lease,
                    data=data,
                    release=release,
                )
            )
            try:
                try:
                    version = await asyncio.shield(save)
                except asyncio.CancelledError:
                    with contextlib.suppress(Exception):
                        self._saved(await save, changed, removed, data)
                    raise
            except Exception as exc:
                self._failure = exc
                raise
        self._saved(version, changed, removed, data)

    def _saved(
        self, version: int, changed: dict[str, str], removed: set[str], data: str | None
    ) -> None:
        self.version = version
        self.tracker.mark_saved(changed, removed)
        if data is not None:
            self._data_text = data
            self._data_changed = False

    def _limits(self) -> StateLimits:
        limits = getattr(self.db, "limits", None)
        return limits if isinstance(limits, StateLimits) else StateLimits()

    # -- the per-process cache ----------------------------------------------------------
    def cache_entry(self, cache: SessionCache) -> CachedSession | None:
        """The session as the store now holds it, when that is exactly the live state.

        Called once, when the run is over. The live dict goes into the entry as it is
        when nothing but the tracker holds it; else (a tool or view kept it) its
        reusable values move to a new dict and it is emptied, so the holder reaches
        nothing the next run uses. Either way the tracker is left an empty dict.
        """
        if self._failure is not None or self._data_changed or self.version <= 0:
            return None
        if self._pending is not None:
            return None
        changed, removed = self.tracker.delta()
        if changed or removed:
            return None
        tracker = self.tracker
        stale = tracker.stale_keys() if self._exact_start else None
        state: TrackedState | None = None
        if stale is not None:
            # checked before this frame binds the dict: only the tracker may hold it
            if held_only_by(tracker):
                state = tracker.state
                for key in TRANSIENT_KEYS:
                    dict.pop(state, key, None)
            else:
                cache.copies += 1
                state = TrackedState()
                dict.update(
                    state,
                    (
                        (k, v)
                        for k, v in dict.items(tracker.state)
                        if k not in stale and k not in TRANSIENT_KEYS
                    ),
                )
                # the run is over: a holder of the live dict must not reach reused values
                dict.clear(tracker.state)
        tracker.state = TrackedState()
        self._exact_start = False
        return CachedSession(
            known=_saved_identity(self),
            texts=tracker.keys.texts,
            state=state,
            stale=stale if stale is not None else set(tracker.keys.texts),
            data=self._data_text,
            owner_id=self.meta.owner_id,
            size=tracker.keys.size,
            shared=tracker.keys.shared,
        )


class _BatchSave:
    """A tool batch's save: waiting out the grace period, or ``started``."""

    __slots__ = ("previous", "started", "task")

    def __init__(self) -> None:
        self.started = False
        self.task: asyncio.Future[None]
        self.previous: _BatchSave | None = None


async def _wait_quietly(task: asyncio.Future[None]) -> None:
    """Wait until ``task`` is done, whatever it raises."""
    await asyncio.wait([task])


def _saved_identity(handle: SessionHandle) -> KnownVersion:
    """What the store holds after this run's last save (or load), for the cache.

    A save under the lease records what it wrote (``lease.saved``: version, save id
    and, on Redis, the epoch), so the next run can ask the store "still exactly
    that?" without reading the state. A store that does not record it leaves the
    identity without a save id: the store then answers with the whole record and
    :func:`_reusable` compares the texts themselves before reusing anything.
    """
    saved = handle.lease.saved
    if saved is not None and saved.version == handle.version:
        return saved
    if handle.loaded is not None and handle.loaded.version == handle.version:
        return handle.loaded
    return KnownVersion(handle.version, "", handle.epoch)


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
        # one store call takes the lease and loads (or finds the cached copy current)
        with observe("store_call", op="load"):
            opened = await stack.enter_async_context(
                db.open_run(session_id, known=cached.known if cached else None)
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
        known: KnownVersion | None = KnownVersion.of(record) if record is not None else reused.known
        size = reused.size
    else:
        texts = dict(record.texts) if record is not None else {}
        version = record.version if record is not None else 0
        data = record.data if record is not None else ""
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
    handle = SessionHandle(
        db,
        session_id=session_id,
        user_id=user_id,
        run_id=run_id,
        meta=meta,
        lease=opened.lease,
        version=version,
        tracker=tracker,
        data_text=data,
        epoch=known.epoch if known is not None else "",
    )
    handle.loaded = known
    handle._exact_start = exact
    if not exists:
        handle._baseline = dict(tracker.keys.texts)
    return handle


def _reusable(cached: CachedSession | None, record: SessionRecord | None) -> CachedSession | None:
    """The cached session when ``record`` (loaded in full) holds exactly its texts."""
    if cached is None or record is None or record.version != cached.known.version:
        return None
    if record.texts != cached.texts:  # compares text by text, far cheaper than decoding
        return None
    cached.data = record.data
    cached.owner_id = record.owner_id
    return cached
