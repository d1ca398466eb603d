"""A fake Bot Connector on loopback: the REST endpoints the Agents SDK calls, a JWKS,
and tokens signed like the Bot Framework's (a local RSA key).

``fake.token(service_url)`` is what the channel would send in ``Authorization``;
``fake.keys_url`` serves the public key. The SDK fetches the Bot Framework's key set
from its published address; ``route_jwks`` points urllib (which PyJWKClient uses) at
the fake instead (PyJWT builds its opener per fetch), so the SDK's own validation runs
unchanged. ``fail_next(n, status)``
answers the next n posts with 429 (Retry-After: 0) or a 5xx.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

BOT_FRAMEWORK_ISSUER = "https://api.botframework.com"
BOT_FRAMEWORK_KEYS = "https://login.botframework.com/v1/.well-known/keys"
ENTRA_HOST = "login.microsoftonline.com"
OUTGOING_TOKEN = "local-outgoing-token"
#: one signing key per test process: the SDK caches the key set it fetched (and
#: refetches an unknown key id only after a cooldown), as it does against Microsoft's
_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = f"statebot-test-{uuid.uuid4().hex}"


@dataclass
class Call:
    method: str
    path: str
    body: dict[str, Any]
    authorization: str = ""
    #: the id the fake gave what was posted ("" for updates and refusals)
    id: str = ""


@dataclass
class FakeConnector:
    app_id: str
    calls: list[Call] = field(default_factory=list)
    port: int = 0
    _key: Any = None
    kid: str = ""
    _runner: web.AppRunner | None = None
    _fail: list[int] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    posted: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def keys_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/keys"

    def fail_next(self, count: int, status: int = 429) -> None:
        self._fail.extend([status] * count)

    def token(self, *, audience: str | None = None, issuer: str = BOT_FRAMEWORK_ISSUER) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer,
            "aud": audience or self.app_id,
            "serviceurl": self.url,
            "nbf": now - 10,
            "iat": now - 10,
            "exp": now + 3600,
        }
        return jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid})

    def posts(self) -> list[Call]:
        """Messages and updates the bot sent (typing indicators left out)."""
        return [c for c in self.calls if c.body.get("type") != "typing"]

    async def _keys(self, _request: web.Request) -> web.Response:
        public = json.loads(RSAAlgorithm.to_jwk(self._key.public_key()))
        public.update(kid=self.kid, use="sig", alg="RS256", endorsements=["msteams"])
        return web.json_response({"keys": [public]})

    async def _activity(self, request: web.Request) -> web.Response:
        body = await request.json() if request.can_read_body else {}
        call = Call(request.method, request.path, body, request.headers.get("Authorization", ""))
        self.calls.append(call)
        if self._fail and request.method == "POST" and body.get("type") != "typing":
            status = self._fail.pop(0)
            headers = {"Retry-After": "0"} if status == 429 else {}
            return web.json_response(
                {"error": {"code": "Throttled"}}, status=status, headers=headers
            )
        self.posted.set()
        if request.method == "DELETE":
            return web.Response(status=200)
        if request.method == "POST":
            call.id = f"1:{next(self._ids)}"
            return web.json_response({"id": call.id}, status=201)
        return web.json_response({"id": request.match_info.get("id", "")}, status=200)

    async def __aenter__(self) -> FakeConnector:
        self._key = _KEY
        self.kid = KID
        app = web.Application()
        app.router.add_get("/keys", self._keys)
        app.router.add_route("*", "/v3/conversations/{conversation}/activities", self._activity)
        app.router.add_route(
            "*", "/v3/conversations/{conversation}/activities/{id}", self._activity
        )
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class _KeysRedirect(urllib.request.BaseHandler):
    """Sends the SDK's fetch of the Bot Framework key set to the fake's /keys."""

    def __init__(self, keys_url: str) -> None:
        self.keys_url = keys_url

    def https_request(self, request: urllib.request.Request) -> urllib.request.Request:
        # the Bot Framework's key set, and Entra's (where a token of another issuer sends
        # the SDK): both answered by the fake, so no test reaches the network
        if request.full_url == BOT_FRAMEWORK_KEYS or request.host == ENTRA_HOST:
            request.full_url = self.keys_url
        return request


def route_jwks(monkeypatch: Any, keys_url: str) -> None:
    """Every urllib opener built during the test sends the key-set fetch to ``keys_url``."""
    build = urllib.request.build_opener

    def build_opener(*handlers: Any) -> urllib.request.OpenerDirector:
        return build(*handlers, _KeysRedirect(keys_url))

    monkeypatch.setattr(urllib.request, "build_opener", build_opener)
