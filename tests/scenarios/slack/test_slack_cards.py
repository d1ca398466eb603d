"""Task boards, shopping lists and state dumps reach Slack as Block Kit, text as fallback."""

from __future__ import annotations

from typing import Any

from conftest import ADMIN
from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle
from slack_payloads import CHANNEL, slash_command

from bots.adapters.slack.blocks import SECTION_LIMIT

KEY = f"slack:T0TEAM001:{CHANNEL}"


async def _board(bot: SlackBot, titles: list[tuple[str, str]]) -> None:
    tasks = [
        {"id": i, "title": title, "category": "work", "status": status}
        for i, (title, status) in enumerate(titles, start=1)
    ]
    await bot.taskboard.aupdate_session_state(
        {"tasks": tasks, "next_task_id": len(tasks) + 1}, session_id=KEY
    )


async def _answer(bot: SlackBot, fake: FakeSlackApi, command: str, text: str, **kw: str) -> Any:
    await bot.command(slash_command(command, text, response_url=fake.response_url, **kw))
    await settle()
    return fake.response_urls[-1]


def _texts(blocks: list[dict[str, Any]]) -> str:
    """Every text inside the blocks, joined."""
    out = []
    for block in blocks:
        if "text" in block:
            out.append(block["text"]["text"])
        for element in block.get("elements", []):  # context texts, button labels
            text = element["text"]
            out.append(text["text"] if isinstance(text, dict) else text)
    return "\n".join(out)


async def test_task_board_posts_header_sections_and_context(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/taskboard list answers once: a header, each task with its buttons, a count, add."""
    bot = await make_bot()
    await _board(bot, [("Write report", "open"), ("Call Bo", "done"), ("Plan Q3", "in_progress")])
    answer = await _answer(bot, fake_slack, "/taskboard", "list")
    assert len(fake_slack.response_urls) == 1
    blocks = answer["blocks"]
    assert [b["type"] for b in blocks] == [
        "header",
        *["section", "actions"] * 3,
        "context",
        "actions",
    ]
    assert blocks[0]["text"] == {"type": "plain_text", "text": "Task board", "emoji": False}
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert sections == [  # grouped by status: open, in progress, done
        "#1 Write report (work) · open",
        "#3 Plan Q3 (work) · in progress",
        "#2 Call Bo (work) · done",
    ]
    labels = [[e["text"]["text"] for e in b["elements"]] for b in blocks if b["type"] == "actions"]
    assert labels == [["Start", "Done", "Delete"], ["Done", "Delete"], ["Delete"], ["Add task"]]
    assert blocks[-2]["elements"][0]["text"] == "3 tasks"
    assert "Write report" in answer["text"]  # the plain-text fallback rides along


async def test_broadcast_task_title_stays_neutralised_in_blocks(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A `<!channel>` title and a disguised link stay inert inside the Block Kit sections."""
    bot = await make_bot()
    await _board(bot, [("<!channel> standup now", "open"), ("<https://evil.example|Q2>", "open")])
    answer = await _answer(bot, fake_slack, "/taskboard", "list")
    inside = _texts(answer["blocks"])
    assert "<!channel>" not in inside and "&lt;!channel&gt; standup now" in inside
    assert "<https://evil.example|Q2>" not in inside
    assert "<!channel>" not in answer["text"]


async def test_board_too_big_for_blocks_falls_back_to_text(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A board whose section passes 3,000 characters is sent as text chunks, no blocks."""
    bot = await make_bot()
    await _board(bot, [(f"task {i} " + "y" * 100, "open") for i in range(1, 40)])
    await _answer(bot, fake_slack, "/taskboard", "list")
    assert SECTION_LIMIT < 39 * 100  # one status section could not hold it
    assert all("blocks" not in r for r in fake_slack.response_urls)
    posted = "\n".join(r["text"] for r in fake_slack.response_urls)
    assert "task 1 " in posted and "task 39 " in posted


async def test_state_dump_renders_keys_as_code_sections(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/state dump by an admin shows one code section per state key, privately."""
    bot = await make_bot()
    await _board(bot, [("<!here> Secret plan", "open")])
    answer = await _answer(bot, fake_slack, "/state", "dump", user_id=ADMIN)
    assert answer["response_type"] == "ephemeral"
    blocks = answer["blocks"]
    assert blocks[0]["text"]["text"] == f"Session {KEY}"
    sections = {b["text"]["text"].split("\n")[0]: b["text"]["text"] for b in blocks[1:-1]}
    assert "*tasks*" in sections and "```" in sections["*tasks*"]
    assert "&lt;!here&gt; Secret plan" in sections["*tasks*"] and "<!here>" not in _texts(blocks)
    assert "version" in blocks[-1]["elements"][0]["text"]
    assert "Secret plan" in answer["text"]
