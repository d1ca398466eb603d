"""A fake Slack Web API on loopback, recording every call the real client makes.

Serve it on port 0, point ``AsyncWebClient(base_url=fake.base_url)`` at it and read
``fake.calls``. ``fail_once(method)`` answers the next call of a method with 429 and
``Retry-After``; ``apps.connections.open`` hands out a websocket on the same server
so Socket Mode runs end to end (``fake.send_envelope``). ``hold(method)`` keeps a
method's calls waiting, to show what the app does before they complete.
``fail_with(method, error)`` answers ``ok: false`` as Slack does (``msg_too_long``);
``conversations.info`` knows the channels of ``CHANNEL_NAMES``;
``files.uploadV2``'s three steps are served (``fake.uploads`` holds the contents);
``host_file`` serves a file at a ``url_private`` that answers only ``fake.file_token``
(``FILE_TOKEN``) as a bearer token, anything else getting Slack's HTML sign-in page,
``fake.downloads`` recording each download's path and Authorization header;
``files.info`` answers from ``fake.file_info``;
a ``response_url`` accepts five posts, as Slack's does, then answers 404.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .slack_threads import FakeThreads

BOT_USER_ID = "U0BOT0001"
BOT_ID = "B0BOT0001"
TEAM_ID = "T0TEAM001"
#: display names users.info answers with (others get an empty display name)
USER_NAMES: dict[str, str] = {"U0ALICE01": "Ana", "U0BOB0001": "Bo"}
#: users users.info does not find (``user_not_found``, as for a deleted account)
GONE_USERS = frozenset({"U0GONE001"})
#: channel names conversations.info answers with (others: a channel with no name, as a DM)
CHANNEL_NAMES: dict[str, str] = {"C0GENERAL": "general"}
#: profile timezones users.info answers with (others get none)
USER_TZ: dict[str, str] = {"U0ALICE01": "Europe/Madrid"}
RESPONSE_URL_USES = 5
#: the bot token url_private downloads must carry (the harness's bot token)
FILE_TOKEN = "xoxb-test-token"


@dataclass
class ApiCall:
    """One Web API call as the fake received it."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class FakeSlackApi:
    """An aiohttp app answering Slack Web API methods the way Slack does."""

    __slots__ = (
        "_acks",
        "_errors",
        "_failures",
        "_gates",
        "_retry_after",
        "_runner",
        "_sockets",
        "_ts",
        "calls",
        "downloads",
        "file_info",
        "file_token",
        "hosted",
        "port",
        "response_urls",
        "threads",
        "upload_base",
        "uploads",
    )

    def __init__(self) -> None:
        self.calls: list[ApiCall] = []
        self.response_urls: list[dict[str, Any]] = []
        #: threads ``conversations.replies`` lists (``fake.threads.add(channel, messages)``)
        self.threads = FakeThreads()
        self.uploads: dict[str, bytes] = {}
        #: files served at url_private (path -> bytes) and each download (path, auth)
        self.hosted: dict[str, bytes] = {}
        self.downloads: list[tuple[str, str]] = []
        #: the only bearer token url_private serves (a token without files:read: another)
        self.file_token = FILE_TOKEN
        #: what files.info answers, by file id (others: file_not_found)
        self.file_info: dict[str, dict[str, Any]] = {}
        #: where files.getUploadURLExternal sends uploads (None: this fake's /upload)
        self.upload_base: str | None = None
        self.port = 0
        self._errors: dict[str, list[str]] = {}
        self._failures: dict[str, list[int]] = {}
        self._retry_after = 0
        self._gates: dict[str, asyncio.Event] = {}
        self._runner: web.AppRunner | None = None
        self._ts = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    @property
    def base_url(self) -> str:
        """The Web API base URL to give the client (ends with a slash)."""
        return f"http://127.0.0.1:{self.port}/api/"

    @property
    def response_url(self) -> str:
        """A response_url for slash-command payloads, served by this fake."""
        return f"http://127.0.0.1:{self.port}/respond"

    async def start(self) -> None:
        """Serve on a free loopback port."""
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)  # users.info and friends use GET
        app.router.add_post("/respond", self._respond)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_get("/socket", self._socket)
        app.router.add_get("/files-pri/{path:.+}", self._download)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        """Close sockets and stop serving."""
        for ws in self._sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def host_file(self, file_id: str, name: str, data: bytes) -> str:
        """Serve ``data`` as Slack serves a file; its ``url_private``."""
        path = f"{TEAM_ID}-{file_id}/{name}"
        self.hosted[path] = self.hosted[f"{TEAM_ID}-{file_id}/download/{name}"] = data
        return f"http://127.0.0.1:{self.port}/files-pri/{path}"

    def fail_once(self, method: str, status: int = 429, retry_after: int = 0) -> None:
        """Answer the next call of ``method`` with ``status`` (429 carries Retry-After)."""
        self._failures.setdefault(method, []).append(status)
        self._retry_after = retry_after

    def fail_with(self, method: str, error: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with ``{"ok": false, "error": error}``."""
        self._errors.setdefault(method, []).extend([error] * times)

    def hold(self, method: str) -> asyncio.Event:
        """Keep calls of ``method`` waiting until the returned event is set."""
        gate = self._gates[method] = asyncio.Event()
        return gate

    def named(self, method: str) -> list[ApiCall]:
        """The recorded calls of one method, oldest first."""
        return [c for c in self.calls if c.method == method]

    def posted_texts(self) -> list[str]:
        """Texts of every chat.postMessage, chat.postEphemeral and response_url post."""
        texts = [
            str(c.params.get("text", ""))
            for c in self.calls
            if c.method in ("chat.postMessage", "chat.postEphemeral", "chat.update")
        ]
        return texts + [str(r.get("text", "")) for r in self.response_urls]

    async def wait_for(self, predicate: Any, timeout: float = 10.0) -> None:
        """Wait until ``predicate(self)`` holds; the app works after its ack."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate(self):
            if loop.time() > deadline:
                raise AssertionError(f"condition not met; calls: {self.calls!r}")
            await asyncio.sleep(0.02)

    async def send_envelope(
        self, envelope: dict[str, Any], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Push a Socket Mode envelope to the connected client; return its ack."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._sockets:
            if loop.time() > deadline:
                raise AssertionError("no Socket Mode client connected")
            await asyncio.sleep(0.02)
        await self._sockets[-1].send_str(json.dumps(envelope))
        return await asyncio.wait_for(self._acks.get(), timeout)

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await _read_params(request)
        self.calls.append(ApiCall(method, params, dict(request.headers)))
        gate = self._gates.get(method)
        if gate is not None:
            await gate.wait()
        pending = self._failures.get(method)
        if pending:
            status = pending.pop(0)
            headers = {"Retry-After": str(self._retry_after)} if status == 429 else {}
            return web.json_response(
                {"ok": False, "error": "ratelimited"}, status=status, headers=headers
            )
        errors = self._errors.get(method)
        if errors:
            return web.json_response({"ok": False, "error": errors.pop(0)})
        return web.json_response(self._answer(method, params))

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://example.slack.com/",
                "team": "Example",
                "user": "statebot",
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"}
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or f"1700000000.{next(self._ts):06d}"
            return {"ok": True, "channel": params.get("channel"), "ts": ts}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts):08d}"
            base = self.upload_base or f"http://127.0.0.1:{self.port}"
            url = f"{base}/upload/{file_id}"
            return {"ok": True, "upload_url": url, "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = json.loads(params.get("files") or "[]")
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]}
        if method == "users.info":  # documented shape: user.name, user.profile.display_name
            user = str(params.get("user", ""))
            if user in GONE_USERS:
                return {"ok": False, "error": "user_not_found"}
            profile = {"display_name": USER_NAMES.get(user, ""), "real_name": ""}
            info = {"id": user, "name": user.lower(), "profile": profile}
            if user in USER_TZ:
                info["tz"] = USER_TZ[user]
            return {"ok": True, "user": info}
        if method == "conversations.info":  # documented shape: channel.name
            channel = str(params.get("channel", ""))
            named = {"name": CHANNEL_NAMES[channel]} if channel in CHANNEL_NAMES else {}
            return {"ok": True, "channel": {"id": channel, **named}}
        if method == "chat.getPermalink":  # documented shape: the message's archive URL
            channel, ts = str(params.get("channel", "")), str(params.get("message_ts", ""))
            link = f"https://example.slack.com/archives/{channel}/p{ts.replace('.', '')}"
            return {"ok": True, "channel": channel, "permalink": link}
        if method == "conversations.replies":
            return self.threads.replies(params)
        if method == "files.info":  # documented shape: {"ok": true, "file": {...}}
            info = self.file_info.get(str(params.get("file", "")))
            return {"ok": True, "file": info} if info else {"ok": False, "error": "file_not_found"}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1700000000.{next(self._ts):06d}"}
        return {"ok": True}

    async def _respond(self, request: web.Request) -> web.Response:
        # Slack: "you can use a response_url up to five times within 30 minutes"
        if len(self.response_urls) >= RESPONSE_URL_USES:
            return web.Response(status=404, text="used_url")
        self.response_urls.append(await request.json())
        return web.Response(text="ok")

    async def _upload(self, request: web.Request) -> web.Response:
        self.uploads[request.match_info["file_id"]] = await request.read()
        return web.Response(text="OK - uploaded")

    async def _download(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        auth = request.headers.get("Authorization", "")
        self.downloads.append((path, auth))
        if auth != f"Bearer {self.file_token}":  # Slack: the sign-in page, not an error status
            return web.Response(text="<html>Sign in to Slack</html>", content_type="text/html")
        if path not in self.hosted:
            return web.Response(status=404, text="file_not_found")
        return web.Response(body=self.hosted[path], content_type="application/octet-stream")

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1}))
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await self._acks.put(json.loads(msg.data))
        return ws


async def _read_params(request: web.Request) -> dict[str, Any]:
    # slack_sdk sends some methods as JSON, others as a form or a query string
    params: dict[str, Any] = dict(request.query)
    if request.content_type == "application/json":
        body = await request.json()
        params.update(body if isinstance(body, dict) else {})
    else:
        form = await request.post()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    return params
