"""The checks every session route makes first: a session id, inside the viewer's scope."""

from __future__ import annotations

from typing import Any

import structlog
from aiohttp import web

from bots.web.access import Viewer
from bots.web.render import page

log = structlog.get_logger("bots.web")


class Refusal(Exception):
    """A request refused before anything was done; carries the page to answer with."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.text)
        self.response = response


def session_id_of(request: web.Request, value: object) -> str:
    """The session id a request names; Refusal (400) when it names none."""
    if not isinstance(value, str) or not value:
        raise Refusal(
            page(
                request,
                "message.html",
                status=400,
                title="No session",
                message="This page needs a session id (?id=…).",
            )
        )
    return value


def check_scope(request: web.Request, viewer: Viewer, session_id: str, action: str) -> None:
    """Refusal (403, logged) when ``session_id`` is outside the viewer's workspace."""
    if viewer.covers(session_id):
        return
    log.warning(
        "web_out_of_scope",
        action=action,
        admin_id=viewer.admin_id,
        target_session=session_id,
    )
    raise Refusal(
        page(
            request,
            "message.html",
            status=403,
            title="Not in your workspace",
            message=f"You are an admin for sessions starting {viewer.scope!r} only; "
            f"{session_id!r} is not one of them. Nothing was done; this attempt was logged.",
        )
    )


@web.middleware
async def refusal_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Answer a Refusal with its page."""
    try:
        response: web.StreamResponse = await handler(request)
    except Refusal as refused:
        return refused.response
    return response
