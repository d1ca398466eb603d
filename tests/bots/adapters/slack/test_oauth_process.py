"""`statebot slack` as a process with the install flow: it serves it, or says what is missing."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import aiohttp
import pytest
from cryptography.fernet import Fernet

from tests.bots.adapters.slack.fake_oauth_api import CLIENT_ID, CLIENT_SECRET, OAuthSlackApi
from tests.bots.ops.test_process_endpoints import (
    STATEBOT,
    STOP_TIMEOUT,
    free_port,
    process_env,
    running,
    wait_listening,
)

pytestmark = pytest.mark.slow


async def test_slack_process_serves_the_install_flow(
    tmp_path: Path, redis_url: str, fake: OAuthSlackApi
) -> None:
    """With client id, secret and key set (no bot token), /slack/install redirects to Slack."""
    port = free_port()
    env = process_env(
        tmp_path,
        redis_url,
        SLACK_CLIENT_ID=CLIENT_ID,
        SLACK_CLIENT_SECRET=CLIENT_SECRET,
        SLACK_SIGNING_SECRET="secret",
        STATEBOT_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        SLACK_API_URL=fake.base_url,
    )
    async with running([STATEBOT, "slack", "--port", str(port)], env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{port}/slack/install"
            async with http.get(url, allow_redirects=False) as resp:
                assert resp.status == 302
                location = urlparse(resp.headers["Location"])
        assert location.netloc == "slack.com"
        query = parse_qs(location.query)
        assert query["client_id"] == [CLIENT_ID] and query["state"]
        assert "chat:write" in query["scope"][0].split(",")
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), STOP_TIMEOUT) == 0


async def test_slack_process_without_encryption_key_refuses_to_start(
    tmp_path: Path, redis_url: str
) -> None:
    """Install flow configured, no STATEBOT_ENCRYPTION_KEYS: exit 2 with one clear line."""
    env = process_env(
        tmp_path,
        redis_url,
        SLACK_CLIENT_ID=CLIENT_ID,
        SLACK_CLIENT_SECRET=CLIENT_SECRET,
        SLACK_SIGNING_SECRET="secret",
    )
    async with running([STATEBOT, "slack", "--port", str(free_port())], env, tmp_path) as proc:
        out, _ = await asyncio.wait_for(proc.communicate(), STOP_TIMEOUT)
    assert proc.returncode == 2
    assert "STATEBOT_ENCRYPTION_KEYS is not set" in out.decode()
