"""Runs started from Slack carry where they came from: platform, event id, channel key."""

from __future__ import annotations

from typing import Any

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import CHANNEL, TEAM, app_mention, slash_command

from core.run.origin import CHANNEL_KEY, EVENT_KEY, PLATFORM_KEY
from core.testing import tool_call


def _recorder(seen: list[dict[str, Any]]) -> Any:
    """A tool hook that notes each call's run metadata, then lets the call run."""

    def hook(
        function_name: str, function_call: Any, arguments: dict[str, Any], run_context: Any
    ) -> Any:
        seen.append(dict(run_context.metadata or {}))
        return function_call(**arguments)

    return hook


async def test_message_and_command_runs_carry_their_origin(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A mention and a slash command each run with platform, their event id and the channel."""
    bot = await make_bot([tool_call("add_task", title="Milk"), "Added."])
    seen: list[dict[str, Any]] = []
    bot.taskboard.tool_hooks.append(_recorder(seen))
    await bot.event(app_mention("<@U0BOT0001> add milk", event_id="Ev0ORIGIN01"))
    await settle()
    url = fake_slack.response_url
    await bot.command(slash_command("/taskboard", "add Bread", response_url=url))
    await settle()
    assert len(seen) == 2
    channel = f"slack:{TEAM}:{CHANNEL}"
    assert {k: seen[0][k] for k in (PLATFORM_KEY, CHANNEL_KEY)} == {
        PLATFORM_KEY: "slack",
        CHANNEL_KEY: channel,
    }
    assert seen[0][EVENT_KEY] == "Ev0ORIGIN01"
    assert seen[1][PLATFORM_KEY] == "slack" and seen[1][CHANNEL_KEY] == channel
    assert seen[1][EVENT_KEY]  # the command's trigger id
