"""Inline keyboards through the shared click path: a board button edits the board in
place, delete asks first, and an approval is decided by the asker alone."""

from __future__ import annotations

from typing import Any

from bots.adapters.telegram.presses import BUTTON_EXPIRED
from bots.chat.approvals import ALREADY, NOT_YOURS
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import WS, Start
from tests.bots.adapters.telegram.fake_bot_api import FakeBotApi
from tools.catalog import COMMAND_ALIASES, create_agents

BOARD = f"telegram:{WS}:{p.GROUP}"


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """A sent message's buttons: label -> callback data."""
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b["callback_data"] for row in rows for b in row}


async def tasks(db: SqliteDb) -> list[tuple[str, str]]:
    session = await db.aload(BOARD)
    assert session is not None
    return [(t["title"], t["status"]) for t in session.state["tasks"]]


async def test_a_board_button_updates_the_board_in_place(start: Start, fake: FakeBotApi) -> None:
    """/taskboard list shows the board with buttons; #1 ✓ marks it done and the same
    message is edited to the new board, with new buttons."""
    bot = await start(lambda db: create_agents(ScriptedModel([]), db), aliases=COMMAND_ALIASES)
    for index, text in enumerate(["add milk", "add eggs", "list"]):
        fake.push(p.command("taskboard", text, message_id=40 + index))
        await fake.wait_for("sendMessage", count=index + 1)
    board = fake.posted[-1]
    assert board["text"].startswith("*Task board*") and "#1 ✓" in buttons(board)
    fake.push(p.callback(buttons(board)["#1 ✓"], board, user=p.BOB))
    [edit] = await fake.wait_for("editMessageText")
    assert (edit["chat_id"], edit["message_id"]) == (p.GROUP, board["message_id"])
    assert edit["parse_mode"] == "MarkdownV2" and "inline_keyboard" in edit["reply_markup"]
    assert await tasks(bot.db) == [("milk", "done"), ("eggs", "open")]
    assert fake.sent("answerCallbackQuery")[0].get("text") is None  # no alert: it worked


async def test_delete_asks_first_then_redraws_the_board(start: Start, fake: FakeBotApi) -> None:
    """#2 ✕ posts its question with one button; that button deletes, redraws the board and
    replaces the question with the outcome."""
    bot = await start(lambda db: create_agents(ScriptedModel([]), db), aliases=COMMAND_ALIASES)
    for index, text in enumerate(["add milk", "add eggs", "list"]):
        fake.push(p.command("taskboard", text, message_id=40 + index))
        await fake.wait_for("sendMessage", count=index + 1)
    board = fake.posted[-1]
    fake.push(p.callback(buttons(board)["#2 ✕"], board))
    await fake.wait_for("sendMessage", count=4)
    question = fake.posted[-1]
    assert "for good" in question["text"] and await tasks(bot.db) == [
        ("milk", "open"),
        ("eggs", "open"),
    ]
    [confirm] = buttons(question).values()
    fake.push(p.callback(confirm, question))
    edits = await fake.wait_for("editMessageText", count=2)
    assert {e["message_id"] for e in edits} == {board["message_id"], question["message_id"]}
    assert await tasks(bot.db) == [("milk", "open")]


async def test_an_unknown_button_is_said_to_the_clicker(start: Start, fake: FakeBotApi) -> None:
    """A button whose value expired: an alert to the clicker, nothing run."""
    await start(lambda db: create_agents(ScriptedModel([]), db))
    fake.push(p.callback("c:" + "0" * 32, p.mention("x")["message"]))
    [answer] = await fake.wait_for("answerCallbackQuery")
    assert answer["text"] == BUTTON_EXPIRED and answer["show_alert"] == "true"


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


def board_agent(turns: list[Any]) -> Any:
    def make(db: SqliteDb) -> dict[str, Agent]:
        agent = Agent(
            model=ScriptedModel(turns),
            db=db,
            tools=[clear_board],
            id="board",
            session_state={"tasks": ["a", "b"]},
        )
        return {"board": agent}

    return make


async def test_an_approval_is_decided_by_the_asker_only(start: Start, fake: FakeBotApi) -> None:
    """Bob's Approve is refused to him alone; Alice's runs the tool, removes the
    buttons and posts the answer under the question; a second click changes nothing."""
    turns = [tool_call("clear_board", keep=1), "Cleared; one task kept."]
    bot = await start(board_agent(turns))
    fake.push(p.mention("clear the board"))
    await fake.wait_for("sendMessage")
    question = fake.posted[-1]
    assert question["text"].startswith("Approve clear\\_board")
    approve = buttons(question)["Approve"]
    fake.push(p.callback(approve, question, user=p.BOB, query_id="q-bob"))
    [refusal] = await fake.wait_for("answerCallbackQuery")
    assert (refusal["text"], refusal["show_alert"]) == (NOT_YOURS, "true")
    session = await bot.db.aload(BOARD)
    assert session is not None and session.state["tasks"] == ["a", "b"]
    fake.push(p.callback(approve, question, query_id="q-alice"))
    await fake.wait_for("sendMessage", count=2)
    answer = fake.sent()[-1]
    who = f"`telegram:{WS}:{p.ALICE['id']}`"  # users are named by key (no pinging mention)
    assert answer["text"] == f"Approved by {who}\\.\nCleared; one task kept\\."
    assert answer["reply_parameters"]["message_id"] == question["message_id"]
    [removed] = fake.sent("editMessageReplyMarkup")
    assert removed["message_id"] == question["message_id"] and "reply_markup" not in removed
    session = await bot.db.aload(BOARD)
    assert session is not None and session.state["tasks"] == ["a"]
    fake.push(p.callback(approve, question, query_id="q-again"))
    again = await fake.wait_for("answerCallbackQuery", count=3)
    assert again[-1]["text"] == ALREADY
