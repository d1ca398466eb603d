"""Task boards and state dumps reach Discord as embeds, text when they do not fit."""

from __future__ import annotations

from typing import Any

from conftest import ADMIN_ID
from discord_harness import Harness, MakeDiscord
from discord_payloads import ALICE, CHANNEL, GUILD, interaction_create
from fakes.discord_api import FakeDiscordApi

from core.agent import Agent

SESSION = f"discord:{GUILD}:{CHANNEL}"
ADMIN = {**ALICE, "id": ADMIN_ID, "username": "root", "global_name": "Root"}


async def _board(bot: Harness, titles: list[tuple[str, str]]) -> None:
    agent = bot.client.service.agents["taskboard"]
    assert isinstance(agent, Agent)
    tasks = [
        {"id": i, "title": title, "category": "work", "status": status}
        for i, (title, status) in enumerate(titles, start=1)
    ]
    await agent.aupdate_session_state({"tasks": tasks}, session_id=SESSION)


def _followups(fake: FakeDiscordApi) -> list[dict[str, Any]]:
    return [c.json for c in fake.sent("webhooks/") if c.json]


async def test_task_board_follows_up_with_one_embed(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """/taskboard list answers with one embed: a field per status, a count footer, no pings."""
    bot = await make_discord()
    await _board(bot, [("Write report", "open"), ("@everyone look", "done")])
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", "list"))
    await bot.settle()
    [followup] = _followups(fake_discord)
    [embed] = followup["embeds"]
    assert embed["title"] == "Task board"
    assert [(f["name"], f["value"]) for f in embed["fields"]] == [
        ("Open", "• #1 Write report (work)"),
        ("Done", "• #2 @everyone look (work)"),
    ]
    assert embed["footer"]["text"] == "2 tasks"
    assert followup["allowed_mentions"] == {"parse": []}


async def test_board_too_big_for_an_embed_is_sent_as_text(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A status field past 1,024 characters falls back to text follow-ups, every task in them."""
    bot = await make_discord()
    await _board(bot, [(f"task {i} " + "z" * 60, "open") for i in range(1, 30)])
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", "list"))
    await bot.settle()
    followups = _followups(fake_discord)
    assert all(not f.get("embeds") for f in followups)
    text = "\n".join(f["content"] for f in followups)
    assert "task 1 " in text and "task 29 " in text


async def test_state_dump_is_a_private_embed(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """/state dump by an admin is one ephemeral embed with a JSON field per state key."""
    bot = await make_discord()
    await _board(bot, [("Secret plan", "open")])
    bot.gateway("INTERACTION_CREATE", interaction_create("state", "dump", user=ADMIN))
    await bot.settle()
    [followup] = _followups(fake_discord)
    assert followup["flags"] & 64
    [embed] = followup["embeds"]
    assert embed["title"] == f"Session {SESSION}"
    tasks = next(f for f in embed["fields"] if f["name"] == "tasks")
    assert tasks["value"].startswith("```json\n") and "Secret plan" in tasks["value"]
    assert "version" in embed["footer"]["text"]
