"""Handing a finished run's session back to the per-process cache (:mod:`core.state.cache`).

When a run ends with the store holding exactly its live state, the next run of the
session in this process may start from it without loading, decoding or copying. The
live dict goes into the cache entry as it is when only the run's tracker holds it;
else (a tool or view kept it) its reusable values move to a new dict and it is
emptied, so the holder reaches nothing the next run uses.
"""

from __future__ import annotations

from core.db.records import KnownVersion, Lease
from core.db.values import TRANSIENT_KEYS
from core.run.history import RunRecord
from core.run.pieces import DataPieces
from core.state.cache import CachedSession, SessionCache, held_only_by
from core.state.tracked import TrackedState
from core.state.tracker import StateTracker

__all__ = ["cached_session", "saved_identity"]


def cached_session(
    tracker: StateTracker,
    cache: SessionCache,
    *,
    exact_start: bool,
    known: KnownVersion,
    data: str,
    pieces: DataPieces[RunRecord] | None,
    owner_id: str | None,
) -> CachedSession | None:
    """The cache entry of a saved session (None when the live state has unsaved changes).

    ``exact_start``: the live dict started as exactly the stored texts decoded, so the
    values no code touched may be reused. ``pieces``: what ``data`` was made of, if
    known. The tracker is left an empty dict.
    """
    changed, removed = tracker.delta()
    if changed or removed:
        return None
    stale = tracker.stale_keys() if exact_start else None
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
    return CachedSession(
        known=known,
        texts=tracker.keys.texts,
        state=state,
        stale=stale if stale is not None else set(tracker.keys.texts),
        data=data,
        owner_id=owner_id,
        size=tracker.keys.size + (pieces.size if pieces is not None else 0),
        shared=tracker.keys.shared,
        pieces=pieces if pieces is not None and pieces.text is data else None,
    )


def saved_identity(
    lease: Lease, loaded: KnownVersion | None, version: int, epoch: str
) -> KnownVersion:
    """What the store holds after a run's last save (or load), for the cache.

    A save under the lease records what it wrote (``lease.saved``: version, save id
    and, on Redis, the epoch), so the next run can ask the store "still exactly
    that?" without reading the state. A store that does not record it leaves the
    identity without a save id: the store then answers with the whole record and
    the opening compares the texts themselves before reusing anything.
    """
    saved = lease.saved
    if saved is not None and saved.version == version:
        return saved
    if loaded is not None and loaded.version == version:
        return loaded
    return KnownVersion(version, "", epoch)
