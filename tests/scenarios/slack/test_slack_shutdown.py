"""Graceful shutdown of `statebot slack`: SIGTERM mid-run still posts the reply, exit 0."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
from fakes.slack_api import FakeSlackApi
from slack_harness import SECRET
from slack_payloads import BOT_USER, app_mention, encode_event, sign

from bots.adapters.slack.send import WORKING_REACTION
from core.testing import Delayed, FakeOpenAIServer


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _wait_healthy(
    http: aiohttp.ClientSession, url: str, proc: asyncio.subprocess.Process
) -> None:
    for _ in range(300):
        if proc.returncode is not None:
            raise AssertionError(f"statebot slack exited early with {proc.returncode}")
        try:
            async with http.get(url) as resp:
                if resp.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.05)
    raise AssertionError("statebot slack never became healthy")


async def test_sigterm_during_a_slow_run_posts_the_reply_and_exits_0(
    fake_slack: FakeSlackApi, tmp_path: Path
) -> None:
    """A run in flight finishes within the grace period; its reply is posted; reaction removed."""
    port = _free_port()
    with FakeOpenAIServer([Delayed(1.5, "Finished after a while.")]) as model:
        env = {
            **os.environ,
            "SLACK_BOT_TOKEN": "xoxb-test-token",
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": fake_slack.base_url,
            "OPENAI_BASE_URL": model.base_url,
            "OPENAI_API_KEY": "test",
            "STATEBOT_DB_URL": f"sqlite:///{tmp_path / 'state.db'}",
            "STATEBOT_SHUTDOWN_GRACE": "20",
            "STATEBOT_LOG_FORMAT": "json",
            "REDIS_URL": "",
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "from bots.cli.main import main; main()",
            "slack",
            "--port",
            str(port),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            async with aiohttp.ClientSession() as http:
                await _wait_healthy(http, f"http://127.0.0.1:{port}/healthz", proc)
                raw, content_type = encode_event(app_mention(f"<@{BOT_USER}> take your time"))
                headers = {"Content-Type": content_type, **sign(SECRET, raw)}
                url = f"http://127.0.0.1:{port}/slack/events"
                async with http.post(url, data=raw.encode(), headers=headers) as resp:
                    assert resp.status == 200
            await fake_slack.wait_for(lambda f: f.named("reactions.add"))
            proc.send_signal(signal.SIGTERM)
            output, _ = await asyncio.wait_for(proc.communicate(), timeout=30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert proc.returncode == 0, output.decode()
    texts = [c.params["text"] for c in fake_slack.named("chat.postMessage")]
    assert texts == ["Finished after a while."]
    assert [c.params["name"] for c in fake_slack.named("reactions.remove")] == [WORKING_REACTION]


async def test_new_events_are_refused_while_draining(fake_slack: FakeSlackApi) -> None:
    """Once shutdown begins a delivery gets 503, so Slack redelivers it, and runs nothing."""
    from bots.adapters.slack.shutdown import Shutdown

    shutdown = Shutdown()
    middleware = shutdown.middleware()
    ran: list[bool] = []

    async def next_() -> None:
        ran.append(True)

    assert await middleware(next_) is None and ran == [True]
    assert await shutdown.drain(0.1) == 0
    refused = await middleware(next_)
    assert refused is not None and refused.status == 503 and ran == [True]
