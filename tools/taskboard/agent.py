"""The Taskboard agent (seed 004): a task board that lives in one chat session."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Model
from tools.taskboard.schema import SCHEMA_VERSION, TaskboardState
from tools.taskboard.toolkit import TaskboardTools
from tools.taskboard.tools import DEFAULT_CATEGORIES

AGENT_ID = "taskboard"
#: a task board is the channel's: mentions in any of its threads and its slash command
#: all see one board (a chat front end may be told otherwise per agent)
SESSION_SCOPE = "channel"

DESCRIPTION = (
    "A task board for this conversation: add, update, list, remove and summarise tasks; "
    "due dates, reminders and overdue tasks."
)

INSTRUCTIONS = [
    "You keep the task board of this conversation.",
    "Change the board only through your tools, and report exactly what the tool said.",
    "Categories: {categories}. Statuses: open, in_progress, done.",
    "Refer to tasks by their number, e.g. #3.",
    'For due dates and reminders pass the user\'s own words ("friday 5pm", "in 2 hours") '
    "to set_due, remind or add_task's due: the tools read them in the user's timezone.",
    "Current tasks: {tasks}",
]


def default_state() -> dict[str, Any]:
    """A fresh board: no tasks, the default categories, ids starting at 1."""
    return {"tasks": [], "categories": list(DEFAULT_CATEGORIES), "next_task_id": 1}


def create_agent(
    *,
    model: Model | None = None,
    db: BaseDb | None = None,
    session_scope: str = SESSION_SCOPE,
    **overrides: Any,
) -> Agent:
    """A ready Taskboard agent; any Agent argument may be overridden.

    ``session_scope``: where a chat front end keeps the board (``channel``: one per
    channel; ``thread`` or ``user`` for one per thread or per person).

    ``enable_agentic_state`` stays off by default: every change then goes through
    the tools above, which validate it (pass ``enable_agentic_state=True`` to let the
    model patch the state freely, as seed 004 does).
    """
    settings: dict[str, Any] = {
        "id": AGENT_ID,
        "name": "Taskboard",
        "description": DESCRIPTION,
        "instructions": list(INSTRUCTIONS),
        "tools": [TaskboardTools()],
        "session_state": default_state(),
        "session_state_schema": TaskboardState,
        "session_state_schema_version": SCHEMA_VERSION,
        "add_session_state_to_context": True,
        "markdown": True,
    }
    settings.update(overrides)
    agent = Agent(model=model, db=db, **settings)
    agent.session_scope = session_scope
    return agent
