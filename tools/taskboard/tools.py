"""Taskboard tools: a task list kept in ``session_state`` (seed 004).

State shape::

    {"tasks": [{"id": 1, "title": "...", "category": "work", "status": "open",
                "owner": "slack:T1:U1", "due": "2026-11-27T09:00:00+01:00",
                "reminders": [{"rid": "a1b2c3d4", "schedule_id": "...", "at": "..."}]}],
     "categories": ["general", "work", "personal"],
     "next_task_id": 2}

``owner``, ``due`` and ``reminders`` are optional (boards written before them have
none). Times are ISO 8601 with their offset; reading user text into them is
``tools.taskboard.dates``'s job, scheduling reminders ``tools.taskboard.timed``'s.

Every tool validates before it touches the state: an unknown category, status or
task id returns a message listing the valid choices and changes nothing. Ids come
from the ``next_task_id`` counter, so an id is never handed out twice, even after
the task that had it was removed.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from tools.taskboard.dates import show

STATUSES: tuple[str, ...] = ("open", "in_progress", "done")
DEFAULT_CATEGORIES: tuple[str, ...] = ("general", "work", "personal")

_UNCHANGED = "Nothing was changed."


def add_task(
    session_state: dict[str, Any],
    title: str,
    category: str = "general",
    *,
    due: datetime | None = None,
    owner: str | None = None,
) -> str:
    """Add a task to the board (``due``: when it is due; ``owner``: the user key it is for).

    Args:
        title: What needs doing, e.g. "Review the Q2 roadmap".
        category: One of the board's categories (by default general, work or personal).
    """
    clean_title = " ".join(str(title).split())
    if not clean_title:
        return f"A task needs a title. {_UNCHANGED}"
    categories = categories_of(session_state)
    matched = _match(category, categories)
    if matched is None:
        # "/add Buy milk" binds "milk" to category: say how to keep the words together
        together = f"{clean_title} {category}"
        return (
            f"Unknown category '{category}'. Choose one of: {', '.join(categories)}. "
            f"If '{together}' is the title, put it in quotes: \"{together}\". {_UNCHANGED}"
        )
    tasks = session_state.setdefault("tasks", [])
    task_id = _next_id(session_state)
    task: dict[str, Any] = {
        "id": task_id,
        "title": clean_title,
        "category": matched,
        "status": "open",
    }
    if owner:
        task["owner"] = owner
    if due is not None:
        task["due"] = due.isoformat()
    tasks.append(task)
    session_state["next_task_id"] = task_id + 1
    when = f", due {show(due)}" if due is not None else ""
    return f"Added task #{task_id}: {clean_title} ({matched}, open{when})."


def update_task_status(session_state: dict[str, Any], task_id: int, status: str) -> str:
    """Move a task to another status: open, in_progress or done.

    Args:
        task_id: The task's number, as shown by list_tasks.
        status: The new status: open, in_progress or done.
    """
    new_status = _match_status(status)
    if new_status is None:
        return f"Unknown status '{status}'. Choose one of: {', '.join(STATUSES)}. {_UNCHANGED}"
    task = _find(session_state, task_id)
    if task is None:
        return _no_such_task(session_state, task_id)
    old_status = task["status"]
    if old_status == new_status:
        return f"Task #{task['id']} ({task['title']}) is already {new_status}."
    task["status"] = new_status
    return f"Task #{task['id']} ({task['title']}): {old_status} → {new_status}."


def list_tasks(
    session_state: dict[str, Any], category: str | None = None, status: str | None = None
) -> str:
    """List the tasks on the board, optionally only one category and/or status.

    Args:
        category: Only tasks in this category.
        status: Only tasks with this status: open, in_progress or done.
    """
    categories = categories_of(session_state)
    wanted_category = None
    if category:
        wanted_category = _match(category, categories)
        if wanted_category is None:
            return f"Unknown category '{category}'. Choose one of: {', '.join(categories)}."
    wanted_status = None
    if status:
        wanted_status = _match_status(status)
        if wanted_status is None:
            return f"Unknown status '{status}'. Choose one of: {', '.join(STATUSES)}."
    tasks = [
        t
        for t in tasks_of(session_state)
        if (wanted_category is None or t.get("category") == wanted_category)
        and (wanted_status is None or t.get("status") == wanted_status)
    ]
    filters = _describe_filters(wanted_category, wanted_status)
    if not tasks:
        if filters:
            return f"No tasks {filters}."
        return "The board is empty. Add a task with add_task."
    header = f"Tasks {filters} ({len(tasks)}):" if filters else f"Tasks ({len(tasks)}):"
    return "\n".join([header, *(_format(t) for t in tasks)])


def remove_task(session_state: dict[str, Any], task_id: int) -> str:
    """Remove a task from the board for good. Its number is not reused.

    Args:
        task_id: The task's number, as shown by list_tasks.
    """
    task = _find(session_state, task_id)
    if task is None:
        return _no_such_task(session_state, task_id)
    # the counter must outlive the task, so pin it before the task disappears
    session_state["next_task_id"] = _next_id(session_state)
    session_state["tasks"].remove(task)
    return f"Removed task #{task['id']}: {task['title']}."


def get_summary(session_state: dict[str, Any]) -> str:
    """Summarise the board: how many tasks per status and per category."""
    tasks = tasks_of(session_state)
    if not tasks:
        return "No tasks yet. Add one with add_task."
    by_status = Counter(t.get("status") for t in tasks)
    by_category = Counter(t.get("category") for t in tasks)
    noun = "task" if len(tasks) == 1 else "tasks"
    statuses = ", ".join(f"{by_status.get(s, 0)} {s.replace('_', ' ')}" for s in STATUSES)
    categories = ", ".join(f"{name} {count}" for name, count in sorted(by_category.items()))
    lines = [f"{len(tasks)} {noun}: {statuses}.", f"By category: {categories}."]
    open_tasks = [t for t in tasks if t.get("status") != "done"]
    if open_tasks:
        lines.append("Still to do: " + "; ".join(f"#{t['id']} {t['title']}" for t in open_tasks))
    else:
        lines.append("Everything is done.")
    return "\n".join(lines)


def set_due(session_state: dict[str, Any], task_id: object, due: datetime) -> str:
    """Give a task a due date (replacing any earlier one)."""
    task = _find(session_state, task_id)
    if task is None:
        return _no_such_task(session_state, task_id)
    task["due"] = due.isoformat()
    return f"Task #{task['id']} ({task['title']}) is due {show(due)}."


def overdue_tasks(session_state: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    """Tasks not done whose due time is before ``now``, the most overdue first."""
    late = [
        t
        for t in tasks_of(session_state)
        if t.get("status") != "done" and (due := due_of(t)) is not None and due < now
    ]
    return sorted(late, key=lambda t: due_of(t) or now)


def list_overdue_text(session_state: dict[str, Any], now: datetime) -> str:
    """The overdue listing as a reply."""
    late = overdue_tasks(session_state, now)
    if not late:
        return "Nothing is overdue."
    return "\n".join([f"Overdue ({len(late)}):", *(_format(t) for t in late)])


def due_of(task: dict[str, Any]) -> datetime | None:
    """A task's due time, or None (none set, or not a time this board wrote)."""
    try:
        return datetime.fromisoformat(str(task["due"])) if task.get("due") else None
    except ValueError:
        return None


