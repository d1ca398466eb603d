"""A local stand-in for Slack's Sign in with Slack endpoints, for the real slack_sdk client.

``/openid/connect/authorize`` approves at once (as if the person clicked "Allow") and
sends the browser back with a code; ``/api/openid.connect.token`` exchanges the code
(client id and secret checked) for an access token and an ID token carrying the
nonce; ``/api/openid.connect.userInfo`` names the workspace and user.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web

CLIENT_ID = "111.222"
CLIENT_SECRET = "oidc-client-secret"


def _jwt(claims: dict[str, object]) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.signature"


@dataclass
class FakeSlackOidc:
    """Who the fake signs in, and what it was asked."""

    team_id: str = "T1"
    user_id: str = "UADMIN"
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    exchanges: int = 0

    async def authorize(self, request: web.Request) -> web.Response:
        q = request.query
        if q.get("client_id") != CLIENT_ID or "openid" not in q.get("scope", ""):
            return web.Response(status=400, text="bad client or scope")
        code = secrets.token_hex(8)
        self.codes[code] = {"nonce": q.get("nonce", ""), "redirect_uri": q["redirect_uri"]}
        location = f"{q['redirect_uri']}?code={code}&state={q['state']}"
        return web.Response(status=302, headers={"Location": location})

    async def token(self, request: web.Request) -> web.Response:
        self.exchanges += 1
        form = await request.post()
        pending = self.codes.pop(str(form.get("code")), None)
        if (form.get("client_id"), form.get("client_secret")) != (CLIENT_ID, CLIENT_SECRET):
            return web.json_response({"ok": False, "error": "invalid_client"})
        if pending is None or form.get("redirect_uri") != pending["redirect_uri"]:
            return web.json_response({"ok": False, "error": "invalid_code"})
        access = "xoxp-" + secrets.token_hex(8)
        self.tokens[access] = self.user_id
        claims = {"nonce": pending["nonce"], "https://slack.com/team_id": self.team_id}
        return web.json_response(
            {"ok": True, "access_token": access, "token_type": "Bearer", "id_token": _jwt(claims)}
        )

    async def user_info(self, request: web.Request) -> web.Response:
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        form = await request.post()
        token = bearer or str(form.get("token") or request.query.get("token", ""))
        if token not in self.tokens:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        return web.json_response(
            {
                "ok": True,
                "sub": self.tokens[token],
                "https://slack.com/user_id": self.tokens[token],
                "https://slack.com/team_id": self.team_id,
                "name": "Ada",
            }
        )


@asynccontextmanager
async def fake_slack_oidc() -> AsyncIterator[tuple[FakeSlackOidc, str]]:
    """The fake and its Web API base URL (``SLACK_API_URL``)."""
    fake = FakeSlackOidc()
    app = web.Application()
    app.router.add_get("/openid/connect/authorize", fake.authorize)
    app.router.add_post("/api/openid.connect.token", fake.token)
    app.router.add_route("*", "/api/openid.connect.userInfo", fake.user_info)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield fake, f"http://127.0.0.1:{runner.addresses[0][1]}/api/"
    finally:
        await runner.cleanup()
