"""Eager migration: bring an owner's stored sessions to the code's schema version now.

Each session is opened through the owner's own run path
(:meth:`~core.agent.owner.SessionOwner.open_run_session`): under its lease, loaded,
version-checked and migrated by the same code that migrates lazily when a run opens
it (:mod:`core.state.schema_session`). So eager and lazy give the same state by
construction, and the same save: one version audited as ``migrate`` naming the schema
versions from and to (history and snapshot see an ordinary save), while ``dry_run``
computes the change, shows it as an RFC 6902 patch, and gives the lease back without
writing anything.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import jsonpatch

from core.db import codec
from core.db.base import BaseDb
from core.exceptions import SchemaVersionError, StateMigrationError
from core.state.schema import StateSchema
from core.state.schema_session import binding_for, migration_not_saved
from core.state.session import SessionHandle

#: sessions one eager pass lists (the store lists most recently updated first)
DEFAULT_LIMIT = 100_000


class TypedOwner(Protocol):
    """What an eager migration needs of an agent, team or workflow."""

    id: str
    db: BaseDb
    state_schema: StateSchema | None

    def open_run_session(
        self,
        session_id: str | None,
        user_id: str | None,
        session_state: Mapping[str, Any] | None = None,
        *,
        run_id: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[SessionHandle]: ...


@dataclass(frozen=True, slots=True)
class SessionMigration:
    """What migrating one session did (or, on a dry run, would do)."""

    session_id: str
    #: the stored schema version migrated from; None: nothing to migrate (or refused)
    from_version: int | None
    to_version: int
    #: RFC 6902 operations turning the stored state into the migrated one
    patch: list[dict[str, Any]] = field(default_factory=list)
    #: the migrated state was saved (never on a dry run)
    written: bool = False
    #: why the session could not be migrated (it was left unchanged)
    error: str | None = None


def schema_of_owner(owner: TypedOwner) -> StateSchema:
    """The owner's schema; ValueError when it has none (nothing to migrate to)."""
    if owner.state_schema is None:
        raise ValueError(f"{owner.id!r} has no session_state_schema: there is nothing to migrate")
    return owner.state_schema


async def migrate_session(
    owner: TypedOwner, session_id: str, *, dry_run: bool = False
) -> SessionMigration:
    """Migrate one stored session under its lease (see the module docstring)."""
    schema = schema_of_owner(owner)
    skip_save = migration_not_saved() if dry_run else contextlib.nullcontext()
    try:
        with skip_save:
            return await _open_and_migrate(owner, schema, session_id, dry_run=dry_run)
    except (SchemaVersionError, StateMigrationError) as exc:
        return SessionMigration(session_id, None, schema.version, error=str(exc))


async def _open_and_migrate(
    owner: TypedOwner, schema: StateSchema, session_id: str, *, dry_run: bool
) -> SessionMigration:
    """Open the session through the run path (which migrates it, and saves unless a dry
    run), and tell what it did."""
    async with owner.open_run_session(session_id, None) as handle:
        binding = binding_for(handle)
        if handle.version == 0 or binding is None or binding.stored_texts is None:
            # absent (deleted since it was listed) or already current: write nothing
            return SessionMigration(session_id, None, schema.version)
        before = codec.decode_state(binding.stored_texts)
        after = codec.decode_state(dict(handle.tracker.keys.texts))
        patch = list(jsonpatch.make_patch(before, after).patch)
        return SessionMigration(
            session_id, binding.migrated_from, schema.version, patch, written=not dry_run
        )


async def migrate_sessions(
    owner: TypedOwner, *, dry_run: bool = False, limit: int = DEFAULT_LIMIT
) -> list[SessionMigration]:
    """Migrate every stored session of ``owner`` (one at a time, each under its lease)."""
    schema_of_owner(owner)
    records = await owner.db.alist_sessions(owner_id=owner.id, limit=limit)
    return [await migrate_session(owner, r.session_id, dry_run=dry_run) for r in records]
