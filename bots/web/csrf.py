"""CSRF protection: every request that can change something carries the session's token.

The token lives in the signed session cookie (``bots/web/cookies.py``) and in every
form (a hidden ``csrf_token`` field) or, for htmx requests, the ``X-CSRF-Token``
header. Another site can make the browser send the cookie, but cannot read the token
to put beside it. A missing or different token is refused with 403 before any
handler runs, so nothing is changed.
"""

from __future__ import annotations

import hmac
from typing import Any

import structlog
from aiohttp import web

from bots.web.cookies import SESSION

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
REFUSED = (
    "Refused: this form's security token is missing or does not match your session "
    "(CSRF protection). Nothing was changed. Reload the page and try again."
)

log = structlog.get_logger("bots.web")


async def submitted_token(request: web.Request) -> str:
    """The token the request carries (header first, then the form field)."""
    header = request.headers.get(HEADER)
    if header:
        return header
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        value = form.get(FIELD)
        return value if isinstance(value, str) else ""
    return ""


@web.middleware
async def csrf_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Refuse an unsafe request whose token is not the session's."""
    if request.method not in SAFE_METHODS:
        expected = str(request[SESSION]["csrf"])
        if not hmac.compare_digest(await submitted_token(request), expected):
            log.warning(
                "web_csrf_refused",
                path=request.path,
                admin_id=request[SESSION].get("admin"),
            )
            return web.Response(status=403, text=REFUSED)
    response: web.StreamResponse = await handler(request)
    return response
