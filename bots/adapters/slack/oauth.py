"""Slack's OAuth install flow: one process serving every workspace that installs the app.

With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` set, HTTP mode serves
``GET /slack/install`` (a one-time state, in a cookie and in the database, then a
redirect to Slack's consent page) and ``GET /slack/oauth_redirect`` (the state is
checked and consumed, the code exchanged through ``oauth.v2.access`` within
``STATEBOT_SLACK_INSTALL_SECONDS``, the installation stored encrypted; a failed
exchange gets a page naming Slack's error, its server's failure or the timeout).
Each incoming event is then authorized with its own workspace's bot token, looked
up in the installation store (bolt's ``AsyncInstallationStoreAuthorize``),
refreshed through ``oauth.v2.access`` (``grant_type=refresh_token``) when Slack's
token rotation is on and the token is within ``ROTATE_MINUTES`` of expiring, and the
refreshed tokens are saved.
``app_uninstalled`` and ``tokens_revoked`` remove what they name.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import structlog
from slack_bolt.error import BoltError
from slack_bolt.oauth.async_oauth_flow import AsyncOAuthFlow
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.exchange import ExchangeClient, ExchangeFailed, timed_out
from bots.adapters.slack.install_pages import STATE_UNAVAILABLE, callback_options, failure_page
from bots.adapters.slack.installation_db import InstallationDb
from bots.adapters.slack.installations import SqlInstallationStore
from bots.adapters.slack.names import ClientFor
from bots.adapters.slack.oauth_state import DEFAULT_STATE_SECONDS, SqlOAuthStateStore
from bots.adapters.slack.rotation import SerializedRotationAuthorize
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.token_cipher import GENERATE_HINT, EncryptionKeyError, TokenCipher
from core.exceptions import StoreUnavailableError

#: refresh a rotating token when it has less than this many minutes left (bolt's default)
ROTATE_MINUTES = 120

log = structlog.get_logger(__name__)
_bolt_log = logging.getLogger(__name__)  # bolt's authorize takes a stdlib logger


class OAuthConfigError(ValueError):
    """The OAuth install flow is configured incompletely."""


@dataclass(frozen=True, slots=True)
class SlackOAuth:
    """Everything the bolt app needs to serve many workspaces."""

    flow: AsyncOAuthFlow
    authorize: SerializedRotationAuthorize
    installations: SqlInstallationStore
    db: InstallationDb
    client_for: ClientFor

    async def aclose(self) -> None:
        """Release the database connections."""
        await self.db.aclose()


def oauth_configured(settings: SlackSettings) -> bool:
    """True when the settings ask for the install flow (either credential set)."""
    return settings.slack_client_id is not None or settings.slack_client_secret is not None


def token_cipher(settings: SlackSettings) -> TokenCipher:
    """The cipher for stored tokens; OAuthConfigError when the keys are missing or bad."""
    keys = settings.statebot_encryption_keys
    if keys is None:
        raise OAuthConfigError(
            "STATEBOT_ENCRYPTION_KEYS is not set; the Slack install flow stores every "
            f"workspace's tokens encrypted and needs a key. {GENERATE_HINT}"
        )
    try:
        return TokenCipher.from_setting(keys.get_secret_value())
    except EncryptionKeyError as exc:
        raise OAuthConfigError(f"STATEBOT_ENCRYPTION_KEYS: {exc}") from exc


def workspace_clients(store: SqlInstallationStore, api_url: str) -> ClientFor:
    """The Web API client of each workspace, with the bot token stored for it."""

    async def client_for(workspace: str) -> AsyncWebClient | None:
        bot = await store.find_bot_for_workspace(workspace)
        if bot is None or not bot.bot_token:
            return None
        return AsyncWebClient(token=bot.bot_token, base_url=api_url)

    return client_for


def installation_store(
    settings: SlackSettings, db: InstallationDb, cipher: TokenCipher
) -> SqlInstallationStore:
    """The installation store of the app ``SLACK_CLIENT_ID`` names."""
    if settings.slack_client_id is None:
        raise OAuthConfigError("SLACK_CLIENT_ID is not set")
    return SqlInstallationStore(db, client_id=settings.slack_client_id, cipher=cipher)


class StatebotOAuthFlow(AsyncOAuthFlow):
    """bolt's flow; a database outage, or a code exchange Slack failed, refused or did not
    answer within ``exchange_seconds``, gets a page saying what it means, never a bare
    500 or an empty 504. The flow's client must be an :class:`ExchangeClient`."""

    def __init__(
        self, *, client: ExchangeClient, settings: AsyncOAuthSettings, exchange_seconds: float
    ) -> None:
        super().__init__(client=client, settings=settings)
        self.exchange_seconds = exchange_seconds

    async def handle_installation(self, request: AsyncBoltRequest) -> BoltResponse:
        try:
            return await super().handle_installation(request)
        except StoreUnavailableError as exc:  # the state could not be stored
            log.error("slack_install_not_started", error=str(exc))
            return failure_page(self.settings, 503, "state_unavailable", STATE_UNAVAILABLE)

    async def handle_callback(self, request: AsyncBoltRequest) -> BoltResponse:
        try:
            return await super().handle_callback(request)
        except StoreUnavailableError as exc:  # the state could not be checked: no exchange
            log.error("slack_install_not_checked", error=str(exc))
            return failure_page(self.settings, 503, "state_unavailable", STATE_UNAVAILABLE)
        except ExchangeFailed as exc:  # nothing was stored: the exchange gave no installation
            log.warning("slack_install_failed", reason=exc.reason, error=exc.text)
            return failure_page(self.settings, exc.status, exc.reason, exc.text)

    async def run_installation(self, code: str) -> Installation | None:
        """bolt's exchange (``oauth.v2.access``, then ``auth.test``) under one deadline."""
        try:
            async with asyncio.timeout(self.exchange_seconds):
                return await super().run_installation(code)
        except TimeoutError as exc:
            raise timed_out(self.exchange_seconds) from exc

    async def store_installation(
        self, request: AsyncBoltRequest, installation: Installation
    ) -> None:
        try:
            await super().store_installation(request, installation)
        except StoreUnavailableError as exc:
            log.error("slack_install_not_saved", team_id=installation.team_id, error=str(exc))
            raise BoltError(str(exc)) from exc
        log.info(
            "slack_installed",
            enterprise_id=installation.enterprise_id,
            team_id=installation.team_id,
            user_id=installation.user_id,
        )


