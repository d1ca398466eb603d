"""A fake Discord REST API on loopback, recording what discord.py sends.

Point ``discord.http.Route.BASE`` at ``fake.base`` and a real ``discord.Client`` logs
in against it (``/users/@me``, ``/oauth2/applications/@me``), syncs its app commands,
and sends messages, typing, reactions, interaction callbacks, follow-ups and edits or
deletions of the original response here; GET of users, guilds, members and channels
answers from a small directory (``USERS``, ``NICKS``, ``GUILDS``, ``CHANNELS``).
``fail()`` makes a route answer with a Discord error (a 403 "Missing Permissions",
say) the way Discord does. Messages sent with files (multipart: ``payload_json`` and
``files[n]``) are recorded like the others, their files in ``fake.files``;
``host_attachment`` serves a file at a CDN URL (``fake.cdn_gets`` counts the GETs).
A minimal gateway at ``fake.gateway_url`` (for
``DiscordWebSocket.DEFAULT_GATEWAY``) says HELLO, answers IDENTIFY with READY
(``fake.identified``) and acknowledges heartbeats.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web

from .discord_history import FakeHistories

BOT_ID = "1100000000000000001"
APP_ID = "1100000000000000002"
OWNER_ID = "1100000000000000003"

BOT_USER: dict[str, Any] = {
    "id": BOT_ID,
    "username": "statebot",
    "discriminator": "0",
    "global_name": None,
    "avatar": None,
    "bot": True,
    "flags": 0,
    "mfa_enabled": False,
    "verified": True,
    "locale": "en-US",
    "premium_type": 0,
}


@dataclass
class DiscordCall:
    """One REST request as the fake received it."""

    method: str
    path: str
    json: Any


class FakeDiscordApi:
    """Answers the REST routes the bot uses, the way Discord does."""

    __slots__ = (
        "_failures",
        "_ids",
        "_runner",
        "calls",
        "cdn",
        "cdn_gets",
        "files",
        "histories",
        "identified",
        "port",
    )

    def __init__(self) -> None:
        self.calls: list[DiscordCall] = []
        self._failures: list[tuple[str, str, int, dict[str, Any]]] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._ids = itertools.count(1300000000000000001)
        self.identified = False
        #: what ``GET /channels/{id}/messages`` lists (``fake.histories.add(channel, …)``)
        self.histories = FakeHistories()
        #: files sent with messages: (path, filename, bytes)
        self.files: list[tuple[str, str, bytes]] = []
        #: attachments served at CDN URLs (path -> bytes) and the paths fetched
        self.cdn: dict[str, bytes] = {}
        self.cdn_gets: list[str] = []

    def host_attachment(self, channel: str, attachment_id: str, name: str, data: bytes) -> str:
        """Serve ``data`` as Discord's CDN serves an attachment; its URL."""
        path = f"{channel}/{attachment_id}/{name}"
        self.cdn[path] = data
        return f"http://127.0.0.1:{self.port}/attachments/{path}?ex=6a1b2c3d&is=6a0a0a0a&hm=ab12"

    @property
    def base(self) -> str:
        """The value for ``discord.http.Route.BASE``."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The value for ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        """Serve on a free loopback port."""
        app = web.Application()
        app.router.add_route("*", "/api/v10/{path:.*}", self._handle)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{path:.+}", self._cdn)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop serving."""
        if self._runner is not None:
            await self._runner.cleanup()

    def fail(
        self,
        method: str,
        path_part: str,
        status: int = 403,
        *,
        code: int = 50013,
        message: str = "Missing Permissions",
    ) -> None:
        """Answer ``method`` requests whose path contains ``path_part`` with an error."""
        self._failures.append((method, path_part, status, {"message": message, "code": code}))

    def sent(self, path_part: str, method: str = "POST") -> list[DiscordCall]:
        """Recorded calls whose path contains ``path_part``."""
        return [c for c in self.calls if c.method == method and path_part in c.path]

    def contents(self) -> list[str]:
        """The content of every message and follow-up sent, oldest first."""
        return [
            str(c.json.get("content"))
            for c in self.calls
            if c.method == "POST"
            and isinstance(c.json, dict)
            and (c.path.endswith("/messages") or c.path.startswith("webhooks/"))
        ]

    async def wait_for(self, predicate: Any, timeout: float = 10.0) -> None:
        """Wait until ``predicate(self)`` holds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate(self):
            if loop.time() > deadline:
                raise AssertionError(f"condition not met; calls: {self.calls!r}")
            await asyncio.sleep(0.02)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["path"]
        body: Any = None
        if request.can_read_body and request.content_type == "application/json":
            body = await request.json()
        elif request.can_read_body and request.content_type == "multipart/form-data":
            body = await self._multipart(path, request)
        self.calls.append(DiscordCall(request.method, path, body))
        for method, part, status, error in self._failures:
            if request.method == method and part in path:
                return _json(error, status=status)
        if path == "users/@me":
            return _json(BOT_USER)
        if request.method == "GET" and path.startswith("channels/") and path.endswith("/messages"):
            return _json(self.histories.page(path.split("/")[1], dict(request.query)))
        if request.method == "GET":
            found = _directory(path)
            if found is not None:
                return found
        if path == "oauth2/applications/@me":
            return _json(_app_info())
        if path.startswith("applications/") and path.endswith("/commands"):
            return _json(
                [
                    {**c, "id": str(next(self._ids)), "application_id": APP_ID, "version": "1"}
                    for c in body or []
                ]
            )
        if path.endswith("/typing") or "/reactions/" in path:
            return web.Response(status=204)
        if path.startswith("webhooks/") and request.method == "DELETE":
            return web.Response(status=204)
        if path.startswith("interactions/") and path.endswith("/callback"):
            interaction_id = path.split("/")[1]
            data = (body or {}).get("data") or {}
            return _json(
                {
                    "interaction": {
                        "id": interaction_id,
                        "type": 2,
                        "response_message_loading": True,
                        "response_message_ephemeral": bool(data.get("flags", 0) & 64),
                    }
                }
            )
        if path.startswith("channels/") and "/messages/" in path:  # edit or delete one message
            if request.method == "DELETE":
                return web.Response(status=204)
            channel, message_id = path.split("/")[1], path.split("/")[3]
            return _json({**self._message(channel, body or {}), "id": message_id})
        if path.endswith("/messages") or path.startswith("webhooks/"):
            channel = path.split("/")[1] if path.startswith("channels/") else "0"
            return _json(self._message(channel, body or {}))
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    async def _multipart(self, path: str, request: web.Request) -> Any:
        """A message with files: its ``payload_json``; the files go to ``self.files``."""
        body: Any = None
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "payload_json":
                body = json.loads(await part.text())
            else:
                self.files.append((path, part.filename or "", bytes(await part.read())))
        return body

    async def _cdn(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        self.cdn_gets.append(path)
        if path not in self.cdn:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=self.cdn[path], content_type="application/octet-stream")

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        """HELLO, READY after IDENTIFY, ACK per heartbeat: enough for a client to connect."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}})
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            op = json.loads(msg.data).get("op")
            if op == 1:  # heartbeat
                await ws.send_json({"op": 11, "d": None})
            elif op == 2:  # identify
                self.identified = True
                await ws.send_json({"op": 0, "t": "READY", "s": 1, "d": _ready(self.gateway_url)})
        return ws

    def _message(self, channel_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": str(next(self._ids)),
            "type": 0,
            "channel_id": channel_id,
            "author": BOT_USER,
            "content": body.get("content", ""),
            "timestamp": "2026-11-22T04:00:00.000000+00:00",
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "flags": body.get("flags", 0),
            "components": [],
        }


