"""A whole Taskboard conversation in Slack: mentions, thread replies and slash commands."""

from __future__ import annotations

from typing import Any

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import (
    ALICE,
    BOB,
    BOT_USER,
    app_mention,
    bot_message,
    message,
    slash_command,
)
from structlog.testing import capture_logs

from bots.chat.boards import THREAD_BOARD
from core.testing import tool_call

ROOT = "1700000100.000100"


def _titles(state: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(t["id"], t["title"], t["status"]) for t in state["tasks"]]


async def test_taskboard_conversation_in_one_thread(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Mention, follow-ups without mention, a second user and bots: state checked each turn."""
    bot = await make_bot(
        [
            tool_call("add_task", title="Review Q2 roadmap", category="work"),
            "Added #1.",
            tool_call("add_task", title="Book dentist", category="personal"),
            "Added #2.",
            tool_call("update_task_status", task_id=1, status="in_progress"),
            "#1 is in progress.",
            tool_call("remove_task", task_id=2),
            "Removed #2.",
        ],
        scopes={"taskboard": "thread"},  # one board per thread, as configured
    )
    # 1. a top-level mention starts the thread's board
    await bot.event(app_mention(f"<@{BOT_USER}> taskboard add the roadmap review"))
    await settle()
    assert _titles(await bot.state(ROOT)) == [(1, "Review Q2 roadmap", "open")]

    # 2. a reply in that thread, no mention: the bot follows threads it spoke in
    await bot.event(
        message("also book the dentist", ts="1700000101.000100", thread_ts=ROOT, event_id="Ev02")
    )
    await settle()
    assert [t[1] for t in _titles(await bot.state(ROOT))] == ["Review Q2 roadmap", "Book dentist"]

    # 3. a mention inside the thread arrives twice (app_mention + message): one answer
    text = f"<@{BOT_USER}> start #1"
    await bot.event(app_mention(text, ts="1700000102.000100", thread_ts=ROOT, event_id="Ev03a"))
    await bot.event(message(text, ts="1700000102.000100", thread_ts=ROOT, event_id="Ev03b"))
    await settle()
    assert _titles(await bot.state(ROOT))[0] == (1, "Review Q2 roadmap", "in_progress")

    # 4. another bot posting in the thread is ignored; Bob's message is answered
    beep = bot_message("beep", ts="1700000103.000100")
    beep["event"]["thread_ts"], beep["event_id"] = ROOT, "Ev04a"
    await bot.event(beep)
    await bot.event(
        message(
            "drop the dentist", ts="1700000104.000100", thread_ts=ROOT, user=BOB, event_id="Ev04b"
        )
    )
    await settle()
    assert _titles(await bot.state(ROOT)) == [(1, "Review Q2 roadmap", "in_progress")]

    replies = [c.params for c in fake_slack.named("chat.postMessage")]
    # a thread's own board: every reply says it is not the channel's
    assert [r["text"] for r in replies] == [
        f"{text}\n_{THREAD_BOARD}_"
        for text in ("Added #1.", "Added #2.", "#1 is in progress.", "Removed #2.")
    ]
    assert {r["thread_ts"] for r in replies} == {ROOT}
    assert bot.model.remaining == 0


async def test_slash_commands_run_tools_and_reply_in_channel(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/taskboard add/list run tools directly (no model) and answer via response_url."""
    bot = await make_bot()
    url = fake_slack.response_url
    add = slash_command("/taskboard", 'add "Water plants"', response_url=url)
    assert await bot.command(add) == 200
    await settle()
    state = await bot.state(None)
    assert [t["title"] for t in state["tasks"]] == ["Water plants"]
    assert await bot.command(slash_command("/taskboard", "list", response_url=url)) == 200
    await settle()
    answers = fake_slack.response_urls
    assert len(answers) == 2 and "Water plants" in answers[1]["text"]
    assert answers[1]["response_type"] == "in_channel"
    assert bot.model.requests == []


async def test_bad_slash_command_is_explained_and_changes_nothing(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """An unknown tool word gets an ephemeral explanation; the board stays empty."""
    bot = await make_bot()
    url = fake_slack.response_url
    await bot.command(slash_command("/taskboard", "frobnicate 3", response_url=url))
    await settle()
    answer = fake_slack.response_urls[0]
    assert answer["response_type"] == "ephemeral" and "frobnicate" in answer["text"]
    assert (await bot.state(None))["tasks"] == []


async def test_thread_scope_keeps_threads_apart(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Under thread scope (configured), two threads in one channel have separate boards."""
    bot = await make_bot(
        [tool_call("add_task", title="A"), "ok", tool_call("add_task", title="B"), "ok"],
        scopes={"taskboard": "thread"},
    )
    await bot.event(app_mention(f"<@{BOT_USER}> add A", ts="1700000301.000100", event_id="E1"))
    await settle()  # one script serves both runs, so they must not interleave
    await bot.event(app_mention(f"<@{BOT_USER}> add B", ts="1700000302.000100", event_id="E2"))
    await settle()
    assert [t["title"] for t in (await bot.state("1700000301.000100"))["tasks"]] == ["A"]
    assert [t["title"] for t in (await bot.state("1700000302.000100"))["tasks"]] == ["B"]


async def test_channel_scope_shares_one_board_with_slash_commands(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """By default (the Taskboard's own channel scope), mentions in any thread and slash
    commands share one board."""
    bot = await make_bot(
        [tool_call("add_task", title="A"), "ok", tool_call("add_task", title="B"), "ok"]
    )
    await bot.event(app_mention(f"<@{BOT_USER}> add A", ts="1700000301.000100", event_id="E1"))
    await settle()
    await bot.event(app_mention(f"<@{BOT_USER}> add B", ts="1700000302.000100", event_id="E2"))
    await settle()
    url = fake_slack.response_url
    await bot.command(slash_command("/taskboard", "add C", response_url=url))
    await settle()
    state = await bot.state(None, scope="channel")
    assert [t["title"] for t in state["tasks"]] == ["A", "B", "C"]


async def test_non_admin_state_dump_is_refused_and_logged(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/state dump from a non-admin gets an ephemeral refusal and a warning log line."""
    bot = await make_bot()
    url = fake_slack.response_url
    with capture_logs() as logs:
        await bot.command(slash_command("/state", "dump", user_id=ALICE, response_url=url))
        await settle()
    answer = fake_slack.response_urls[0]
    assert answer["response_type"] == "ephemeral"
    assert "admin" in answer["text"].lower()
    refused = [e for e in logs if e["event"] == "admin_command_refused"]
    assert refused and refused[0]["actor"] == f"slack:T0TEAM001:{ALICE}"


async def test_admin_state_dump_is_ephemeral(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """/state dump from an admin shows the channel's taskboard state, privately."""
    from conftest import ADMIN

    bot = await make_bot()
    url = fake_slack.response_url
    await bot.command(slash_command("/taskboard", 'add "Secret plan"', response_url=url))
    await settle()
    await bot.command(slash_command("/state", "dump", user_id=ADMIN, response_url=url))
    await settle()
    answer = fake_slack.response_urls[-1]
    assert answer["response_type"] == "ephemeral"
    assert "Secret plan" in answer["text"]