def build_oauth(settings: SlackSettings, db_url: str, *, schema: str | None = None) -> SlackOAuth:
    """The install flow, installation store and authorize the settings configure; the
    installations live in the durable store ``db_url`` (``STATEBOT_DB_URL``).

    OAuthConfigError names what is missing (client secret, encryption keys); the Web
    API calls (``oauth.v2.access``, ``auth.test``) go to ``SLACK_API_URL``.
    """
    if settings.slack_client_id is None or settings.slack_client_secret is None:
        missing = "SLACK_CLIENT_ID" if settings.slack_client_id is None else "SLACK_CLIENT_SECRET"
        raise OAuthConfigError(f"{missing} is not set; the install flow needs both")
    cipher = token_cipher(settings)
    try:
        db = InstallationDb.open(db_url, schema=schema)
    except ValueError as exc:
        raise OAuthConfigError(str(exc)) from exc
    store = installation_store(settings, db, cipher)
    client = AsyncWebClient(base_url=settings.slack_api_url)
    secret = settings.slack_client_secret.get_secret_value()
    oauth_settings = AsyncOAuthSettings(
        client_id=settings.slack_client_id,
        client_secret=secret,
        scopes=list(settings.slack_scopes),
        user_scopes=[],
        redirect_uri=settings.slack_redirect_uri,
        install_path=settings.slack_install_path,
        redirect_uri_path=settings.slack_redirect_uri_path,
        # straight to Slack's consent page: the operator shares the /slack/install link
        install_page_rendering_enabled=False,
        installation_store=store,
        token_rotation_expiration_minutes=ROTATE_MINUTES,
        state_store=SqlOAuthStateStore(db, expiration_seconds=DEFAULT_STATE_SECONDS),
        state_expiration_seconds=DEFAULT_STATE_SECONDS,  # the cookie's lifetime: the same
    )
    oauth_settings.callback_options = callback_options(oauth_settings)
    # bolt's default authorize refreshes tokens through slack.com; ours uses SLACK_API_URL
    authorize = SerializedRotationAuthorize(
        store=store,
        db=db,
        logger=_bolt_log,
        client_id=settings.slack_client_id,
        client_secret=secret,
        token_rotation_expiration_minutes=ROTATE_MINUTES,
        client=client,
    )
    oauth_settings.authorize = authorize
    flow = StatebotOAuthFlow(
        client=ExchangeClient(base_url=settings.slack_api_url),
        settings=oauth_settings,
        exchange_seconds=settings.statebot_slack_install_seconds,
    )
    return SlackOAuth(
        flow=flow,
        authorize=authorize,
        installations=store,
        db=db,
        client_for=workspace_clients(store, settings.slack_api_url),
    )