#: the directory GET /users, /guilds, /guilds/../members and /channels answer from
#: (ids of their own: the bots' scenarios rely on their users being unknown here)
USERS: dict[str, dict[str, Any]] = {
    "1400000000000000010": {"username": "alice", "global_name": "Alice"},
    "1400000000000000012": {"username": "bob", "global_name": None},
}
#: server nicknames: (guild, user) -> nick
NICKS: dict[tuple[str, str], str] = {("1400000000000000001", "1400000000000000010"): "Ana"}
GUILDS: dict[str, str] = {"1400000000000000001": "Statebot test"}
#: text channels: id -> (guild, name)
CHANNELS: dict[str, tuple[str, str]] = {"1400000000000000002": ("1400000000000000001", "general")}


def _directory(path: str) -> web.Response | None:
    """Users, guilds, members and channels as Discord returns them (404 when unknown)."""
    parts = path.split("/")
    unknown = _json({"message": "Unknown", "code": 10013}, status=404)
    if len(parts) == 2 and parts[0] == "users" and parts[1] != "@me":
        return _json(_user(parts[1])) if parts[1] in USERS else unknown
    if len(parts) == 2 and parts[0] == "guilds":
        if parts[1] not in GUILDS:
            return unknown
        guild = {"id": parts[1], "name": GUILDS[parts[1]], "roles": [], "emojis": []}
        return _json({**guild, "features": []})
    if len(parts) == 4 and parts[0] == "guilds" and parts[2] == "members":
        if parts[3] not in USERS:
            return unknown
        nick = NICKS.get((parts[1], parts[3]))
        return _json(
            {
                "user": _user(parts[3]),
                "nick": nick,
                "roles": [],
                "joined_at": "2026-01-01T00:00:00.000000+00:00",
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        )
    if len(parts) == 2 and parts[0] == "channels" and parts[1] in CHANNELS:
        guild, name = CHANNELS[parts[1]]
        channel = {"id": parts[1], "type": 0, "guild_id": guild, "name": name, "position": 0}
        return _json({**channel, "permission_overwrites": [], "nsfw": False, "parent_id": None})
    return None


def _user(user_id: str) -> dict[str, Any]:
    return {"id": user_id, "discriminator": "0", "avatar": None, **USERS[user_id]}


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only decodes bodies whose content type is exactly application/json
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def _app_info() -> dict[str, Any]:
    return {
        "id": APP_ID,
        "name": "Statebot",
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "a" * 64,
        "flags": 0,
        "owner": {**BOT_USER, "id": OWNER_ID, "username": "owner", "bot": False},
        "team": None,
        "interactions_endpoint_url": None,
        "redirect_uris": [],
    }


def _ready(resume_url: str) -> dict[str, Any]:
    return {
        "v": 10,
        "user": BOT_USER,
        "guilds": [],
        "session_id": "fake-session",
        "resume_gateway_url": resume_url,
        "application": {"id": APP_ID, "flags": 0},
    }
