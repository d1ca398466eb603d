"""What an operator reads in a real headless Chromium: names instead of ids, how each
version came about, and what a restore will write before it is confirmed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page

from bots.cli.web import name_sources
from bots.settings import Settings
from core.db.sqlite import SqliteDb
from core.governance.audit import undo_last
from core.governance.save import load_session
from core.governance.sessions import session_history
from core.testing import tool_call
from tests.bots.web.conftest import ServeConsole, seed, sign_in
from tests.bots.web.test_browser import shopping_agent
from tests.scenarios.fakes.discord_api import FakeDiscordApi
from tests.scenarios.fakes.slack_api import TEAM_ID, FakeSlackApi
from tools.taskboard.agent import create_agent

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

ADMIN = "slack:T1:UADMIN"
THREAD = f"slack:{TEAM_ID}:C0GENERAL:1700000000.000100"
UNNAMED = f"slack:{TEAM_ID}:C0NONAME1"
ANA = f"slack:{TEAM_ID}:U0ALICE01"
GONE = f"slack:{TEAM_ID}:U0GONE001"


@pytest_asyncio.fixture(loop_scope="session")
async def slack_api(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeSlackApi]:
    """A fake Slack Web API, and the settings that make the console ask it for names."""
    fake = FakeSlackApi()
    await fake.start()
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-console-test")
    monkeypatch.setenv("SLACK_API_URL", fake.base_url)
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield fake
    finally:
        await fake.stop()


async def test_names_instead_of_ids_with_the_id_on_hover(
    page: Page, serve_console: ServeConsole, slack_api: FakeSlackApi, tmp_path: Path
) -> None:
    """Channels and users show by name (asked of Slack with the bot's token, once),
    each with its id as the title; what Slack cannot name stays the id."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(
        db,
        [
            {"session_id": THREAD, "state": {"n": 1}, "user_id": ANA},
            {"session_id": UNNAMED, "state": {"n": 2}, "user_id": GONE},
        ],
    )
    admin = f"slack:{TEAM_ID}:UADMIN"
    names = name_sources(Settings())
    console = await serve_console(db, admin_ids=frozenset({admin}), names=names)
    await sign_in(page, console, admin)
    named = page.locator(f"tr.session-row a[title='{THREAD}']")
    assert await named.text_content() == "#general › thread 1700000000.000100"
    ana = page.locator(f"tr.session-row span.name[title='{ANA}']")
    assert await ana.text_content() == "Ana"
    # no name from Slack (a channel without one, a user it does not find): the id
    assert await page.locator(f"tr.session-row a[title='{UNNAMED}']").text_content() == UNNAMED
    assert GONE in (await page.locator("tr.session-row", has_text=UNNAMED).text_content() or "")
    await page.reload()
    await page.wait_for_selector(f"span.name[title='{ANA}']")
    asked = [c.params.get("user") for c in slack_api.named("users.info")]
    assert asked.count("U0ALICE01") == 1 and asked.count("U0GONE001") == 1  # cached
    await named.click()
    assert await page.text_content("h1") == "#general › thread 1700000000.000100"
    assert await page.get_attribute("h1", "title") == THREAD
    assert await page.locator(f"dl.meta span.name[title='{ANA}']").text_content() == "Ana"
    await page.goto(f"{console.url}/session/diff?id={THREAD}&a=1&b=1")
    assert await page.text_content("h1 a") == "#general › thread 1700000000.000100"


async def test_discord_names_come_over_rest_with_the_bot_token(
    page: Page, serve_console: ServeConsole, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With DISCORD_TOKEN the console asks Discord's REST API (through discord.py, no
    gateway): a server nickname for a member, the channel's name; unknown stays the id."""
    import discord

    fake = FakeDiscordApi()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.base)
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")
    monkeypatch.setenv("DISCORD_TOKEN", "discord-console-test-token")
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    guild, channel, alice = "1400000000000000001", "1400000000000000002", "1400000000000000010"
    thread = f"discord:{guild}:{channel}:1400000000000000003"
    lost = f"discord:{guild}:1400000000000000077"
    bob = f"discord:{guild}:1400000000000000012"
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(
        db,
        [
            {"session_id": thread, "state": {"n": 1}, "user_id": f"discord:{guild}:{alice}"},
            {"session_id": lost, "state": {"n": 2}, "user_id": bob},
        ],
    )
    admin = f"discord:{guild}:1400000000000000099"
    try:
        console = await serve_console(
            db, admin_ids=frozenset({admin}), names=name_sources(Settings())
        )
        await sign_in(page, console, admin)
        link = page.locator(f"tr.session-row a[title='{thread}']")
        assert await link.text_content() == "#general › thread 1400000000000000003"
        users = await page.locator("tr.session-row span.name").all_text_contents()
        assert sorted(users) == ["Ana", "bob"]  # a nickname; else the account's name
        assert await page.locator(f"tr.session-row a[title='{lost}']").text_content() == lost
    finally:
        await fake.stop()


