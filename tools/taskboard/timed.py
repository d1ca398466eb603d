"""The board's tools that involve time: due dates, reminders, overdue tasks.

These are the tools the Taskboard toolkit registers for adding, moving and removing
tasks too, because those touch reminders and the owner's index: ``add_task`` reads
``due`` in the user's timezone and notes the board in the user's index
(:mod:`tools.taskboard.index`); ``update_task_status`` to done and ``remove_task``
cancel the task's reminders. The pure board logic stays in :mod:`tools.taskboard.tools`.

A reminder is a scheduled run of this agent on this session (:mod:`core.schedule`)
whose input is the direct command ``/task_reminder <task> <rid>``: the chat layer runs
that tool without the model, at fire time, on the session's current state, so a
reminder for a task already done says so instead of nagging.

Times are read in the user's timezone (from the run's metadata, which the chat layer
fills from the platform's profile) else the scheduling default.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from core.run.context import RunContext
from core.schedule import (
    USER_TZ_KEY,
    CancelOutcome,
    ScheduleError,
    Schedules,
    current_settings,
    schedules,
)
from core.tools.decorator import tool
from tools.taskboard import index
from tools.taskboard import tools as board
from tools.taskboard.dates import WhenError, parse_when, show

#: the command a reminder runs when it fires (a tool name, then its arguments)
REMINDER_TOOL = "task_reminder"
#: reminders one task may hold
MAX_REMINDERS = 5

#: seconds since the epoch; replaced in tests that move time
clock: Callable[[], float] = time.time


def user_tz(run_context: RunContext | None) -> str:
    """The timezone user text is read in: the user's, else the scheduling default."""
    metadata = run_context.metadata if run_context is not None else {}
    return str(metadata.get(USER_TZ_KEY) or current_settings().default_tz)


def _now(tz: str) -> datetime:
    return datetime.fromtimestamp(clock(), ZoneInfo(tz))


async def add_task(
    session_state: dict[str, Any],
    run_context: RunContext,
    agent: object,
    title: str,
    category: str = "general",
    due: str | None = None,
) -> str:
    """Add a task to the board.

    Args:
        title: What needs doing, e.g. "Review the Q2 roadmap".
        category: One of the board's categories (by default general, work or personal).
        due: Optional: when it is due, as the user said it ("friday", "tomorrow 5pm", ISO).
    """
    when = None
    if due:
        tz = user_tz(run_context)
        try:
            when = parse_when(due, now=_now(tz), tz=tz)
        except WhenError as exc:
            return f"Due date: {exc}. Nothing was changed."
    owner = run_context.user_id
    before = len(board.tasks_of(session_state))
    reply = board.add_task(session_state, title, category, due=when, owner=owner)
    if owner and len(board.tasks_of(session_state)) > before and getattr(agent, "db", None):
        await index.note(agent, owner, run_context.session_id, clock())
    return reply


async def update_task_status(
    session_state: dict[str, Any], run_context: RunContext, agent: object, task_id: int, status: str
) -> str:
    """Move a task to another status: open, in_progress or done.

    Args:
        task_id: The task's number, as shown by list_tasks.
        status: The new status: open, in_progress or done.
    """
    reply = board.update_task_status(session_state, task_id, status)
    task = board.find_task(session_state, task_id)
    if task is not None and task.get("status") == "done":
        reply += await _cancel_reminders(run_context, agent, task)
    return reply


async def remove_task(
    session_state: dict[str, Any], run_context: RunContext, agent: object, task_id: int
) -> str:
    """Remove a task from the board for good. Its number is not reused.

    Args:
        task_id: The task's number, as shown by list_tasks.
    """
    task = board.find_task(session_state, task_id)
    reply = board.remove_task(session_state, task_id)
    if task is not None:
        reply += await _cancel_reminders(run_context, agent, task)
    return reply


