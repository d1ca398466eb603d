"""The console under test: a real aiohttp server on 127.0.0.1, a real headless Chromium.

The browser is Debian's ``chromium`` package driven by Playwright
(``executable_path``; Playwright's own browser downloads are not used). A missing
browser fails the test with the command that installs it; it is never skipped.
Browser tests share one browser and one event loop per session (launching Chromium
takes seconds); each test gets a fresh browser context (its own cookies).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import Browser, Page, async_playwright

from bots.web import WebConfig, create_app
from bots.web.tokens import AdminTokens
from core.db.base import BaseDb
from core.governance.transfer import import_jsonl

CHROMIUM = os.environ.get("STATEBOT_TEST_CHROMIUM", "/usr/bin/chromium")
INSTALL = "apt-get install -y chromium"
#: made by secrets.token_urlsafe(32), as docs/web-admin.md says (weak values are refused)
SECRET = "d1AS0dhiCYM9D0mTeY_xbCGpu0KoUXaGhzUKrnfCOZ8"


def require_chromium() -> str:
    """The browser's path; a failure naming the install command when it is missing."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"headless Chromium not found at {CHROMIUM}: install Debian's package with "
            f"`{INSTALL}` (or set STATEBOT_TEST_CHROMIUM)",
            pytrace=False,
        )
    return CHROMIUM


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for the session."""
    path = require_chromium()
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=path, headless=True)
        try:
            yield chromium
        finally:
            await chromium.close()


@dataclass
class Console:
    """A running console: its URL, store, settings and a way to mint sign-in tokens."""

    url: str
    db: BaseDb
    config: WebConfig

    def token(self, admin_id: str) -> str:
        """A one-time sign-in token for ``admin_id``."""
        return AdminTokens(self.config.tokens_file).create(admin_id)


ServeConsole = Callable[..., Awaitable[Console]]


@pytest_asyncio.fixture(loop_scope="session")
async def serve_console(tmp_path: Path) -> AsyncIterator[ServeConsole]:
    """Start consoles on 127.0.0.1 (port 0); stopped, and their stores closed, afterwards."""
    runners: list[tuple[web.AppRunner, BaseDb]] = []

    async def start(
        db: BaseDb,
        *,
        admin_ids: frozenset[str] = frozenset({"slack:T1:UADMIN"}),
        reveal_ids: frozenset[str] = frozenset(),
        **config: object,
    ) -> Console:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        settings = WebConfig(
            secret=SECRET,
            admin_ids=admin_ids,
            reveal_ids=reveal_ids,
            tokens_file=tmp_path / "tokens.json",
            public_url=url,
            **config,  # type: ignore[arg-type]
        )
        runner = web.AppRunner(create_app(db, settings))
        await runner.setup()
        await web.SockSite(runner, sock).start()
        runners.append((runner, db))
        return Console(url, db, settings)

    yield start
    for runner, db in runners:
        await runner.cleanup()
        await db.aclose()


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh browser context (no cookies) and page."""
    context = await browser.new_context(accept_downloads=True)
    tab = await context.new_page()
    try:
        yield tab
    finally:
        await context.close()


async def sign_in(page: Page, console: Console, admin_id: str = "slack:T1:UADMIN") -> None:
    """Sign in through the login page with a fresh one-time token."""
    await page.goto(f"{console.url}/login")
    await page.fill("input[name=token]", console.token(admin_id))
    await page.click("text=Sign in with token")
    await page.wait_for_selector("h1:text('Sessions')")


async def seed(db: BaseDb, sessions: list[dict[str, Any]]) -> None:
    """Store sessions through the admin import path (id, state, owner, user, updated_at)."""
    lines = []
    for i, s in enumerate(sessions):
        line = {
            "version": 1,
            "owner_id": "taskboard",
            "created_at": 1_700_000_000.0,
            "updated_at": 1_700_000_000.0 + i,
            **s,
        }
        lines.append(json.dumps(line))
    await import_jsonl(db, lines)


def spawn_statebot_web(
    tmp_path: Path, db_file: str, admin_id: str, *, capture: bool
) -> tuple[subprocess.Popen[str], int]:
    """A real ``statebot web`` process on a free port over ``tmp_path/db_file`` (SQLite),
    with ``admin_id`` as the admin; its output piped when ``capture``, else dropped."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    env = {
        **os.environ,
        "STATEBOT_ENV_FILE": "",
        "STATEBOT_WEB_SECRET": SECRET,
        "STATEBOT_ADMIN_IDS": admin_id,
        "STATEBOT_DB_URL": f"sqlite:///{tmp_path / db_file}",
        "STATEBOT_WEB_TOKENS_FILE": str(tmp_path / "tokens.json"),
    }
    env.pop("REDIS_URL", None)
    statebot = str(Path(sys.executable).parent / "statebot")
    process = subprocess.Popen(
        [statebot, "web", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if capture else subprocess.DEVNULL,
        text=True,
    )
    return process, port
