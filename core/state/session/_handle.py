"""SessionHandle: one run's hold on an open session — its live state, its data, its saves.

The live state tracks the top-level keys code may have changed
(:mod:`core.state.tracked`), so a save encodes and sends only those, with one audit
entry (:mod:`core.state.session._audit_handoff`). The run's last save also gives the
lease back (:meth:`SessionHandle.persist_final`). A tool batch's changes are saved
before the run waits on anything slow (:meth:`SessionHandle.persist_soon`, timed by
:mod:`core.state.session._batches`). Nothing is saved after the run's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.db.base import BaseDb
from core.db.limits import StateLimits, limits_of
from core.db.records import KnownVersion, Lease, SessionMeta
from core.exceptions import RunTimeoutError
from core.run.history import RunRecord, SessionData, bounded_summary
from core.run.pieces import DataPieces, parts_of
from core.run.run_input import RunMedia
from core.state.cache import CachedSession, SessionCache
from core.state.checkpoints import StateTexts
from core.state.session._audit_handoff import save_entry
from core.state.session._batches import BATCH_SAVE_GRACE, BatchSave, settle_chain
from core.state.session._caching import cached_session, saved_identity
from core.state.tracker import StateTracker
from core.utils.observe import observe

__all__ = ["SessionHandle"]


class SessionHandle:
    """The live state of a session during one run, and how to persist it."""

    __slots__ = (
        "_baseline",
        "_data",
        "_data_edits",
        "_data_saved",
        "_data_text",
        "_exact_start",
        "_failure",
        "_pending",
        "_pieces",
        "audit_kind",
        "audit_schema",
        "db",
        "deadline",
        "epoch",
        "lease",
        "loaded",
        "media",
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
        data_pieces: DataPieces[RunRecord] | None = None,
        epoch: str = "",
        loaded: KnownVersion | None = None,
        exact_start: bool = False,
        baseline: dict[str, str] | None = None,
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
        self.loaded = loaded
        #: ``time.monotonic()`` past which nothing is saved (set by the run's deadline)
        self.deadline: float | None = None
        self.run_timeout: float | None = None
        #: the run's metadata: which chat event (platform, event id) asked for the run
        self.origin: Mapping[str, Any] = {}
        #: the images and files the run was given (``images=`` / ``files=``)
        self.media = RunMedia()
        #: tools whose changes to the state were kept since the last save, in call order
        self.tools: list[str] = []
        #: the kind the next save's audit entry records ("run"; a lazy migration may say
        #: "migrate"); back to "run" after each save
        self.audit_kind = "run"
        #: a "migrate" save's schema versions (from, to); None after each save
        self.audit_schema: tuple[int, int] | None = None
        self._data_text = data_text
        self._data: SessionData | None = None  # decoded on first use only
        #: the pieces this process encoded ``_data_text`` from: reused, not decoded again
        self._pieces = data_pieces
        #: data changes made, and how many the store holds (a save covers those before it)
        self._data_edits = self._data_saved = 0
        #: the last tool batch's save (persist_soon), waiting or under way
        self._pending: BatchSave | None = None
        #: the first save that failed: the state is no longer known to match the store
        self._failure: BaseException | None = None
        #: the live dict is the stored texts decoded, nothing merged: the next run may reuse it
        self._exact_start = exact_start
        #: a new session's starting texts (defaults merged with the run's argument): its
        #: first save's audit entry is the change from them (None once saved, or stored)
        self._baseline = baseline

    @property
    def data(self) -> SessionData:
        """The session's run history and name (decoded on first use)."""
        if self._data is None:
            self._data = SessionData.of(self._data_text, self._pieces)
        return self._data

    def set_name(self, name: str | None) -> None:
        """Name the session; saved with the next persist."""
        self.data.name = name
        self._data_edits += 1

    def change_data(self, change: Callable[[SessionData], None]) -> None:
        """Apply ``change`` to the session's data (runs, name, a program's keys); saved
        with the next persist, within the data's bounds."""
        change(self.data)
        self._data_edits += 1

    def set_schema_version(self, version: int | None) -> None:
        """Record the schema version the live state is now in; saved with the next persist."""
        if self.data.schema_version != version:
            self.data.schema_version = version
            self._data_edits += 1

    def set_counters(self, keys: Sequence[str]) -> None:
        """Record the owner's counter keys (they only grow); saved with the next persist."""
        if self.data.counters != list(keys):
            self.data.counters = list(keys)
            self._data_edits += 1

    def set_summary(self, summary: Mapping[str, Any] | None) -> None:
        """Replace the session's summary (bounded); saved with the next persist."""
        self.data.summary = bounded_summary(summary)
        self._data_edits += 1

    def record_run(self, run: RunRecord) -> None:
        """Add (or replace, by run id) a run in the history; saved with the next persist."""
        self.data.upsert(run)
        self._data_edits += 1

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
        if self._nothing_to_save(changed, removed):
            return
        # nothing ran since delta(): the live values are exactly the changed texts
        await self._save(changed, removed, release=release, live=True)

    def _nothing_to_save(self, changed: dict[str, str], removed: set[str]) -> bool:
        return not (changed or removed or self._data_edits != self._data_saved) and self.version > 0

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
        if self._nothing_to_save(changed, removed):
            return
        batch = BatchSave()
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
        batch: BatchSave,
        grace: float,
        previous: BatchSave | None,
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
        await settle_chain(batch)
        if raise_failure and self._failure is not None:
            raise self._failure

    async def _save(
        self, changed: dict[str, str], removed: set[str], *, release: bool, live: bool = False
    ) -> None:
        """Save a delta with its audit entry. ``live``: the live state still holds exactly
        ``changed`` (called right after ``delta()``), so the entry reads its values."""
        limits = limits_of(self.db)
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
        entry = save_entry(
            self.tracker.keys,
            changed,
            removed,
            version=self.version,
            baseline=self._baseline if self.version == 0 else None,
            live_state=self.tracker.state if live else None,
            kind=self.audit_kind,
            user_id=self.user_id,
            origin=self.origin,
            run_id=self.run_id,
            tools=tools,
            schema_versions=self.audit_schema,
            max_entry_bytes=limits.audit_bytes // 4,
        )
        text = self.data.add_audit(entry)
        self._data_edits += 1
        return text

    async def _store(
        self, changed: dict[str, str], removed: set[str], *, release: bool, limits: StateLimits
    ) -> None:
        data = self.data.encode(limits) if self._data_edits != self._data_saved else None
        # taken now, as the data may change while the save is under way; the parts are
        # what a store that appends sends (core.db.data_parts), from what it holds
        parts, pieces = parts_of(self.data.pieces(data), self._pieces) if data else (None, None)
        sent = None if data is None else (data, pieces, self._data_edits)
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
                    data_parts=parts,
                    release=release,
                )
            )
            try:
                try:
                    version = await asyncio.shield(save)
                except asyncio.CancelledError:
                    with contextlib.suppress(Exception):
                        self._saved(await save, changed, removed, sent)
                    raise
            except Exception as exc:
                self._failure = exc
                raise
        self._saved(version, changed, removed, sent)

    def _saved(
        self,
        version: int,
        changed: dict[str, str],
        removed: set[str],
        sent: tuple[str, DataPieces[RunRecord] | None, int] | None,
    ) -> None:
        """Record a save; ``sent``: the data it wrote, its pieces, the data changes it covers."""
        self.version = version
        self.tracker.mark_saved(changed, removed)
        if sent is not None:
            self._data_text, self._pieces, self._data_saved = sent

    # -- the per-process cache ----------------------------------------------------------
    def cache_entry(self, cache: SessionCache) -> CachedSession | None:
        """The session as the store now holds it, when that is exactly the live state.

        Called once, when the run is over (:mod:`core.state.session._caching`); when it
        gives an entry, the tracker is left an empty dict.
        """
        if self._failure is not None or self._data_edits != self._data_saved or self.version <= 0:
            return None
        if self._pending is not None:
            return None
        entry = cached_session(
            self.tracker,
            cache,
            exact_start=self._exact_start,
            known=saved_identity(self.lease, self.loaded, self.version, self.epoch),
            data=self._data_text,
            pieces=self._pieces,
            owner_id=self.meta.owner_id,
        )
        if entry is not None:
            self._exact_start = False
        return entry