async def test_versions_say_who_which_tool_and_which_restore_or_undo(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """Each version row says how it came about: a run and its tools, an undo of which
    change, an admin's restore of which version, from the audit trail."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    sid = "slack:T1:C1:1.1"
    turns: list[object] = [
        tool_call("add_item", item="milk"),
        "added",
        tool_call("add_item", item="eggs"),
        "added",
    ]
    agent, _ = shopping_agent(db, turns)
    await agent.arun("add milk", session_id=sid, user_id="slack:T1:U1")
    await agent.arun("add eggs", session_id=sid, user_id="slack:T1:U2")
    undone = await undo_last(db, sid, "slack:T1:U2")
    console = await serve_console(db)
    await sign_in(page, console)
    await page.goto(f"{console.url}/session?id={sid}")
    eggs = page.locator(f"tr.version-row[data-version='{undone.undone_version}']")
    assert await eggs.locator("td.change").text_content() == "run"
    assert await eggs.locator("td.tools").text_content() == "add_item"
    assert "run: " in (await eggs.locator("td.change").get_attribute("title") or "")
    undo = page.locator(f"tr.version-row[data-version='{undone.version}']")
    assert await undo.locator("td.change").text_content() == f"undo of v{undone.undone_version}"
    assert await undo.locator("td.by").text_content() == "slack:T1:U2"
    first = min(v["version"] for v in await session_history(db, sid))
    await page.click(f"tr.version-row[data-version='{first}'] >> text=Restore…")
    await page.click("#confirm")
    await page.wait_for_selector("[role=status]")
    newest = page.locator("tr.version-row").first
    assert await newest.locator("td.change").text_content() == f"restore of v{first}"
    assert await newest.locator("td.by").text_content() == ADMIN


async def test_restore_confirmation_previews_the_diff_and_keeps_the_counter(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """The confirmation shows the diff the restore applies, and that next_task_id stays;
    nothing changes before confirming, and what is saved is what was shown."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    sid = "slack:T1:C1"
    board = create_agent(db=db)
    for title in ("one", "two", "three"):
        await board.arun_tool("add_task", {"title": title}, session_id=sid, user_id="slack:T1:U1")
    kept = await session_history(db, sid, limit=20)
    only_one = min(v["version"] for v in kept if len(v["state"].get("tasks", [])) == 1)
    console = await serve_console(db)
    await sign_in(page, console)
    await page.goto(f"{console.url}/session?id={sid}")
    await page.click(f"tr.version-row[data-version='{only_one}'] >> text=Restore…")
    removed = " ".join(await page.locator("#preview .removed").all_text_contents())
    assert '"two"' in removed and '"three"' in removed
    assert "next_task_id" not in removed  # the counter is not part of the change
    assert "next_task_id stays 4 (version" in (await page.text_content("#kept") or "")
    before = await load_session(db, sid)
    assert len(before.state["tasks"]) == 3  # nothing written yet
    await page.click("#confirm")
    done = await page.text_content("[role=status]") or ""
    assert f"next_task_id stays 4 (version {only_one} had 2)." in done
    after = (await load_session(db, sid)).state
    assert [t["title"] for t in after["tasks"]] == ["one"] and after["next_task_id"] == 4


async def test_preview_is_redacted_and_reset_previews_too(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A preview hides values under credential names from admins who may not see them;
    a reset previews every key it removes."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(db, [{"session_id": "slack:T1:C1", "state": {"api_token": "xoxb-1", "n": 1}}])
    console = await serve_console(db)
    await sign_in(page, console)
    await page.goto(f"{console.url}/session/confirm?action=reset&id=slack:T1:C1")
    removed = " ".join(await page.locator("#preview .removed").all_text_contents())
    assert '"n": 1' in removed and "api_token" in removed
    assert "xoxb-1" not in await page.content()
