"""/memory: what the bot remembers about the caller, forgetting one, admins listing a user's."""

from __future__ import annotations

from structlog.testing import capture_logs

from bots.adapters.console.session import ConsoleSession
from core.db.in_memory import InMemoryDb
from core.db.records import UserMemory
from core.governance.erasure import erase_user
from core.governance.user_export import export_user
from tests.bots.conftest import ServiceFactory, command

ANN, BOB = "slack:T1:UANN", "slack:T1:UBOB"


async def remember(db: InMemoryDb, user_id: str, *facts: str) -> None:
    for n, fact in enumerate(facts):
        await db.aadd_memory(UserMemory(f"{user_id[-3:]}{n}", user_id, fact, created_at=n))


async def test_each_user_lists_and_forgets_their_own(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """/memory lists the caller's memories only, numbered; /memory forget N deletes one."""
    service = make_service(None)
    await remember(db, ANN, "Prefers tea.", "Works on billing.")
    await remember(db, BOB, "Likes jazz.")
    listed = await service.handle_command(command("memory", "", user="UANN"))
    assert listed.ephemeral
    assert "1. Prefers tea.\n2. Works on billing." in listed.text and "jazz" not in listed.text
    gone = await service.handle_command(command("memory", "forget 2", user="UANN"))
    assert gone.text == "Forgotten: Works on billing."
    assert [m.memory for m in await db.aget_memories(ANN)] == ["Prefers tea."]
    missing = await service.handle_command(command("memory", "forget 5", user="UANN"))
    assert "Nothing was forgotten" in missing.text
    assert [m.memory for m in await db.aget_memories(BOB)] == ["Likes jazz."]
    empty = await service.handle_command(command("memory", "", user="UNEW"))
    assert empty.text == "Nothing is remembered about you."


async def test_only_admins_list_another_users_memories(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """/memory @user is refused to others and logged for admins."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    await remember(db, BOB, "Likes jazz.")
    refused = await service.handle_command(command("memory", "<@UBOB>", user="UANN"))
    assert "Only admins" in refused.text and "jazz" not in refused.text
    with capture_logs() as logs:
        listed = await service.handle_command(command("memory", "<@UBOB>", user="UADMIN"))
    assert "1. Likes jazz." in listed.text and BOB in listed.text
    used = [e for e in logs if e["event"] == "admin_command"]
    assert used and used[0]["target_user"] == BOB and used[0]["action"] == "memory"


async def test_console_lists_and_forgets(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """The console's /memory goes through the same command path."""
    console = ConsoleSession(make_service(None), agent_id="taskboard", session="t", user="ann")
    await remember(db, "console:local:ann", "Prefers tea.")
    listed = (await console.handle_line("/memory")).text or ""
    assert "1. Prefers tea." in listed
    assert (await console.handle_line("/memory forget 1")).text == "Forgotten: Prefers tea."
    assert await db.aget_memories("console:local:ann") == []


async def test_memories_are_exported_and_erased_with_the_user(db: InMemoryDb) -> None:
    """A user's export holds their memories; erasure deletes them (a second pass finds none)."""
    await remember(db, ANN, "Prefers tea.")
    exported = await export_user(db, ANN)
    assert [m["memory"] for m in exported["memories"]] == ["Prefers tea."]
    report = await erase_user(db, ANN)
    assert report.complete and report.memories_deleted == 1
    assert await db.aget_memories(ANN) == []
    assert (await export_user(db, ANN))["memories"] == []
