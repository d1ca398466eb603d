"""Cards built from toolkit state and their Block Kit limits, without a network."""

from __future__ import annotations

from dataclasses import replace

from bots.adapters.slack.blocks import MAX_BLOCKS, card_blocks
from bots.chat.cards import Card, Click, Section, state_card, tool_card
from bots.keys import user_key
from tools.shopping import ShoppingListTools
from tools.taskboard import TaskboardTools

BOARD = {
    "tasks": [
        {"id": 1, "title": "Write", "category": "work", "status": "open"},
        {"id": 2, "title": "Shop", "category": "personal", "status": "done"},
    ]
}


def _tool(toolkit: object, name: str) -> object:
    return toolkit.get_async_functions()[name]  # type: ignore[attr-defined]


def test_board_card_honours_list_filters() -> None:
    """list_tasks category=work shows only work tasks; an unknown filter gives no card."""
    tool = _tool(TaskboardTools(), "list_tasks")
    card = tool_card(tool, {"category": "work"}, BOARD)
    assert card is not None and card.controls is not None
    assert replace(card, controls=None) == Card(
        "Task board", (Section("Open", ("#1 Write (work)",)),), footer="1 task"
    )
    assert [item.text for item in card.controls.items] == ["#1 Write (work) · open"]
    assert tool_card(tool, {"status": "someday"}, BOARD) is None


def test_empty_lists_and_other_tools_have_no_card() -> None:
    """An empty list and any tool that is not a list answer in plain text only."""
    assert tool_card(_tool(ShoppingListTools(), "list_items"), {}, {"shopping_list": []}) is None
    assert tool_card(_tool(TaskboardTools(), "add_task"), {}, BOARD) is None
    shopping = tool_card(_tool(ShoppingListTools(), "list_items"), {}, {"shopping_list": ["Milk"]})
    assert shopping is not None
    assert replace(shopping, controls=None) == Card(
        "Shopping list", (Section("", ("Milk",)),), footer="1 item"
    )


def test_dump_with_more_keys_than_blocks_falls_back() -> None:
    """A state dump needing more than 50 blocks renders no blocks (the text is sent)."""
    dump = {"state": {f"k{i}": i for i in range(60)}, "kind": "agent", "owner_id": "a"}
    card = state_card("s:1", {**dump, "version": 3}, "now")
    assert len(card.sections) + 2 > MAX_BLOCKS
    assert card_blocks(card) is None
    small = state_card("s:1", {**dump, "state": {"a": 1}, "version": 3}, "now")
    assert card_blocks(small) is not None


def test_a_click_names_its_clicker_by_user_key() -> None:
    """The clicker's key is built once, on the record, as a Decision's is."""
    click = Click("slack", "T:1", "U0ANA0001", "taskboard", "s", "complete_task", {}, "b", {})
    assert click.clicker == user_key("slack", "T:1", "U0ANA0001") == "slack:T%3A1:U0ANA0001"
