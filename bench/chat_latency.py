"""Ack and first-reply latency of the chat adapters on local fakes of their platforms.

``python -m bench.chat_latency [--messages N]``. Each platform's real adapter and SDK
run against the fake the tests use, on loopback, with the same agents (the catalog,
``ScriptedModel`` answering instantly, ``InMemoryDb``), so what is measured is the
adapter, its SDK and the shared pipeline, not a model:

- **Slack, Socket Mode** (slack-bolt): the fake pushes an ``app_mention`` envelope on
  the websocket; *ack* is until the envelope's acknowledgement is back, *first reply*
  until ``chat.postMessage`` reaches the fake.
- **Telegram, long polling** (python-telegram-bot): the update is handed to the
  pending ``getUpdates``; *ack* is until a later ``getUpdates`` confirms its offset
  (Telegram's acknowledgement), *first reply* until ``sendMessage`` reaches the fake.
- **Telegram, webhook**: the update is POSTed with the secret token; *ack* is the
  HTTP 200, *first reply* as above.

Messages go one at a time (latency, not throughput), ``--gap`` seconds apart
(default 0.1), each a mention in its own conversation. The Telegram adapter keeps to
Telegram's documented flood limits (python-telegram-bot's ``AIORateLimiter``: 30
requests a second with a ``chat_id``, 20 a minute per group); each message is in its
own group, so the per-group budget never delays it, and with the gap the overall
budget does not either. ``--gap 0`` sends back to back and shows that budget at work.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web

from bots.adapters.telegram.cli import run
from bots.adapters.telegram.intake import SECRET_HEADER
from bots.adapters.telegram.settings import TelegramSettings
from bots.app.build import App
from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.ops.logging import configure_logging
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel
from tests.bots.adapters.telegram import payloads as tg_payloads
from tests.bots.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi
from tests.scenarios.fakes.slack_api import FakeSlackApi
from tests.scenarios.slack.slack_payloads import BOT_USER, app_mention
from tools.catalog import COMMAND_ALIASES, create_agents

Sample = tuple[float, float]  # (ack ms, first reply ms)
GAP = 0.1  # seconds between two messages (--gap)


def _service(messages: int) -> ChatService:
    model = ScriptedModel(["Nothing is on the board yet."] * (messages + 5))
    return chat_service(
        create_agents(model, InMemoryDb()),
        settings=Settings(redis_url=None),
        aliases=COMMAND_ALIASES,
    )


class _StampedSlack(FakeSlackApi):
    """The tests' fake Slack, noting when each Web API call arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.posted: asyncio.Queue[float] = asyncio.Queue()

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["method"] == "chat.postMessage":
            self.posted.put_nowait(time.perf_counter())
        return await super()._api(request)


async def slack_socket(messages: int) -> list[Sample]:
    """Socket Mode: envelope -> ack, envelope -> chat.postMessage."""
    from bots.adapters.slack.flags import MemoryFlags
    from bots.adapters.slack.send import web_client
    from bots.adapters.slack.server import build_slack_app, socket_mode_handler

    fake = _StampedSlack()
    await fake.start()
    app = build_slack_app(
        service=_service(messages),
        client=web_client("xoxb-bench", fake.base_url),
        flags=MemoryFlags(),
        signing_secret=None,
    )
    handler = socket_mode_handler(app, "xapp-1-bench")
    await handler.connect_async()
    samples = []
    try:
        for i in range(messages):
            ts = f"1700000{i:03d}.000100"
            body = app_mention(f"<@{BOT_USER}> what is on the board?", ts=ts, event_id=f"Ev{i}")
            envelope = {"envelope_id": f"env-{i}", "payload": body, "type": "events_api"}
            started = time.perf_counter()
            await fake.send_envelope(envelope)
            acked = time.perf_counter()
            replied = await asyncio.wait_for(fake.posted.get(), 10)
            samples.append(((acked - started) * 1000, (replied - started) * 1000))
            await asyncio.sleep(GAP)
    finally:
        await asyncio.sleep(0.2)  # the last post's response, before the server goes
        await handler.close_async()
        await fake.stop()
    return samples


