"""Which boards a user has tasks on: a small index per user, for "my tasks" views.

Each user key has one index session (``taskboard-index:<user key>``) in the board's
store, whose state is ``{"sessions": {session_id: last_noted_at}}``. It is changed
only under that session's lease (``amutate_session_state``), so concurrent notes
from different boards never lose one another. It is bounded: past
:data:`MAX_SESSIONS` boards the least recently noted are forgotten (their tasks stay
on their boards; they only leave the user's overview).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.taskboard.tools import tasks_of

PREFIX = "taskboard-index:"
#: boards remembered per user
MAX_SESSIONS = 50
#: tasks an overview shows at most
MAX_TASKS = 100


def index_id(user_id: str) -> str:
    """The session id of ``user_id``'s index."""
    return f"{PREFIX}{user_id}"


async def note(owner: Any, user_id: str, session_id: str, now: float) -> None:
    """Remember that ``user_id`` has tasks on board ``session_id``."""
    if session_id.startswith(PREFIX):
        return

    def change(state: dict[str, Any]) -> None:
        known = state.get("sessions")
        sessions: dict[str, float] = dict(known) if isinstance(known, dict) else {}
        sessions[session_id] = now
        if len(sessions) > MAX_SESSIONS:
            kept = sorted(sessions.items(), key=lambda kv: kv[1])[-MAX_SESSIONS:]
            sessions = dict(kept)
        state.clear()  # the index holds nothing of a board's template
        state["sessions"] = sessions

    await owner.amutate_session_state(change, index_id(user_id))


@dataclass(frozen=True, slots=True)
class MyTask:
    """One of a user's open tasks, and the board it is on."""

    session_id: str
    task: dict[str, Any]


async def my_tasks(owner: Any, user_id: str) -> list[MyTask]:
    """The tasks ``user_id`` owns that are not done, across the boards in their index,
    most recently noted board first; at most :data:`MAX_TASKS`."""
    index = await owner.aget_session_state(index_id(user_id))
    known = index.get("sessions")
    sessions = dict(known) if isinstance(known, dict) else {}
    found: list[MyTask] = []
    for session_id, _ in sorted(sessions.items(), key=lambda kv: kv[1], reverse=True):
        state = await owner.aget_session_state(session_id)
        for task in tasks_of(state):
            if task.get("owner") == user_id and task.get("status") != "done":
                found.append(MyTask(session_id, task))
                if len(found) >= MAX_TASKS:
                    return found
    return found
