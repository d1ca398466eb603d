"""/state restore and /state erase: a Confirm / Cancel question, applied once by an admin."""

from __future__ import annotations

import asyncio

from structlog.testing import capture_logs

from bots.chat.approvals import Approval, Decision
from bots.chat.service import ChatService
from core.db.in_memory import InMemoryDb
from tests.bots.conftest import ServiceFactory, command

CHANNEL_SESSION = "slack:T1:C1"
ADMIN = "U0ADMIN01"
ADMINS = {f"slack:T1:{ADMIN}"}


async def _titles(db: InMemoryDb, session_id: str = CHANNEL_SESSION) -> list[str]:
    record = await db.aload(session_id)
    return [] if record is None else [t["title"] for t in record.state.get("tasks", [])]


def _click(
    approval: Approval, user: str, *, approve: bool = True, workspace: str = "T1"
) -> Decision:
    return Decision("slack", workspace, user, approve, approval, event_id="click-1")


async def _two_versions(service: ChatService) -> None:
    await service.handle_command(command("taskboard", "add One"))
    await service.handle_command(command("taskboard", "add Two"))


async def test_restore_asks_first_with_confirm_and_cancel(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """`/state restore v1` changes nothing yet: a private question with Confirm / Cancel."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    reply = await service.handle_command(command("state", "restore v1", user=ADMIN))
    assert reply.ephemeral and reply.approval is not None
    assert reply.approval.labels == ("Confirm", "Cancel")
    assert "v1" in reply.text and "v2" in reply.text
    assert Approval.decode(reply.approval.encode()) == reply.approval
    assert await _titles(db) == ["One", "Two"]


async def test_confirm_restores_once_and_a_second_click_says_so(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Confirm restores v1 as a new version; the same button again restores nothing more."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    asked = await service.handle_command(command("state", "restore v1", user=ADMIN))
    assert asked.approval is not None
    with capture_logs() as logs:
        done = await service.handle_decision(_click(asked.approval, ADMIN))
    assert done.ephemeral and "Restored" in done.text and "saved as v3" in done.text
    assert await _titles(db) == ["One"]
    assert any(e["event"] == "admin_command" and e["action"] == "restore" for e in logs)
    again = await service.handle_decision(_click(asked.approval, ADMIN))
    assert "Already done" in again.text and "v3" in again.text
    record = await db.aload(CHANNEL_SESSION)
    assert record is not None and record.version == 3


async def test_restore_refused_when_the_session_changed_since_the_question(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A change saved after the question makes Confirm do nothing, and say why."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    asked = await service.handle_command(command("state", "restore v1", user=ADMIN))
    await service.handle_command(command("taskboard", "add Three"))
    assert asked.approval is not None
    reply = await service.handle_decision(_click(asked.approval, ADMIN))
    assert "Not restored" in reply.text and "nothing was done" in reply.text
    assert await _titles(db) == ["One", "Two", "Three"]


async def test_non_admin_click_and_cancel_change_nothing(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A non-admin's Confirm is refused and logged; an admin's Cancel does nothing."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    asked = await service.handle_command(command("state", "restore v1", user=ADMIN))
    assert asked.approval is not None
    with capture_logs() as logs:
        refused = await service.handle_decision(_click(asked.approval, "U0MALLORY"))
    assert refused.ephemeral and "Only an admin" in refused.text
    assert any(e["event"] == "admin_confirm_refused" for e in logs)
    cancelled = await service.handle_decision(_click(asked.approval, ADMIN, approve=False))
    assert cancelled.ephemeral and "Cancelled" in cancelled.text
    assert await _titles(db) == ["One", "Two"]


async def test_admin_of_another_workspace_cannot_confirm(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """An admin pinned to T2 clicking a T1 question is refused: grants decide, not the card."""
    service = make_service(None, statebot_admin_ids=ADMINS | {f"slack:T2:{ADMIN}"})
    await _two_versions(service)
    asked = await service.handle_command(command("state", "restore v1", user=ADMIN))
    assert asked.approval is not None
    reply = await service.handle_decision(_click(asked.approval, ADMIN, workspace="T2"))
    assert "Only an admin" in reply.text
    assert await _titles(db) == ["One", "Two"]


async def test_restore_of_the_current_or_a_missing_session_is_said_plainly(
    make_service: ServiceFactory,
) -> None:
    """Restoring the current version, or in a session never saved, asks nothing."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    current = await service.handle_command(command("state", "restore v2", user=ADMIN))
    assert current.approval is None and "nothing to restore" in current.text
    empty = await service.handle_command(command("state", "restore v1", user=ADMIN, channel="C9"))
    assert empty.approval is None and "no stored state" in empty.text


async def test_non_admin_cannot_ask_for_restore_or_erase(make_service: ServiceFactory) -> None:
    """Restore and erase are admin actions: a non-admin is refused before any question."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    for text in ("restore v1", "erase <@U0BOB0001>"):
        reply = await service.handle_command(command("state", text, user="U0BOB0001"))
        assert reply.approval is None and "Only admins" in reply.text


async def test_erase_asks_then_removes_the_users_sessions(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """`/state erase <@U…>` asks; Confirm erases that user's own session and reports it."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await service.handle_command(command("taskboard", "add Mine", user="U0BOB0001", channel="C7"))
    assert await _titles(db, "slack:T1:C7") == ["Mine"]
    asked = await service.handle_command(command("state", "erase <@U0BOB0001>", user=ADMIN))
    assert asked.approval is not None and asked.approval.session_id == "slack:T1:U0BOB0001"
    assert "<@U0BOB0001>" in asked.text and await _titles(db, "slack:T1:C7") == ["Mine"]
    done = await service.handle_decision(_click(asked.approval, ADMIN))
    assert done.ephemeral and "Erased `slack:T1:U0BOB0001`" in done.text
    assert "1 own session deleted" in done.text
    assert await db.aload("slack:T1:C7") is None
    again = await service.handle_decision(_click(asked.approval, ADMIN))
    assert "nothing stored about them was found" in again.text


async def test_erase_by_name_gets_usage_and_erases_nothing(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A plain name is not an id: refused with usage, nothing asked, nothing erased."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await service.handle_command(command("taskboard", "add Mine", user="U0BOB0001"))
    reply = await service.handle_command(command("state", "erase bob", user=ADMIN))
    assert reply.approval is None and "usage: /state" in reply.text
    assert await _titles(db) == ["Mine"]


async def test_two_clicks_at_once_restore_once(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Two Confirm clicks landing together: one restores, the other restores nothing."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await _two_versions(service)
    asked = await service.handle_command(command("state", "restore v1", user=ADMIN))
    assert asked.approval is not None
    first, second = await asyncio.gather(
        service.handle_decision(_click(asked.approval, ADMIN)),
        service.handle_decision(_click(asked.approval, ADMIN)),
    )
    texts = sorted([first.text, second.text])
    assert sum(t.startswith("Restored") for t in texts) == 1
    assert any(t.startswith(("This is being applied", "Already done")) for t in texts)
    record = await db.aload(CHANNEL_SESSION)
    assert record is not None and record.version == 3
