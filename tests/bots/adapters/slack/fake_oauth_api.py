"""The fake Slack Web API, extended with several workspaces and ``oauth.v2.access``.

Each workspace has its own bot user and bot token; ``auth.test`` answers for the
token it is called with (``invalid_auth`` for an unknown or revoked one), as Slack
does. ``grant(code, team)`` prepares the code Slack would hand the installer's browser;
``oauth.v2.access`` exchanges it (client credentials checked), or with
``grant_type=refresh_token`` swaps a refresh token for a new token pair.
"""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass
from typing import Any

from tests.scenarios.fakes.slack_api import FakeSlackApi

CLIENT_ID = "1111111111.2222222222"
CLIENT_SECRET = "client-secret-for-tests"
APP_ID = "A0APP0001"


@dataclass
class Workspace:
    """One Slack workspace the fake knows."""

    team_id: str
    name: str
    bot_user_id: str
    bot_id: str
    installer: str


class OAuthSlackApi(FakeSlackApi):
    """FakeSlackApi serving many workspaces and the OAuth token exchange."""

    __slots__ = ("_codes", "_next", "_refresh", "_tokens", "rotate_seconds")

    #: lifetime of a token handed out by a refresh (Slack's: 12 hours)
    REFRESHED_SECONDS = 12 * 3600

    def __init__(self) -> None:
        super().__init__()
        self._codes: dict[str, Workspace] = {}
        self._tokens: dict[str, Workspace] = {}
        self._refresh: dict[str, Workspace] = {}
        self._next = itertools.count(1)
        # set: tokens expire (token rotation on); the first pair lives this long
        self.rotate_seconds: int | None = None

    def grant(self, code: str, workspace: Workspace) -> None:
        """Make ``code`` exchangeable for ``workspace``'s tokens (the consent screen)."""
        self._codes[code] = workspace

    def revoke(self, token: str) -> None:
        """Slack forgets a token (uninstall, revocation)."""
        self._tokens.pop(token, None)

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        headers = self.calls[-1].headers  # the call being answered (appended just before)
        if method == "oauth.v2.access":
            return self._exchange(params, headers)
        if method == "auth.test":
            token = headers.get("Authorization", "").removeprefix("Bearer ")
            ws = self._tokens.get(token)
            if ws is None:
                return {"ok": False, "error": "invalid_auth"}
            return {
                "ok": True,
                "url": f"https://{ws.name}.slack.com/",
                "team": ws.name,
                "user": "statebot",
                "team_id": ws.team_id,
                "user_id": ws.bot_user_id,
                "bot_id": ws.bot_id,
                "is_enterprise_install": False,
            }
        return super()._answer(method, params)

    def _tokens_for(self, ws: Workspace, lifetime: int | None) -> dict[str, Any]:
        token = f"xoxb-{ws.team_id}-{next(self._next)}"
        self._tokens[token] = ws
        pair: dict[str, Any] = {"access_token": token, "token_type": "bot"}
        if lifetime is not None:
            refresh = f"xoxe-1-{ws.team_id}-{next(self._next)}"
            self._refresh[refresh] = ws  # single use: the exchange pops it
            pair.update(refresh_token=refresh, expires_in=lifetime)
        return pair

    def _exchange(self, params: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        basic = headers.get("Authorization", "").removeprefix("Basic ")
        creds = base64.b64decode(basic).decode() if basic else ""
        given = creds or f"{params.get('client_id')}:{params.get('client_secret')}"
        if given != f"{CLIENT_ID}:{CLIENT_SECRET}":
            return {"ok": False, "error": "invalid_client_id"}
        if params.get("grant_type") == "refresh_token":
            ws = self._refresh.pop(str(params.get("refresh_token")), None)
            if ws is None:
                return {"ok": False, "error": "invalid_refresh_token"}
            return {"ok": True, "app_id": APP_ID, **self._tokens_for(ws, self.REFRESHED_SECONDS)}
        ws = self._codes.pop(str(params.get("code")), None)
        if ws is None:
            return {"ok": False, "error": "invalid_code"}
        return {
            "ok": True,
            "app_id": APP_ID,
            "authed_user": {"id": ws.installer},
            "scope": "app_mentions:read,chat:write,commands",
            "bot_user_id": ws.bot_user_id,
            "team": {"id": ws.team_id, "name": ws.name},
            "enterprise": None,
            "is_enterprise_install": False,
            **self._tokens_for(ws, self.rotate_seconds),
        }
