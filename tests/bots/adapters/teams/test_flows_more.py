"""More flows through the real SDK: /state for admins, streaming in a personal chat,
reminders posted into their conversation, Action.Submit, redelivery, a send that
never gets through."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from click.testing import CliRunner
from structlog.testing import capture_logs

from bots.adapters.teams.bot import PERSONAL_ONLY, TeamsBot
from bots.adapters.teams.scheduled import teams_delivery
from bots.adapters.teams.server import auth_configuration, cloud_adapter
from bots.adapters.teams.settings import TeamsSettings
from bots.app.service import chat_service
from bots.chat.cards import encode_action
from bots.chat.replies import Reply
from bots.cli.main import main
from bots.keys import escape
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.db.records import UserMemory
from core.testing import ScriptedModel, tool_call
from tests.bots.adapters.teams.fake_connector import FakeConnector, route_jwks
from tests.bots.adapters.teams.harness import LocalTokens, Running, start
from tests.bots.adapters.teams.payloads import (
    ANA,
    APP_ID,
    BO,
    CHANNEL,
    GROUP,
    PERSONAL,
    ROOT,
    TENANT,
    card_action,
    channel_mention,
    group_chat,
    personal,
)
from tests.scenarios.fakes.streaming_model import WordStreamingModel
from tools.catalog import create_agents

BOARD = f"teams:{TENANT}:{escape(CHANNEL)}"


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeConnector]:
    async with FakeConnector(APP_ID) as connector:
        route_jwks(monkeypatch, connector.keys_url)
        yield connector


def _settings(**changes: Any) -> Settings:
    return Settings(openai_api_key="sk-test", redis_url=None, **changes)


async def _stop(running: Running) -> None:
    running.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running.task


async def test_state_dump_is_for_admins(fake: FakeConnector) -> None:
    admin = f"teams:{TENANT}:{ANA['aadObjectId']}"
    db = InMemoryDb()
    model = ScriptedModel([tool_call("add_task", title="Buy milk"), "Added."])
    running = await start(fake, create_agents(model, db), _settings(statebot_admin_ids=[admin]))
    try:
        await running.post(channel_mention(text="<at>Statebot</at> add milk"))
        await running.replies(1)
        await running.post(personal(id="d1", text=f"/state dump {BOARD}"))
        await running.post(personal(id="d2", text=f"/state dump {BOARD}", **{"from": BO}))
        posts = await running.replies(3)
        dump, refused = posts[1], posts[2]
        assert dump.path.startswith(f"/v3/conversations/{PERSONAL}/activities")
        content = json.dumps(dump.body["attachments"][0]["content"])
        assert "Buy milk" in content and f"Session {BOARD}" in content
        assert "Buy milk" not in (refused.body.get("text") or "")
        assert "admin" in (refused.body.get("text") or "").lower()
    finally:
        await _stop(running)


async def test_a_personal_chat_answer_streams_by_edits(fake: FakeConnector) -> None:
    answer = "Your board holds one open task and nothing is overdue today."
    model = WordStreamingModel([answer])
    settings = _settings(statebot_stream_replies=True, statebot_stream_seconds=0.001)
    running = await start(fake, create_agents(model, InMemoryDb()), settings)
    try:
        await running.post(personal())
        async with asyncio.timeout(10):
            while not any(c.body.get("text") == answer for c in fake.posts()):
                await asyncio.sleep(0.02)
        posts = fake.posts()
        first, *edits = posts
        assert first.method == "POST" and answer.startswith(first.body["text"])
        assert edits and all(c.method == "PUT" for c in edits)  # the same message, edited
        assert edits[-1].body["text"] == answer
    finally:
        await _stop(running)


async def test_a_channel_answer_is_one_message_even_with_streaming_on(fake: FakeConnector) -> None:
    model = WordStreamingModel(["One reply for the whole channel."])
    settings = _settings(statebot_stream_replies=True, statebot_stream_seconds=0.001)
    running = await start(fake, create_agents(model, InMemoryDb()), settings)
    try:
        await running.post(channel_mention(text="<at>Statebot</at> hi"))
        [reply] = await running.replies(1)
        await asyncio.sleep(0.2)
        assert [c.method for c in fake.posts()] == ["POST"]
        assert reply.body["text"] == "One reply for the whole channel."
    finally:
        await _stop(running)


async def test_a_reminder_goes_into_its_reply_chain(fake: FakeConnector) -> None:
    teams = TeamsSettings(teams_app_id=APP_ID, teams_app_password="test-secret")
    adapter = cloud_adapter(auth_configuration(teams), LocalTokens)
    service = chat_service(create_agents(ScriptedModel([]), InMemoryDb()), settings=_settings())
    bot = TeamsBot(service, adapter, app_id=APP_ID, send_budget=5.0)
    deliver = teams_delivery(bot, fake.url)
    target = {"platform": "teams", "workspace": TENANT, "channel": CHANNEL, "thread": ROOT}
    await deliver(target, Reply("Reminder: Buy milk is due."))
    [post] = fake.posts()
    assert post.path == f"/v3/conversations/{CHANNEL};messageid={ROOT}/activities"
    assert post.body["text"] == "Reminder: Buy milk is due."
    dm = {"platform": "teams", "workspace": TENANT, "channel": PERSONAL, "thread": None}
    await deliver(dm, Reply("Reminder in your chat."))
    assert fake.posts()[-1].path == f"/v3/conversations/{PERSONAL}/activities"
    with pytest.raises(ValueError, match="needs a conversation"):
        await deliver({"platform": "teams", "workspace": TENANT, "user": "u"}, Reply("x"))


async def test_an_action_submit_runs_the_click_and_updates_the_card(fake: FakeConnector) -> None:
    db = InMemoryDb()
    model = ScriptedModel([tool_call("add_task", title="Buy milk"), "Added."])
    running = await start(fake, create_agents(model, db), _settings())
    try:
        await running.post(channel_mention(text="<at>Statebot</at> add milk"))
        await running.replies(1)
        value = encode_action(
            "taskboard",
            BOARD,
            "update_task_status",
            {"task_id": 1, "status": "done"},
            "list_tasks",
            {},
        )
        submit = channel_mention(
            id="submit-1",
            text=None,
            entities=[],
            replyToId="1:board",
            value={"statebot": "card", "value": value},
        )
        status, _ = await running.post(submit)
        assert status == 202
        update = (await running.replies(2))[1]
        assert update.method == "PUT" and update.path.endswith("/activities/1:board")
        session = await db.aload(BOARD)
        assert session is not None and session.state["tasks"][0]["status"] == "done"
    finally:
        await _stop(running)


async def test_a_redelivered_message_is_answered_once(fake: FakeConnector) -> None:
    running = await start(
        fake, create_agents(ScriptedModel(["Once.", "Twice!"]), InMemoryDb()), _settings()
    )
    try:
        await running.post(personal())
        await running.post(personal())  # Teams redelivers the same activity id
        await running.replies(1)
        await asyncio.sleep(0.3)
        assert [c.body.get("text") for c in fake.posts()] == ["Once."]
    finally:
        await _stop(running)


async def test_a_reply_refused_past_the_budget_is_logged_not_claimed(fake: FakeConnector) -> None:
    running = await start(
        fake,
        create_agents(ScriptedModel(["Lost?"]), InMemoryDb()),
        _settings(),
        teams_send_timeout=0.3,
    )
    try:
        fake.fail_next(1000, 503)
        with capture_logs() as logs:
            await running.post(personal())
            async with asyncio.timeout(10):
                while not any(e["event"] == "teams_send_failed" for e in logs):
                    await asyncio.sleep(0.02)
        failed = next(e for e in logs if e["event"] == "teams_send_failed")
        assert "503" in failed["error"] and failed["event_id"] == personal()["id"]
    finally:
        await _stop(running)


async def test_health_routes_share_the_endpoint_s_port(fake: FakeConnector) -> None:
    running = await start(fake, create_agents(ScriptedModel([]), InMemoryDb()), _settings())
    try:
        async with aiohttp.ClientSession() as http:
            base = f"http://127.0.0.1:{running.port}"
            for path, status in (("/healthz", 200), ("/readyz", 200), ("/metrics", 200)):
                async with http.get(base + path) as response:  # no token needed for these
                    assert response.status == status, path
            async with http.get(base + "/api/messages") as response:
                assert response.status == 405  # the endpoint takes POSTs only
    finally:
        await _stop(running)


def test_statebot_teams_without_an_app_id_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TEAMS_APP_ID", "TEAMS_APP_PASSWORD", "TEAMS_CERT_PFX_FILE"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    result = runner.invoke(main, ["teams"], env={"TEAMS_APP_ID": ""})
    assert result.exit_code == 2 and "TEAMS_APP_ID is not set" in result.output
    result = runner.invoke(main, ["teams"], env={"TEAMS_APP_ID": APP_ID})
    assert result.exit_code == 2 and "TEAMS_APP_PASSWORD" in result.output


def test_statebot_config_lists_the_teams_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAMS_APP_PASSWORD", "teams-secret-value")
    result = CliRunner().invoke(main, ["config"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("TEAMS_APP_PASSWORD"))
    assert "set (hidden)" in row and "teams-secret-value" not in result.output
    assert any(line.startswith("TEAMS_PORT") for line in result.output.splitlines())


async def test_the_add_form_adds_what_was_typed(fake: FakeConnector) -> None:
    db = InMemoryDb()
    running = await start(fake, create_agents(ScriptedModel([]), db), _settings())
    try:
        await running.post(channel_mention(id="l1", text="<at>Statebot</at> /taskboard list_tasks"))
        [board] = await running.replies(1)
        [add] = board.body["attachments"][0]["content"]["actions"]
        [submit] = add["card"]["actions"]
        typed = {**submit["data"], "field:title": "Call the plumber", "field:category": " "}
        status, body = await running.post(card_action(typed, card_id=board.id))
        assert status == 200 and "Call the plumber" in json.dumps(body["value"])
        session = await db.aload(BOARD)
        assert session is not None
        [task] = session.state["tasks"]
        assert task["title"] == "Call the plumber" and task["category"] != " "
    finally:
        await _stop(running)


async def test_state_output_is_not_posted_in_a_channel(fake: FakeConnector) -> None:
    admin = f"teams:{TENANT}:{ANA['aadObjectId']}"
    db = InMemoryDb()
    model = ScriptedModel([tool_call("add_task", title="Secret plan"), "Added."])
    running = await start(fake, create_agents(model, db), _settings(statebot_admin_ids=[admin]))
    try:
        await running.post(channel_mention(text="<at>Statebot</at> add it"))
        await running.replies(1)
        dump = channel_mention(id="s1", text=f"<at>Statebot</at> /state dump {BOARD}")
        await running.post(dump)
        answer = (await running.replies(2))[1]
        assert answer.body.get("text") == PERSONAL_ONLY.format(command="state")
        assert "Secret plan" not in json.dumps(answer.body)
    finally:
        await _stop(running)



async def test_memory_output_is_not_posted_in_a_channel(fake: FakeConnector) -> None:
    """/memory lists what is remembered about the asker: never where a channel reads it."""
    ana = f"teams:{TENANT}:{ANA['aadObjectId']}"
    db = InMemoryDb()
    await db.aadd_memory(UserMemory(memory_id="m1", user_id=ana, memory="Ana's flat is 4B"))
    running = await start(fake, create_agents(ScriptedModel([]), db), _settings())
    try:
        await running.post(channel_mention(id="m1", text="<at>Statebot</at> /memory"))
        [answer] = await running.replies(1)
        assert answer.body.get("text") == PERSONAL_ONLY.format(command="memory")
        assert "4B" not in json.dumps(answer.body)
    finally:
        await _stop(running)

async def test_a_group_chat_is_answered_in_the_chat(fake: FakeConnector) -> None:
    running = await start(
        fake, create_agents(ScriptedModel(["Hello all."]), InMemoryDb()), _settings()
    )
    try:
        await running.post(group_chat())
        [reply] = await running.replies(1)
        assert reply.path.startswith(f"/v3/conversations/{GROUP}/activities")
        assert reply.body["text"] == "Hello all."
    finally:
        await _stop(running)


async def test_model_text_cannot_mention_a_channel_or_hide_a_link(fake: FakeConnector) -> None:
    answer = "Done <at>General</at>, <at>Planning team</at>; see [the plan](https://evil.example/p)"
    running = await start(fake, create_agents(ScriptedModel([answer]), InMemoryDb()), _settings())
    try:
        await running.post(channel_mention(text="<at>Statebot</at> plan?"))
        [reply] = await running.replies(1)
        text = reply.body["text"]
        assert "<at>" not in text and "entities" not in reply.body
        assert text.endswith("see the plan (https://evil.example/p)")
    finally:
        await _stop(running)
