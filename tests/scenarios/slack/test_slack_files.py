"""Files and images on Slack, through the real bolt app and Web API client.

In: a ``file_share`` message (slack-bolt's captured shape) with a PNG, a PDF and an
oversize PDF. The fake Web API serves ``url_private`` only to the bot token; the
model (the real openai client against the fake OpenAI server) receives the image as
image content and the PDF's text; the oversize file is named in a one-line note and
the text still runs; the history keeps references only.
Out: a tool returning an image (``ToolResult``) has it uploaded into the thread with
files upload v2; an upload Slack refuses is reported like an undelivered reply.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from fakes.slack_api import FILE_TOKEN, FakeSlackApi
from slack_file_payloads import file_share, slack_file
from slack_harness import SlackBot, settle, start_bot
from slack_payloads import BOT_USER, CHANNEL, TEAM, app_mention, slash_command

from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.settings import SlackSettings
from bots.app.service import chat_service
from bots.keys import session_key
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.media import Image
from core.models.openai import OpenAIChat
from core.run.history import SessionData
from core.testing import FakeOpenAIServer, ScriptedModel, tool_call
from core.tools import tool
from core.tools.function import ToolResult
from tests.media_samples import pdf_bytes, png_bytes

TS = "1700000100.000100"
MIB = 1024 * 1024
PNG = png_bytes(16)
CHART = png_bytes(24)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """The client posting events to the bot."""
    async with aiohttp.ClientSession() as session:
        yield session


async def _bot(
    fake: FakeSlackApi, http: aiohttp.ClientSession, agent: Agent, **settings: Any
) -> SlackBot:
    config = Settings(statebot_default_agent="helper", redis_url=None, **settings)
    service = chat_service({"helper": agent}, settings=config)
    options = SlackOptions.from_settings(config, SlackSettings())  # streaming when set
    return await start_bot(fake, service, ScriptedModel([]), MemoryFlags(), http, options)


@pytest.fixture
def files(fake_slack: FakeSlackApi) -> list[dict[str, Any]]:
    """A PNG, a PDF and a 30 MB PDF (declared; never served) as Slack lists them."""
    png_url = fake_slack.host_file("F0PNG0001", "chart.png", PNG)
    pdf = pdf_bytes("Invoice 42: total 17 EUR")
    pdf_url = fake_slack.host_file("F0PDF0001", "invoice.pdf", pdf)
    big_url = f"http://127.0.0.1:{fake_slack.port}/files-pri/{TEAM}-F0BIG0001/scan.pdf"
    return [
        slack_file("F0PNG0001", "chart.png", "image/png", "png", len(PNG), png_url),
        slack_file("F0PDF0001", "invoice.pdf", "application/pdf", "pdf", len(pdf), pdf_url),
        slack_file("F0BIG0001", "scan.pdf", "application/pdf", "pdf", 30 * MIB, big_url),
    ]


async def test_file_share_reaches_the_model_and_oversize_is_named(
    fake_slack: FakeSlackApi,
    http: aiohttp.ClientSession,
    files: list[dict[str, Any]],
    tmp_path: Path,
) -> None:
    """PNG and PDF downloaded with the bot token and sent to the model; scan.pdf refused."""
    db = SqliteDb(db_file=str(tmp_path / "state.db"))
    with FakeOpenAIServer(["The invoice totals 17 EUR."]) as server:
        model = OpenAIChat(base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(name="helper", model=model, db=db)
        bot = await _bot(fake_slack, http, agent, statebot_max_file_bytes=MIB)
        text = f"<@{BOT_USER}> what do these say?"
        assert await bot.event(file_share(text, files, ts=TS)) == 200
        await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
        await settle()
        await bot.server.stop()
        request = server.requests[0]
    paths = [path for path, _ in fake_slack.downloads]
    assert sorted(paths) == [
        f"{TEAM}-F0PDF0001/download/invoice.pdf",
        f"{TEAM}-F0PNG0001/download/chart.png",
    ]  # the oversize file is never downloaded
    assert {auth for _, auth in fake_slack.downloads} == {f"Bearer {FILE_TOKEN}"}

    user = next(m for m in request["messages"] if m["role"] == "user")
    words, image = user["content"]
    assert words["text"].startswith('Ana: what do these say?\n\n<file name="invoice.pdf"')
    assert "Invoice 42: total 17 EUR" in words["text"]
    assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()

    (posted,) = fake_slack.posted_texts()
    note, answer = posted.split("\n\n", 1)
    assert note == "I could not use 1 attachment: `scan.pdf` (30.0 MB; the limit is 1.0 MB)."
    assert answer == "The invoice totals 17 EUR."

    record = await db.aload(session_key("slack", TEAM, CHANNEL, TS, "", "thread"))
    assert record is not None
    (run,) = SessionData.decode(record.data).runs
    assert [(m["id"], m["name"], m["size"]) for m in run.media] == [
        ("F0PNG0001", "chart.png", len(PNG)),
        ("F0PDF0001", "invoice.pdf", files[1]["size"]),
    ]
    assert base64.b64encode(PNG).decode() not in record.data
    await db.aclose()


async def test_a_token_slack_refuses_is_named_and_the_text_still_runs(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession, files: list[dict[str, Any]]
) -> None:
    """url_private answering the sign-in page (no files:read) is a note, not a crash."""
    model = ScriptedModel(["Hello."])
    agent = Agent(name="helper", model=model)
    bot = await _bot(fake_slack, http, agent)
    fake_slack.file_token = "xoxb-a-token-with-files-read"  # the bot's has no files:read
    await bot.event(file_share(f"<@{BOT_USER}> hi", files[:1], ts=TS))
    await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
    await settle()
    (posted,) = fake_slack.posted_texts()
    assert posted == (
        "I could not use 1 attachment: `chart.png` (could not download it: Slack refused "
        "the bot (it needs the files:read scope)).\n\nHello."
    )
    assert model.requests[0].messages[-1].images is None


async def test_the_bot_token_goes_only_to_slack_hosts(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession, files: list[dict[str, Any]]
) -> None:
    """A file whose link is on another host is refused without any request carrying the token."""
    elsewhere = dict(files[0], url_private_download=None)
    elsewhere["url_private"] = files[0]["url_private"].replace("127.0.0.1", "localhost")
    model = ScriptedModel(["Hello."])
    bot = await _bot(fake_slack, http, Agent(name="helper", model=model))
    await bot.event(file_share(f"<@{BOT_USER}> hi", [elsewhere], ts=TS))
    await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
    await settle()
    assert fake_slack.downloads == []
    assert fake_slack.posted_texts() == [
        "I could not use 1 attachment: `chart.png` (could not download it: its link is not "
        "on Slack).\n\nHello."
    ]


async def test_files_listed_by_id_only_are_completed_with_files_info(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession, files: list[dict[str, Any]]
) -> None:
    """``file_access: check_file_info`` entries: files.info gives the details, then the
    download; one files.info does not know is named in the note."""
    listed = [
        {"id": file_id, "mode": "file_access", "file_access": "check_file_info"}
        for file_id in ("F0PNG0001", "F0GONE001")
    ]
    fake_slack.file_info["F0PNG0001"] = files[0]
    model = ScriptedModel(["A red square."])
    bot = await _bot(fake_slack, http, Agent(name="helper", model=model))
    await bot.event(file_share(f"<@{BOT_USER}> what is it?", listed, ts=TS))
    await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
    await settle()
    assert [c.params["file"] for c in fake_slack.named("files.info")] == ["F0PNG0001", "F0GONE001"]
    question = model.requests[0].messages[-1]
    assert question.images is not None and question.images[0].content == PNG
    (posted,) = fake_slack.posted_texts()
    assert posted == (
        "I could not use 1 attachment: `F0GONE001` (no download link was given for it)."
        "\n\nA red square."
    )


PNG_OUT = Image(content=CHART, mime_type="image/png", name="chart.png")


@tool
def draw_chart() -> ToolResult:
    """Draw this week's chart."""
    return ToolResult(content="Chart drawn.", images=[PNG_OUT])


