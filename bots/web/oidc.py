"""Sign in with Slack (OpenID Connect) through slack_sdk.

1. :func:`start` stores a random ``state`` and ``nonce`` in the session and gives the
   URL of Slack's authorize page (``OpenIDConnectAuthorizeUrlGenerator``).
2. Slack sends the browser back with ``code`` and ``state``; :func:`finish` checks the
   state, exchanges the code (``openid.connect.token``, with the client secret),
   checks the ID token's nonce and asks ``openid.connect.userInfo`` who signed in.

The ID token comes straight from Slack over TLS in exchange for the client secret,
so its claims are read without verifying the signature (OpenID Connect Core 3.1.3.7);
the nonce still ties it to this browser's sign-in.
"""

from __future__ import annotations

import base64
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.oauth import OpenIDConnectAuthorizeUrlGenerator
from slack_sdk.web.async_client import AsyncWebClient

from bots.web.config import SlackSignIn

SCOPES = ("openid", "profile")


class SignInError(Exception):
    """Sign in with Slack did not complete; the message says why, for the person."""


@dataclass(frozen=True, slots=True)
class SlackIdentity:
    """Who Slack says signed in."""

    team_id: str
    user_id: str
    name: str | None = None


def redirect_uri(public_url: str) -> str:
    """Where Slack sends the browser back (register it in the Slack app's settings)."""
    return public_url.rstrip("/") + "/login/slack/callback"


def start(config: SlackSignIn, public_url: str, session: dict[str, Any]) -> str:
    """The authorize URL to send the browser to; the pending state goes in ``session``."""
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    session["oidc"] = {"state": state, "nonce": nonce}
    generator = OpenIDConnectAuthorizeUrlGenerator(
        client_id=config.client_id,
        redirect_uri=redirect_uri(public_url),
        scopes=list(SCOPES),
        authorization_url=config.authorize_url,
    )
    return generator.generate(state=state, nonce=nonce)


async def finish(
    config: SlackSignIn,
    public_url: str,
    session: dict[str, Any],
    *,
    code: str | None,
    state: str | None,
    error: str | None = None,
) -> SlackIdentity:
    """The identity Slack confirms; SignInError when anything does not match."""
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
                "redirect_uri": redirect_uri(public_url),
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
    return SlackIdentity(team, user, name if isinstance(name, str) else None)


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
