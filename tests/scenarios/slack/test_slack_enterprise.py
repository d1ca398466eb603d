"""Enterprise Grid: sessions use the org id; an admin key written with the team id works."""

from __future__ import annotations

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import ALICE, CHANNEL, ENTERPRISE, TEAM, slash_command

ADMIN = "U0ADMIN01"  # configured by the scenario conftest as slack:T0TEAM001:U0ADMIN01


async def test_admin_key_with_the_team_id_matches_on_enterprise_grid(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """slack:T…:U… is admin when the command arrives under the org id E…, for its sessions."""
    bot = await make_bot()
    url = fake_slack.response_url
    await bot.command(
        slash_command("/taskboard", 'add "Grid task"', response_url=url, enterprise_id=ENTERPRISE)
    )
    await settle()
    await bot.command(
        slash_command("/state", "dump", response_url=url, user_id=ADMIN, enterprise_id=ENTERPRISE)
    )
    await settle()
    answer = fake_slack.response_urls[-1]
    assert "Only admins" not in answer["text"]
    assert "Grid task" in str(answer.get("blocks") or answer["text"])
    assert f"slack:{ENTERPRISE}:{CHANNEL}" in answer["text"]


async def test_refusal_names_the_callers_own_key(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A non-admin is told the exact key an operator would add (and its team alias on Grid)."""
    bot = await make_bot()
    url = fake_slack.response_url
    await bot.command(slash_command("/state", "dump", response_url=url))
    await settle()
    assert f"`slack:{TEAM}:{ALICE}`" in fake_slack.response_urls[-1]["text"]
    await bot.command(slash_command("/state", "dump", response_url=url, enterprise_id=ENTERPRISE))
    await settle()
    refused = fake_slack.response_urls[-1]["text"]
    assert f"`slack:{ENTERPRISE}:{ALICE}`" in refused and f"`slack:{TEAM}:{ALICE}`" in refused
