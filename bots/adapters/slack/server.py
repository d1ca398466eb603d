"""Serving the bolt app: an aiohttp web server (HTTP mode) or a Socket Mode connection.

HTTP mode verifies every request with the signing secret (bad signature or a
timestamp older than five minutes -> 401; a body that is not UTF-8 text -> 400) and
serves ``POST /slack/events`` for events and slash commands alike, plus ``GET /healthz``
for the container runtime. With the OAuth install flow
(:mod:`bots.adapters.slack.oauth`) it also serves ``GET /slack/install`` and
``GET /slack/oauth_redirect`` (paths configurable).
Socket Mode needs no public URL: the app token opens a websocket and Slack pushes
the same payloads through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.listeners import register
from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.shutdown import Shutdown
from bots.ops.flags import Flags
from bots.ops.health import Probe, add_routes

if TYPE_CHECKING:
    from bots.adapters.slack.oauth import SlackOAuth
    from bots.chat.service import ChatService

EVENTS_PATH = "/slack/events"
# Slack payloads are small; a cap keeps a hostile client from streaming megabytes.
MAX_BODY_BYTES = 256 * 1024

log = structlog.get_logger(__name__)


def build_slack_app(
    *,
    service: ChatService,
    client: AsyncWebClient,
    flags: Flags,
    signing_secret: str | None,
    options: SlackOptions | None = None,
    shutdown: Shutdown | None = None,
    oauth: SlackOAuth | None = None,
) -> AsyncApp:
    """A bolt AsyncApp wired to ``service``; no signing secret means Socket Mode only.

    With ``shutdown``, deliveries arriving once it is closing are refused (503). With
    ``oauth`` (the install flow), ``client`` carries no token: each event is authorized
    with its workspace's installation, and uninstalls remove installations.
    """
    multi: dict[str, Any] = {}
    if oauth is not None:
        multi = {
            "oauth_flow": oauth.flow,
            "authorize": oauth.authorize,
            "installation_store": oauth.installations,
        }
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret or "",
        # Socket Mode payloads arrive over an authenticated websocket, unsigned
        request_verification_enabled=signing_secret is not None,
        # ack first, then run lazy listeners: Slack wants its answer within 3 s
        process_before_response=False,
        **multi,
    )
    if oauth is not None:
        app.enable_token_revocation_listeners()  # app_uninstalled, tokens_revoked
    register(app, service, flags, options, shutdown, oauth.client_for if oauth else None)
    return app


class SlackHttpServer:
    """The bolt app behind a real aiohttp server; port 0 picks a free port."""

    __slots__ = ("_app", "_host", "_mounts", "_port", "_probe", "_runner")

    def __init__(
        self,
        app: AsyncApp,
        *,
        host: str = "0.0.0.0",
        port: int = 3000,
        probe: Probe | None = None,
        mounts: Mapping[str, web.Application] | None = None,
    ) -> None:
        self._app = app
        # other aiohttp apps served by the same process under a path prefix (a web console)
        self._mounts = dict(mounts or {})
        self._probe = probe  # with a store probe: /readyz and /metrics too (bots.ops)
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None

    @property
    def port(self) -> int:
        """The bound port (the real one once started)."""
        return self._port

    def web_app(self) -> web.Application:
        """The aiohttp application: events endpoint, health, readiness and metrics."""
        web_app = web.Application(client_max_size=MAX_BODY_BYTES)
        web_app.router.add_post(EVENTS_PATH, self._dispatch)
        flow = self._app.oauth_flow
        if flow is not None:  # the install flow: the installer's browser comes here
            web_app.router.add_get(flow.install_path, self._install)
            web_app.router.add_get(flow.redirect_uri_path, self._oauth_redirect)
        for prefix, sub_app in self._mounts.items():
            web_app.add_subapp(prefix, sub_app)
        if self._probe is not None:
            add_routes(web_app, self._probe)
        else:
            web_app.router.add_get("/healthz", _healthz)
        return web_app

    async def start(self) -> None:
        """Bind and serve in the background."""
        self._runner = web.AppRunner(self.web_app())
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        for address in self._runner.addresses:
            self._port = int(address[1])
            break
        log.info("slack_http_listening", host=self._host, port=self._port, path=EVENTS_PATH)

    async def stop(self) -> None:
        """Stop accepting requests and close connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _dispatch(self, request: web.Request) -> web.Response:
        try:
            bolt_request = await to_bolt_request(request)
        except (UnicodeDecodeError, LookupError):  # bytes that are not UTF-8, or a charset
            # no codec knows: Slack sends UTF-8 only, so whoever sent this is not Slack
            return web.Response(status=400, text="the request body is not UTF-8 text")
        bolt_resp = await self._app.async_dispatch(bolt_request)
        return await to_aiohttp_response(bolt_resp)

    async def _install(self, request: web.Request) -> web.Response:
        flow = self._app.oauth_flow
        assert flow is not None  # routed only when the flow exists
        return await to_aiohttp_response(
            await flow.handle_installation(await to_bolt_request(request))
        )

    async def _oauth_redirect(self, request: web.Request) -> web.Response:
        flow = self._app.oauth_flow
        assert flow is not None  # routed only when the flow exists
        return await to_aiohttp_response(await flow.handle_callback(await to_bolt_request(request)))


async def _healthz(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


def socket_mode_handler(app: AsyncApp, app_token: str) -> AsyncSocketModeHandler:
    """A Socket Mode connection for ``app``; ``connect_async()`` / ``close_async()``."""
    return AsyncSocketModeHandler(app, app_token=app_token, web_client=app.client)
