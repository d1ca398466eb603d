"""TaskboardTools: the five taskboard tools as one toolkit."""

from __future__ import annotations

from typing import Any

from core.tools.toolkit import Toolkit
from tools.taskboard.tools import (
    add_task,
    get_summary,
    list_tasks,
    remove_task,
    update_task_status,
)

TOOL_NAMES: tuple[str, ...] = (
    "add_task",
    "update_task_status",
    "list_tasks",
    "remove_task",
    "get_summary",
)


class TaskboardTools(Toolkit):
    """add_task, update_task_status, list_tasks, remove_task and get_summary."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("name", "taskboard")
        super().__init__(**kwargs)
        for fn in (add_task, update_task_status, list_tasks, remove_task, get_summary):
            self.register(fn)
