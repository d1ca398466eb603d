"""Migrations in the audit trail, and restore / undo across a schema version (every store)."""

from __future__ import annotations

import dataclasses

import pytest

from core.db.base import BaseDb
from core.exceptions import RestoreSchemaError, UndoMigratedError
from core.governance.audit import audit_log, undo_last
from core.governance.migrate import migrate_session
from core.governance.sessions import restore_version
from core.state.audit import AuditEntry
from core.testing import ScriptedModel
from tests.core.schema_stores import db_fixture, services_fixture
from tests.core.test_schema_migrations import seed_v1, stored, v1_agent, v2_agent

__all__ = ["db_fixture", "services_fixture"]  # the fixtures, imported for pytest

ANA = "slack:T1:ANA"
MIGRATED = {"items": [{"name": "milk", "qty": 1}, {"name": "eggs", "qty": 1}], "count": 2}


async def migrate_entries(db: BaseDb, session_id: str) -> list[AuditEntry]:
    return [e for e in await audit_log(db, session_id, limit=50) if e.kind == "migrate"]


async def test_lazy_migration_is_saved_as_its_own_migrate_version(db: BaseDb) -> None:
    """A run opening an old session saves the migration first, audited as migrate 1 -> 2."""
    await seed_v1(db, "s")
    await v2_agent(db, ScriptedModel(["hello"])).arun("hi", session_id="s", user_id=ANA)
    [entry] = await migrate_entries(db, "s")
    assert entry.schema_versions == (1, 2) and entry.version == 3
    assert {op["path"] for op in entry.patch or ()} >= {"/count"}
    assert (await stored(db, "s"))[:2] == (MIGRATED, 2)


async def test_eager_migration_leaves_a_migrate_entry_too(db: BaseDb) -> None:
    """statebot state migrate's save is audited as migrate, naming schema versions 1 -> 2."""
    await seed_v1(db, "s")
    result = await migrate_session(v2_agent(db), "s")
    assert result.written
    [entry] = await migrate_entries(db, "s")
    assert entry.schema_versions == (1, 2)
    assert entry.to_dict()["schema_versions"] == [1, 2]


async def test_dry_run_leaves_no_migrate_entry(db: BaseDb) -> None:
    """A dry run writes nothing, so no migrate entry either."""
    await seed_v1(db, "s")
    await migrate_session(v2_agent(db), "s", dry_run=True)
    assert await migrate_entries(db, "s") == []


async def test_restore_before_a_migration_keeps_the_old_schema_version(db: BaseDb) -> None:
    """Restoring a pre-migration version labels it with the old schema; the next run migrates."""
    await seed_v1(db, "s")  # v1, v2 in schema 1
    await migrate_session(v2_agent(db), "s")  # v3: migrate 1 -> 2
    await restore_version(db, "s", 2, actor=ANA)
    state, schema_version, _ = await stored(db, "s")
    assert (state, schema_version) == ({"items": ["milk", "eggs"]}, 1)
    out = await v2_agent(db, ScriptedModel(["ok"])).arun("hi", session_id="s")
    assert out.session_state == MIGRATED
    assert (await stored(db, "s"))[1] == 2


async def test_restore_after_the_migration_keeps_the_current_schema(db: BaseDb) -> None:
    """A version saved after the migration is restored in the current schema version."""
    await seed_v1(db, "s")
    await migrate_session(v2_agent(db), "s")  # v3
    await v2_agent(db).aupdate_session_state({"count": 7}, session_id="s")  # v4
    await restore_version(db, "s", 3, actor=ANA)
    state, schema_version, _ = await stored(db, "s")
    assert (state, schema_version) == (MIGRATED, 2)


async def test_restore_beyond_the_trail_of_a_typed_session_is_refused(db: BaseDb) -> None:
    """When the trail no longer reaches the version, the restore is refused; nothing changed."""
    db.limits = dataclasses.replace(db.limits, max_audit_entries=2)  # type: ignore[attr-defined]
    await seed_v1(db, "s")  # v1, v2
    agent = v1_agent(db)
    for name in ("tea", "jam"):  # v3, v4: the entries of v1 and v2 are dropped
        await agent.arun_tool("add_item", {"name": name}, session_id="s")
    before = await stored(db, "s")
    with pytest.raises(RestoreSchemaError, match=r"to v1: the audit trail no longer"):
        await restore_version(db, "s", 1, actor=ANA)
    assert await stored(db, "s") == before
    await restore_version(db, "s", 2, actor=ANA)  # v3 is the oldest entry: covered
    assert (await stored(db, "s"))[:2] == ({"items": ["milk", "eggs"]}, 1)


async def test_undo_across_a_migration_is_refused(db: BaseDb) -> None:
    """An undo whose change predates a migration is refused, pointing to restore."""
    old = v1_agent(db)
    await old.arun_tool("add_item", {"name": "milk"}, session_id="s", user_id=ANA)
    await migrate_session(v2_agent(db), "s")
    before = await stored(db, "s")
    with pytest.raises(UndoMigratedError, match=r"migrated from schema version 1 to 2"):
        await undo_last(db, "s", ANA)
    assert await stored(db, "s") == before