async def _telegram(
    messages: int, send: Callable[[FakeBotApi, dict[str, Any], int], Awaitable[float]], **tg: Any
) -> list[Sample]:
    """Serve Telegram against the fake; ``send`` delivers one update and returns its ack time."""
    fake = FakeBotApi()
    await fake.start()
    settings = Settings(redis_url=None)
    app = App(settings=settings, service=_service(messages), db=InMemoryDb(), model=None)
    task = asyncio.create_task(
        run(app, TelegramSettings(telegram_bot_token=TOKEN, telegram_api_url=fake.url, **tg))
    )
    await fake.wait_for("setWebhook" if tg else "getUpdates")
    samples = []
    try:
        for i in range(messages):
            chat = {"id": -1001000000000 - i, "title": f"Team {i}", "type": "supergroup"}
            update = tg_payloads.mention("what is on the board?", chat=chat, message_id=i + 1)
            started = time.perf_counter()
            acked = await send(fake, update, i)
            [reply] = await fake.wait_for(
                "sendMessage", where=lambda c, ch=chat: c["chat_id"] == ch["id"]
            )
            at = next(c.at for c in fake.calls if c.params is reply)
            samples.append(((acked - started) * 1000, (at - started) * 1000))
            await asyncio.sleep(GAP)
    finally:
        signal.raise_signal(signal.SIGTERM)  # the adapter's own graceful stop
        await asyncio.wait_for(task, 30)
        await fake.stop()
    return samples


async def telegram_polling(messages: int) -> list[Sample]:
    """Long polling: push -> the confirming getUpdates, push -> sendMessage."""

    async def send(fake: FakeBotApi, update: dict[str, Any], _i: int) -> float:
        update_id = fake.push(update)
        [confirm] = await fake.wait_for(
            "getUpdates", where=lambda c: int(c.get("offset") or 0) > update_id
        )
        return next(c.at for c in fake.calls if c.params is confirm)

    return await _telegram(messages, send)


async def telegram_webhook(messages: int) -> list[Sample]:
    """Webhook: POST -> 200, POST -> sendMessage."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    url = f"http://127.0.0.1:{port}/telegram"
    async with aiohttp.ClientSession() as http:

        async def send(fake: FakeBotApi, update: dict[str, Any], i: int) -> float:
            body = {**update, "update_id": i + 1}
            async with http.post(url, json=body, headers={SECRET_HEADER: "bench"}) as response:
                assert response.status == 200, response.status
            return time.perf_counter()

        return await _telegram(
            messages,
            send,
            telegram_webhook_url=url,
            telegram_webhook_secret="bench",
            telegram_webhook_port=port,
        )


def _row(name: str, samples: list[Sample]) -> str:
    acks = sorted(s[0] for s in samples)
    firsts = sorted(s[1] for s in samples)

    def p95(values: list[float]) -> float:
        return values[min(len(values) - 1, int(len(values) * 0.95))]

    return (
        f"{name:<24}{len(samples):>6}{statistics.median(acks):>12.2f}{p95(acks):>8.2f}"
        f"{statistics.median(firsts):>14.2f}{p95(firsts):>8.2f}"
    )


async def main_async(messages: int) -> None:
    """Measure each platform in turn (one warm-up message each, not counted)."""
    python = sys.version.split()[0]
    print(f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {python}")
    print(f"{messages} messages per platform, {GAP} s apart")
    header = f"{'platform':<24}{'msgs':>6}{'ack p50 ms':>12}{'p95':>8}"
    print(f"{header}{'reply p50 ms':>14}{'p95':>8}")
    for name, measure in (
        ("slack socket mode", slack_socket),
        ("telegram long polling", telegram_polling),
        ("telegram webhook", telegram_webhook),
    ):
        samples = await measure(messages + 1)
        print(_row(name, samples[1:]), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200, help="messages per platform")
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between messages")
    args = parser.parse_args(argv)
    global GAP
    GAP = args.gap
    configure_logging("console", level="WARNING")  # the adapters' info lines are noise here
    asyncio.run(main_async(args.messages))


if __name__ == "__main__":
    main()
