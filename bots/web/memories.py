"""What the bot remembers about one user, in the console; forgetting one memory.

``/memories?user=<user key>`` lists that user's memories (the store's user memories:
written by the automatic memory pass and the agentic memory tools), oldest first; a
Forget button deletes one (POST, CSRF-checked, logged). The user key must lie inside
the admin's scope, as a session id must (``check_scope``): admins of one workspace
see only its users.
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import structlog
from aiohttp import web

from bots.web.context import console, viewer
from bots.web.guard import check_scope
from bots.web.render import page, redirect
from core.db.limits import StateLimits

log = structlog.get_logger("bots.web")


def _user_of(value: object) -> str:
    user = value.strip() if isinstance(value, str) else ""
    if user:
        StateLimits().check_id("user id", user)  # InvalidIdError: a 400 page
    return user


async def memories_page(request: web.Request) -> web.Response:
    """The form to pick a user, and their memories when one is picked."""
    who = viewer(request)
    user = _user_of(request.query.get("user"))
    if not user:
        return page(request, "memories.html", user="", memories=None)
    check_scope(request, who, user, "memories")
    memories = await console(request).db.aget_memories(user)
    log.info("web_view", view="memories", admin_id=who.admin_id, target_user=user)
    rows = [
        {
            "n": n,
            "memory_id": m.memory_id,
            "memory": m.memory,
            "topics": ", ".join(m.topics),
            "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(m.created_at)),
        }
        for n, m in enumerate(memories, start=1)
    ]
    return page(request, "memories.html", user=user, memories=rows)


async def forget_memory(request: web.Request) -> web.Response:
    """Delete one memory of a user in scope, then show their memories again."""
    who = viewer(request)
    form = await request.post()
    user = _user_of(form.get("user"))
    memory_id = str(form.get("memory_id") or "")
    check_scope(request, who, user, "forget-memory")
    deleted = await console(request).db.adelete_memory(user, memory_id)
    log.info(
        "web_action",
        action="forget-memory",
        admin_id=who.admin_id,
        target_user=user,
        memory_id=memory_id,
        deleted=deleted,
    )
    return redirect(f"{console(request).base}/memories?{urlencode({'user': user})}")


def add_routes(app: web.Application) -> None:
    """The memories page and its one action."""
    app.router.add_get("/memories", memories_page, name="memories")
    app.router.add_post("/memories/forget", forget_memory, name="memories-forget")
