"""State governance on Discord: /state restore asks privately, Confirm applies it once."""

from __future__ import annotations

from typing import Any

from discord_harness import Harness, MakeDiscord
from discord_payloads import ALICE, CHANNEL, GUILD, interaction_create
from fakes.discord_api import BOT_USER, FakeDiscordApi

from bots.inbound import SlashCommand
from core.agent import Agent

SESSION = f"discord:{GUILD}:{CHANNEL}"
ADMIN_ID = "1200000000000000099"  # the admin the scenario conftest configures
ADMIN = {**ALICE, "id": ADMIN_ID, "username": "root", "global_name": "Root"}


async def _setup(bot: Harness, *texts: str) -> None:
    for n, text in enumerate(texts):
        cmd = SlashCommand("discord", GUILD, CHANNEL, None, ALICE["id"], "taskboard", text, f"{n}")
        await bot.client.service.handle_command(cmd)


async def _titles(bot: Harness) -> list[str]:
    agent = bot.client.service.agents["taskboard"]
    assert isinstance(agent, Agent)
    return [t["title"] for t in (await agent.aget_session_state(SESSION))["tasks"]]


def _question(fake: FakeDiscordApi) -> tuple[dict[str, Any], dict[str, str]]:
    """The private follow-up carrying buttons, as Discord stores it, and its buttons by label."""
    [sent] = [c.json for c in fake.sent("webhooks/") if c.json and c.json.get("components")]
    buttons = {b["label"]: b["custom_id"] for row in sent["components"] for b in row["components"]}
    return {**fake._message(CHANNEL, sent), "components": sent["components"]}, buttons


def _click(question: dict[str, Any], custom_id: str, user: dict[str, Any]) -> dict[str, Any]:
    body = interaction_create("unused", None, user=user)
    body.update(
        type=3,
        message={**question, "author": BOT_USER, "channel_id": CHANNEL},
        data={"custom_id": custom_id, "component_type": 2},
    )
    return body


def _edits(fake: FakeDiscordApi) -> list[dict[str, Any]]:
    return [c.json for c in fake.calls if c.method == "PATCH" and "@original" in c.path]


async def test_restore_question_is_private_and_confirm_applies_it_once(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """The question is ephemeral with Confirm / Cancel; Confirm restores and replaces it."""
    bot = await make_discord()
    await _setup(bot, "add One", "add Two")
    bot.gateway("INTERACTION_CREATE", interaction_create("state", "restore v1", user=ADMIN))
    await bot.settle()
    question, buttons = _question(fake_discord)
    assert list(buttons) == ["Confirm", "Cancel"] and question["flags"] & 64
    bot.gateway("INTERACTION_CREATE", _click(question, buttons["Confirm"], ADMIN))
    await fake_discord.wait_for(lambda f: any("Restored" in str(e) for e in _edits(f)))
    outcome = _edits(fake_discord)[-1]
    assert outcome["content"].startswith("Restored") and outcome["components"] == []
    assert await _titles(bot) == ["One"]
    bot.gateway("INTERACTION_CREATE", _click(question, buttons["Confirm"], ADMIN))
    await fake_discord.wait_for(lambda f: "Already done" in str(_edits(f)[-1]))
    assert await _titles(bot) == ["One"]


async def test_non_admin_click_is_refused(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Alice (no admin) pressing Confirm gets a refusal; nothing is restored."""
    bot = await make_discord()
    await _setup(bot, "add One", "add Two")
    bot.gateway("INTERACTION_CREATE", interaction_create("state", "restore v1", user=ADMIN))
    await bot.settle()
    question, buttons = _question(fake_discord)
    bot.gateway("INTERACTION_CREATE", _click(question, buttons["Confirm"], ALICE))
    await fake_discord.wait_for(lambda f: any("Only an admin" in str(e) for e in _edits(f)))
    assert await _titles(bot) == ["One", "Two"]


async def test_undo_app_command_is_answered_in_the_channel(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """/taskboard undo is deferred publicly and says whose change was taken back."""
    bot = await make_discord()
    await _setup(bot, "add One", "add Two")
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", "undo"))
    await bot.settle()
    defer = fake_discord.sent("/callback")[0].json
    assert not defer.get("data", {}).get("flags", 0) & 64
    followup = fake_discord.sent("webhooks/")[-1].json
    assert followup["content"].startswith(f"Undone <@{ALICE['id']}>'s change v2")
    assert await _titles(bot) == ["One"]
