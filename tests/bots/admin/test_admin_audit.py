"""/state history and /state diff: the audit trail in chat, names as platform references."""

from __future__ import annotations

import pytest

from tests.bots.conftest import ServiceFactory, command

ADMIN = "U0ADMIN01"
ADMINS = {f"slack:T1:{ADMIN}"}
ANA, BO = "U0ANA0001", "U0BO00001"


async def test_history_names_each_users_change_as_a_slack_reference(
    make_service: ServiceFactory,
) -> None:
    """Two users' changes in one channel: each line names its author as <@U…>, newest first."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    await service.handle_command(command("taskboard", "status 1 done", user=BO))
    reply = await service.handle_command(command("state", "history", user=ADMIN))
    assert reply.ephemeral
    lines = [line for line in reply.text.splitlines() if line.startswith("• ")]
    assert len(lines) == 2
    assert lines[0].startswith(f"• v2 <@{BO}> used ") and "done" in lines[0]
    assert lines[1].startswith(f"• v1 <@{ANA}> used add_task") and "tasks" in lines[1]
    assert "just now" in lines[0]


async def test_history_count_is_bounded_and_bad_counts_get_usage(
    make_service: ServiceFactory,
) -> None:
    """`history 1` shows one line; `history 0` or `history 999` get the usage text."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    for title in ("A", "B", "C"):
        await service.handle_command(command("taskboard", f"add {title}", user=ANA))
    one = await service.handle_command(command("state", "history 1", user=ADMIN))
    assert len([x for x in one.text.splitlines() if x.startswith("• ")]) == 1
    for bad in ("history 0", "history 999"):
        reply = await service.handle_command(command("state", bad, user=ADMIN))
        assert "usage: /state" in reply.text and reply.approval is None


async def test_history_of_a_user_from_elsewhere_is_a_code_span_not_a_mention(
    make_service: ServiceFactory,
) -> None:
    """A user of another workspace is shown as their key in code, never as live markup."""
    service = make_service(None, statebot_admin_ids={f"slack:*:{ADMIN}"})
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    other = command("state", "history slack:T1:C1", user=ADMIN)
    from dataclasses import replace

    reply = await service.handle_command(replace(other, workspace="T2"))
    assert f"`slack:T1:{ANA}`" in reply.text and f"<@{ANA}>" not in reply.text


async def test_diff_lists_the_operations_between_two_versions(
    make_service: ServiceFactory,
) -> None:
    """`diff v1 v2` shows what changed as lines in a code block; a missing version says so."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    await service.handle_command(command("taskboard", "status 1 done", user=BO))
    reply = await service.handle_command(command("state", "diff v1 v2", user=ADMIN))
    assert reply.ephemeral and "from v1 to v2" in reply.text and "```" in reply.text
    assert "tasks/0/status" in reply.text and '"done"' in reply.text
    missing = await service.handle_command(command("state", "diff v1 v9", user=ADMIN))
    assert "no version 9" in missing.text and "Nothing to compare" in missing.text


@pytest.mark.parametrize("text", ["history", "diff v1 v2"])
async def test_non_admin_cannot_read_the_trail(make_service: ServiceFactory, text: str) -> None:
    """History and diff are admin actions."""
    service = make_service(None, statebot_admin_ids=ADMINS)
    reply = await service.handle_command(command("state", text, user=ANA))
    assert "Only admins" in reply.text
