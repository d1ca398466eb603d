"""TaskboardTools: the taskboard's tools as one toolkit."""

from __future__ import annotations

from typing import Any

from core.tools.toolkit import Toolkit
from tools.taskboard.timed import (
    add_task,
    list_overdue,
    remind,
    remove_task,
    set_due,
    task_reminder,
    update_task_status,
)
from tools.taskboard.tools import get_summary, list_tasks

TOOL_NAMES: tuple[str, ...] = (
    "add_task",
    "update_task_status",
    "list_tasks",
    "remove_task",
    "get_summary",
    "set_due",
    "remind",
    "list_overdue",
    "task_reminder",
)


class TaskboardTools(Toolkit):
    """Add, move, list, remove and summarise tasks; due dates, reminders, overdue tasks."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("name", "taskboard")
        super().__init__(**kwargs)
        for fn in (
            add_task,
            update_task_status,
            list_tasks,
            remove_task,
            get_summary,
            set_due,
            remind,
            list_overdue,
            task_reminder,
        ):
            self.register(fn)
