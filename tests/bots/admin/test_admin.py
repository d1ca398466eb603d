"""/state dump|reset|history: admins only, within their workspace, logged, ephemeral, redacted."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from structlog.testing import capture_logs

from bots.inbound import SlashCommand
from core.db.codec import encode_delta
from core.db.in_memory import InMemoryDb
from tests.bots.conftest import ServiceFactory, command

CHANNEL_SESSION = "slack:T1:C1"


@pytest.mark.parametrize("text", ["dump", "reset", "history", ""])
async def test_non_admin_is_refused_and_logged(
    make_service: ServiceFactory, db: InMemoryDb, text: str
) -> None:
    """A user not in STATEBOT_ADMIN_IDS is refused, the attempt logged, nothing changed."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    await service.handle_command(command("taskboard", "add Keep"))
    with capture_logs() as logs:
        reply = await service.handle_command(command("state", text, user="UMALLORY"))
    assert reply.ephemeral and "Only admins" in reply.text
    refused = [e for e in logs if e["event"] == "admin_command_refused"]
    assert refused and refused[0]["actor"] == "slack:T1:UMALLORY"
    assert refused[0]["log_level"] == "warning"
    assert await db.aload(CHANNEL_SESSION) is not None


async def test_display_name_lookalike_is_not_admin(make_service: ServiceFactory) -> None:
    """Admin ids match the immutable id only: another workspace's same id is refused."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    elsewhere = dataclasses.replace(command("state", "dump", user="UADMIN"), workspace="T2")
    reply = await service.handle_command(elsewhere)
    assert "Only admins" in reply.text


@pytest.mark.parametrize("admin_id", ["slack:*:UADMIN", "slack:T1:UADMIN"])
async def test_admin_dump_is_ephemeral_redacted_and_logged(
    make_service: ServiceFactory, db: InMemoryDb, admin_id: str
) -> None:
    """An admin (pinned or platform-wide key) sees the state with secrets redacted."""
    service = make_service(None, statebot_admin_ids={admin_id})
    await service.handle_command(command("taskboard", "add Visible"))
    await service.agents["taskboard"].aupdate_session_state(
        {"api_token": "xoxb-leak", "Authorization": "Bearer b-leak"}, session_id=CHANNEL_SESSION
    )
    with capture_logs() as logs:
        reply = await service.handle_command(command("state", "dump", user="UADMIN"))
    assert reply.ephemeral
    assert "Visible" in reply.text and "xoxb-leak" not in reply.text and "b-leak" not in reply.text
    used = [e for e in logs if e["event"] == "admin_command"]
    assert used and used[0]["action"] == "dump" and used[0]["target_session"] == CHANNEL_SESSION


async def test_admin_history_lists_versions(make_service: ServiceFactory) -> None:
    """History shows saved versions, newest first, with who saved them."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    await service.handle_command(command("taskboard", "add One"))
    await service.handle_command(command("taskboard", "add Two"))
    reply = await service.handle_command(command("state", "history taskboard", user="UADMIN"))
    assert reply.ephemeral
    lines = [line for line in reply.text.splitlines() if line.startswith("• v")]
    assert len(lines) >= 2 and "slack:T1:U1" in lines[0]
    assert int(lines[0].split()[1][1:]) > int(lines[1].split()[1][1:])


async def test_admin_reset_deletes_the_session(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Reset removes the stored state, so the next run starts from the default."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    await service.handle_command(command("taskboard", "add Gone"))
    reset = command("state", f"reset {CHANNEL_SESSION}", user="UADMIN")
    reply = await service.handle_command(reset)
    assert "reset" in reply.text and reply.ephemeral
    assert await db.aload(CHANNEL_SESSION) is None
    again = await service.handle_command(command("state", "reset", user="UADMIN"))
    assert "nothing to reset" in again.text


@pytest.mark.parametrize("text", ["", "explode", "dump taskboard extra", "dump nosuchagent"])
async def test_admin_bad_usage_gets_usage(make_service: ServiceFactory, text: str) -> None:
    """A missing or unknown action or agent gets the usage line."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    reply = await service.handle_command(command("state", text, user="UADMIN"))
    assert "usage: /state dump | reset | history" in reply.text and reply.ephemeral


async def test_dump_of_empty_session_says_so(make_service: ServiceFactory) -> None:
    """Dumping a session that was never saved is a clear message, not an error."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    reply = await service.handle_command(command("state", "dump", user="UADMIN", channel="C77"))
    assert "no stored state" in reply.text


def _in_workspace(cmd: SlashCommand, workspace: str) -> SlashCommand:
    return dataclasses.replace(cmd, workspace=workspace)


@pytest.mark.parametrize("action", ["dump", "reset", "history"])
@pytest.mark.parametrize("other", ["slack:T2:C1", "slack:T12:C1", "discord:T1:C1"])
async def test_pinned_admin_is_refused_on_another_workspace(
    make_service: ServiceFactory, db: InMemoryDb, action: str, other: str
) -> None:
    """An admin pinned to T1 cannot dump, reset or list another workspace's session."""
    await db.asave(other, expected_version=0, changed=encode_delta({"tasks": ["theirs"]}))
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    with capture_logs() as logs:
        reply = await service.handle_command(command("state", f"{action} {other}", user="UADMIN"))
    assert reply.ephemeral and "Nothing was done" in reply.text and "slack:T1:" in reply.text
    assert "theirs" not in reply.text
    refused = [e for e in logs if e["event"] == "admin_command_out_of_scope"]
    assert refused and refused[0]["target_session"] == other
    assert refused[0]["actor"] == "slack:T1:UADMIN" and refused[0]["log_level"] == "warning"
    record = await db.aload(other)
    assert record is not None and record.state == {"tasks": ["theirs"]}


async def test_platform_wide_admin_acts_in_every_workspace_of_its_platform(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """`slack:*:U` may act on any Slack workspace's sessions, never on another platform's."""
    await db.asave("slack:T2:C1", expected_version=0, changed=encode_delta({"tasks": ["t2"]}))
    await db.asave("discord:G1:C1", expected_version=0, changed=encode_delta({"tasks": ["g1"]}))
    service = make_service(None, statebot_admin_ids={"slack:*:UADMIN"})
    dump = command("state", "dump slack:T2:C1", user="UADMIN")
    assert "t2" in (await service.handle_command(dump)).text
    elsewhere = _in_workspace(command("state", "dump slack:T2:C1", user="UADMIN"), "T9")
    assert "t2" in (await service.handle_command(elsewhere)).text
    discord = await service.handle_command(command("state", "dump discord:G1:C1", user="UADMIN"))
    assert "Nothing was done" in discord.text and "g1" not in discord.text


async def test_admin_reset_reaches_the_store_through_the_admin_path(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Reset waits for the session lease (never runs beside a run) and then deletes."""
    service = make_service(None, statebot_admin_ids={"slack:T1:UADMIN"})
    await service.handle_command(command("taskboard", "add Held"))
    async with db.session_lock(CHANNEL_SESSION):
        task = asyncio.ensure_future(
            service.handle_command(command("state", "reset", user="UADMIN"))
        )
        await asyncio.sleep(0.05)
        assert not task.done()
    assert "reset" in (await task).text
    assert await db.aload(CHANNEL_SESSION) is None
