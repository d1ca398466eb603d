"""The shopping list tool functions on plain dicts: case-insensitive, no duplicates."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tools.shopping import add_item, clear_list, default_state, list_items, remove_item


def test_add_item_appends_and_confirms() -> None:
    """add_item appends the item as written and confirms it."""
    state = default_state()
    assert add_item(state, "Milk") == "Added 'Milk' to the shopping list."
    assert state == {"shopping_list": ["Milk"]}


@pytest.mark.parametrize("again", ["milk", "MILK", "  Milk  ", "mIlK"])
def test_add_item_refuses_duplicates_in_any_case(again: str) -> None:
    """An item already on the list, in any case or spacing, is not added twice."""
    state = {"shopping_list": ["Milk"]}
    assert add_item(state, again) == "'Milk' is already on the shopping list."
    assert state == {"shopping_list": ["Milk"]}


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_add_item_refuses_blank_names(blank: str) -> None:
    """A blank item is refused with a clear message and no change."""
    state = default_state()
    assert add_item(state, blank) == "An item needs a name. Nothing was changed."
    assert state == default_state()


def test_add_item_on_state_without_list_creates_it() -> None:
    """A state that has no shopping_list key gets one on the first add."""
    state: dict[str, Any] = {"other": 1}
    add_item(state, "Eggs")
    assert state == {"other": 1, "shopping_list": ["Eggs"]}


def test_add_item_collapses_inner_whitespace() -> None:
    """'oat   milk' is stored as 'oat milk' and then counts as a duplicate of it."""
    state = default_state()
    add_item(state, " oat   milk ")
    assert add_item(state, "Oat Milk") == "'oat milk' is already on the shopping list."
    assert state["shopping_list"] == ["oat milk"]


def test_remove_item_is_case_insensitive_and_names_stored_spelling() -> None:
    """remove_item finds 'Bread' from 'BREAD' and reports the stored spelling."""
    state = {"shopping_list": ["Milk", "Bread", "Eggs"]}
    assert remove_item(state, "BREAD") == "Removed 'Bread' from the shopping list."
    assert state == {"shopping_list": ["Milk", "Eggs"]}


def test_remove_item_missing_lists_what_is_there() -> None:
    """Removing an item not on the list says so, lists the items and changes nothing."""
    state = {"shopping_list": ["Milk", "Eggs"]}
    before = copy.deepcopy(state)
    assert remove_item(state, "cheese") == (
        "'cheese' is not on the shopping list. It has: Milk, Eggs."
    )
    assert state == before


def test_remove_item_from_empty_list() -> None:
    """Removing from an empty list says the list is empty and changes nothing."""
    state = default_state()
    assert remove_item(state, "milk") == "The shopping list is empty, so 'milk' cannot be removed."
    assert state == default_state()


def test_remove_blank_item_changes_nothing() -> None:
    """A blank name matches nothing, even on a non-empty list."""
    state = {"shopping_list": ["Milk"]}
    assert "is not on the shopping list" in remove_item(state, "  ")
    assert state == {"shopping_list": ["Milk"]}


def test_list_items_shows_items_in_order() -> None:
    """list_items shows a count and one line per item, in the order added."""
    state = {"shopping_list": ["Milk", "Eggs"]}
    assert list_items(state) == "Shopping list (2):\n- Milk\n- Eggs"
    assert state == {"shopping_list": ["Milk", "Eggs"]}


def test_list_items_empty() -> None:
    """An empty or missing list is reported as empty."""
    assert list_items(default_state()) == "The shopping list is empty."
    assert list_items({}) == "The shopping list is empty."


def test_clear_list_empties_and_counts() -> None:
    """clear_list removes everything and says how many items went."""
    state = {"shopping_list": ["Milk", "Eggs", "Bread"]}
    assert clear_list(state) == "Cleared the shopping list (3 items removed)."
    assert state == {"shopping_list": []}
    single = {"shopping_list": ["Milk"]}
    assert clear_list(single) == "Cleared the shopping list (1 item removed)."


def test_clear_empty_list_says_already_empty() -> None:
    """Clearing an empty list says so and leaves the state as it was."""
    state: dict[str, Any] = {}
    assert clear_list(state) == "The shopping list is already empty."
    assert state == {}


def test_seed_001_conversation_on_a_dict() -> None:
    """The seed's flow: add three, remove bread, add two, clear and restart with two."""
    state = default_state()
    for item in ("milk", "eggs", "bread"):
        add_item(state, item)
    remove_item(state, "Bread")
    for item in ("apples", "oranges"):
        add_item(state, item)
    assert state["shopping_list"] == ["milk", "eggs", "apples", "oranges"]
    clear_list(state)
    add_item(state, "bananas")
    add_item(state, "yogurt")
    assert state["shopping_list"] == ["bananas", "yogurt"]
