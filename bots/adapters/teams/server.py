"""The messaging endpoint: ``POST /api/messages`` on aiohttp, behind the SDK's JWT check.

Every activity's ``Authorization: Bearer`` token is validated by the SDK
(``jwt_authorization_decorator``: signature against the Bot Framework's published
keys, audience = TEAMS_APP_ID, tenant binding); a missing or bad token is 401 and
reaches no handler. Replies go out with a token for the same app, from its secret
or certificate (MSAL). ``/healthz``, ``/readyz`` and ``/metrics`` are served from
the same port.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import click
import structlog
from aiohttp import web
from microsoft_agents.hosting.aiohttp import CloudAdapter, jwt_authorization_decorator
from microsoft_agents.hosting.core import (
    AccessTokenProviderBase,
    AgentAuthConfiguration,
    AuthTypes,
    ConnectionManager,
    TurnContext,
)

from bots.adapters.teams.bot import TeamsBot
from bots.adapters.teams.parse import PLATFORM
from bots.adapters.teams.scheduled import teams_delivery
from bots.adapters.teams.settings import TeamsSettings
from bots.chat.service import ChatService
from bots.ops.flags import Flags
from bots.ops.health import Probe, add_routes

log = structlog.get_logger(__name__)

MESSAGES_PATH = "/api/messages"
#: the one connection this bot has: its own app registration
CONNECTION = "SERVICE_CONNECTION"
#: the largest activity accepted (a card action carries its card's data)
MAX_BODY_BYTES = 1024 * 1024

Handler = Callable[[web.Request], Awaitable[Any]]
TokenProviders = Callable[[AgentAuthConfiguration], AccessTokenProviderBase]


def auth_configuration(teams: TeamsSettings) -> AgentAuthConfiguration:
    """The SDK's configuration of the bot's identity; UsageError naming what is missing."""
    if not teams.teams_app_id:
        raise click.UsageError("TEAMS_APP_ID is not set; see docs/chat-setup.md (Teams)")
    secret = teams.teams_app_password
    if secret is None and not teams.teams_cert_pfx_file:
        raise click.UsageError(
            "set TEAMS_APP_PASSWORD (client secret) or TEAMS_CERT_PFX_FILE (certificate) "
            "for TEAMS_APP_ID; see docs/chat-setup.md (Teams)"
        )
    return AgentAuthConfiguration(
        auth_type=AuthTypes.client_secret if secret is not None else AuthTypes.certificate,
        client_id=teams.teams_app_id,
        tenant_id=teams.teams_tenant_id,
        client_secret=secret.get_secret_value() if secret is not None else None,
        cert_pfx_file=teams.teams_cert_pfx_file if secret is None else None,
        connection_name=CONNECTION,
        # the SDK leaves the issuer unchecked unless asked: accept only the Bot
        # Framework's and the app's tenant's
        validate_issuer=True,
    )


def msal_tokens(config: AgentAuthConfiguration) -> AccessTokenProviderBase:
    """Tokens for outgoing calls from Entra with the app's secret or certificate."""
    from microsoft_agents.authentication.msal import MsalAuth

    return MsalAuth(config)


def cloud_adapter(config: AgentAuthConfiguration, tokens: TokenProviders) -> CloudAdapter:
    """The SDK's adapter for ``config``; a turn error is logged, never shown to users."""
    manager = ConnectionManager(tokens, connections_configurations={CONNECTION: config})
    adapter = CloudAdapter(connection_manager=manager)

    async def on_turn_error(context: TurnContext, error: Exception) -> None:
        # the SDK's default posts the exception text into the conversation
        log.error("teams_turn_failed", error=repr(error), activity_type=context.activity.type)

    adapter.on_turn_error = on_turn_error
    return adapter


def web_app(
    bot: TeamsBot, adapter: CloudAdapter, config: AgentAuthConfiguration, probe: Probe
) -> web.Application:
    """The aiohttp application: the JWT-checked messaging endpoint and the health routes."""
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    with warnings.catch_warnings():  # the SDK's JWT check reads this plain string key
        warnings.simplefilter("ignore", web.NotAppKeyWarning)
        app["agent_configuration"] = config

    async def messages(request: web.Request) -> Any:
        return await adapter.process(request, bot)

    check: Callable[[Handler], Handler] = jwt_authorization_decorator  # the SDK is untyped
    checked = check(messages)  # 401 before the handler
    app.router.add_post(MESSAGES_PATH, checked)
    add_routes(app, probe)
    return app


class Endpoint:
    """The running web server (port 0 picks a free port)."""

    __slots__ = ("_app", "_host", "_runner", "port")

    def __init__(self, app: web.Application, *, host: str = "0.0.0.0", port: int = 3978) -> None:
        self._app = app
        self._host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def __aenter__(self) -> Endpoint:
        self._runner = web.AppRunner(self._app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self._host, self.port).start()
        for address in self._runner.addresses:
            self.port = int(address[1])
            break
        log.info("teams_listening", host=self._host, port=self.port, path=MESSAGES_PATH)
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def assemble(
    service: ChatService,
    teams: TeamsSettings,
    *,
    tokens: TokenProviders,
    flags: Flags,
    probe: Probe,
) -> tuple[TeamsBot, web.Application]:
    """The bot over ``service`` and its web application; reminders of Teams sessions
    are posted through it (``service.deliveries``)."""
    config = auth_configuration(teams)
    adapter = cloud_adapter(config, tokens)
    bot = TeamsBot(
        service,
        adapter,
        app_id=teams.teams_app_id or "",
        send_budget=teams.teams_send_timeout,
        flags=flags,
    )
    service.deliveries.register(PLATFORM, teams_delivery(bot, teams.teams_service_url))
    return bot, web_app(bot, adapter, config, probe)
