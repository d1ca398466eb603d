"""The clickable board on Discord: embed + buttons, edits in place, delete asks, a modal adds."""

from __future__ import annotations

from typing import Any

from discord_harness import Harness, MakeDiscord
from discord_payloads import ALICE, CHANNEL, GUILD, interaction_create
from fakes.discord_api import BOT_USER, FakeDiscordApi

from bots.chat.clicks import CLICK_STALE
from core.agent import Agent

SESSION = f"discord:{GUILD}:{CHANNEL}"


async def _board(bot: Harness, titles: list[str]) -> Agent:
    agent = bot.client.service.agents["taskboard"]
    assert isinstance(agent, Agent)
    tasks = [
        {"id": i, "title": t, "category": "work", "status": "open"}
        for i, t in enumerate(titles, start=1)
    ]
    await agent.aupdate_session_state({"tasks": tasks, "next_task_id": len(tasks) + 1}, SESSION)
    return agent


async def _list(bot: Harness, fake: FakeDiscordApi) -> dict[str, Any]:
    """The board follow-up as Discord stores it (embed and button rows)."""
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", "list"))
    await bot.settle()
    [sent] = [c.json for c in fake.sent("webhooks/") if c.json and c.json.get("components")]
    return {**fake._message(CHANNEL, sent), "components": sent["components"]}


def _ids(message: dict[str, Any]) -> dict[str, str]:
    return {
        b["label"]: b["custom_id"]
        for row in message["components"]
        for b in row["components"]
        if b["type"] == 2
    }


def _click(message: dict[str, Any], custom_id: str) -> dict[str, Any]:
    """INTERACTION_CREATE of type 3: a button on the bot's message."""
    body = interaction_create("unused", None, user=ALICE)
    body.update(
        type=3,
        message={**message, "author": BOT_USER, "channel_id": CHANNEL},
        data={"custom_id": custom_id, "component_type": 2},
    )
    return body


def _edits(fake: FakeDiscordApi) -> list[dict[str, Any]]:
    """Bodies of edits of the clicked message (the interaction's original response)."""
    return [c.json for c in fake.sent("messages/@original", method="PATCH") if c.json]


def _ephemerals(fake: FakeDiscordApi) -> list[str]:
    return [
        str(c.json.get("content") or (c.json.get("data") or {}).get("content"))
        for c in fake.calls
        if c.method == "POST"
        and isinstance(c.json, dict)
        and (c.json.get("flags", 0) | (c.json.get("data") or {}).get("flags", 0)) & 64
    ]


