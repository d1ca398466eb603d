"""Files and images on Discord, through the real discord.py client and the fake REST API.

In: a MESSAGE_CREATE with attachments (the documented attachment object: id, filename,
size, url, proxy_url, content_type): the PNG and the CSV are downloaded from their CDN
URLs and given to the run; an oversize one is named in a one-line note, never
downloaded, and the text still runs. Out: a tool's image is sent as a message
attachment after the text; a refused upload gets the warning reaction.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from discord_harness import Harness
from discord_payloads import (
    BOT_ID,
    CHANNEL,
    bot_mention,
    guild_create,
    interaction_create,
    message_create,
)
from fakes.discord_api import FakeDiscordApi

from bots.adapters.discord.client import StatebotDiscord
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.agent import Agent
from core.media import Image
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from core.tools.function import ToolResult
from tests.media_samples import png_bytes

PNG = png_bytes(16)
CHART = png_bytes(20)
MIB = 1024 * 1024
_ids = itertools.count(1260000000000000001)

Start = Callable[..., Awaitable[Harness]]


@pytest.fixture
async def start(fake_discord: FakeDiscordApi) -> AsyncIterator[Start]:
    """A logged-in client serving one agent, ``helper``."""
    clients: list[StatebotDiscord] = []

    async def make(agent: Agent, **settings: Any) -> Harness:
        config = Settings(statebot_default_agent="helper", redis_url=None, **settings)
        client = StatebotDiscord(
            chat_service({"helper": agent}, settings=config), flags=MemoryFlags()
        )
        await client.login("test-bot-token")
        clients.append(client)
        harness = Harness(client, ScriptedModel([]))
        harness.gateway("GUILD_CREATE", guild_create())
        return harness

    yield make
    for client in clients:
        await client.close()


def attachment(
    fake: FakeDiscordApi, name: str, kind: str, data: bytes, size: int
) -> dict[str, Any]:
    """A message's attachment object, in the shape Discord documents."""
    attachment_id = str(next(_ids))
    url = fake.host_attachment(CHANNEL, attachment_id, name, data)
    return {
        "id": attachment_id,
        "filename": name,
        "size": size,
        "url": url,
        "proxy_url": url.replace("/attachments/", "/media/attachments/"),
        "content_type": kind,
        **({"width": 16, "height": 16} if kind.startswith("image/") else {}),
    }


async def test_attachments_reach_the_run_and_oversize_is_named(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """PNG as an image, CSV as its text; the 20 MB video refused on its declared size."""
    model = ScriptedModel(["Milk costs 2."])
    bot = await start(Agent(name="helper", model=model), statebot_max_file_bytes=MIB)
    csv = b"item,price\nmilk,2\n"
    payload = message_create(f"<@{BOT_ID}> what is this?", mentions=[bot_mention()])
    payload["attachments"] = [
        attachment(fake_discord, "photo.png", "image/png", PNG, len(PNG)),
        attachment(fake_discord, "prices.csv", "text/csv; charset=utf-8", csv, len(csv)),
        attachment(fake_discord, "clip.mp4", "video/mp4", b"", 20 * MIB),
    ]
    bot.gateway("MESSAGE_CREATE", payload)
    await fake_discord.wait_for(lambda f: f.contents())
    await bot.settle()
    assert len(fake_discord.cdn_gets) == 2  # the video is never downloaded
    question = model.requests[0].messages[-1]
    assert question.images is not None and question.images[0].content == PNG
    assert question.files is not None and question.files[0].content == "item,price\nmilk,2\n"
    (posted,) = fake_discord.contents()
    assert posted == (
        "I could not use 1 attachment: `clip.mp4` (video/mp4 is not a type I read; I read "
        "images (PNG, JPEG, GIF, WebP), text, Markdown, CSV, JSON and PDF).\n\nMilk costs 2."
    )


async def test_an_oversize_image_is_named_and_the_text_still_runs(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """An image over STATEBOT_MAX_FILE_BYTES: a note with its size and the limit; the answer."""
    model = ScriptedModel(["Hi!"])
    bot = await start(Agent(name="helper", model=model), statebot_max_file_bytes=MIB)
    payload = message_create(f"<@{BOT_ID}> hello", mentions=[bot_mention()])
    payload["attachments"] = [attachment(fake_discord, "huge.png", "image/png", PNG, 3 * MIB)]
    bot.gateway("MESSAGE_CREATE", payload)
    await fake_discord.wait_for(lambda f: f.contents())
    await bot.settle()
    assert fake_discord.cdn_gets == []
    assert fake_discord.contents() == [
        "I could not use 1 attachment: `huge.png` (3.0 MB; the limit is 1.0 MB).\n\nHi!"
    ]
    assert model.requests[0].messages[-1].content == "hello"  # the text ran, alone


@tool
def draw_chart() -> ToolResult:
    """Draw this week's chart."""
    return ToolResult(
        content="Chart drawn.", images=[Image(content=CHART, mime_type="image/png", name="week")]
    )


async def test_a_tools_image_is_sent_as_an_attachment(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """The text, then a message carrying the image (named with its type's extension)."""
    model = ScriptedModel([tool_call("draw_chart"), "Here it is."])
    bot = await start(Agent(name="helper", model=model, tools=[draw_chart]))
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> chart", mentions=[bot_mention()]))
    await fake_discord.wait_for(lambda f: f.files)
    await bot.settle()
    assert fake_discord.contents()[0] == "Here it is."
    assert fake_discord.files == [(f"channels/{CHANNEL}/messages", "week.png", CHART)]


async def test_a_refused_upload_gets_the_warning_reaction(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """Discord refuses the attachment (403): logged and marked, as for an undelivered text."""
    model = ScriptedModel([tool_call("draw_chart"), "Here it is."])
    bot = await start(Agent(name="helper", model=model, tools=[draw_chart]))
    fake_discord.fail("POST", "/messages", status=403)
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> chart", mentions=[bot_mention()]))
    await fake_discord.wait_for(lambda f: f.sent("/reactions/", method="PUT"))
    await bot.settle()


async def test_a_slash_commands_image_is_a_follow_up_attachment(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """`/helper draw_chart`: the text follow-up, then one carrying the image."""
    bot = await start(Agent(name="helper", model=ScriptedModel([]), tools=[draw_chart]))
    bot.gateway("INTERACTION_CREATE", interaction_create("helper", "draw_chart"))
    await fake_discord.wait_for(lambda f: f.files)
    await bot.settle()
    assert fake_discord.contents()[-2:] == ["Chart drawn.", "None"]  # the files' has no text
    ((path, name, data),) = fake_discord.files
    assert path.startswith("webhooks/") and (name, data) == ("week.png", CHART)
