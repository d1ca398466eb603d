"""A user's own overview: the open tasks they own across the boards they use.

Platform-neutral: the Taskboard keeps an index of boards per user
(:mod:`tools.taskboard.index`, bounded); this module reads it for a platform user
and says where each board lives (:mod:`bots.chat.targets`). Slack shows it as the App
Home tab (``bots.adapters.slack.home``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.chat.targets import target_from_session
from bots.keys import user_key
from tools.taskboard import AGENT_ID
from tools.taskboard.index import my_tasks

if TYPE_CHECKING:
    from bots.chat.service import ChatService


@dataclass(frozen=True, slots=True)
class HomeTask:
    """One open task of the user, and where its board is (a target, maybe empty).

    ``session_id`` names the board: tasks of one board share it, so a view can group
    them (several boards of one channel, e.g. one per thread, stay apart).
    """

    task: dict[str, Any]
    where: dict[str, Any]
    session_id: str = ""


async def home_tasks(
    service: ChatService, platform: str, workspace: str, user: str
) -> list[HomeTask] | None:
    """The user's open tasks on this platform; None when no Taskboard is served."""
    agent = service.agents.get(AGENT_ID)
    if agent is None or getattr(agent, "db", None) is None:
        return None
    owner = user_key(platform, workspace, user)
    found = []
    for mine in await my_tasks(agent, owner):
        where = target_from_session(mine.session_id) or {}
        if where.get("platform") in (None, platform):
            found.append(HomeTask(mine.task, where, mine.session_id))
    return found
