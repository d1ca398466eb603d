"""Ack and first-reply latency of the Slack and Teams adapters, measured the same way.

    .venv/bin/python -m bench.teams_latency [--messages 200]

Each adapter serves the ready agents in this process on loopback, as ``statebot
slack`` (HTTP mode, signed requests) and ``statebot teams`` (the Agents SDK endpoint,
every request's JWT validated against a served JWKS) do, with its platform's API
replaced by the local fake the tests use (``tests/scenarios/fakes/slack_api.py``,
``tests/bots/adapters/teams/fake_connector.py``). The model is scripted (one plain
answer per message, no tool), the store in memory, so the numbers are the adapters'
own path: parse, verify, acknowledge, run, post.

Per message: **ack** is the time from sending the HTTP request to its response
(Slack's 200, Teams' 202); **first reply** the time from sending it until the fake
API has received the answer (``chat.postMessage``; the Bot Connector's reply POST),
polled every 0.5 ms. Each message is a new thread / reply chain, sent one after the
other. Times in ms: median and p95 after 20 warm-up messages.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import hmac
import json
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr

from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import EVENTS_PATH, SlackHttpServer, build_slack_app
from bots.adapters.teams.parse import conversation_id
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.ops.logging import configure_logging
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel
from tests.bots.adapters.teams.fake_connector import FakeConnector, route_jwks
from tests.bots.adapters.teams.harness import start as start_teams
from tests.bots.adapters.teams.payloads import APP_ID, CHANNEL, channel_mention
from tests.scenarios.fakes.slack_api import FakeSlackApi
from tests.scenarios.slack.slack_payloads import BOT_USER, app_mention
from tools.catalog import create_agents

SECRET = "bench-signing-secret"
WARMUP = 20
ANSWER = "Noted."

Send = Callable[[int], Awaitable[tuple[float, float]]]


def _settings() -> Settings:
    return Settings(openai_api_key=SecretStr("sk-bench"), redis_url=None)


def _agents(count: int) -> Any:
    return create_agents(ScriptedModel([ANSWER] * count), InMemoryDb())


async def _until(done: Callable[[], bool]) -> None:
    while not done():
        await asyncio.sleep(0.0005)


def _signed(body: str) -> dict[str, str]:
    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest}",
    }


async def slack(count: int, http: aiohttp.ClientSession) -> tuple[list[float], list[float]]:
    fake = FakeSlackApi()
    await fake.start()
    service = chat_service(_agents(count + WARMUP), settings=_settings())
    app = build_slack_app(
        service=service,
        client=web_client("xoxb-bench", fake.base_url),
        flags=MemoryFlags(),
        signing_secret=SECRET,
    )
    server = SlackHttpServer(app, host="127.0.0.1", port=0)
    await server.start()
    url = f"http://127.0.0.1:{server.port}{EVENTS_PATH}"

    async def send(index: int) -> tuple[float, float]:
        ts = f"1700001{index:03d}.000100"
        body = json.dumps(app_mention(f"<@{BOT_USER}> hello", ts=ts, event_id=f"Ev{index:08d}"))
        before = len(fake.named("chat.postMessage"))
        start = time.perf_counter()
        async with http.post(url, data=body.encode(), headers=_signed(body)) as response:
            await response.read()
            assert response.status == 200, response.status
        ack = time.perf_counter() - start
        await _until(lambda: len(fake.named("chat.postMessage")) > before)
        return ack, time.perf_counter() - start

    try:
        return await _measure(send, count)
    finally:
        await asyncio.sleep(0.5)  # the last reaction removals land before the fake stops
        await server.stop()
        await fake.stop()


async def teams(count: int, http: aiohttp.ClientSession) -> tuple[list[float], list[float]]:
    async with FakeConnector(APP_ID) as fake, _patched() as patch:
        route_jwks(patch, fake.keys_url)  # the SDK fetches the fake's key set
        running = await start_teams(fake, _agents(count + WARMUP), _settings())
        url = f"http://127.0.0.1:{running.port}/api/messages"

        async def send(index: int) -> tuple[float, float]:
            root = f"17{index:011d}"
            activity = channel_mention(text="<at>Statebot</at> hello", id=root)
            activity["conversation"]["id"] = conversation_id(CHANNEL, root)
            activity["serviceUrl"] = fake.url
            headers = {"Authorization": f"Bearer {fake.token()}"}
            before = len(fake.posts())
            start = time.perf_counter()
            async with http.post(url, json=activity, headers=headers) as response:
                await response.read()
                assert response.status == 202, response.status
            ack = time.perf_counter() - start
            await _until(lambda: len(fake.posts()) > before)
            return ack, time.perf_counter() - start

        try:
            return await _measure(send, count)
        finally:
            running.task.cancel()
            await asyncio.gather(running.task, return_exceptions=True)


@contextlib.asynccontextmanager
async def _patched() -> AsyncIterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


async def _measure(send: Send, count: int) -> tuple[list[float], list[float]]:
    acks: list[float] = []
    replies: list[float] = []
    for index in range(count + WARMUP):
        ack, reply = await send(index)
        if index >= WARMUP:
            acks.append(ack * 1000)
            replies.append(reply * 1000)
    return acks, replies


def _row(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"{name:<22} {statistics.median(values):8.2f} {p95:8.2f}"


async def main(count: int) -> None:
    configure_logging("console", level="ERROR")  # the per-message log lines are not measured
    async with aiohttp.ClientSession() as http:
        slack_ack, slack_reply = await slack(count, http)
        teams_ack, teams_reply = await teams(count, http)
    print(f"{count} messages each, ms       median      p95")
    print(_row("slack ack", slack_ack))
    print(_row("teams ack", teams_ack))
    print(_row("slack first reply", slack_reply))
    print(_row("teams first reply", teams_reply))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    asyncio.run(main(parser.parse_args().messages))
