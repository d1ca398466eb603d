"""`statebot teams` as a real process: the endpoint and health routes on TEAMS_PORT,
an activity without a valid token refused, SIGTERM exits 0 (the process's own MSAL
setup, nothing contacted: no activity is accepted, so no token is ever needed)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.bots.adapters.teams.payloads import APP_ID, personal
from tests.bots.ops import test_process_endpoints as endpoints
from tests.bots.ops.test_process_endpoints import (
    STATEBOT,
    check_endpoints,
    free_port,
    process_env,
    running,
    stop_cleanly,
    wait_listening,
)

pytestmark = pytest.mark.slow

#: seconds `statebot teams` may take to listen: it imports the Agents SDK too, and on a
#: loaded machine that start takes longer than the other processes' START_TIMEOUT
START_TIMEOUT = 30.0


async def test_statebot_teams_serves_refuses_unsigned_and_stops_on_sigterm(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(endpoints, "START_TIMEOUT", START_TIMEOUT)
    port = free_port()
    env = process_env(
        tmp_path,
        redis_url,
        TEAMS_PORT=str(port),
        TEAMS_APP_ID=APP_ID,
        TEAMS_APP_PASSWORD="test-secret",
    )
    async with running([STATEBOT, "teams"], env, tmp_path) as proc:
        await wait_listening(proc, f"http://127.0.0.1:{port}/healthz")
        await check_endpoints(port)
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{port}/api/messages"
            async with http.post(url, json=personal()) as response:
                assert response.status == 401
            bad = {"Authorization": "Bearer not-a-jwt"}
            async with http.post(url, json=personal(), headers=bad) as response:
                assert response.status == 401
        out = await stop_cleanly(proc)
    assert "teams_stopped" in out
