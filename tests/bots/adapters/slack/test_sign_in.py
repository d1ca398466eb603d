"""Sign in with Slack (the web console's provider for Slack) in the browser, against a
local fake of Slack's OpenID endpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page

from bots.adapters.slack.sign_in import SlackSignIn
from core.db.sqlite import SqliteDb
from tests.bots.adapters.slack.fake_oidc import CLIENT_ID, CLIENT_SECRET, fake_slack_oidc
from tests.bots.web.conftest import (  # the console's browser fixtures, used here too
    ServeConsole,
    browser,
    page,
    seed,
    serve_console,
)

__all__ = ["browser", "page", "serve_console"]  # fixtures imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]


async def test_slack_admin_signs_in(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A configured admin signs in with Slack and sees their workspace's sessions."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(
        db, [{"session_id": "slack:T1:C1", "state": {}}, {"session_id": "slack:T2:C1", "state": {}}]
    )
    async with fake_slack_oidc() as (fake, api_url):
        console = await serve_console(db, sign_in=(SlackSignIn(CLIENT_ID, CLIENT_SECRET, api_url),))
        await page.goto(console.url + "/")
        await page.click("#slack-sign-in")
        await page.wait_for_selector("h1:text('Sessions')")
        assert await page.text_content(".who") == "slack:T1:UADMIN"
        assert await page.locator("tr.session-row a").all_text_contents() == ["slack:T1:C1"]
        assert fake.exchanges == 1


async def test_slack_user_who_is_not_admin_is_refused(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """Slack vouches for the user, but an id outside STATEBOT_ADMIN_IDS gets no console."""
    async with fake_slack_oidc() as (fake, api_url):
        fake.user_id = "UOTHER"
        console = await serve_console(
            SqliteDb(db_file=tmp_path / "s.db"),
            sign_in=(SlackSignIn(CLIENT_ID, CLIENT_SECRET, api_url),),
        )
        await page.goto(console.url + "/login")
        await page.click("#slack-sign-in")
        await page.wait_for_selector("[role=alert]")
        assert "is not a console admin" in (await page.text_content("[role=alert]") or "")
        await page.goto(console.url + "/")
        assert await page.text_content("h1") == "Sign in"


async def test_replayed_callback_is_refused(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A callback whose state this browser did not start is refused, nothing exchanged."""
    async with fake_slack_oidc() as (fake, api_url):
        console = await serve_console(
            SqliteDb(db_file=tmp_path / "s.db"),
            sign_in=(SlackSignIn(CLIENT_ID, CLIENT_SECRET, api_url),),
        )
        await page.goto(console.url + "/login/slack/callback?code=abc&state=forged")
        assert "not from this browser" in (await page.text_content("[role=alert]") or "")
        assert fake.exchanges == 0
