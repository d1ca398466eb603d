"""Whole flows through the real Agents SDK: the endpoint validates a locally signed
JWT against the JWKS the fake serves, replies go to the fake Bot Connector."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bots.adapters.teams import actions
from bots.adapters.teams import bot as bot_module
from bots.adapters.teams.bot import INTERRUPTED
from bots.chat.approvals import NOT_YOURS
from bots.keys import escape
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.adapters.teams.fake_connector import OUTGOING_TOKEN, FakeConnector, route_jwks
from tests.bots.adapters.teams.harness import Running, start
from tests.bots.adapters.teams.payloads import (
    ANA,
    APP_ID,
    BO,
    CHANNEL,
    ROOT,
    TENANT,
    card_action,
    channel_mention,
    personal,
)
from tools.catalog import create_agents

BOARD = f"teams:{TENANT}:{escape(CHANNEL)}"
REPLY_PATH = f"/v3/conversations/{CHANNEL};messageid={ROOT}/activities/{ROOT}"


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


async def test_a_mention_is_answered_in_its_reply_chain_and_the_state_saved(
    fake: FakeConnector,
) -> None:
    db = InMemoryDb()
    model = ScriptedModel([tool_call("add_task", title="Buy milk"), "Added Buy milk."])
    running = await start(fake, create_agents(model, db), _settings())
    try:
        status, _ = await running.post(channel_mention())  # "add milk & eggs, and tell @Bo"
        assert status == 202  # acknowledged before the run
        [reply] = await running.replies(1)
        assert reply.method == "POST" and reply.path == REPLY_PATH
        assert reply.body["text"] == "Added Buy milk." and reply.body["replyToId"] == ROOT
        assert reply.authorization == f"Bearer {OUTGOING_TOKEN}"
        assert any(c.body.get("type") == "typing" for c in fake.calls)  # while it worked
        session = await db.aload(BOARD)
        assert session is not None and [t["title"] for t in session.state["tasks"]] == ["Buy milk"]
        # the model read the other mention as a name, and who asked
        asked = model.requests[0].messages[-1].content or ""
        assert "add milk & eggs, and tell @Bo Chen" in asked and "Ana Ruiz" in asked
        assert "<at" not in asked
    finally:
        await _stop(running)


async def test_an_activity_without_a_valid_token_runs_nothing(fake: FakeConnector) -> None:
    model = ScriptedModel(["never"])
    running = await start(fake, create_agents(model, InMemoryDb()), _settings())
    try:
        assert (await running.post(personal(), token=None))[0] == 401
        assert (await running.post(personal(), token=fake.token(audience="someone-else")))[0] == 401
        forged = fake.token(issuer="https://issuer.example/")  # signed, but not Microsoft's
        assert (await running.post(personal(), token=forged))[0] == 401
        assert (await running.post(personal(), token="not-a-jwt"))[0] == 401
        assert (
            fake.calls == [] and model.calls == 0 if hasattr(model, "calls") else fake.calls == []
        )
    finally:
        await _stop(running)


async def test_a_board_click_updates_the_card(fake: FakeConnector) -> None:
    """The board is posted as a card; its Done button, clicked, redraws it everywhere."""
    db = InMemoryDb()
    model = ScriptedModel([tool_call("add_task", title="Buy milk"), "Added."])
    running = await start(fake, create_agents(model, db), _settings())
    try:
        await running.post(channel_mention(text="<at>Statebot</at> add milk"))
        await running.replies(1)
        listing = channel_mention(id="list-1", text="<at>Statebot</at> /taskboard list_tasks")
        await running.post(listing)
        board = (await running.replies(2))[1]
        card = board.body["attachments"][0]["content"]
        buttons = [
            a for block in card["body"] if block["type"] == "ActionSet" for a in block["actions"]
        ]
        done = next(b for b in buttons if b["title"] == "Done")
        status, body = await running.post(card_action(done["data"], card_id=board.id))
        assert status == 200 and body["type"] == "application/vnd.microsoft.card.adaptive"
        shown = json.dumps(body["value"])
        assert (
            "Buy milk" in shown
            and "done" in shown
            and "Done"
            not in [
                a["title"]
                for b in body["value"]["body"]
                if b["type"] == "ActionSet"
                for a in b["actions"]
            ]
        )
        [update] = [c for c in fake.posts() if c.method == "PUT"]
        assert update.path.endswith(f"/activities/{board.id}")  # everyone's copy redrawn too
        assert update.body["attachments"][0]["content"] == body["value"]
        session = await db.aload(BOARD)
        assert session is not None and session.state["tasks"][0]["status"] == "done"
    finally:
        await _stop(running)


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


async def test_an_approval_is_decided_by_the_asker_only(fake: FakeConnector) -> None:
    db = InMemoryDb()
    model = ScriptedModel([tool_call("clear_board", keep=1), "Cleared all but one."])
    agent = Agent(
        model=model, db=db, tools=[clear_board], id="board", session_state={"tasks": ["a", "b"]}
    )
    running = await start(fake, {"board": agent}, _settings(statebot_default_agent="board"))
    try:
        await running.post(channel_mention(text="<at>Statebot</at> clear it"))
        [question] = await running.replies(1)
        card = question.body["attachments"][0]["content"]
        approve, _reject = card["actions"]
        assert approve["title"] == "Approve"
        status, body = await running.post(card_action(approve["data"], user=BO))
        assert status == 200 and body["value"] == NOT_YOURS  # to Bo only; nothing ran
        session_id = f"{BOARD}:{ROOT}"
        session = await db.aload(session_id)
        assert session is not None and session.state["tasks"] == ["a", "b"]
        status, body = await running.post(card_action(approve["data"], user=ANA))
        assert status == 200 and "Approved by" in json.dumps(body["value"])
        answers = [c.body.get("text") for c in fake.posts() if c.method == "POST"]
        assert any("Cleared all but one." in (t or "") for t in answers)
        session = await db.aload(session_id)
        assert session is not None and session.state["tasks"] == ["a"]
    finally:
        await _stop(running)


async def test_a_429_then_success_posts_the_reply_once(fake: FakeConnector) -> None:
    running = await start(
        fake, create_agents(ScriptedModel(["Nothing yet."]), InMemoryDb()), _settings()
    )
    try:
        fake.fail_next(1, 429)
        fake.fail_next(1, 503)
        await running.post(personal())
        await running.replies(3)
        texts = [c.body.get("text") for c in fake.posts()]
        assert texts == ["Nothing yet."] * 3  # two refused tries, then the one that landed
    finally:
        await _stop(running)


async def test_sigterm_lets_the_answer_in_flight_finish(fake: FakeConnector) -> None:
    gate = asyncio.Event()
    started = asyncio.Event()

    @tool
    async def slow_lookup() -> str:
        """Takes a while."""
        started.set()
        await gate.wait()
        return "found"

    model = ScriptedModel([tool_call("slow_lookup"), "Here it is."])
    agent = Agent(model=model, db=InMemoryDb(), tools=[slow_lookup], id="slow")
    running = await start(fake, {"slow": agent}, _settings(statebot_default_agent="slow"))
    await running.post(personal())
    await asyncio.wait_for(started.wait(), 10)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.sleep(0.1)
    status, _ = await running.post(personal(id="late-1"))  # arrives while draining
    assert status == 202
    gate.set()
    await asyncio.wait_for(running.task, 15)  # serve returns: drained and closed
    texts = [c.body.get("text") for c in fake.posts()]
    assert "Here it is." in texts and INTERRUPTED not in texts
    assert any("restarting" in (t or "") for t in texts)  # the late one was told to resend


async def test_an_answer_past_the_grace_is_cut_and_its_user_told(fake: FakeConnector) -> None:
    started = asyncio.Event()

    @tool
    async def endless_lookup() -> str:
        """Never finishes."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    model = ScriptedModel([tool_call("endless_lookup"), "unreachable"])
    agent = Agent(model=model, db=InMemoryDb(), tools=[endless_lookup], id="slow")
    settings = _settings(statebot_default_agent="slow", statebot_shutdown_grace=0.2)
    running = await start(fake, {"slow": agent}, settings)
    await running.post(personal())
    await asyncio.wait_for(started.wait(), 10)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(running.task, 15)
    assert [c.body.get("text") for c in fake.posts()] == [INTERRUPTED]