async def test_done_button_changes_state_and_edits_the_board(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Done on #1 runs the tool and the same message shows the new board; stale says so."""
    bot = await make_discord()
    agent = await _board(bot, ["Write report", "Call Bo"])
    board = await _list(bot, fake_discord)
    ids = _ids(board)
    assert list(ids)[:3] == ["#1 ▶", "#1 ✓", "#1 ✕"]
    assert "Add task" in ids and all(len(i) <= 100 for i in ids.values())
    bot.gateway("INTERACTION_CREATE", _click(board, ids["#1 ✓"]))
    await bot.settle()
    state = await agent.aget_session_state(SESSION)
    assert [t["status"] for t in state["tasks"]] == ["done", "open"]
    [edit] = _edits(fake_discord)
    fields = [(f["name"], f["value"]) for f in edit["embeds"][0]["fields"]]
    assert fields == [("Open", "• #2 Call Bo (work)"), ("Done", "• #1 Write report (work)")]
    await agent.aupdate_session_state({"tasks": [state["tasks"][1]]}, SESSION)  # #1 removed
    bot.gateway("INTERACTION_CREATE", _click(board, ids["#1 ▶"]))
    await bot.settle()
    assert any(e.startswith(CLICK_STALE) for e in _ephemerals(fake_discord))
    assert (await agent.aget_session_state(SESSION))["tasks"] == [state["tasks"][1]]


async def test_delete_asks_first_then_edits_the_board(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Delete answers privately with a question; its confirm button deletes and redraws."""
    bot = await make_discord()
    agent = await _board(bot, ["Write report", "Call Bo"])
    board = await _list(bot, fake_discord)
    bot.gateway("INTERACTION_CREATE", _click(board, _ids(board)["#1 ✕"]))
    await bot.settle()
    assert len((await agent.aget_session_state(SESSION))["tasks"]) == 2  # nothing yet
    [asked] = [
        c.json["data"]
        for c in fake_discord.sent("/callback")
        if (c.json.get("data") or {}).get("components")
    ]
    assert asked["content"] == "Delete task #1 (Write report) for good?"
    assert asked["flags"] & 64
    question = {**fake_discord._message(CHANNEL, asked), "components": asked["components"]}
    bot.gateway("INTERACTION_CREATE", _click(question, _ids(question)["Delete"]))
    await bot.settle()
    assert [t["id"] for t in (await agent.aget_session_state(SESSION))["tasks"]] == [2]
    board_id = board["id"]
    [redrawn] = [c.json for c in fake_discord.sent(f"messages/{board_id}", method="PATCH")]
    assert [f["value"] for f in redrawn["embeds"][0]["fields"]] == ["• #2 Call Bo (work)"]


async def test_add_task_modal_submission_adds_and_edits(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Add task opens a modal; submitting it adds the task and edits the board."""
    bot = await make_discord()
    agent = await _board(bot, ["Write report"])
    board = await _list(bot, fake_discord)
    bot.gateway("INTERACTION_CREATE", _click(board, _ids(board)["Add task"]))
    await bot.settle()
    [modal] = [c.json["data"] for c in fake_discord.sent("/callback") if c.json.get("type") == 9]
    inputs = [row["components"][0]["custom_id"] for row in modal["components"]]
    assert inputs == ["title", "category", "due"]
    submit = interaction_create("unused", None, user=ALICE)
    submit.update(
        type=5,
        message={**board, "author": BOT_USER, "channel_id": CHANNEL},
        data={
            "custom_id": modal["custom_id"],
            "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "title", "value": "Plan Q3"}]},
                {"type": 1, "components": [{"type": 4, "custom_id": "category", "value": ""}]},
                {"type": 1, "components": [{"type": 4, "custom_id": "due", "value": ""}]},
            ],
        },
    )
    bot.gateway("INTERACTION_CREATE", submit)
    await bot.settle()
    titles = [t["title"] for t in (await agent.aget_session_state(SESSION))["tasks"]]
    assert titles == ["Write report", "Plan Q3"]
    fields = _edits(fake_discord)[-1]["embeds"][0]["fields"]
    assert fields[0]["value"] == "• #1 Write report (work)\n• #2 Plan Q3 (general)"


async def test_every_task_is_reachable_within_discords_component_limits(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Nine tasks: short buttons for the first, a select menu for the rest; the menu runs."""
    bot = await make_discord()
    agent = await _board(bot, [f"Task number {n}" for n in range(1, 10)])
    board = await _list(bot, fake_discord)
    rows = board["components"]
    assert len(rows) <= 5 and all(len(r["components"]) <= 5 for r in rows)
    labels = list(_ids(board))
    assert all(len(label) <= 6 for label in labels if label != "Add task"), labels
    assert "Add task" in labels
    [menu] = [c for r in rows for c in r["components"] if c["type"] == 3]
    assert len(menu["options"]) <= 25
    with_buttons = {label.split()[0] for label in labels if label != "Add task"}
    in_menu = {o["label"].split()[0] for o in menu["options"]}
    assert with_buttons | in_menu == {f"#{n}" for n in range(1, 10)}
    assert not with_buttons & in_menu
    [done_9] = [o for o in menu["options"] if o["label"] == "#9 ✓ Done"]
    assert done_9["description"] == "#9 Task number 9 (work) · open"
    choose = _click(board, menu["custom_id"])
    choose["data"] = {
        "custom_id": menu["custom_id"],
        "component_type": 3,
        "values": [done_9["value"]],
    }
    bot.gateway("INTERACTION_CREATE", choose)
    await bot.settle()
    state = await agent.aget_session_state(SESSION)
    assert [t["id"] for t in state["tasks"] if t["status"] == "done"] == [9]
    [edit] = _edits(fake_discord)
    assert edit["components"]  # the board was redrawn with its controls
