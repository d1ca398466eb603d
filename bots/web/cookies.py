"""The console's session: one signed cookie (itsdangerous), Secure, HttpOnly, SameSite=Lax.

It holds the CSRF token of the browser, and after sign-in the admin id; nothing
secret, but signed so it cannot be forged, and timed so it expires. ``Lax`` (not
``Strict``) because Sign in with Slack returns with a top-level navigation from
slack.com that must carry the pending sign-in's state.
"""

from __future__ import annotations

import secrets
from typing import Any

from aiohttp import web
from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE_NAME = "statebot_console"
#: where the request's session dict lives (``request[SESSION]``)
SESSION: web.RequestKey[dict[str, Any]] = web.RequestKey("statebot_console_session", dict)


class SessionCookies:
    """Load and store the session dict in a signed, timed cookie."""

    __slots__ = ("_max_age", "_path", "_serializer")

    def __init__(self, secret: str, *, max_age: int, path: str = "/") -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="statebot-console-session")
        self._max_age = max_age
        self._path = path

    def load(self, raw: str | None) -> dict[str, Any]:
        """The session in ``raw``; a fresh one (new CSRF token) when absent, forged or old."""
        if raw:
            try:
                data = self._serializer.loads(raw, max_age=self._max_age)
            except BadSignature:  # also SignatureExpired
                data = None
            if isinstance(data, dict) and isinstance(data.get("csrf"), str):
                return data
        return {"csrf": secrets.token_urlsafe(32)}

    def store(self, response: web.StreamResponse, data: dict[str, Any]) -> None:
        """Set the cookie holding ``data`` on ``response``."""
        response.set_cookie(
            COOKIE_NAME,
            self._serializer.dumps(data),
            max_age=self._max_age,
            path=self._path,
            secure=True,
            httponly=True,
            samesite="Lax",
        )


def session_middleware(cookies: SessionCookies) -> Any:
    """Middleware: ``request[SESSION]`` for every request, the cookie renewed when changed."""

    @web.middleware
    async def middleware(request: web.Request, handler: Any) -> web.StreamResponse:
        data = cookies.load(request.cookies.get(COOKIE_NAME))
        before = dict(data)
        fresh = COOKIE_NAME not in request.cookies
        request[SESSION] = data
        response: web.StreamResponse = await handler(request)
        if fresh or data != before:
            cookies.store(response, data)
        return response

    return middleware