async def test_a_slow_approved_run_answers_teams_at_once_and_posts_later(
    fake: FakeConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Teams gives up on an invoke after some seconds: the click is answered with
    'working on it' while the approved run goes on; its answer and card come after."""
    monkeypatch.setattr(actions, "INVOKE_WAIT", 0.2)
    gate = asyncio.Event()

    @tool(requires_confirmation=True)
    async def archive_board(session_state: dict[str, Any]) -> str:
        """Archive every task (slow)."""
        await gate.wait()
        session_state["tasks"] = []
        return "archived"

    model = ScriptedModel([tool_call("archive_board"), "Archived everything."])
    agent = Agent(
        model=model,
        db=InMemoryDb(),
        tools=[archive_board],
        id="board",
        session_state={"tasks": ["a"]},
    )
    running = await start(fake, {"board": agent}, _settings(statebot_default_agent="board"))
    try:
        await running.post(channel_mention(text="<at>Statebot</at> archive"))
        [question] = await running.replies(1)
        approve = question.body["attachments"][0]["content"]["actions"][0]
        status, body = await running.post(card_action(approve["data"], card_id=question.id))
        assert status == 200 and "the answer follows" in json.dumps(body["value"])
        assert [c.body.get("text") for c in fake.posts()][1:] == []  # nothing posted yet
        gate.set()
        posts = await running.replies(3)
        assert any("Archived everything." in (c.body.get("text") or "") for c in posts)
        [update] = [c for c in posts if c.method == "PUT"]
        assert update.path.endswith(f"/activities/{question.id}")
        assert "Approved by" in json.dumps(update.body["attachments"][0]["content"])
    finally:
        await _stop(running)


async def test_the_typing_indicator_is_renewed_while_a_run_works(
    fake: FakeConnector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_module, "TYPING_EVERY", 0.05)
    gate = asyncio.Event()

    @tool
    async def slow_lookup() -> str:
        """Takes a while."""
        await gate.wait()
        return "found"

    model = ScriptedModel([tool_call("slow_lookup"), "Here it is."])
    agent = Agent(model=model, db=InMemoryDb(), tools=[slow_lookup], id="slow")
    running = await start(fake, {"slow": agent}, _settings(statebot_default_agent="slow"))
    try:
        await running.post(personal())
        async with asyncio.timeout(10):
            while sum(c.body.get("type") == "typing" for c in fake.calls) < 3:
                await asyncio.sleep(0.02)
        gate.set()
        await running.replies(1)
        typed = sum(c.body.get("type") == "typing" for c in fake.calls)
        await asyncio.sleep(0.3)  # once answered, no more typing
        assert sum(c.body.get("type") == "typing" for c in fake.calls) == typed
    finally:
        await _stop(running)