def find_task(session_state: dict[str, Any], task_id: object) -> dict[str, Any] | None:
    """The task with number ``task_id`` ("3", "#3" or 3), or None."""
    return _find(session_state, task_id)


def no_such_task(session_state: dict[str, Any], task_id: object) -> str:
    """The reply for a task number that is not on the board (lists the ones that are)."""
    return _no_such_task(session_state, task_id)


def categories_of(session_state: dict[str, Any]) -> list[str]:
    """The board's categories: ``state["categories"]`` or the defaults."""
    configured = session_state.get("categories")
    if isinstance(configured, list) and configured:
        return [str(c) for c in configured]
    return list(DEFAULT_CATEGORIES)


def tasks_of(session_state: dict[str, Any]) -> list[dict[str, Any]]:
    """The board's task list (empty when the state holds none or something else)."""
    tasks = session_state.get("tasks")
    return tasks if isinstance(tasks, list) else []


def _next_id(session_state: dict[str, Any]) -> int:
    # never below max+1: a state written by hand (or by an older version) may lack the counter
    highest = max(
        (t["id"] for t in tasks_of(session_state) if isinstance(t.get("id"), int)), default=0
    )
    counter = session_state.get("next_task_id")
    if not isinstance(counter, int) or isinstance(counter, bool):
        counter = 1
    return max(counter, highest + 1)


def _as_id(task_id: object) -> int | None:
    if isinstance(task_id, bool):
        return None
    if isinstance(task_id, int):
        return task_id
    text = str(task_id).strip().lstrip("#")
    return int(text) if text.isdigit() else None


def _find(session_state: dict[str, Any], task_id: object) -> dict[str, Any] | None:
    wanted = _as_id(task_id)
    if wanted is None:
        return None
    return next((t for t in tasks_of(session_state) if t.get("id") == wanted), None)


def is_no_such_task(reply: str) -> bool:
    """True when a tool's reply says the task it was given is not on the board."""
    return reply.startswith(_NO_SUCH_TASK)


_NO_SUCH_TASK = "There is no task #"


def _no_such_task(session_state: dict[str, Any], task_id: object) -> str:
    ids = [f"#{t['id']}" for t in tasks_of(session_state)]
    if not ids:
        return f"There is no task #{task_id}: the board is empty. {_UNCHANGED}"
    return f"There is no task #{task_id}. Existing tasks: {', '.join(ids)}. {_UNCHANGED}"


def _match(value: object, choices: list[str]) -> str | None:
    """The choice equal to ``value`` ignoring case and surrounding spaces."""
    wanted = str(value).strip().casefold()
    return next((c for c in choices if c.casefold() == wanted), None)


def _match_status(value: object) -> str | None:
    # people write "in progress" and "In-Progress"; the stored spelling is in_progress
    normalised = "_".join(str(value).strip().replace("-", " ").split())
    return _match(normalised, list(STATUSES))


def _describe_filters(category: str | None, status: str | None) -> str:
    parts = []
    if category:
        parts.append(f"in {category}")
    if status:
        parts.append(f"with status {status}")
    return " ".join(parts)


def _format(task: dict[str, Any]) -> str:
    due = due_of(task)
    when = f", due {show(due)}" if due is not None else ""
    category = f"{task.get('category')}{when}"
    return f"- #{task['id']} [{task.get('status')}] {task.get('title')} ({category})"