async def test_a_tools_image_is_uploaded_into_the_thread(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession
) -> None:
    """files upload v2: the bytes uploaded, completed into the reply's thread, after the text."""
    model = ScriptedModel([tool_call("draw_chart"), "Here is the chart."])
    bot = await _bot(fake_slack, http, Agent(name="helper", model=model, tools=[draw_chart]))
    await bot.event(app_mention(f"<@{BOT_USER}> draw the chart"))
    await fake_slack.wait_for(lambda f: f.named("files.completeUploadExternal"))
    await settle()
    assert fake_slack.posted_texts() == ["Here is the chart."]
    (asked,) = fake_slack.named("files.getUploadURLExternal")
    assert asked.params["filename"] == "chart.png" and int(asked.params["length"]) == len(CHART)
    assert list(fake_slack.uploads.values()) == [CHART]
    (done,) = fake_slack.named("files.completeUploadExternal")
    assert (done.params["channel_id"], done.params["thread_ts"]) == (CHANNEL, TS)
    methods = [c.method for c in fake_slack.calls]
    assert methods.index("chat.postMessage") < methods.index("files.getUploadURLExternal")


async def test_a_slash_commands_image_is_uploaded_to_the_channel(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession
) -> None:
    """`/helper draw_chart`: the text through the response_url, the image into the channel."""
    agent = Agent(name="helper", model=ScriptedModel([]), tools=[draw_chart])
    bot = await _bot(fake_slack, http, agent)
    command = slash_command("/helper", "draw_chart", response_url=fake_slack.response_url)
    assert await bot.command(command) == 200
    await fake_slack.wait_for(lambda f: f.named("files.completeUploadExternal"))
    await settle()
    assert [r["text"] for r in fake_slack.response_urls] == ["Chart drawn."]
    (done,) = fake_slack.named("files.completeUploadExternal")
    assert done.params["channel_id"] == CHANNEL and "thread_ts" not in done.params
    assert list(fake_slack.uploads.values()) == [CHART]


