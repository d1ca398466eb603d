"""Every process type, started as a real `statebot` subprocess, answers its health endpoints.

Each test starts the command on a free port against the real Redis and a SQLite file,
reads /healthz, /readyz and /metrics over HTTP, then sends SIGTERM and expects exit 0.
Slack talks to the fake Web API (Socket Mode through its websocket); Discord logs in to
the fake REST API and its fake gateway, patched in by a two-line launcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.scenarios.fakes.discord_api import FakeDiscordApi
from tests.scenarios.fakes.slack_api import FakeSlackApi

pytestmark = pytest.mark.slow

STATEBOT = str(Path(sys.executable).parent / "statebot")
ROOT = Path(__file__).resolve().parents[3]
#: how long a process may take to start serving, and to exit after SIGTERM
START_TIMEOUT = 8.0
STOP_TIMEOUT = 8.0
#: the launcher for Discord: discord.py's REST base and gateway are class attributes
DISCORD_LAUNCHER = """\
import sys, yarl, discord.http, discord.gateway
discord.http.Route.BASE = sys.argv[1]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
from bots.cli.main import main
main(["discord"])
"""


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_env(tmp_path: Path, redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a process: real Redis, SQLite in tmp_path, no .env, no model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_"))}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PORT", "STATEBOT_HEALTH_PORT"):
        env.pop(name, None)
    env.update(
        REDIS_URL=redis_url,
        STATEBOT_DB_URL=f"sqlite:///{tmp_path / 'statebot.db'}",
        STATEBOT_RUN_SNAPSHOTTER="false",  # the shared default prefix is not this test's
        STATEBOT_ENV_FILE="",
        STATEBOT_LOG_FORMAT="json",
        PYTHONPATH=str(ROOT),
        **extra,
    )
    return env


@contextlib.asynccontextmanager
async def running(
    args: list[str], env: dict[str, str], cwd: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The process for the block; killed if it is still there afterwards."""
    proc = await asyncio.create_subprocess_exec(
        *args,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def wait_listening(proc: asyncio.subprocess.Process, url: str) -> None:
    """Poll ``url`` until it answers; fail with the process's output if it exits first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    async with aiohttp.ClientSession() as http:
        while loop.time() < deadline:
            if proc.returncode is not None:
                break
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(url) as resp:
                    if resp.status == 200:
                        return
            await asyncio.sleep(0.1)
    await _fail(proc, f"nothing answered at {url}")


async def _fail(proc: asyncio.subprocess.Process, why: str) -> None:
    if proc.returncode is None:
        proc.kill()
    out, _ = await proc.communicate()
    pytest.fail(f"{why}; exit {proc.returncode}; output:\n{out.decode(errors='replace')}")


async def check_endpoints(port: int) -> dict[str, object]:
    """GET the three endpoints; returns the /readyz report after checking all three."""
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as resp:
            assert (resp.status, await resp.text()) == (200, "ok")
        async with http.get(f"{base}/readyz") as resp:
            assert resp.status == 200, await resp.text()
            report: dict[str, object] = json.loads(await resp.text())
        async with http.get(f"{base}/metrics") as resp:
            assert resp.status == 200
            text = await resp.text()
    assert report["reachable"] is True
    assert report["dirty"] == 0 and report["quarantined"] == 0
    assert "statebot_store_up 1.0" in text
    assert "statebot_dirty_sessions 0.0" in text
    return report


async def stop_cleanly(proc: asyncio.subprocess.Process) -> str:
    """SIGTERM, then the exit code must be 0; returns the output."""
    proc.send_signal(signal.SIGTERM)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), STOP_TIMEOUT)
    except TimeoutError:
        await _fail(proc, "no exit after SIGTERM")
        raise
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text
    return text


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlackApi]:
    """The fake Slack Web API (and Socket Mode websocket) on a free port."""
    fake = FakeSlackApi()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscordApi]:
    """The fake Discord REST API and gateway on a free port."""
    fake = FakeDiscordApi()
    await fake.start()
    yield fake
    await fake.stop()


async def test_slack_http_serves_health_beside_events_and_stops_on_sigterm(
    tmp_path: Path, redis_url: str, fake_slack: FakeSlackApi
) -> None:
    """`statebot slack` (HTTP) serves /healthz, /readyz and /metrics on PORT; SIGTERM exits 0."""
    port = free_port()
    env = process_env(
        tmp_path,
        redis_url,
        PORT=str(port),
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_SIGNING_SECRET="secret",
        SLACK_API_URL=fake_slack.base_url,
    )
    async with running([STATEBOT, "slack"], env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        await check_endpoints(port)
        await stop_cleanly(proc)


async def test_slack_socket_mode_serves_health_on_its_port_and_stops_on_sigterm(
    tmp_path: Path, redis_url: str, fake_slack: FakeSlackApi
) -> None:
    """`statebot slack --socket` connects and serves the endpoints on STATEBOT_HEALTH_PORT."""
    port = free_port()
    env = process_env(
        tmp_path,
        redis_url,
        STATEBOT_HEALTH_PORT=str(port),
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_APP_TOKEN="xapp-test",
        SLACK_API_URL=fake_slack.base_url,
    )
    async with running([STATEBOT, "slack", "--socket"], env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        await fake_slack.wait_for(lambda fake: fake.named("apps.connections.open"))
        await check_endpoints(port)
        await stop_cleanly(proc)


async def test_discord_logs_in_serves_health_and_stops_on_sigterm(
    tmp_path: Path, redis_url: str, fake_discord: FakeDiscordApi
) -> None:
    """`statebot discord` logs in, reaches READY and serves the endpoints; SIGTERM exits 0."""
    port = free_port()
    env = process_env(
        tmp_path, redis_url, STATEBOT_HEALTH_PORT=str(port), DISCORD_TOKEN="test-bot-token"
    )
    args = [sys.executable, "-c", DISCORD_LAUNCHER, fake_discord.base, fake_discord.gateway_url]
    async with running(args, env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        await fake_discord.wait_for(lambda fake: fake.identified)
        await check_endpoints(port)
        await stop_cleanly(proc)


async def test_snapshotter_serves_health_and_stops_on_sigterm(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """`statebot snapshotter` serves the endpoints on STATEBOT_HEALTH_PORT; SIGTERM exits 0."""
    port = free_port()
    env = process_env(tmp_path, redis_url, STATEBOT_HEALTH_PORT=str(port))
    args = [STATEBOT, "snapshotter", "--key-prefix", key_prefix, "--interval", "0.1"]
    async with running(args, env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        await check_endpoints(port)
        out = await stop_cleanly(proc)
    assert "snapshotted 0 sessions" in out
