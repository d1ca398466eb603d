"""Chat undo of a change made before a schema migration: refused, saying why."""

from __future__ import annotations

from bots.chat.undo import undo_reply
from core.db.in_memory import InMemoryDb
from core.governance.migrate import migrate_session
from tests.core.test_schema_migrations import stored, v1_agent, v2_agent

ANA = "slack:T1:UANA"


async def test_undo_across_a_migration_answers_with_the_reason() -> None:
    """/<agent> undo after a migration changes nothing and points to an admin restore."""
    db = InMemoryDb()
    await v1_agent(db).arun_tool("add_item", {"name": "milk"}, session_id="s", user_id=ANA)
    await migrate_session(v2_agent(db), "s")
    before = await stored(db, "s")
    reply = await undo_reply(db, "s", ANA, origin={}, platform="slack", workspace="T1")
    assert reply.ephemeral
    assert "migrated from schema version 1 to 2" in reply.text
    assert "Nothing was changed" in reply.text and "/state restore" in reply.text
    assert await stored(db, "s") == before
