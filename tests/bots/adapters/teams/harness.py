"""``statebot teams`` served in the test's loop: the real SDK endpoint and JWT check,
posting to :class:`FakeConnector`; only the Entra token service is replaced (it
hands out a fixed token the fake sees on every call)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from microsoft_agents.hosting.core import AgentAuthConfiguration

from bots.adapters.teams.cli import serve
from bots.adapters.teams.settings import TeamsSettings
from bots.chat.registry import ChatAgent
from bots.settings import Settings
from tests.bots.adapters.teams.fake_connector import OUTGOING_TOKEN, FakeConnector


class LocalTokens:
    """The Entra token service's part: a fixed token for the app's outgoing calls."""

    def __init__(self, config: AgentAuthConfiguration) -> None:
        self._config = config

    @property
    def configuration(self) -> AgentAuthConfiguration:
        return self._config

    async def get_access_token(
        self, resource_url: str, scopes: list[str], force_refresh: bool = False
    ) -> str:
        return OUTGOING_TOKEN

    def get_token_credential(self) -> Any:
        raise NotImplementedError("not used by the bot")


@dataclass
class Running:
    fake: FakeConnector
    port: int
    task: asyncio.Task[None]

    async def post(self, activity: Mapping[str, Any], *, token: str | None = "") -> tuple[int, Any]:
        """POST one activity as the channel would; (status, JSON body or None)."""
        body = {**activity, "serviceUrl": self.fake.url}
        headers = {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token or self.fake.token()}"
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                f"http://127.0.0.1:{self.port}/api/messages", json=body, headers=headers
            ) as response,
        ):
            text = await response.text()
            return response.status, (await response.json() if text.strip() else None)

    async def replies(self, count: int, timeout: float = 10.0) -> list[Any]:
        """Wait until the bot has posted ``count`` messages or updates; return them all."""
        async with asyncio.timeout(timeout):
            while len(self.fake.posts()) < count:
                await asyncio.sleep(0.02)
        return self.fake.posts()


async def start(
    fake: FakeConnector, agents: Mapping[str, ChatAgent], settings: Settings, **teams: Any
) -> Running:
    """Serve ``agents`` on port 0 until the task is cancelled or SIGTERM arrives."""
    started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    options = {"teams_app_id": fake.app_id, "teams_app_password": "test-secret", "teams_port": 0}
    options.update(teams)
    task = asyncio.create_task(
        serve(
            settings, TeamsSettings(**options), agents=agents, tokens=LocalTokens, started=started
        )
    )
    done, _ = await asyncio.wait({task, started}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()  # raises what stopped it
    return Running(fake, started.result(), task)
