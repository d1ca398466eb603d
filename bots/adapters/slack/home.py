"""The App Home tab: a user's open tasks across boards, published on ``app_home_opened``.

Each time the user opens the Home tab, the lazy listener reads their tasks
(:func:`bots.chat.home.home_tasks`) and publishes the view with ``views.publish``: one
section per board, headed by where it lives — the channel (``#general``), a thread of
it linked to that thread (``chat.getPermalink``; "A thread in #general"), or "Your own
board" — with its tasks under it, so two boards of one channel never mix their ``#1``s.
Task titles pass through :func:`bots.adapters.slack.format.to_mrkdwn`, as every text does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck

from bots.adapters.slack.blocks import MAX_BLOCKS, SECTION_LIMIT
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


def home_view(
    tasks: list[HomeTask] | None, links: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The Home tab for ``tasks`` (None: no board served); ``links``: thread permalinks
    by session id."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "Your tasks", "emoji": False}}
    ]
    if not tasks:
        text = NO_BOARD if tasks is None else EMPTY
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    shown = (tasks or [])[:_MAX_TASKS]
    for session_id, entries in _boards(shown).items():
        text = _board_text(entries, (links or {}).get(session_id))
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    if tasks and len(tasks) > _MAX_TASKS:
        more = f"{len(tasks) - _MAX_TASKS} more not shown; list them in their channels."
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]})
    return {"type": "home", "blocks": blocks[: MAX_BLOCKS * 2]}


def _boards(tasks: list[HomeTask]) -> dict[str, list[HomeTask]]:
    """Tasks by board, boards in the order their first task comes (most recent first)."""
    boards: dict[str, list[HomeTask]] = {}
    for entry in tasks:
        boards.setdefault(entry.session_id, []).append(entry)
    return boards


def _board_text(entries: list[HomeTask], link: str | None) -> str:
    """A board's heading (where it lives) and its tasks, within one section's limit."""
    lines = [f"*{_where(entries[0].where, link)}*"]
    for n, entry in enumerate(entries):
        line = f"• {_line(entry)}"
        if len("\n".join([*lines, line])) > SECTION_LIMIT - 40:
            lines.append(f"… {len(entries) - n} more on this board")
            break
        lines.append(line)
    return "\n".join(lines)


def _where(where: Mapping[str, Any], link: str | None) -> str:
    """Where a board lives; ids come from our own session keys, not user text: safe to link."""
    channel = where.get("channel")
    if not channel:
        return "Your own board"
    if where.get("thread"):
        thread = f"<{link}|A thread>" if link else "A thread"
        return f"{thread} in <#{channel}>"
    return f"<#{channel}>"


def _line(entry: HomeTask) -> str:
    task = entry.task
    status = str(task.get("status", "open")).replace("_", " ")
    due = due_of(task)
    when = f" · due {show(due)}" if due is not None else ""
    return to_mrkdwn(f"#{task.get('id')} {task.get('title')} · {status}{when}")


async def thread_links(sender: SlackSender, tasks: list[HomeTask] | None) -> dict[str, str]:
    """Permalinks of the thread boards among ``tasks``, by session id; one that Slack
    will not give (logged) is shown without a link."""
    links: dict[str, str] = {}
    for entry in tasks or []:
        where = entry.where
        if not where.get("thread") or entry.session_id in links:
            continue
        try:
            found = await sender.call(
                "chat_getPermalink", channel=where["channel"], message_ts=where["thread"]
            )
        except DeliveryError as exc:
            log.warning("slack_permalink_failed", error=exc.error, session_id=entry.session_id)
            continue
        permalink = found.get("permalink")
        if isinstance(permalink, str) and permalink.startswith("https://"):
            links[entry.session_id] = permalink
    return links


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
        sender = SlackSender(client)
        shown = (tasks or [])[:_MAX_TASKS]
        view = home_view(tasks, await thread_links(sender, shown))
        try:
            await sender.call("views_publish", user_id=user, view=view)
        except DeliveryError as exc:
            log.error("slack_home_publish_failed", error=exc.error, user=user)

    return publish


async def _ack(ack: AsyncAck) -> None:
    await ack()


def register_home(app: AsyncApp, service: ChatService, client_for: ClientFor) -> None:
    """Publish the Home tab whenever a user opens it."""
    app.event("app_home_opened")(ack=_ack, lazy=[home_listener(service, client_for)])