async def test_a_slash_commands_refused_upload_is_told_privately(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession
) -> None:
    """The command's text went out; the upload fails for good: an ephemeral note says so."""
    agent = Agent(name="helper", model=ScriptedModel([]), tools=[draw_chart])
    bot = await _bot(fake_slack, http, agent)
    fake_slack.fail_with("files.completeUploadExternal", "not_in_channel")
    command = slash_command("/helper", "draw_chart", response_url=fake_slack.response_url)
    await bot.command(command)
    await fake_slack.wait_for(lambda f: f.named("chat.postEphemeral"))
    await settle()
    (note,) = fake_slack.named("chat.postEphemeral")
    assert str(note.params["text"]).startswith(
        "My answer is above, but I could not attach its files here (`not_in_channel`)."
    )


async def test_a_streamed_replys_image_follows_the_streamed_text(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession
) -> None:
    """Streaming on: the text ends in its own message, then the image is uploaded there."""
    model = ScriptedModel([tool_call("draw_chart"), "Here is the chart."])
    agent = Agent(name="helper", model=model, tools=[draw_chart])
    bot = await _bot(fake_slack, http, agent, statebot_stream_replies=True)
    await bot.event(app_mention(f"<@{BOT_USER}> draw the chart"))
    await fake_slack.wait_for(lambda f: f.named("files.completeUploadExternal"))
    await settle()
    assert list(fake_slack.uploads.values()) == [CHART]
    (done,) = fake_slack.named("files.completeUploadExternal")
    assert done.params["thread_ts"] == TS
    assert fake_slack.posted_texts()[-1] == "Here is the chart."


async def test_an_upload_slack_refuses_is_reported(
    fake_slack: FakeSlackApi, http: aiohttp.ClientSession
) -> None:
    """The upload fails for good: the user is told the files were not posted, as for text."""
    model = ScriptedModel([tool_call("draw_chart"), "Here is the chart."])
    bot = await _bot(fake_slack, http, Agent(name="helper", model=model, tools=[draw_chart]))
    fake_slack.fail_with("files.completeUploadExternal", "not_in_channel")
    await bot.event(app_mention(f"<@{BOT_USER}> draw the chart"))
    await fake_slack.wait_for(lambda f: len(f.posted_texts()) == 2)
    await settle()
    assert fake_slack.posted_texts() == [
        "Here is the chart.",
        "My answer is above, but I could not attach its files here (`not_in_channel`). Your "
        "message was handled, so please check the result before resending.",
    ]
