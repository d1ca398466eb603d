"""The taskboard tool functions on plain dicts: every message path, state after each call."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tools.taskboard import (
    DEFAULT_CATEGORIES,
    add_task,
    default_state,
    get_summary,
    list_tasks,
    remove_task,
    update_task_status,
)


@pytest.fixture
def board() -> dict[str, Any]:
    """A board with three tasks: #1 work/open, #2 personal/in_progress, #3 general/done."""
    state = default_state()
    add_task(state, "Review Q2 roadmap", "work")
    add_task(state, "Book dentist", "personal")
    add_task(state, "Water plants")
    update_task_status(state, 2, "in_progress")
    update_task_status(state, 3, "done")
    return state


def test_add_task_stores_open_task_and_advances_counter() -> None:
    """add_task appends an open task with id 1 and moves next_task_id to 2."""
    state = default_state()
    message = add_task(state, "Review Q2 roadmap", "work")
    assert message == "Added task #1: Review Q2 roadmap (work, open)."
    assert state["tasks"] == [
        {"id": 1, "title": "Review Q2 roadmap", "category": "work", "status": "open"}
    ]
    assert state["next_task_id"] == 2


def test_add_task_defaults_to_general_and_matches_category_case_insensitively() -> None:
    """Category defaults to general; 'WORK' is stored as the board's spelling 'work'."""
    state = default_state()
    add_task(state, "Plain")
    add_task(state, "Shouted", "  WORK ")
    assert [t["category"] for t in state["tasks"]] == ["general", "work"]


def test_add_task_normalises_title_whitespace() -> None:
    """Runs of spaces and newlines in a title collapse to single spaces."""
    state = default_state()
    add_task(state, "  Call\n  the   bank ")
    assert state["tasks"][0]["title"] == "Call the bank"


def test_add_task_unknown_category_lists_choices_and_changes_nothing() -> None:
    """An unknown category names the valid ones and leaves the state untouched."""
    state = default_state()
    before = copy.deepcopy(state)
    message = add_task(state, "Something", "hobby")
    assert "Unknown category 'hobby'" in message
    assert "general, work, personal" in message
    assert "Nothing was changed" in message
    assert state == before


@pytest.mark.parametrize("title", ["", "   ", "\n\t"])
def test_add_task_blank_title_is_refused(title: str) -> None:
    """A blank title is refused with a clear message and no change."""
    state = default_state()
    before = copy.deepcopy(state)
    assert add_task(state, title) == "A task needs a title. Nothing was changed."
    assert state == before


def test_add_task_uses_categories_from_state() -> None:
    """Custom categories in state replace the defaults, for adding and for the message."""
    state: dict[str, Any] = {"tasks": [], "categories": ["ops", "sales"]}
    assert add_task(state, "Deploy", "ops").startswith("Added task #1")
    message = add_task(state, "Review", "work")
    assert "Choose one of: ops, sales." in message
    assert len(state["tasks"]) == 1


def test_add_task_on_empty_dict_creates_keys() -> None:
    """A state without any taskboard keys gets tasks and a counter on first add."""
    state: dict[str, Any] = {}
    add_task(state, "First")
    assert state == {
        "tasks": [{"id": 1, "title": "First", "category": "general", "status": "open"}],
        "next_task_id": 2,
    }


def test_ids_are_never_reused_after_removal() -> None:
    """Removing the newest task does not free its id: the next task gets a new one."""
    state = default_state()
    add_task(state, "One")
    add_task(state, "Two")
    remove_task(state, 2)
    remove_task(state, 1)
    assert add_task(state, "Three") == "Added task #3: Three (general, open)."
    assert [t["id"] for t in state["tasks"]] == [3]


def test_counter_missing_from_state_never_collides_with_existing_ids() -> None:
    """A state written without next_task_id continues after the highest existing id."""
    state: dict[str, Any] = {
        "tasks": [{"id": 7, "title": "Old", "category": "work", "status": "open"}]
    }
    add_task(state, "New")
    assert [t["id"] for t in state["tasks"]] == [7, 8]
    assert state["next_task_id"] == 9


def test_remove_pins_counter_when_state_had_none() -> None:
    """Removing the only task of a counter-less state still records the next id."""
    state: dict[str, Any] = {
        "tasks": [{"id": 4, "title": "Old", "category": "work", "status": "open"}]
    }
    remove_task(state, 4)
    assert state == {"tasks": [], "next_task_id": 5}
    assert add_task(state, "Next").startswith("Added task #5")


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("done", "done"),
        ("In Progress", "in_progress"),
        ("in-progress", "in_progress"),
        ("OPEN", "open"),
    ],
)
def test_update_status_accepts_common_spellings(
    board: dict[str, Any], written: str, stored: str
) -> None:
    """Status matching ignores case and accepts spaces or hyphens for in_progress."""
    task_id = 1 if stored != "open" else 2
    update_task_status(board, task_id, written)
    assert next(t for t in board["tasks"] if t["id"] == task_id)["status"] == stored


def test_update_status_reports_transition(board: dict[str, Any]) -> None:
    """The message names the task and the old and new status."""
    assert update_task_status(board, 1, "done") == "Task #1 (Review Q2 roadmap): open → done."


def test_update_status_to_same_status_says_so(board: dict[str, Any]) -> None:
    """Setting the status a task already has is reported, not silently accepted."""
    assert update_task_status(board, 3, "done") == "Task #3 (Water plants) is already done."


