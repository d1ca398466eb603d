"""Sign-in: required on every page but the sign-in pages and static files.

An admin signs in through a platform that offers it (``bots.web.sign_in``: Sign in
with Slack, where configured) or with a one-time token from ``statebot web
--create-admin``. The session then holds the admin id; each
request turns it back into a :class:`~bots.web.access.Viewer` against the configured
admin ids, so an id removed from ``STATEBOT_ADMIN_IDS`` is signed out.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

import structlog
from aiohttp import web

from bots.web.access import grant_of_platform_user, viewer_for
from bots.web.context import VIEWER, console
from bots.web.cookies import SESSION
from bots.web.next_page import safe_next
from bots.web.render import page, redirect
from bots.web.sign_in import SignInError, SignInProvider, callback_url

log = structlog.get_logger("bots.web")

#: route names starting with it need no sign-in
PUBLIC = "public-"
NOT_SIGNED_IN = "Sign in first: every page of the console needs it."


@web.middleware
async def sign_in_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Let a request through only with a signed-in admin (``request[VIEWER]``)."""
    name = request.match_info.route.name or ""
    if name.startswith(PUBLIC):
        response: web.StreamResponse = await handler(request)
        return response
    parts = console(request)
    session = request[SESSION]
    admin_id = session.get("admin")
    found = None
    if isinstance(admin_id, str):
        found = viewer_for(admin_id, parts.config.admin_ids, parts.config.reveal_ids)
        if found is None:
            log.warning("web_admin_no_longer_configured", admin_id=admin_id)
            session.pop("admin", None)
    if found is None:
        if request.method == "GET" and "HX-Request" not in request.headers:
            return redirect(f"{parts.base}/login?next={quote(request.path_qs, safe='')}")
        return web.Response(status=401, text=NOT_SIGNED_IN)
    request[VIEWER] = found
    response = await handler(request)
    return response


def _signed_in(request: web.Request, admin_id: str, *, via: str) -> None:
    session = request[SESSION]
    session["admin"] = admin_id
    session["csrf"] = secrets.token_urlsafe(32)  # a new token with the new privilege
    log.info("web_sign_in", admin_id=admin_id, via=via)


async def login_page(request: web.Request) -> web.Response:
    """The sign-in page: Sign in with Slack, or a one-time token."""
    parts = console(request)
    return page(
        request,
        "login.html",
        sign_in=parts.config.sign_in,
        next=request.query.get("next", ""),
        error=None,
    )


async def login_token(request: web.Request) -> web.Response:
    """Redeem a one-time token from ``statebot web --create-admin``."""
    parts = console(request)
    form = await request.post()
    token = str(form.get("token", ""))
    wanted = str(form.get("next", ""))
    admin_id = parts.tokens.redeem(token) if token else None
    if admin_id is not None and viewer_for(admin_id, parts.config.admin_ids, ()) is None:
        log.warning("web_sign_in_refused", admin_id=admin_id, reason="not an admin id")
        admin_id = None
    if admin_id is None:
        log.warning("web_sign_in_refused", via="token")
        return page(
            request,
            "login.html",
            status=403,
            sign_in=parts.config.sign_in,
            next=wanted,
            error="That token is not valid: unknown, already used, expired, or its admin id "
            "is no longer in STATEBOT_ADMIN_IDS. Create a new one with "
            "statebot web --create-admin.",
        )
    _signed_in(request, admin_id, via="token")
    return redirect(safe_next(wanted, parts.base))


def _provider(request: web.Request) -> tuple[SignInProvider, str] | None:
    """The provider the path names and its callback URL, when it is offered."""
    parts = console(request)
    found = parts.config.provider(request.match_info["platform"])
    if found is None or parts.config.public_url is None:
        return None
    return found, callback_url(parts.config.public_url, found.name)


def _not_offered(request: web.Request) -> web.Response:
    return web.Response(
        status=404, text=f"Sign in with {request.match_info['platform']} is not configured."
    )


async def login_platform(request: web.Request) -> web.Response:
    """Send the browser to the platform's sign-in page."""
    offered = _provider(request)
    if offered is None:
        return _not_offered(request)
    provider, callback = offered
    return redirect(provider.start(callback, request[SESSION]))


async def platform_callback(request: web.Request) -> web.Response:
    """The platform sent the browser back: check it, and sign in a configured admin."""
    parts = console(request)
    offered = _provider(request)
    if offered is None:
        return _not_offered(request)
    provider, callback = offered
    try:
        who = await provider.finish(callback, request[SESSION], request.query)
    except SignInError as exc:
        log.warning("web_sign_in_refused", via=provider.name, reason=str(exc))
        return _login_error(request, str(exc))
    grant = grant_of_platform_user(provider.name, who.workspace, who.user, parts.config.admin_ids)
    if grant is None:
        log.warning("web_sign_in_refused", via=provider.name, team=who.workspace, user=who.user)
        return _login_error(
            request,
            f"{provider.label} user {who.user} of workspace {who.workspace} is not a console "
            "admin (STATEBOT_ADMIN_IDS). This attempt was logged.",
        )
    _signed_in(request, grant.admin_id, via=provider.name)
    return redirect(f"{parts.base}/")


def _login_error(request: web.Request, message: str) -> web.Response:
    return page(
        request,
        "login.html",
        status=403,
        sign_in=console(request).config.sign_in,
        next="",
        error=message,
    )


async def logout(request: web.Request) -> web.Response:
    """Sign out (a POST with the CSRF token, so another site cannot sign you out)."""
    session = request[SESSION]
    log.info("web_sign_out", admin_id=session.pop("admin", None))
    session["csrf"] = secrets.token_urlsafe(32)
    return redirect(f"{console(request).base}/login")


def add_routes(app: web.Application) -> None:
    """The sign-in pages (public) and sign-out."""
    app.router.add_get("/login", login_page, name=f"{PUBLIC}login")
    app.router.add_post("/login/token", login_token, name=f"{PUBLIC}login-token")
    app.router.add_get("/login/{platform}", login_platform, name=f"{PUBLIC}login-platform")
    app.router.add_get(
        "/login/{platform}/callback", platform_callback, name=f"{PUBLIC}platform-callback"
    )
    app.router.add_post("/logout", logout, name="logout")
