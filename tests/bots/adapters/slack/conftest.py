"""Fixtures for the Slack install flow: the fake API, a real database, a running server.

Every test runs twice: installations in a SQLite file and in PostgreSQL (a schema of
its own). The server is the real bolt app behind aiohttp on a free port; the browser
is an aiohttp client that carries cookies by hand, as a browser would.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp
import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from bots.adapters.slack.oauth import SlackOAuth, build_oauth
from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import EVENTS_PATH, SlackHttpServer, build_slack_app
from bots.adapters.slack.settings import SlackSettings
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel
from tests.bots.adapters.slack.fake_oauth_api import (
    CLIENT_ID,
    CLIENT_SECRET,
    OAuthSlackApi,
    Workspace,
)
from tests.scenarios.slack.slack_payloads import app_mention, sign
from tools.catalog import COMMAND_ALIASES, create_agents

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
ACME = Workspace("T0ACME0001", "acme", "U0BOTACME1", "B0BOTACME1", "U0ACMEADM1")
GLOBEX = Workspace("T0GLOBEX01", "globex", "U0BOTGLOB1", "B0BOTGLOB1", "U0GLOBADM1")
COOKIE = "slack-app-oauth-state"


async def settle(timeout: float = 10.0) -> None:
    """Wait until the lazy listeners bolt started have finished."""
    deadline = time.monotonic() + timeout
    me = asyncio.current_task()
    names = ("to_runnable_function", "run_ack_function_asynchronously")
    while time.monotonic() < deadline:
        busy = [
            t
            for t in asyncio.all_tasks()
            if t is not me and not t.done() and t.get_coro().__qualname__.endswith(names)  # type: ignore[union-attr]
        ]
        if not busy:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("bolt listeners still running")


@dataclass(frozen=True)
class Database:
    """Where installations are kept in this test run."""

    url: str
    schema: str | None

    def engine(self) -> sa.Engine:
        """A plain engine for reading raw rows."""
        return sa.create_engine(self.url)

    def table(self, name: str) -> str:
        """The qualified table name."""
        return f'"{self.schema}".{name}' if self.schema else name


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    """A SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return Database(f"sqlite:///{tmp_path / 'statebot.db'}", None)
    url, schema = request.getfixturevalue("postgres_schema")
    return Database(url, schema)


@pytest.fixture
def key() -> str:
    """A fresh Fernet key."""
    return Fernet.generate_key().decode()


@pytest.fixture
async def fake() -> AsyncIterator[OAuthSlackApi]:
    """The fake Slack Web API with OAuth, on a free loopback port."""
    api = OAuthSlackApi()
    await api.start()
    yield api
    await api.stop()


def oauth_settings(database: Database, **extra: Any) -> Settings:
    """The neutral settings of an app using the install flow."""
    return Settings(
        statebot_db_url=database.url,
        redis_url=None,
        openai_api_key=None,
        openai_base_url=None,
        **extra,
    )


def slack_oauth_settings(fake: OAuthSlackApi, keys: str) -> SlackSettings:
    """Slack's own settings of an app using the install flow against the fake."""
    return SlackSettings(
        slack_client_id=CLIENT_ID,
        slack_client_secret=CLIENT_SECRET,
        slack_signing_secret=SIGNING_SECRET,
        statebot_encryption_keys=keys,
        slack_api_url=fake.base_url,
    )


