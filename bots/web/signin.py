"""Sign-in: required on every page but the sign-in pages and static files.

An admin signs in through a platform that offers it (``bots.web.sign_in``: Sign in
with Slack, where configured) or with a one-time token from ``statebot web
--create-admin``. The session then holds the admin id and its sign-in generation; each
request turns it back into a :class:`~bots.web.access.Viewer` against the configured
admin ids and the store's generation (``bots.web.revocation``), so an id removed from
``STATEBOT_ADMIN_IDS``, or signed out anywhere, is signed out.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

import structlog
from aiohttp import web

from bots.web.access import Viewer, grant_of_platform_user, viewer_for
from bots.web.context import VIEWER, console, viewer
from bots.web.cookies import SESSION
from bots.web.next_page import safe_next
from bots.web.render import page, redirect
from bots.web.sign_in import SignInError, SignInProvider, callback_url
from core.exceptions import StoreError
from core.redaction import redact_text

log = structlog.get_logger("bots.web")

#: route names starting with it need no sign-in
PUBLIC = "public-"
NOT_SIGNED_IN = "Sign in first: every page of the console needs it."
STORE_DOWN = (
    "The store did not answer, so sign-in cannot be checked. Nothing was changed. "
    "Try again once it answers."
)


@web.middleware
async def sign_in_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Let a request through only with a signed-in admin (``request[VIEWER]``)."""
    name = request.match_info.route.name or ""
    if name.startswith(PUBLIC):
        response: web.StreamResponse = await handler(request)
        return response
    parts = console(request)
    try:
        found = await _viewer_of_session(request)
    except StoreError as exc:
        # fail closed: a session that cannot be checked is not let in
        log.error("web_session_check_failed", path=request.path, error=redact_text(str(exc)))
        return web.Response(status=503, text=STORE_DOWN)
    if found is None:
        if request.method == "GET" and "HX-Request" not in request.headers:
            return redirect(f"{parts.base}/login?next={quote(request.path_qs, safe='')}")
        return web.Response(status=401, text=NOT_SIGNED_IN)
    request[VIEWER] = found
    response = await handler(request)
    return response


async def _viewer_of_session(request: web.Request) -> Viewer | None:
    """The admin the session is signed in as, if still configured and not signed out."""
    parts = console(request)
    session = request[SESSION]
    admin_id = session.get("admin")
    if not isinstance(admin_id, str):
        return None
    found = viewer_for(admin_id, parts.config.admin_ids, parts.config.reveal_ids)
    if found is None:
        log.warning("web_admin_no_longer_configured", admin_id=admin_id)
        session.pop("admin", None)
        try:  # ends this admin's other cookies too, also in processes with older settings
            await parts.generations.revoke(admin_id)
        except StoreError as exc:  # this request is refused all the same
            log.error("web_revoke_failed", admin_id=admin_id, error=redact_text(str(exc)))
        return None
    if session.get("generation") != await parts.generations.current(admin_id):
        log.warning("web_session_revoked", admin_id=admin_id)
        session.pop("admin", None)
        session.pop("generation", None)
        return None
    return found


async def _signed_in(request: web.Request, admin_id: str, *, via: str, to: str) -> web.Response:
    """Sign ``admin_id`` in and send the browser ``to`` a page; the sign-in page (503)
    when the store cannot say the admin's generation."""
    session = request[SESSION]
    try:
        # the cookie is good until the admin's generation goes up (sign-out, removal)
        generation = await console(request).generations.current(admin_id)
    except StoreError as exc:
        log.error("web_sign_in_failed", admin_id=admin_id, error=redact_text(str(exc)))
        return _login_error(request, STORE_DOWN, status=503)
    session["admin"] = admin_id
    session["generation"] = generation
    session["csrf"] = secrets.token_urlsafe(32)  # a new token with the new privilege
    log.info("web_sign_in", admin_id=admin_id, via=via)
    return redirect(to)


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
    return await _signed_in(request, admin_id, via="token", to=safe_next(wanted, parts.base))


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
    return await _signed_in(request, grant.admin_id, via=provider.name, to=f"{parts.base}/")


def _login_error(request: web.Request, message: str, *, status: int = 403) -> web.Response:
    return page(
        request,
        "login.html",
        status=status,
        sign_in=console(request).config.sign_in,
        next="",
        error=message,
    )


async def logout(request: web.Request) -> web.Response:
    """Sign out (a POST with the CSRF token, so another site cannot sign you out).

    Every cookie of the admin ends, copies included, in every process on this store."""
    session = request[SESSION]
    admin_id = viewer(request).admin_id
    session.pop("admin", None)
    session.pop("generation", None)
    session["csrf"] = secrets.token_urlsafe(32)
    try:
        await console(request).generations.revoke(admin_id)
    except StoreError as exc:
        log.error("web_sign_out_not_recorded", admin_id=admin_id, error=redact_text(str(exc)))
        return page(
            request,
            "message.html",
            status=503,
            title="Sign-out not recorded",
            message="This browser is signed out, but the store did not answer, so a copy of "
            "its cookie could still be used. Sign in and out again once the store answers.",
        )
    log.info("web_sign_out", admin_id=admin_id)
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