def set_due(session_state: dict[str, Any], run_context: RunContext, task_id: int, when: str) -> str:
    """Set when a task is due.

    Args:
        task_id: The task's number, as shown by list_tasks.
        when: When it is due, as the user said it: "friday", "tomorrow 5pm", "in 3 days", ISO.
    """
    if board.find_task(session_state, task_id) is None:
        return board.no_such_task(session_state, task_id)
    tz = user_tz(run_context)
    try:
        due = parse_when(when, now=_now(tz), tz=tz)
    except WhenError as exc:
        return f"Due date: {exc}. Nothing was changed."
    return board.set_due(session_state, task_id, due)


async def remind(
    session_state: dict[str, Any], run_context: RunContext, agent: object, task_id: int, when: str
) -> str:
    """Remind this conversation about a task at a later time.

    Args:
        task_id: The task's number, as shown by list_tasks.
        when: When to remind, as the user said it: "in 2 hours", "tomorrow 9am", "friday", ISO.
    """
    task = board.find_task(session_state, task_id)
    if task is None:
        return board.no_such_task(session_state, task_id)
    if task.get("status") == "done":
        return f"Task #{task['id']} ({task['title']}) is already done; no reminder was set."
    reminders = list(task.get("reminders") or [])
    if len(reminders) >= MAX_REMINDERS:
        return (
            f"Task #{task['id']} already has {MAX_REMINDERS} reminders, the most it may have. "
            "Nothing was changed."
        )
    tz = user_tz(run_context)
    try:
        at = parse_when(when, now=_now(tz), tz=tz)
    except WhenError as exc:
        return f"Reminder: {exc}. Nothing was changed."
    rid = uuid.uuid4().hex[:8]
    try:
        scheduled = await _schedules(run_context, agent).aadd(
            input=f"/{REMINDER_TOOL} {task['id']} {rid}", at=at, tz=tz
        )
    except ScheduleError as exc:
        return f"Reminder not set: {exc}. Nothing was changed."
    reminders.append({"rid": rid, "schedule_id": scheduled.schedule_id, "at": at.isoformat()})
    task["reminders"] = reminders
    return f"I will remind you about task #{task['id']} ({task['title']}) on {show(at)}."


@tool(internal=True)  # run by the reminder's schedule; no command, not for the model
def task_reminder(session_state: dict[str, Any], task_id: int, rid: str = "") -> str:
    """Post a task's reminder (run by a scheduled reminder when it is due).

    Args:
        task_id: The task's number.
        rid: Which of the task's reminders fired.
    """
    task = board.find_task(session_state, task_id)
    if task is None:
        return f"Reminder: task #{task_id} is no longer on the board."
    reminders = [r for r in task.get("reminders") or [] if r.get("rid") != rid]
    if reminders:
        task["reminders"] = reminders
    else:
        task.pop("reminders", None)
    if task.get("status") == "done":
        return f"Reminder: task #{task['id']} ({task['title']}) is already done."
    due = board.due_of(task)
    when = f", due {show(due)}" if due is not None else ""
    status = str(task.get("status", "open")).replace("_", " ")
    return f"⏰ Reminder: task #{task['id']} {task['title']} ({status}{when})."


def list_overdue(session_state: dict[str, Any], run_context: RunContext) -> str:
    """List the tasks that are past their due time and not done."""
    return board.list_overdue_text(session_state, _now(user_tz(run_context)))


def _schedules(run_context: RunContext, agent: object) -> Schedules:
    """This session's schedules, on the same clock as the times the tools read."""
    mine = schedules(run_context, agent)
    mine.clock = clock
    return mine


async def _cancel_reminders(run_context: RunContext, agent: object, task: dict[str, Any]) -> str:
    """Cancel a task's pending reminders; a note when one was already going off."""
    reminders = task.pop("reminders", None) or []
    if not reminders:
        return ""
    mine = _schedules(run_context, agent)
    firing = 0
    for reminder in reminders:
        outcome = await mine.acancel(str(reminder.get("schedule_id", "")))
        firing += outcome == CancelOutcome.ALREADY_FIRING
    noun = "reminder" if len(reminders) == 1 else "reminders"
    if firing:
        return f" Its {noun} were cancelled; one was already going off."
    return f" Its {noun} {'was' if len(reminders) == 1 else 'were'} cancelled."
