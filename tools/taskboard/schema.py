"""The taskboard's session state as a type (``session_state_schema`` of its agent).

Matches what :mod:`tools.taskboard.tools` and :mod:`tools.taskboard.timed` store.
Every key has a default, since boards written by older versions may lack one; keys
this model does not name are kept unchecked (another agent may share the chat
thread's session), and so are extra fields of a task. ``sessions`` is only found in a
user's index session (:mod:`tools.taskboard.index`), which the same agent keeps.
``next_task_id`` is a counter (``COUNTER``): restoring an old board keeps it, so a
task number chat has shown is never handed out again.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from core.state.schema import COUNTER
from tools.taskboard.tools import DEFAULT_CATEGORIES

#: the schema version of the state the code writes
SCHEMA_VERSION = 1


class Reminder(BaseModel):
    """A reminder scheduled for a task (``at``: ISO 8601 with offset)."""

    rid: str
    schedule_id: str
    at: str


class Task(BaseModel):
    """One task; ``owner`` is a user key, ``due`` ISO 8601 with its offset."""

    id: int = Field(ge=1)
    title: str = Field(min_length=1)
    category: str
    status: Literal["open", "in_progress", "done"]
    owner: str | None = None
    due: str | None = None
    reminders: list[Reminder] = []


class TaskboardState(BaseModel):
    """A board: its tasks, its categories and the next task number."""

    tasks: list[Task] = []
    categories: list[str] = list(DEFAULT_CATEGORIES)
    next_task_id: Annotated[int, COUNTER] = Field(default=1, ge=1)
    #: a user's index session only: board session id -> when it was last noted
    sessions: dict[str, float] = {}
