"""The checks every session route makes first: a session id, inside the viewer's scope."""

from __future__ import annotations

from typing import Any

import structlog
from aiohttp import web

from bots.admin.policy import allows
from bots.web.access import Viewer
from bots.web.render import page
from core.db.limits import StateLimits
from core.exceptions import InvalidIdError, StoreError
from core.redaction import redact_text

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
    # an id no store can hold: InvalidIdError, a 400 page (refusal_middleware)
    StateLimits().check_id("session id", value)
    return value


def check_scope(request: web.Request, viewer: Viewer, session_id: str, action: str) -> None:
    """Refusal (403, logged) when the admin policy keeps ``session_id`` from the viewer."""
    if allows(viewer.grant, session_id):
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
    """Answer a Refusal with its page, and a store that cannot answer with a 503 page."""
    try:
        response: web.StreamResponse = await handler(request)
    except Refusal as refused:
        return refused.response
    except InvalidIdError as exc:  # refused before any store saw it
        return page(request, "message.html", status=400, title="Not a valid id", message=str(exc))
    except StoreError as exc:
        reason = redact_text(str(exc))
        log.error("web_store_error", path=request.path, method=request.method, error=reason)
        after = (
            "Nothing was changed."
            if request.method in ("GET", "HEAD")
            else "Look at the session before trying again: the change may or may not have "
            "been made."
        )
        return page(
            request,
            "message.html",
            status=503,
            title="The store did not answer",
            message=f"{reason}. {after}",
        )
    return response