def test_update_status_unknown_status_lists_choices_and_changes_nothing(
    board: dict[str, Any],
) -> None:
    """An unknown status lists open, in_progress, done and changes nothing."""
    before = copy.deepcopy(board)
    message = update_task_status(board, 1, "finished")
    assert message == (
        "Unknown status 'finished'. Choose one of: open, in_progress, done. Nothing was changed."
    )
    assert board == before


@pytest.mark.parametrize("task_id", [99, 0, -1])
def test_update_status_unknown_id_lists_existing_ids(board: dict[str, Any], task_id: int) -> None:
    """An unknown task id lists the ids that exist and changes nothing."""
    before = copy.deepcopy(board)
    message = update_task_status(board, task_id, "done")
    assert (
        message == f"There is no task #{task_id}. Existing tasks: #1, #2, #3. Nothing was changed."
    )
    assert board == before


def test_unknown_id_on_empty_board_says_board_is_empty() -> None:
    """On an empty board the unknown-id message says the board is empty."""
    state = default_state()
    assert "the board is empty" in update_task_status(state, 1, "done")
    assert "the board is empty" in remove_task(state, 1)
    assert state == default_state()


def test_task_id_given_as_text_is_understood(board: dict[str, Any]) -> None:
    """'#2' and '2' address task 2 (callers outside the model may pass text)."""
    update_task_status(board, "#2", "done")  # type: ignore[arg-type]
    assert remove_task(board, "2") == "Removed task #2: Book dentist."  # type: ignore[arg-type]


def test_task_id_true_is_not_task_one(board: dict[str, Any]) -> None:
    """A boolean is not a task id, even though True == 1 in Python."""
    before = copy.deepcopy(board)
    assert "There is no task #True" in remove_task(board, True)
    assert board == before


def test_remove_task_removes_and_reports(board: dict[str, Any]) -> None:
    """remove_task deletes exactly that task and names it."""
    assert remove_task(board, 2) == "Removed task #2: Book dentist."
    assert [t["id"] for t in board["tasks"]] == [1, 3]
    assert board["next_task_id"] == 4


def test_remove_task_unknown_id_changes_nothing(board: dict[str, Any]) -> None:
    """Removing an id that does not exist changes nothing."""
    before = copy.deepcopy(board)
    assert "There is no task #8" in remove_task(board, 8)
    assert board == before


def test_list_tasks_shows_every_task(board: dict[str, Any]) -> None:
    """Without filters every task is listed with id, status, title and category."""
    assert list_tasks(board) == (
        "Tasks (3):\n"
        "- #1 [open] Review Q2 roadmap (work)\n"
        "- #2 [in_progress] Book dentist (personal)\n"
        "- #3 [done] Water plants (general)"
    )


def test_list_tasks_filters_by_category_and_status(board: dict[str, Any]) -> None:
    """Category and status filters combine, match case-insensitively and say what they are."""
    assert list_tasks(board, category="Personal") == (
        "Tasks in personal (1):\n- #2 [in_progress] Book dentist (personal)"
    )
    assert list_tasks(board, status="in progress", category="personal").startswith(
        "Tasks in personal with status in_progress (1):"
    )
    assert list_tasks(board, category="work", status="done") == (
        "No tasks in work with status done."
    )


def test_list_tasks_rejects_unknown_filters(board: dict[str, Any]) -> None:
    """An unknown filter value is named along with the valid choices."""
    assert list_tasks(board, category="hobby") == (
        "Unknown category 'hobby'. Choose one of: general, work, personal."
    )
    assert list_tasks(board, status="later") == (
        "Unknown status 'later'. Choose one of: open, in_progress, done."
    )


def test_list_tasks_on_empty_board() -> None:
    """An empty board says so and suggests add_task."""
    assert list_tasks(default_state()) == "The board is empty. Add a task with add_task."


def test_read_only_tools_do_not_change_state(board: dict[str, Any]) -> None:
    """list_tasks and get_summary leave the state exactly as it was."""
    before = copy.deepcopy(board)
    list_tasks(board)
    list_tasks(board, category="work", status="open")
    get_summary(board)
    assert board == before


def test_summary_counts_by_status_and_category(board: dict[str, Any]) -> None:
    """The summary counts tasks per status and category and lists what is still to do."""
    assert get_summary(board) == (
        "3 tasks: 1 open, 1 in progress, 1 done.\n"
        "By category: general 1, personal 1, work 1.\n"
        "Still to do: #1 Review Q2 roadmap; #2 Book dentist"
    )


def test_summary_when_everything_is_done() -> None:
    """A board with only done tasks says everything is done."""
    state = default_state()
    add_task(state, "Only")
    update_task_status(state, 1, "done")
    assert get_summary(state) == (
        "1 task: 0 open, 0 in progress, 1 done.\nBy category: general 1.\nEverything is done."
    )


def test_summary_of_empty_board() -> None:
    """An empty board's summary says there are no tasks yet."""
    assert get_summary({}) == "No tasks yet. Add one with add_task."


def test_default_state_is_fresh_each_time() -> None:
    """default_state returns a new dict each call, so boards never share lists."""
    first = default_state()
    first["tasks"].append({"id": 1})
    assert default_state()["tasks"] == []
    assert default_state()["categories"] == list(DEFAULT_CATEGORIES)
