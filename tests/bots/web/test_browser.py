"""The console in a real headless Chromium: sign-in, search, state, diffs, actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiohttp import web
from playwright.async_api import Page, expect

from core.agent import Agent
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb
from core.governance.save import load_session
from core.governance.sessions import session_history
from core.testing import ScriptedModel, tool_call
from tests.bots.web.conftest import ServeConsole, seed, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

ADMIN = "slack:T1:UADMIN"


async def test_every_page_needs_sign_in(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """Without sign-in every page leads to the sign-in page; a bad token is refused."""
    console = await serve_console(SqliteDb(db_file=tmp_path / "s.db"))
    for path in ("/", "/session?id=slack:T1:C1", "/import", "/export", "/operations"):
        await page.goto(console.url + path)
        assert await page.text_content("h1") == "Sign in", path
    await page.fill("input[name=token]", "not-a-token")
    await page.click("text=Sign in with token")
    assert "That token is not valid" in (await page.text_content("[role=alert]") or "")
    token = console.token(ADMIN)
    await page.fill("input[name=token]", token)
    await page.click("text=Sign in with token")
    # back to the page asked for before signing in
    await page.wait_for_selector("h1:text('Operations')")
    # the token worked once: a second browser cannot use it again
    other = await page.context.browser.new_context()  # type: ignore[union-attr]
    tab = await other.new_page()
    await tab.goto(console.url + "/login")
    await tab.fill("input[name=token]", token)
    await tab.click("text=Sign in with token")
    assert "That token is not valid" in (await tab.text_content("[role=alert]") or "")
    await other.close()


async def test_sign_out_ends_a_copied_cookie(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """Cookies copied to another browser before "Sign out" open nothing after it; the
    same browser can sign in again."""
    console = await serve_console(SqliteDb(db_file=tmp_path / "s.db"))
    await sign_in(page, console)
    copied = await page.context.cookies()
    await page.click("text=Sign out")
    await page.wait_for_selector("h1:text('Sign in')")
    other = await page.context.browser.new_context()  # type: ignore[union-attr]
    await other.add_cookies(copied)  # type: ignore[arg-type]
    tab = await other.new_page()
    await tab.goto(console.url + "/operations")
    assert await tab.text_content("h1") == "Sign in"
    await other.close()
    await sign_in(page, console)


async def test_search_by_workspace_channel_and_agent(
    page: Page, serve_console: ServeConsole, postgres_schema: tuple[str, str]
) -> None:
    """Typing in the search form narrows the list (htmx), on PostgreSQL."""
    url, schema = postgres_schema
    db = PostgresDb(db_url=url, schema=schema)
    await seed(
        db,
        [
            {"session_id": "slack:T1:C1:1.1", "state": {"n": 1}, "user_id": "slack:T1:U1"},
            {"session_id": "slack:T1:C2", "state": {"n": 2}, "owner_id": "shopping"},
            {"session_id": "slack:T10:C1", "state": {"n": 3}},
        ],
    )
    console = await serve_console(db, admin_ids=frozenset({"slack:*:UADMIN"}))
    await sign_in(page, console, "slack:*:UADMIN")
    rows = page.locator("tr.session-row")
    assert await rows.count() == 3
    await page.fill("input[name=platform]", "slack")
    await page.fill("input[name=workspace]", "T1")
    await expect(rows).to_have_count(2)
    await page.fill("input[name=channel]", "C1")
    await expect(rows).to_have_count(1)
    assert await rows.first.locator("a").text_content() == "slack:T1:C1:1.1"
    await page.fill("input[name=channel]", "")
    await expect(rows).to_have_count(2)
    await page.fill("input[name=agent]", "shopping")
    await expect(rows).to_have_count(1)
    assert await rows.first.locator("a").text_content() == "slack:T1:C2"


async def test_state_tree_is_redacted_unless_revealed(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """The state shows as a collapsible tree; credential values are hidden from admins
    not allowed to see them."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(
        db,
        [
            {
                "session_id": "slack:T1:C1",
                "state": {
                    "tasks": [{"title": "Ship it", "done": False}],
                    "api_token": "xoxb-secret",
                },
            }
        ],
    )
    console = await serve_console(db)
    await sign_in(page, console)
    await page.click("text=slack:T1:C1")
    tree = page.locator("#state")
    assert "Ship it" in (await tree.text_content() or "")
    assert "xoxb-secret" not in (await page.content())
    assert "***redacted***" in (await tree.text_content() or "")
    # collapsible: closing the tasks node hides its items
    await page.click("#state summary:has-text('tasks')")
    assert not await page.locator("#state code:has-text('Ship it')").is_visible()


