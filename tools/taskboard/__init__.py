"""Taskboard: a task list in session state, with categories and statuses (seed 004)."""

from tools.taskboard.agent import AGENT_ID, create_agent, default_state
from tools.taskboard.toolkit import TOOL_NAMES, TaskboardTools
from tools.taskboard.tools import (
    DEFAULT_CATEGORIES,
    STATUSES,
    add_task,
    get_summary,
    list_tasks,
    remove_task,
    update_task_status,
)

__all__ = [
    "AGENT_ID",
    "DEFAULT_CATEGORIES",
    "STATUSES",
    "TOOL_NAMES",
    "TaskboardTools",
    "add_task",
    "create_agent",
    "default_state",
    "get_summary",
    "list_tasks",
    "remove_task",
    "update_task_status",
]
