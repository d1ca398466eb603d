"""`statebot telegram` as a process: serves the fake Bot API, answers, reports ready,
and on SIGTERM drains and exits 0 with the state on disk."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from core.db.sqlite import SqliteDb
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import WS
from tests.bots.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi

pytestmark = pytest.mark.slow

STATEBOT = str(Path(sys.executable).parent / "statebot")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_the_process_answers_and_stops_cleanly(fake: FakeBotApi, tmp_path: Path) -> None:
    """A command is answered and saved; /readyz is 200; SIGTERM exits 0."""
    health = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "OPENAI_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_URL=fake.url,
        STATEBOT_DB_URL=f"sqlite:///{tmp_path / 'statebot.db'}",
        STATEBOT_HEALTH_PORT=str(health),
        STATEBOT_ENV_FILE="",
        STATEBOT_LOG_FORMAT="json",
    )
    env.pop("REDIS_URL", None)
    proc = await asyncio.create_subprocess_exec(
        STATEBOT,
        "telegram",
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        await fake.wait_for("getUpdates", timeout=30)
        fake.push(p.command("taskboard", "add milk"))
        [sent] = await fake.wait_for("sendMessage", timeout=30)
        assert sent["text"].startswith("Added task \\#1: milk")
        readyz = f"http://127.0.0.1:{health}/readyz"
        async with aiohttp.ClientSession() as http, http.get(readyz) as ready:
            assert ready.status == 200
        proc.send_signal(signal.SIGTERM)
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, out.decode(errors="replace")
        assert b"telegram_stopped" in out
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    db = SqliteDb(db_file=str(tmp_path / "statebot.db"))
    try:
        session = await db.aload(f"telegram:{WS}:{p.GROUP}")
        assert session is not None and [t["title"] for t in session.state["tasks"]] == ["milk"]
    finally:
        await db.aclose()
