"""Slack's OAuth install flow: one process serving every workspace that installs the app.

With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` set, HTTP mode serves
``GET /slack/install`` (a one-time state, in a cookie and in the database, then a
redirect to Slack's consent page) and ``GET /slack/oauth_redirect`` (the state is
checked and consumed, the code exchanged through ``oauth.v2.access``, the
installation stored encrypted). Each incoming event is then authorized with its own
workspace's bot token, looked up in the installation store (bolt's
``AsyncInstallationStoreAuthorize``), refreshed through ``oauth.v2.access``
(``grant_type=refresh_token``) when Slack's token rotation is on and the token is
within ``ROTATE_MINUTES`` of expiring, and the refreshed tokens are saved.
``app_uninstalled`` and ``tokens_revoked`` remove what they name.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import structlog
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.error import BoltError
from slack_bolt.oauth.async_callback_options import (
    AsyncCallbackOptions,
    AsyncFailureArgs,
    DefaultAsyncCallbackOptions,
)
from slack_bolt.oauth.async_oauth_flow import AsyncOAuthFlow
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.web.async_client import AsyncWebClient

from bots.settings import Settings
from bots.slack.installation_db import InstallationDb
from bots.slack.installations import SqlInstallationStore
from bots.slack.names import ClientFor
from bots.slack.oauth_state import DEFAULT_STATE_SECONDS, SqlOAuthStateStore
from bots.slack.token_cipher import GENERATE_HINT, EncryptionKeyError, TokenCipher
from core.db.base import StoreUnavailableError

#: refresh a rotating token when it has less than this many minutes left (bolt's default)
ROTATE_MINUTES = 120

log = structlog.get_logger(__name__)
_bolt_log = logging.getLogger(__name__)  # bolt's parts take a stdlib logger

#: what the installer's browser shows when the redirect cannot complete, by bolt's reason
FAILURE_PAGES = {
    "invalid_browser": (
        "This install did not start in this browser (its install cookie is missing or "
        "different; the install page must be opened over https://). Nothing was installed."
    ),
    "invalid_state": ("This install link has expired or was already used. Nothing was installed."),
    "missing_code": "Slack sent no authorization code. Nothing was installed.",
    "invalid_code": (
        "Slack refused the authorization code (expired or already used). Nothing was installed."
    ),
    "storage_error": (
        "Slack approved the install, but this server could not save it (its database is "
        "unavailable), so the bot will not answer in that workspace yet."
    ),
    "access_denied": "The install was cancelled on Slack's page. Nothing was installed.",
}


_STATE_UNAVAILABLE = (
    "This server's database is unavailable, so the install link could not be issued or "
    "checked. Nothing was installed; try again in a minute."
)


class OAuthConfigError(ValueError):
    """The OAuth install flow is configured incompletely."""


@dataclass(frozen=True, slots=True)
class SlackOAuth:
    """Everything the bolt app needs to serve many workspaces."""

    flow: AsyncOAuthFlow
    authorize: AsyncInstallationStoreAuthorize
    installations: SqlInstallationStore
    db: InstallationDb
    client_for: ClientFor

    async def aclose(self) -> None:
        """Release the database connections."""
        await self.db.aclose()


def oauth_configured(settings: Settings) -> bool:
    """True when the settings ask for the install flow (either credential set)."""
    return settings.slack_client_id is not None or settings.slack_client_secret is not None


def token_cipher(settings: Settings) -> TokenCipher:
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
    settings: Settings, db: InstallationDb, cipher: TokenCipher
) -> SqlInstallationStore:
    """The installation store of the app ``SLACK_CLIENT_ID`` names."""
    if settings.slack_client_id is None:
        raise OAuthConfigError("SLACK_CLIENT_ID is not set")
    return SqlInstallationStore(db, client_id=settings.slack_client_id, cipher=cipher)


class StatebotOAuthFlow(AsyncOAuthFlow):
    """bolt's flow; a database outage gets a page saying what it means, never a bare 500."""

    async def handle_installation(self, request: AsyncBoltRequest) -> BoltResponse:
        try:
            return await super().handle_installation(request)
        except StoreUnavailableError as exc:  # the state could not be stored
            log.error("slack_install_not_started", error=str(exc))
            return _page(self.settings, 503, "state_unavailable", _STATE_UNAVAILABLE)

    async def handle_callback(self, request: AsyncBoltRequest) -> BoltResponse:
        try:
            return await super().handle_callback(request)
        except StoreUnavailableError as exc:  # the state could not be checked: no exchange
            log.error("slack_install_not_checked", error=str(exc))
            return _page(self.settings, 503, "state_unavailable", _STATE_UNAVAILABLE)

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


def _failure_page(settings: AsyncOAuthSettings) -> AsyncCallbackOptions:
    """bolt's success page, and failure pages that say what happened and what to do."""
    default = DefaultAsyncCallbackOptions(
        logger=_bolt_log,
        state_utils=settings.state_utils,
        redirect_uri_page_renderer=settings.redirect_uri_page_renderer,
    )

    async def failure(args: AsyncFailureArgs) -> BoltResponse:
        log.warning("slack_install_failed", reason=args.reason)
        text = FAILURE_PAGES.get(args.reason, f"Slack reported `{args.reason}`.")
        return _page(settings, args.suggested_status_code, args.reason, text)

    return AsyncCallbackOptions(success=default.success, failure=failure)


def _page(settings: AsyncOAuthSettings, status: int, reason: str, text: str) -> BoltResponse:
    """An HTML page saying why the install did not complete, linking to a new start."""
    install = html.escape(settings.install_path, quote=True)
    body = (
        '<!doctype html><html><head><meta charset="utf-8"><title>Install failed</title>'
        "</head><body><h1>The app was not installed</h1>"
        f"<p>{html.escape(text)}</p>"
        f'<p><a href="{install}">Start the install again</a>.</p>'
        f"<p><small>reason: {html.escape(reason)}</small></p></body></html>"
    )
    headers: dict[str, str | Sequence[str]] = {
        "Content-Type": "text/html; charset=utf-8",
        "Set-Cookie": settings.state_utils.build_set_cookie_for_deletion(),
    }
    return BoltResponse(status=status, body=body, headers=headers)


def build_oauth(settings: Settings, *, schema: str | None = None) -> SlackOAuth:
    """The install flow, installation store and authorize the settings configure.

    OAuthConfigError names what is missing (client secret, encryption keys); the Web
    API calls (``oauth.v2.access``, ``auth.test``) go to ``SLACK_API_URL``.
    """
    if settings.slack_client_id is None or settings.slack_client_secret is None:
        missing = "SLACK_CLIENT_ID" if settings.slack_client_id is None else "SLACK_CLIENT_SECRET"
        raise OAuthConfigError(f"{missing} is not set; the install flow needs both")
    cipher = token_cipher(settings)
    try:
        db = InstallationDb.open(settings.statebot_db_url, schema=schema)
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
    oauth_settings.callback_options = _failure_page(oauth_settings)
    # bolt's default authorize refreshes tokens through slack.com; ours uses SLACK_API_URL
    authorize = AsyncInstallationStoreAuthorize(
        logger=_bolt_log,
        installation_store=store,
        client_id=settings.slack_client_id,
        client_secret=secret,
        token_rotation_expiration_minutes=ROTATE_MINUTES,
        client=client,
    )
    oauth_settings.authorize = authorize
    flow = StatebotOAuthFlow(client=client, settings=oauth_settings)
    return SlackOAuth(
        flow=flow,
        authorize=authorize,
        installations=store,
        db=db,
        client_for=workspace_clients(store, settings.slack_api_url),
    )
