"""A Slack bot under test: the real bolt app on port 0, its client aimed at the fake API."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from fakes.slack_api import FakeSlackApi
from slack_payloads import CHANNEL, TEAM, encode_command, encode_event, sign

from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import EVENTS_PATH, SlackHttpServer, build_slack_app
from bots.chat.service import ChatService
from bots.keys import session_key
from bots.ops.flags import Flags
from core.agent import Agent
from core.testing import ScriptedModel

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
# tasks, lazy listeners and ack runners bolt starts per request
_BOLT_TASKS = ("to_runnable_function", "run_ack_function_asynchronously")


@dataclass
class SlackBot:
    """One running app instance and what it is wired to."""

    fake: FakeSlackApi
    server: SlackHttpServer
    service: ChatService
    model: ScriptedModel
    http: aiohttp.ClientSession
    extra_headers: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The events endpoint."""
        return f"http://127.0.0.1:{self.server.port}{EVENTS_PATH}"

    @property
    def taskboard(self) -> Agent:
        """The taskboard agent this instance routes to."""
        agent = self.service.agents["taskboard"]
        assert isinstance(agent, Agent)
        return agent

    async def post(
        self,
        raw: str,
        content_type: str,
        *,
        secret: str = SECRET,
        timestamp: int | None = None,
        retry_num: int | None = None,
    ) -> tuple[int, str]:
        """POST a signed body; (status, response text)."""
        headers = {"Content-Type": content_type, **sign(secret, raw, timestamp)}
        if retry_num is not None:
            headers.update({"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "timeout"})
        async with self.http.post(self.url, data=raw.encode(), headers=headers) as resp:
            return resp.status, await resp.text()

    async def event(self, body: dict[str, Any], **kwargs: Any) -> int:
        """Deliver an Events API body; the HTTP status of the ack."""
        status, _ = await self.post(*encode_event(body), **kwargs)
        return status

    async def command(self, body: dict[str, str]) -> int:
        """Deliver a slash command; the HTTP status of the ack."""
        status, _ = await self.post(*encode_command(body))
        return status

    async def state(self, thread: str | None, user: str = "", *, scope: str = "thread") -> Any:
        """The taskboard state of a Slack thread (or the channel, for channel scope)."""
        key = session_key("slack", TEAM, CHANNEL, thread, user, scope)  # type: ignore[arg-type]
        return await self.taskboard.aget_session_state(key)


async def settle(timeout: float = 10.0) -> None:
    """Wait until every lazy listener bolt started has finished."""
    deadline = time.monotonic() + timeout
    me = asyncio.current_task()
    while time.monotonic() < deadline:
        busy = [
            t
            for t in asyncio.all_tasks()
            if t is not me and not t.done() and t.get_coro().__qualname__.endswith(_BOLT_TASKS)  # type: ignore[union-attr]
        ]
        if not busy:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("bolt listeners still running")


async def start_bot(
    fake: FakeSlackApi,
    service: ChatService,
    model: ScriptedModel,
    flags: Flags,
    http: aiohttp.ClientSession,
    options: SlackOptions | None = None,
) -> SlackBot:
    """Serve a bolt app for ``service`` on a free loopback port."""
    app = build_slack_app(
        service=service,
        client=web_client("xoxb-test-token", fake.base_url),
        flags=flags,
        signing_secret=SECRET,
        options=options,
    )
    server = SlackHttpServer(app, host="127.0.0.1", port=0)
    await server.start()
    return SlackBot(fake=fake, server=server, service=service, model=model, http=http)


MakeBot = Callable[..., Awaitable[SlackBot]]
