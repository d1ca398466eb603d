"""The App Home tab: a user's open tasks across channels, published on ``app_home_opened``.

Each time the user opens the Home tab, the lazy listener reads their tasks
(:func:`bots.chat.home.home_tasks`) and publishes the view with ``views.publish``. Task
titles pass through :func:`bots.adapters.slack.format.to_mrkdwn`, as every text does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck

from bots.adapters.slack.blocks import MAX_BLOCKS
from bots.adapters.slack.format import to_mrkdwn
from bots.adapters.slack.names import ClientFor
from bots.adapters.slack.parse import workspace_of
from bots.adapters.slack.send import DeliveryError, SlackSender
from bots.chat.home import HomeTask, home_tasks
from tools.taskboard.dates import show
from tools.taskboard.tools import due_of

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

EMPTY = "Nothing on your plate: no open tasks of yours on any board I keep."
NO_BOARD = "No task board is served here."
#: blocks a Home view may hold (Slack allows 100); header and footer take two
_MAX_TASKS = 40


def home_view(tasks: list[HomeTask] | None) -> dict[str, Any]:
    """The Home tab for ``tasks`` (None: no board served)."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "Your tasks", "emoji": False}}
    ]
    if not tasks:
        text = NO_BOARD if tasks is None else EMPTY
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    for entry in (tasks or [])[:_MAX_TASKS]:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _line(entry)}})
    if tasks and len(tasks) > _MAX_TASKS:
        more = f"{len(tasks) - _MAX_TASKS} more not shown; list them in their channels."
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]})
    return {"type": "home", "blocks": blocks[: MAX_BLOCKS * 2]}


def _line(entry: HomeTask) -> str:
    task = entry.task
    status = str(task.get("status", "open")).replace("_", " ")
    due = due_of(task)
    when = f" · due {show(due)}" if due is not None else ""
    text = to_mrkdwn(f"#{task.get('id')} {task.get('title')} · {status}{when}")
    channel = entry.where.get("channel")
    # a channel id from our own session key, not user text: safe to link
    return f"{text} · in <#{channel}>" if channel else text


def home_listener(service: ChatService, client_for: ClientFor) -> Callable[..., Awaitable[None]]:
    """Lazy listener publishing the Home tab of the user who opened it."""

    async def publish(body: dict[str, Any]) -> None:
        event = body.get("event") or {}
        if event.get("tab", "home") != "home":
            return
        workspace = workspace_of(body)
        user = str(event.get("user", ""))
        client = await client_for(workspace)
        if client is None or not user:
            return
        tasks = await home_tasks(service, "slack", workspace, user)
        try:
            await SlackSender(client).call("views_publish", user_id=user, view=home_view(tasks))
        except DeliveryError as exc:
            log.error("slack_home_publish_failed", error=exc.error, user=user)

    return publish


async def _ack(ack: AsyncAck) -> None:
    await ack()


def register_home(app: AsyncApp, service: ChatService, client_for: ClientFor) -> None:
    """Publish the Home tab whenever a user opens it."""
    app.event("app_home_opened")(ack=_ack, lazy=[home_listener(service, client_for)])
