"""A fake Telegram Bot API on loopback, recording what python-telegram-bot sends.

Point the bot's base URL at ``fake.url`` (``TELEGRAM_API_URL``) and a real
``telegram.ext.ExtBot`` talks to it: ``getMe``, long-polled ``getUpdates`` (answered
from :meth:`FakeBotApi.push`; an update is gone once a later poll's offset passes
it, as on Telegram), ``sendMessage``, ``editMessageText``,
``editMessageReplyMarkup``, ``answerCallbackQuery``, ``sendChatAction``,
``setMyCommands``, ``setWebhook``. :meth:`FakeBotApi.fail` makes the next calls of a
method answer with a Bot API error (a 429 with ``retry_after``, a 403) the way
Telegram does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

TOKEN = "123456:TEST-token"
BOT: dict[str, Any] = {
    "id": 7000000001,
    "is_bot": True,
    "first_name": "Statebot",
    "username": "statebot_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,  # privacy mode on, Telegram's default
    "supports_inline_queries": False,
}
#: what getChat answers (others: null, which the library refuses as not found)
_FULL_INFO = {"accent_color_id": 0, "max_reaction_count": 11}  # required in ChatFullInfo
CHATS: dict[int, dict[str, Any]] = {
    111111111: {
        "id": 111111111,
        "type": "private",
        "first_name": "Alice",
        "username": "alice",
        **_FULL_INFO,
    },
    -1001234567890: {"id": -1001234567890, "type": "supergroup", "title": "Team", **_FULL_INFO},
}
_JSON_FIELDS = {
    "reply_markup",
    "reply_parameters",
    "allowed_updates",
    "commands",
    "link_preview_options",
}
_INT_FIELDS = {"chat_id", "message_thread_id", "message_id", "offset", "timeout", "limit"}


@dataclass
class BotApiCall:
    """One Bot API request as the fake received it, and when."""

    method: str
    params: dict[str, Any]
    at: float = field(default_factory=time.perf_counter)


class FakeBotApi:
    """Answers the Bot API methods the adapter uses, the way Telegram does."""

    def __init__(self) -> None:
        self.calls: list[BotApiCall] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(900_000_001)
        self._message_ids = itertools.count(5001)
        self._news = asyncio.Event()
        self._failures: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        self._called = asyncio.Event()
        self.confirmed = 0  # the highest offset a poll has confirmed
        self.posted: list[dict[str, Any]] = []  # every message sent, as Telegram returned it

    @property
    def url(self) -> str:
        """The value for ``TELEGRAM_API_URL``."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Serve on a free loopback port."""
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        """Close the server."""
        self._news.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def push(self, update: dict[str, Any]) -> int:
        """Queue ``update`` (its update_id assigned here) for the next getUpdates."""
        update_id = next(self._update_ids)
        self._updates.append({**update, "update_id": update_id})
        self._news.set()
        return update_id

    def fail(
        self, method: str, status: int, description: str, times: int = 1, **params: Any
    ) -> None:
        """The next ``times`` calls of ``method`` answer ``status`` with ``description``."""
        error: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if params:
            error["parameters"] = params
        self._failures.setdefault(method, []).extend([(status, error)] * times)

    def sent(self, method: str = "sendMessage") -> list[dict[str, Any]]:
        """The parameters of every call of ``method`` so far."""
        return [call.params for call in self.calls if call.method == method]

    async def wait_for(
        self,
        method: str,
        count: int = 1,
        timeout: float = 10.0,
        where: Callable[[dict[str, Any]], bool] = lambda _params: True,
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` calls of ``method`` matching ``where`` arrived; return them."""
        deadline = time.monotonic() + timeout
        while True:
            found = [p for p in self.sent(method) if where(p)]
            if len(found) >= count:
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{count} {method} call(s) expected, got {found!r}")
            self._called.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._called.wait(), min(left, 0.5))

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            return dict(await request.json())
        form = await request.post()
        params: dict[str, Any] = {}
        for key, value in form.items():
            text = value if isinstance(value, str) else str(value)
            if key in _JSON_FIELDS:
                params[key] = json.loads(text)
            elif key in _INT_FIELDS:
                params[key] = int(text)
            else:
                params[key] = text
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != TOKEN:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        params = await self._params(request)
        self.calls.append(BotApiCall(method, params))
        self._called.set()
        failures = self._failures.get(method)
        if failures:
            status, error = failures.pop(0)
            return web.json_response(error, status=status)
        if method == "getUpdates":
            return web.json_response({"ok": True, "result": await self._poll(params)})
        if method == "getChat" and int(params["chat_id"]) not in CHATS:
            error = {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}
            return web.json_response(error, status=400)
        return web.json_response({"ok": True, "result": self._result(method, params)})

    async def _poll(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        if offset:
            self.confirmed = max(self.confirmed, offset)
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        timeout = float(params.get("timeout") or 0)
        if not self._updates and timeout:
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), timeout)
        return list(self._updates)

    def _result(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getMe":
            return BOT
        if method == "getChat":
            return CHATS[int(params["chat_id"])]
        if method in ("sendMessage", "editMessageText"):
            chat = int(params["chat_id"])
            message: dict[str, Any] = {
                "message_id": int(params.get("message_id") or next(self._message_ids)),
                "date": int(time.time()),
                "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
                "from": BOT,
                "text": params.get("text", ""),
            }
            if params.get("message_thread_id"):
                message["message_thread_id"] = params["message_thread_id"]
                message["is_topic_message"] = True
            if params.get("reply_markup"):
                message["reply_markup"] = params["reply_markup"]
            if method == "sendMessage":
                self.posted.append(message)
            return message
        return True
