"""The audit entry a save hands to the session's data: the change from the texts at hand.

Each save that changes the state gets one entry (:func:`core.state.audit.build_entry`),
built from what the save already holds: the texts it writes and, for the keys it
touches, the texts the store holds. A new session's first save is the change from its
starting texts (the defaults merged with the run's argument), not from nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from core.state.audit import build_entry
from core.state.checkpoints import KeyTexts

__all__ = ["save_entry"]


def save_entry(
    keys: KeyTexts,
    changed: Mapping[str, str],
    removed: Collection[str],
    *,
    version: int,
    baseline: Mapping[str, str] | None,
    live_state: dict[str, object] | None,
    kind: str,
    user_id: str | None,
    origin: Mapping[str, object],
    run_id: str,
    tools: Sequence[str],
    schema_versions: tuple[int, int] | None,
    max_entry_bytes: int,
) -> dict[str, object]:
    """The stored entry of a save from ``version`` writing ``changed`` and ``removed``.

    ``baseline``: a new session's starting texts (None once it is stored);
    ``live_state``: the live dict when it still holds exactly ``changed`` (its values
    spare decoding the texts), else None.
    """
    if baseline is not None:  # created now: the change is from the defaults
        touched = baseline.keys() | changed.keys()
        old = {k: baseline.get(k) for k in touched}
        new: dict[str, str | None] = {k: changed.get(k) for k in touched}
    else:
        old = {k: keys.saved_text(k) for k in (*changed, *removed)}
        new = {**changed, **dict.fromkeys(removed)}
    return build_entry(
        version=version + 1,  # every save adds exactly one version
        kind=kind,
        old=old,
        new=new,
        max_entry_bytes=max_entry_bytes,
        user_id=user_id,
        origin=origin,
        run_id=run_id,
        tools=tools,
        created=baseline is not None,
        schema_versions=schema_versions,
        # read without marking: dict's own method, not the tracked dict's
        new_values={k: dict.__getitem__(live_state, k) for k in changed}
        if live_state is not None
        else None,
    ).stored()