@dataclass
class Server:
    """The running bolt app, its OAuth parts, and a browser-like HTTP client."""

    http: aiohttp.ClientSession
    server: SlackHttpServer
    oauth: SlackOAuth
    fake: OAuthSlackApi
    model: ScriptedModel

    @property
    def base(self) -> str:
        """The server's root URL."""
        return f"http://127.0.0.1:{self.server.port}"

    async def start_install(self) -> tuple[str, str]:
        """GET /slack/install: (state in Slack's consent URL, Set-Cookie value)."""
        async with self.http.get(f"{self.base}/slack/install", allow_redirects=False) as resp:
            assert resp.status == 302, await resp.text()
            location = resp.headers["Location"]
            cookie = resp.cookies[COOKIE].value
        query = parse_qs(urlparse(location).query)
        assert query["client_id"] == [CLIENT_ID]
        return query["state"][0], cookie

    async def redirect(
        self, *, code: str | None, state: str | None, cookie: str | None
    ) -> tuple[int, str]:
        """The browser coming back from Slack to /slack/oauth_redirect."""
        params = {k: v for k, v in (("code", code), ("state", state)) if v is not None}
        headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie is not None else {}
        url = f"{self.base}/slack/oauth_redirect"
        async with self.http.get(url, params=params, headers=headers) as resp:
            return resp.status, await resp.text()

    async def install(self, workspace: Workspace, code: str) -> None:
        """The whole round trip, as an installer's browser makes it."""
        state, cookie = await self.start_install()
        self.fake.grant(code, workspace)
        status, page = await self.redirect(code=code, state=state, cookie=cookie)
        assert status == 200, page

    async def event(self, body: dict[str, Any]) -> int:
        """Deliver a signed Events API body."""
        raw = json.dumps(body)
        headers = {"Content-Type": "application/json", **sign(SIGNING_SECRET, raw)}
        url = f"{self.base}{EVENTS_PATH}"
        async with self.http.post(url, data=raw.encode(), headers=headers) as resp:
            return resp.status


@pytest.fixture
async def serve(
    database: Database, fake: OAuthSlackApi, key: str, tmp_path: Path
) -> AsyncIterator[Any]:
    """Starts the Slack HTTP server in install-flow mode; ``await serve(turns, keys=...)``."""
    started: list[tuple[SlackHttpServer, SlackOAuth, SqliteDb]] = []
    http = aiohttp.ClientSession()

    async def start(turns: list[Any] | None = None, *, keys: str | None = None) -> Server:
        settings = oauth_settings(database)
        slack = slack_oauth_settings(fake, keys or key)
        oauth = build_oauth(slack, settings.statebot_db_url, schema=database.schema)
        sessions = SqliteDb(db_file=str(tmp_path / f"sessions{len(started)}.db"))
        model = ScriptedModel(turns or [])
        service = chat_service(
            create_agents(model, sessions), settings=settings, aliases=COMMAND_ALIASES
        )
        app = build_slack_app(
            service=service,
            client=web_client(None, fake.base_url),
            flags=MemoryFlags(),
            signing_secret=SIGNING_SECRET,
            oauth=oauth,
        )
        server = SlackHttpServer(app, host="127.0.0.1", port=0)
        await server.start()
        started.append((server, oauth, sessions))
        return Server(http, server, oauth, fake, model)

    yield start
    await settle()
    for server, oauth, sessions in started:
        await server.stop()
        await oauth.aclose()
        await sessions.aclose()
    await http.close()


def mention(workspace: Workspace, text: str, *, event_id: str, ts: str) -> dict[str, Any]:
    """An app_mention of ``workspace``'s bot, delivered for that workspace."""
    body = copy.deepcopy(
        app_mention(f"<@{workspace.bot_user_id}> {text}", ts=ts, event_id=event_id)
    )
    body["team_id"] = body["context_team_id"] = workspace.team_id
    body["event"]["team"] = workspace.team_id
    body["authorizations"][0].update(team_id=workspace.team_id, user_id=workspace.bot_user_id)
    body["event"]["blocks"] = []
    return body


def uninstalled(workspace: Workspace) -> dict[str, Any]:
    """The app_uninstalled event Slack sends when a workspace removes the app."""
    return {
        "token": "XXYYZZ",
        "team_id": workspace.team_id,
        "api_app_id": "A0APP0001",
        "event": {"type": "app_uninstalled", "event_ts": "1700000900.000900"},
        "type": "event_callback",
        "event_id": f"Ev0UNINST{workspace.team_id}",
        "event_time": 1700000900,
    }


def tokens_revoked(workspace: Workspace, *, bot: list[str], oauth: list[str]) -> dict[str, Any]:
    """The tokens_revoked event: which user (oauth) and bot tokens were revoked."""
    return {
        "token": "XXYYZZ",
        "team_id": workspace.team_id,
        "api_app_id": "A0APP0001",
        "event": {"type": "tokens_revoked", "tokens": {"oauth": oauth, "bot": bot}},
        "type": "event_callback",
        "event_id": f"Ev0REVOKE{workspace.team_id}",
        "event_time": 1700000950,
    }
