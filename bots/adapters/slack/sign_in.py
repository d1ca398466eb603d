"""Sign in with Slack (OpenID Connect) through slack_sdk: the web console's
:class:`~bots.web.sign_in.SignInProvider` for Slack.

1. :meth:`SlackSignIn.start` stores a random ``state`` and ``nonce`` in the session and
   gives the URL of Slack's authorize page (``OpenIDConnectAuthorizeUrlGenerator``).
2. Slack sends the browser back with ``code`` and ``state``; :meth:`SlackSignIn.finish`
   checks the state, exchanges the code (``openid.connect.token``, with the client
   secret), checks the ID token's nonce and asks ``openid.connect.userInfo`` who signed in.

The ID token comes straight from Slack over TLS in exchange for the client secret,
so its claims are read without verifying the signature (OpenID Connect Core 3.1.3.7);
the nonce still ties it to this browser's sign-in.
"""

from __future__ import annotations

import base64
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.oauth import OpenIDConnectAuthorizeUrlGenerator
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.traits import TRAITS
from bots.settings import Settings
from bots.web import WebConfigError
from bots.web.sign_in import Identity, SignInError

__all__ = ["SCOPES", "SlackSignIn", "sign_in_for"]

SCOPES = ("openid", "profile")


@dataclass(frozen=True, slots=True)
class SlackSignIn:
    """Sign in with Slack: the app's client and where Slack lives."""

    client_id: str
    client_secret: str
    #: Slack Web API base URL (``SLACK_API_URL``); the authorize page is beside it
    api_url: str = "https://slack.com/api/"
    name: str = TRAITS.name
    label: str = "Slack"

    @property
    def authorize_url(self) -> str:
        """Slack's OpenID Connect authorize page, on the same host as the Web API."""
        base = self.api_url.rstrip("/")
        base = base.removesuffix("/api")
        return f"{base}/openid/connect/authorize"

    def start(self, callback: str, session: dict[str, Any]) -> str:
        """The authorize URL to send the browser to; the pending state goes in ``session``."""
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        session["oidc"] = {"state": state, "nonce": nonce}
        generator = OpenIDConnectAuthorizeUrlGenerator(
            client_id=self.client_id,
            redirect_uri=callback,
            scopes=list(SCOPES),
            authorization_url=self.authorize_url,
        )
        return generator.generate(state=state, nonce=nonce)

    async def finish(
        self, callback: str, session: dict[str, Any], query: Mapping[str, str]
    ) -> Identity:
        """The identity Slack confirms; SignInError when anything does not match."""
        return await _finish(
            self,
            callback,
            session,
            code=query.get("code"),
            state=query.get("state"),
            error=query.get("error"),
        )


def sign_in_for(settings: Settings, slack: SlackSettings) -> SlackSignIn | None:
    """Sign in with Slack: the console's own client, else the Slack app's install-flow
    client (``SLACK_CLIENT_ID``/``SECRET``) once the console has a public URL."""
    client_id = slack.statebot_web_oidc_client_id
    secret = slack.statebot_web_oidc_client_secret
    explicit = client_id is not None or secret is not None
    if explicit and (client_id is None or secret is None):
        raise WebConfigError(
            "Sign in with Slack needs both STATEBOT_WEB_OIDC_CLIENT_ID and "
            "STATEBOT_WEB_OIDC_CLIENT_SECRET (or neither: one-time admin tokens)"
        )
    if not explicit:
        if settings.statebot_web_url is None:
            return None  # the app's client alone does not turn it on: tokens only
        client_id, secret = slack.slack_client_id, slack.slack_client_secret
        if client_id is None or secret is None:
            return None
    if settings.statebot_web_url is None:
        raise WebConfigError(
            "Sign in with Slack needs STATEBOT_WEB_URL, the console's public URL: Slack "
            "sends the browser back to it"
        )
    assert client_id is not None and secret is not None
    return SlackSignIn(client_id, secret.get_secret_value(), slack.slack_api_url)


async def _finish(
    config: SlackSignIn,
    callback: str,
    session: dict[str, Any],
    *,
    code: str | None,
    state: str | None,
    error: str | None = None,
) -> Identity:
    pending = session.pop("oidc", None)
    if error:
        raise SignInError(f"Slack did not sign you in ({error}).")
    if not isinstance(pending, dict) or not state or not code:
        raise SignInError("This sign-in link is not from this browser or was already used.")
    if not hmac.compare_digest(str(pending.get("state")), state):
        raise SignInError("This sign-in link is not from this browser or was already used.")
    client = AsyncWebClient(base_url=config.api_url)
    try:
        # client id and secret as form fields, which Slack accepts as well as basic
        # auth: slack_sdk's basic-auth path uses aiohttp's deprecated BasicAuth
        tokens = await client.api_call(
            "openid.connect.token",
            data={
                "client_id": config.client_id,
                "client_secret": config.client_secret,
                "code": code,
                "redirect_uri": callback,
            },
        )
        claims = _claims(str(tokens.get("id_token") or ""))
        if not hmac.compare_digest(str(claims.get("nonce", "")), str(pending.get("nonce"))):
            raise SignInError("Slack's answer does not belong to this sign-in (nonce).")
        info = await client.openid_connect_userInfo(token=str(tokens["access_token"]))
    except SlackApiError as exc:
        raise SignInError(f"Slack refused the sign-in ({exc.response.get('error')}).") from None
    team = info.get("https://slack.com/team_id")
    user = info.get("https://slack.com/user_id")
    if not isinstance(team, str) or not isinstance(user, str) or not team or not user:
        raise SignInError("Slack's answer named no workspace and user.")
    name = info.get("name")
    return Identity(team, user, name if isinstance(name, str) else None)


def _claims(id_token: str) -> dict[str, Any]:
    """The payload of a JWT (not verified: see the module docstring)."""
    try:
        payload = id_token.split(".")[1]
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        raise SignInError("Slack's answer carried no readable ID token.") from None
    if not isinstance(data, dict):
        raise SignInError("Slack's answer carried no readable ID token.")
    return data
