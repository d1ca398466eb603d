"""The chat side of scheduled runs: targets, firing, delivery, and which process claims what."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from bots.app.service import chat_service
from bots.chat.replies import Reply
from bots.chat.schedules import Deliveries, PlatformSchedules, ScheduledRuns
from bots.chat.service import ChatService, ConfigError
from bots.chat.targets import target_from_session
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.schedule import Firing, MemoryScheduleStore, Schedule
from tools.catalog import COMMAND_ALIASES, create_agents

SESSION = "slack:T1:C1:1700.1"


@pytest.mark.parametrize(
    ("session_id", "target"),
    [
        (SESSION, {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": "1700.1"}),
        ("slack:T1:C1", {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": None}),
        (
            "slack:T1:D1:1700.1",
            {"platform": "slack", "workspace": "T1", "channel": "D1", "thread": None},
        ),
        ("slack:T1:@U1", {"platform": "slack", "workspace": "T1", "user": "U1"}),
        (
            "discord:dm:42",
            {"platform": "discord", "workspace": "dm", "channel": "42", "thread": None},
        ),
        (
            "slack:T%3A1:C1",
            {"platform": "slack", "workspace": "T:1", "channel": "C1", "thread": None},
        ),
        ("plain-session", None),
    ],
)
def test_target_read_back_from_a_session_id(session_id: str, target: dict[str, Any] | None) -> None:
    """A chat session key names where its replies go (Slack DMs at top level); others none."""
    assert target_from_session(session_id) == target


def _service() -> ChatService:
    settings = Settings(redis_url=None)
    return chat_service(
        create_agents(None, InMemoryDb()), settings=settings, aliases=COMMAND_ALIASES
    )


def _schedule(input: str, owner: str = "taskboard", session_id: str = SESSION) -> Schedule:
    now = time.time()
    return Schedule("s1", session_id, input, now, now, owner_id=owner, user_id="slack:T1:U1")


class Recorder:
    """A delivery that records what it was given (and can fail)."""

    def __init__(self, error: Exception | None = None) -> None:
        self.sent: list[tuple[dict[str, Any], Reply]] = []
        self.error = error

    async def __call__(self, target: Mapping[str, Any], reply: Reply) -> None:
        if self.error is not None:
            raise self.error
        self.sent.append((dict(target), reply))


async def test_fire_runs_a_command_input_and_delivers_to_the_session_target() -> None:
    """/list_tasks runs the tool without a model; the reply goes to the session's thread."""
    service = _service()
    recorder = Recorder()
    service.deliveries.register("slack", recorder)
    await ScheduledRuns(service, service.deliveries).fire(Firing(_schedule("/list_tasks")))
    [(target, reply)] = recorder.sent
    assert target["thread"] == "1700.1" and target["channel"] == "C1"
    assert reply.text == "The board is empty. Add a task with add_task."


async def test_a_delivery_failure_is_logged_not_retried() -> None:
    """The run was applied: a failed post is an error log, not an exception (no second run)."""
    service = _service()
    service.deliveries.register("slack", Recorder(RuntimeError("slack down")))
    with capture_logs() as logs:
        await ScheduledRuns(service, service.deliveries).fire(Firing(_schedule("/list_tasks")))
    [failed] = [e for e in logs if e["event"] == "scheduled_reply_failed"]
    assert failed["schedule_id"] == "s1" and "slack down" in failed["error"]


async def test_failures_before_the_reply_raise_for_the_schedulers_retry() -> None:
    """An unknown owner, or a platform this process cannot post to, raises (retried later)."""
    service = _service()
    service.deliveries.register("slack", Recorder())
    runs = ScheduledRuns(service, service.deliveries)
    with pytest.raises(ConfigError, match="not a registered agent"):
        await runs.fire(Firing(_schedule("/list_tasks", owner="gone")))
    with pytest.raises(LookupError, match="cannot post to 'discord'"):
        await runs.fire(Firing(_schedule("/list_tasks", session_id="discord:G:C")))


async def test_only_deliverable_or_hopelessly_late_schedules_are_claimed() -> None:
    """A Slack-only process sees Slack and platform-less schedules, and any past max_late."""
    deliveries = Deliveries()
    deliveries.register("slack", Recorder())
    inner = MemoryScheduleStore()
    now = time.time()
    for sid, session, at in [
        ("slack", SESSION, now - 1),
        ("discord", "discord:G:C", now - 1),
        ("old-discord", "discord:G:C", now - 7200),
        ("nowhere", "plain", now - 1),
    ]:
        await inner.aadd(Schedule(sid, session, "x", at, at), max_per_session=10)
    store = PlatformSchedules(inner, deliveries.accepts, max_late=3600)
    due = {s.schedule_id for s in await store.adue(now, 10)}
    assert due == {"slack", "old-discord", "nowhere"}