async def test_revealing_admin_sees_secrets(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """An admin listed in STATEBOT_WEB_REVEAL_IDS sees values under credential names."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(db, [{"session_id": "slack:T1:C1", "state": {"api_token": "xoxb-secret"}}])
    console = await serve_console(db, reveal_ids=frozenset({ADMIN}))
    await sign_in(page, console)
    await page.goto(f"{console.url}/session?id=slack:T1:C1")
    assert "xoxb-secret" in (await page.locator("#state").text_content() or "")


def shopping_agent(db: SqliteDb, turns: list[object]) -> tuple[Agent, ScriptedModel]:
    """An agent whose tool adds to session_state["items"] and whose prompt shows them."""

    def add_item(session_state: dict[str, list[str]], item: str) -> str:
        """Add an item."""
        session_state["items"].append(item)
        return "ok"

    model = ScriptedModel(turns)  # type: ignore[arg-type]
    agent = Agent(
        model=model,
        db=db,
        session_state={"items": []},
        tools=[add_item],
        instructions="Items: {items}",
    )
    return agent, model


async def test_diff_restore_and_the_next_run(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """The diff shows what a run changed and who; restoring (after confirming) an old
    version is what the agent's next run sees."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    sid = "slack:T1:C1:1.1"
    agent, model = shopping_agent(
        db,
        [
            tool_call("add_item", item="milk"),
            "added",
            tool_call("add_item", item="eggs"),
            "added",
            "the list",
        ],
    )
    await agent.arun("add milk", session_id=sid, user_id="slack:T1:U1")
    await agent.arun("add eggs", session_id=sid, user_id="slack:T1:U2")
    kept = await session_history(db, sid)
    milk_only = min(v["version"] for v in kept if v["state"].get("items") == ["milk"])
    both = min(v["version"] for v in kept if v["state"].get("items") == ["milk", "eggs"])
    console = await serve_console(db)
    await sign_in(page, console)
    await page.goto(f"{console.url}/session?id={sid}")
    # who changed what: the version rows name the user and the keys
    eggs_row = page.locator(f"tr.version-row[data-version='{both}']")
    assert "slack:T1:U2" in (await eggs_row.text_content() or "")
    assert "items" in (await eggs_row.text_content() or "")
    # the run history names who asked what
    runs = await page.locator("details.run summary").all_text_contents()
    assert any("slack:T1:U2" in r and "add eggs" in r for r in runs)
    # diff: the version that added eggs against the one before it
    await page.select_option("select[name=a]", str(milk_only))
    await page.select_option("select[name=b]", str(both))
    await page.click("text=Show diff")
    added = page.locator("#diff-view .added")
    await added.first.wait_for()
    assert '"eggs"' in " ".join(await added.all_text_contents())
    # restore the version that had only milk, with confirmation
    await page.click(f"tr.version-row[data-version='{milk_only}'] >> text=Restore…")
    assert await page.text_content("h1") == "Confirm restore"
    assert (await load_session(db, sid)).state["items"] == ["milk", "eggs"]  # not yet
    await page.click("#confirm")
    assert f"Version {milk_only} restored" in (await page.text_content("[role=status]") or "")
    await agent.arun("what is on the list?", session_id=sid, user_id="slack:T1:U1")
    assert model.requests[-1].system == 'Items: ["milk"]'
    history = await session_history(db, sid, limit=10)
    assert any(v["user_id"] == ADMIN for v in history)  # the restore names the admin


async def test_export_delete_import_round_trip(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A session exported, deleted (confirmed) and imported again comes back the same."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    state = {"tasks": [{"title": "Ship it"}], "note": "héllo"}
    await seed(db, [{"session_id": "slack:T1:C1", "state": state}])
    console = await serve_console(db)
    await sign_in(page, console)
    await page.goto(f"{console.url}/session?id=slack:T1:C1")
    async with page.expect_download() as info:
        await page.click("text=Export")
    exported = tmp_path / "export.jsonl"
    await (await info.value).save_as(exported)
    assert json.loads(exported.read_text())["state"] == state
    await page.click("text=Delete…")
    await page.click("#confirm")
    assert "Session deleted." in (await page.text_content("[role=status]") or "")
    assert await db.aload("slack:T1:C1") is None
    await page.goto(f"{console.url}/import")
    await page.set_input_files("input[name=file]", exported)
    await page.click("text=Check file")
    assert "1 session(s)" in (await page.text_content("main") or "")
    assert await db.aload("slack:T1:C1") is None  # nothing written before confirming
    await page.click("#confirm")
    assert "1 session(s) imported" in (await page.text_content("[role=alert]") or "")
    restored = await db.aload("slack:T1:C1")
    assert restored is not None and restored.state == state


async def test_invalid_import_writes_nothing(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A file with one bad line is refused whole, naming the line."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    console = await serve_console(db)
    await sign_in(page, console)
    upload = tmp_path / "bad.jsonl"
    good = {"session_id": "slack:T1:C1", "version": 1, "state": {}}
    upload.write_text(json.dumps(good) + "\n{not json\n")
    await page.goto(f"{console.url}/import")
    await page.set_input_files("input[name=file]", upload)
    await page.click("text=Check file")
    alert = await page.text_content("[role=alert]") or ""
    assert "line 2" in alert and "nothing was imported" in alert
    assert await db.aload("slack:T1:C1") is None


async def test_cross_site_form_is_refused(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """A form on another site that posts to the console (with the admin's cookie) is
    refused for its missing CSRF token, and the session stays."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(db, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    console = await serve_console(db)
    await sign_in(page, console)
    evil = web.Application()
    form = (
        f'<form id="f" method="post" action="{console.url}/session/act">'
        '<input name="id" value="slack:T1:C1"><input name="action" value="delete">'
        '<input name="confirmed" value="yes"></form>'
        "<script>document.getElementById('f').submit()</script>"
    )
    evil.router.add_get("/", lambda _: web.Response(text=form, content_type="text/html"))
    runner = web.AppRunner(evil)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        await page.goto(f"http://127.0.0.1:{runner.addresses[0][1]}/")
        await page.wait_for_url(f"{console.url}/session/act")
        assert "CSRF" in (await page.text_content("body") or "")
    finally:
        await runner.cleanup()
    assert await db.aload("slack:T1:C1") is not None


async def test_other_workspace_is_out_of_reach(
    page: Page, serve_console: ServeConsole, tmp_path: Path
) -> None:
    """An admin of workspace T1 neither sees nor changes T2's sessions."""
    db = SqliteDb(db_file=tmp_path / "s.db")
    await seed(
        db,
        [
            {"session_id": "slack:T1:C1", "state": {"n": 1}},
            {"session_id": "slack:T2:C1", "state": {"secret_plan": "x"}},
        ],
    )
    console = await serve_console(db)
    await sign_in(page, console)
    assert await page.locator("tr.session-row a").all_text_contents() == ["slack:T1:C1"]
    response = await page.goto(f"{console.url}/session?id=slack:T2:C1")
    assert response is not None and response.status == 403
    assert await page.text_content("h1") == "Not in your workspace"
    response = await page.goto(f"{console.url}/session/confirm?action=delete&id=slack:T2:C1")
    assert response is not None and response.status == 403
    # even a well-formed POST with this admin's own CSRF token is refused
    status = await page.evaluate(
        """async (csrf) => (await fetch('/session/act', {method: 'POST',
             headers: {'X-CSRF-Token': csrf, 'Content-Type': 'application/x-www-form-urlencoded'},
             body: 'id=slack%3AT2%3AC1&action=delete&confirmed=yes'})).status""",
        await page.get_attribute("input[name=csrf_token]", "value"),
    )
    assert status == 403
    assert await db.aload("slack:T2:C1") is not None
