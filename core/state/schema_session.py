"""A typed session for one run: version check, lazy migration, run argument, and the checks.

:func:`typed_session` wraps :func:`core.state.session.open_session` for an owner with a
``session_state_schema``. Under the session's lease, right after the load and before
anything runs:

1. a stored schema version newer than the code's refuses the run
   (:class:`~core.exceptions.SchemaVersionError`), nothing changed;
2. an older one (no version counts as 1) is migrated on a private copy, checked whole,
   and only then made the live state: a migration that raises or gives a state that
   does not fit refuses the run (:class:`~core.exceptions.StateMigrationError`),
   nothing changed. The migrated state and the new version are then saved at once, as
   their own version audited as ``migrate`` (naming the schema versions from and to),
   so the trail tells a migration from the run's own changes and a restore knows which
   schema an older version is in. A dry run (:func:`migration_not_saved`) skips that
   save;
3. the run's ``session_state=`` argument is merged (after the migration: it is written
   against the code's schema) and its keys checked; one that does not fit refuses the
   run (:class:`~core.exceptions.StateSchemaError`) before anything is stored.

For the rest of the block the schema is *bound* to the session (a context variable,
so a team's members and a workflow's steps, which run on the same session, are checked
against the schema of the owner that opened it): :func:`schema_for` gives it to the
tool-call path, which checks each call's changes.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator, Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

from core.db import codec
from core.db.values import TRANSIENT_KEYS
from core.exceptions import SchemaVersionError, StateSchemaError
from core.state.checkpoints import Checkpoint
from core.state.merge import deep_merge
from core.state.schema import StateSchema
from core.state.session import SessionHandle


class SchemaBinding:
    """The schema of an open session, and what opening it did (for ``state migrate``)."""

    __slots__ = ("migrated_from", "schema", "session_id", "stored_texts")

    def __init__(self, session_id: str, schema: StateSchema) -> None:
        self.session_id = session_id
        self.schema = schema
        #: the stored schema version a migration started from (None: none ran)
        self.migrated_from: int | None = None
        #: the key texts as loaded, before the migration (None: none ran)
        self.stored_texts: dict[str, str] | None = None


#: session id -> binding, for the sessions open in this context (a run may open another
#: session inside its own, e.g. a tool running another agent)
_BOUND: ContextVar[Mapping[str, SchemaBinding]] = ContextVar(
    "statebot_state_schemas", default=MappingProxyType({})
)


#: set while a dry run opens sessions: the migration is computed, never saved
_NOT_SAVED: ContextVar[bool] = ContextVar("statebot_migration_not_saved", default=False)


@contextlib.contextmanager
def migration_not_saved() -> Iterator[None]:
    """Sessions opened in this block are migrated in memory only (``state migrate --dry-run``)."""
    token = _NOT_SAVED.set(True)
    try:
        yield
    finally:
        _NOT_SAVED.reset(token)


def binding_for(handle: SessionHandle) -> SchemaBinding | None:
    """The binding of the session ``handle`` runs on, if its owner has a schema."""
    return _BOUND.get().get(handle.session_id)


def schema_for(handle: SessionHandle) -> StateSchema | None:
    """The schema every change of this session must fit (None: untyped)."""
    bound = binding_for(handle)
    return bound.schema if bound is not None else None


def checked_checkpoint(handle: SessionHandle) -> Checkpoint:
    """A checkpoint of the live state after code changed it, checked against the schema.

    Only the keys that code may have changed are checked (the tracker's suspects, a
    superset). Raises StateValueError (not JSON) or StateSchemaError (does not fit):
    the caller rolls back to its checkpoint before the change.
    """
    suspects = handle.tracker.state.suspects()
    changed = None if suspects is None else set(suspects)
    after = handle.tracker.checkpoint()
    schema = schema_for(handle)
    if schema is not None and changed != set():
        schema.check_texts(handle.tracker.keys.texts, changed)
    return after


@contextlib.asynccontextmanager
async def typed_session(
    opened: contextlib.AbstractAsyncContextManager[SessionHandle],
    schema: StateSchema,
    run_state: Mapping[str, Any] | None,
    *,
    overwrite: bool,
) -> AsyncIterator[SessionHandle]:
    """``opened`` (a session opened without the run argument) made to fit ``schema``."""
    if run_state is not None:
        codec.encode_state(dict(run_state))  # not JSON: refused before anything is touched
    async with opened as handle:
        binding = SchemaBinding(handle.session_id, schema)
        if handle.version > 0:
            _migrate(handle, schema, binding)
        if binding.migrated_from is not None and not _NOT_SAVED.get():
            await _save_migration(handle, binding.migrated_from, schema.version)
        if run_state is not None:
            _apply_run_state(handle, schema, run_state, overwrite=overwrite)
        handle.set_schema_version(schema.version)
        handle.set_counters(schema.counters)
        token = _BOUND.set({**_BOUND.get(), handle.session_id: binding})
        try:
            yield handle
        finally:
            _BOUND.reset(token)


def stored_version(handle: SessionHandle) -> int:
    """The schema version of the state as loaded (a state saved without one is version 1)."""
    return handle.data.schema_version or 1


def _migrate(handle: SessionHandle, schema: StateSchema, binding: SchemaBinding) -> None:
    stored = stored_version(handle)
    if stored > schema.version:
        raise SchemaVersionError(handle.session_id, stored, schema.version, schema.name)
    if stored == schema.version:
        return
    texts = dict(handle.tracker.keys.texts)
    migrated = schema.migrate(codec.decode_state(texts), stored, session_id=handle.session_id)
    live = handle.state  # the tracker now re-checks every key it is given
    for key in [k for k in dict.keys(live) if k not in TRANSIENT_KEYS and k not in migrated]:
        del live[key]
    for key, value in migrated.items():
        if key not in TRANSIENT_KEYS:
            live[key] = value
    handle.tracker.checkpoint()
    binding.migrated_from = stored
    binding.stored_texts = texts


async def _save_migration(handle: SessionHandle, from_version: int, to_version: int) -> None:
    """Save the migrated state now, under the lease, audited as ``migrate``."""
    handle.set_schema_version(to_version)
    handle.audit_kind = "migrate"
    handle.audit_schema = (from_version, to_version)
    try:
        await handle.persist()
    finally:
        handle.audit_kind = "run"  # the run's own saves are audited as the run's
        handle.audit_schema = None


def _apply_run_state(
    handle: SessionHandle,
    schema: StateSchema,
    run_state: Mapping[str, Any],
    *,
    overwrite: bool,
) -> None:
    """Run argument over the state as stored (the precedence of open_session), checked."""
    live = handle.state
    keys: set[str] | None
    if overwrite:
        for key in [k for k in dict.keys(live) if k not in TRANSIENT_KEYS]:
            del live[key]
        keys = None
    else:
        keys = set()
    for key, value in run_state.items():
        if key in TRANSIENT_KEYS:
            continue
        current = dict.get(live, key)
        if not overwrite and isinstance(value, Mapping) and isinstance(current, dict):
            live[key] = deep_merge(current, value)
        else:
            live[key] = copy.deepcopy(value)
        if keys is not None:
            keys.add(key)
    handle.tracker.checkpoint()
    try:
        schema.check_texts(handle.tracker.keys.texts, keys)
    except StateSchemaError as exc:
        raise StateSchemaError(
            schema.name,
            [
                (path, f"{message} (in the run's session_state argument; the run was refused)")
                for path, message in exc.errors
            ],
            exc.key,
        ) from None
