"""Runs started from Discord carry where they came from: platform, message id, channel key."""

from __future__ import annotations

from typing import Any

from discord_harness import MakeDiscord
from discord_payloads import BOT_ID, CHANNEL, GUILD, bot_mention, message_create

from core.run.origin import CHANNEL_KEY, EVENT_KEY, PLATFORM_KEY
from core.testing import tool_call


async def test_message_run_carries_platform_message_id_and_channel(
    make_discord: MakeDiscord,
) -> None:
    """A mention runs with platform ``discord``, the message's id and the channel's key."""
    bot = await make_discord([tool_call("add_task", title="Milk"), "Added."])
    seen: list[dict[str, Any]] = []

    def hook(
        function_name: str, function_call: Any, arguments: dict[str, Any], run_context: Any
    ) -> Any:
        seen.append(dict(run_context.metadata or {}))
        return function_call(**arguments)

    bot.client.service.agents["taskboard"].tool_hooks.append(hook)
    payload = message_create(f"<@{BOT_ID}> add milk", mentions=[bot_mention()])
    bot.gateway("MESSAGE_CREATE", payload)
    await bot.settle()
    [metadata] = seen
    assert metadata[PLATFORM_KEY] == "discord"
    assert metadata[EVENT_KEY] == payload["id"]
    assert metadata[CHANNEL_KEY] == f"discord:{GUILD}:{CHANNEL}"
