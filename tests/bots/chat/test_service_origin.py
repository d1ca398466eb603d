"""Card clicks and scheduled runs carry their origin too: platform, event id, channel key."""

from __future__ import annotations

from typing import Any

from bots.chat.cards import Click
from bots.chat.service import ChatService
from core.run.origin import CHANNEL_KEY, EVENT_KEY, PLATFORM_KEY
from core.schedule import Schedule
from tests.bots.conftest import ServiceFactory

THREAD_SESSION = "slack:T1:C1:1700.1"


def _recording(service: ChatService) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def hook(
        function_name: str, function_call: Any, arguments: dict[str, Any], run_context: Any
    ) -> Any:
        seen.append(dict(run_context.metadata or {}))
        return function_call(**arguments)

    service.agents["taskboard"].tool_hooks.append(hook)
    return seen


async def test_a_card_click_runs_with_the_sessions_channel(make_service: ServiceFactory) -> None:
    """A button press names its platform, its interaction id and the card session's channel."""
    service = make_service(None)
    seen = _recording(service)
    click = Click(
        "slack",
        "T1",
        "U1",
        "taskboard",
        THREAD_SESSION,
        "add_task",
        {"title": "Milk"},
        "list_tasks",
        {},
        event_id="trigger-1",
    )
    await service.handle_click(click)
    assert seen == [seen[0]] and {
        k: seen[0][k] for k in (PLATFORM_KEY, EVENT_KEY, CHANNEL_KEY)
    } == {
        PLATFORM_KEY: "slack",
        EVENT_KEY: "trigger-1",
        CHANNEL_KEY: "slack:T1:C1",
    }


async def test_a_scheduled_run_names_the_schedule_and_its_target_channel(
    make_service: ServiceFactory,
) -> None:
    """A due schedule runs with ``schedule:<id>`` as its event and the target's channel."""
    service = make_service(None)
    seen = _recording(service)
    schedule = Schedule(
        "s1",
        THREAD_SESSION,
        '/add_task "Milk"',
        0.0,
        0.0,
        owner_id="taskboard",
        user_id="slack:T1:U1",
    )
    target = {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": "1700.1"}
    await service.handle_scheduled(schedule, target=target)
    [metadata] = seen
    assert metadata[PLATFORM_KEY] == "slack" and metadata[EVENT_KEY] == "schedule:s1"
    assert metadata[CHANNEL_KEY] == "slack:T1:C1"
