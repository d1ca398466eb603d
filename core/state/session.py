"""One run's hold on a session: lock, load, resolve the state to use, save deltas.

Agents, teams and workflows all open sessions through :func:`open_session`, so the
precedence rules (run argument > stored > default; overwrite flag) and the persistence
points live in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from core.db.base import BaseDb, Lease, SessionMeta
from core.db.limits import StateLimits
from core.exceptions import RunTimeoutError
from core.run.history import RunRecord, SessionData
from core.state.merge import deep_merge
from core.state.tracker import StateTracker
from core.state.values import dump_state
from core.utils.observe import observe
from core.utils.observe import record as record_event


class SessionHandle:
    """The live state of a session during one run, and how to persist it."""

    __slots__ = (
        "_data",
        "_data_changed",
        "_data_text",
        "db",
        "deadline",
        "lease",
        "meta",
        "run_id",
        "run_timeout",
        "session_id",
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
    ) -> None:
        self.db = db
        self.session_id = session_id
        self.user_id = user_id
        self.run_id = run_id
        self.meta = meta
        self.lease = lease
        self.version = version
        self.tracker = tracker
        #: ``time.monotonic()`` past which nothing is saved (set by the run's deadline)
        self.deadline: float | None = None
        self.run_timeout: float | None = None
        self._data_text = data_text
        self._data: SessionData | None = None  # decoded on first use only
        self._data_changed = False

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

    def record_run(self, run: RunRecord) -> None:
        """Add (or replace, by run id) a run in the history; saved with the next persist."""
        self.data.upsert(run)
        self._data_changed = True

    @property
    def state(self) -> dict[str, Any]:
        """The live state dict, for code that may change it (the next save re-checks it)."""
        self.tracker.touched()
        return self.tracker.state

    async def persist(self) -> None:
        """Save the top-level keys that changed since the last save (nothing if none).

        Refused with RunTimeoutError once the run's deadline has passed. A save that
        started finishes even if the run is cancelled meanwhile, so whether it
        happened is always known.
        """
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise RunTimeoutError(self.run_timeout or 0.0, saved=False, what="the run")
        current = self.tracker.known_checkpoint()
        changed, removed = self.tracker.delta(current)
        if not changed and not removed and not self._data_changed and self.version > 0:
            return
        data = self.data.encode(self._limits()) if self._data_changed else None
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
                )
            )
            try:
                self.version = await asyncio.shield(save)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    self.version = await save
                    self.tracker.mark_saved(current)
                    self._data_changed = False
                raise
        self.tracker.mark_saved(current)
        self._data_changed = False

    def _limits(self) -> StateLimits:
        limits = getattr(self.db, "limits", None)
        return limits if isinstance(limits, StateLimits) else StateLimits()


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
    """Hold the session's run lock for the block and yield its live state."""
    if run_state is not None:
        dump_state(dict(run_state))  # a non-JSON argument fails before anything is touched
    waiting = time.perf_counter()
    async with db.session_lock(session_id) as lease:
        record_event("lease_wait", time.perf_counter() - waiting, store=type(db).__name__)
        with observe("store_call", op="load"):
            record = await db.aload(session_id)
        stored = record.state if record else None
        saved_json = dict(record.texts) if record else {}
        other_owner = record is not None and record.owner_id not in (None, meta.owner_id)
        state = resolve_state(
            stored, default, run_state, overwrite=overwrite, fill_missing=other_owner
        )
        # with nothing merged in, the state to use is the stored one: reuse its JSON
        unchanged = run_state is None and stored is not None and not other_owner
        current_json = saved_json if unchanged else None
        state["current_session_id"] = session_id
        state["current_user_id"] = user_id
        state["current_run_id"] = run_id
        yield SessionHandle(
            db,
            session_id=session_id,
            user_id=user_id,
            run_id=run_id,
            meta=meta,
            lease=lease,
            version=record.version if record else 0,
            tracker=StateTracker(state, saved_json, current_json),
            data_text=record.data if record else "",
        )
