"""The console as an aiohttp application: standalone (``statebot web``) or mounted.

``create_app(db, config)`` builds it; ``mount(parent, db, config, prefix="/admin")``
adds it to another aiohttp application as a sub-application under ``prefix``, and
``console_mounts(settings, db, sign_in=...)`` gives the ``{prefix: app}`` an adapter's
HTTP server mounts (Slack's ``mounts=``). Middlewares, outermost first: the signed
session cookie, CSRF on every unsafe request, sign-in on every non-public route, scope
refusals; security headers (``bots/web/headers.py``) around them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from aiohttp import web

from bots.settings import Settings
from bots.web.actions import add_routes as add_action_routes
from bots.web.config import WebConfig
from bots.web.context import CONSOLE, Console
from bots.web.cookies import SessionCookies, session_middleware
from bots.web.csrf import csrf_middleware
from bots.web.guard import refusal_middleware
from bots.web.headers import security_headers
from bots.web.mcp_oauth import add_routes as add_oauth_routes
from bots.web.memories import add_routes as add_memory_routes
from bots.web.names import ConsoleNames, OfferedNames
from bots.web.operations import add_routes as add_operation_routes
from bots.web.render import environment
from bots.web.revocation import revocations_for
from bots.web.sessions_pages import add_routes as add_session_routes
from bots.web.sign_in import SignInProvider
from bots.web.signin import PUBLIC, sign_in_middleware
from bots.web.signin import add_routes as add_sign_in_routes
from bots.web.tokens import AdminTokens
from bots.web.transfer import add_routes as add_transfer_routes
from core.db.base import BaseDb

STATIC = Path(__file__).resolve().parent / "static"
#: largest request body (an import upload)
MAX_BODY = 64 * 1024 * 1024


def create_app(db: BaseDb, config: WebConfig, *, base: str = "") -> web.Application:
    """The console over ``db``; ``base`` is the path it is served under ("" for the root)."""
    cookies = SessionCookies(config.secret, max_age=config.session_seconds, path=base or "/")
    app = web.Application(
        middlewares=[
            security_headers,
            session_middleware(cookies),
            csrf_middleware,
            sign_in_middleware,
            refusal_middleware,
        ],
        client_max_size=MAX_BODY,
    )
    names = ConsoleNames(config.names)
    app[CONSOLE] = Console(
        db=db,
        config=config,
        tokens=AdminTokens(config.tokens_file),
        templates=environment(),
        generations=revocations_for(db),
        base=base,
        names=names,
    )

    async def release_names(_: web.Application) -> None:
        await names.aclose()

    app.on_cleanup.append(release_names)
    add_sign_in_routes(app)
    add_session_routes(app)
    add_action_routes(app)
    add_transfer_routes(app)
    add_operation_routes(app)
    add_memory_routes(app)
    add_oauth_routes(app)
    app.router.add_static("/static", STATIC, name=f"{PUBLIC}static")
    return app


def mount(
    parent: web.Application, db: BaseDb, config: WebConfig, *, prefix: str = "/admin"
) -> web.Application:
    """Serve the console under ``prefix`` of ``parent``; the console application."""
    prefix = "/" + prefix.strip("/")
    console = create_app(db, config, base=prefix)
    parent.add_subapp(prefix, console)
    return console


def console_mounts(
    settings: Settings,
    db: BaseDb,
    *,
    prefix: str = "/admin",
    sign_in: Sequence[SignInProvider] = (),
    names: Sequence[OfferedNames] = (),
) -> dict[str, web.Application]:
    """What another aiohttp server mounts to serve the console too: ``{prefix: app}``
    when ``STATEBOT_WEB_SECRET`` is set, else nothing (WebConfigError when the console
    settings are incomplete); admins may sign in with the ``sign_in`` platforms, and
    pages show the names the ``names`` lookups give."""
    if settings.statebot_web_secret is None:
        return {}
    prefix = "/" + prefix.strip("/")
    config = WebConfig.from_settings(settings, sign_in, names)
    return {prefix: create_app(db, config, base=prefix)}
