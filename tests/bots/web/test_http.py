"""The console over HTTP (aiohttp's client, no browser): mounting, operations, logging."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import CookieJar, web
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner
from pydantic import SecretStr
from structlog.testing import capture_logs

from bots.cli.main import main
from bots.settings import Settings
from bots.web import WebConfig, console_mounts, create_app, mount
from bots.web.tokens import AdminTokens
from core.db.base import BaseDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from tests.bots.web.conftest import SECRET, seed, spawn_statebot_web

ADMIN = "slack:T1:UADMIN"


async def signed_in_client(
    app: web.Application, config: WebConfig, prefix: str = ""
) -> TestClient[web.Request, web.Application]:
    """A client holding a signed-in session (secure cookies allowed on 127.0.0.1)."""
    server = TestServer(app)
    await server.start_server()
    jar = CookieJar(unsafe=True, treat_as_secure_origin=[str(server.make_url("/"))])
    client = TestClient(server, cookie_jar=jar)
    await client.start_server()
    login = await (await client.get(f"{prefix}/login")).text()
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
    assert csrf is not None
    token = AdminTokens(config.tokens_file).create(ADMIN)
    response = await client.post(
        f"{prefix}/login/token",
        data={"token": token, "csrf_token": csrf[1], "next": ""},
        allow_redirects=False,
    )
    assert response.status == 303
    client.app_cookie = response.headers["Set-Cookie"]  # type: ignore[attr-defined]
    return client


def config_for(tmp_path: Path) -> WebConfig:
    return WebConfig(
        secret=SECRET, admin_ids=frozenset({ADMIN}), tokens_file=tmp_path / "tokens.json"
    )


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[BaseDb]:
    db = SqliteDb(db_file=tmp_path / "s.db")
    yield db
    await db.aclose()


async def test_mounted_under_a_prefix(tmp_path: Path, sqlite: BaseDb) -> None:
    """Mounted in another application, the console serves under its prefix only, and its
    cookie is limited to that path."""
    await seed(sqlite, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    parent = web.Application()
    parent.router.add_get("/healthz", lambda _: web.Response(text="ok"))
    config = config_for(tmp_path)
    mount(parent, sqlite, config, prefix="/admin")
    client = await signed_in_client(parent, config, "/admin")
    try:
        assert (await client.get("/healthz")).status == 200
        page = await client.get("/admin/")
        assert "slack:T1:C1" in await page.text()
        # no other site may frame the console (its confirmation pages are one click away)
        assert page.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert page.headers["Referrer-Policy"] == "no-referrer"
        cookie = client.app_cookie.lower()  # type: ignore[attr-defined]
        for attribute in ("path=/admin;", "httponly", "secure", "samesite=lax"):
            assert attribute in cookie + ";"
    finally:
        await client.close()


async def test_post_without_csrf_token_is_refused(tmp_path: Path, sqlite: BaseDb) -> None:
    """A signed-in POST without the form's token changes nothing: 403, and logged."""
    await seed(sqlite, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        with capture_logs() as logs:
            response = await client.post(
                "/session/act", data={"id": "slack:T1:C1", "action": "delete", "confirmed": "yes"}
            )
        assert response.status == 403
        assert "CSRF" in await response.text()
        assert any(e["event"] == "web_csrf_refused" and e["admin_id"] == ADMIN for e in logs)
        assert await sqlite.aload("slack:T1:C1") is not None
    finally:
        await client.close()


async def test_reset_is_confirmed_logged_and_keeps_history(tmp_path: Path, sqlite: BaseDb) -> None:
    """Reset empties the state as a new version by the admin; the action is logged."""
    await seed(sqlite, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        confirm = await (await client.get("/session/confirm?action=reset&id=slack:T1:C1")).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', confirm)
        assert csrf is not None
        with capture_logs() as logs:
            response = await client.post(
                "/session/act",
                data={
                    "id": "slack:T1:C1",
                    "action": "reset",
                    "confirmed": "yes",
                    "version": "",
                    "csrf_token": csrf[1],
                },
            )
        assert response.status == 200 and "State reset" in await response.text()
        record = await sqlite.aload("slack:T1:C1")
        assert record is not None and record.state == {} and record.user_id == ADMIN
        assert [
            (e["event"], e["action"], e["admin_id"]) for e in logs if e["event"] == "web_action"
        ] == [("web_action", "reset", ADMIN)]
    finally:
        await client.close()


async def test_operations_show_redis_and_database(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """The operations page reports Redis and the database, and the snapshot backlog."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    await seed(db, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        text = await (await client.get("/operations")).text()
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", text)
        assert cells[:2] == ["Redis", "up"] and cells[4:6] == ["database", "up"]
        assert "lease" in text.lower()
    finally:
        await client.close()
        await db.aclose()
        await durable.aclose()


def test_create_admin_prints_a_token_for_configured_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--create-admin prints a working token for an admin id, and refuses other ids."""
    monkeypatch.setenv("STATEBOT_ADMIN_IDS", ADMIN)
    monkeypatch.setenv("STATEBOT_WEB_TOKENS_FILE", str(tmp_path / "t.json"))
    result = CliRunner().invoke(main, ["web", "--create-admin", ADMIN])
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    assert AdminTokens(tmp_path / "t.json").redeem(token) == ADMIN
    result = CliRunner().invoke(main, ["web", "--create-admin", "slack:T1:UOTHER"])
    assert result.exit_code != 0 and "not in STATEBOT_ADMIN_IDS" in result.output


def test_web_without_secret_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """statebot web without STATEBOT_WEB_SECRET stops with how to make one."""
    monkeypatch.delenv("STATEBOT_WEB_SECRET", raising=False)
    result = CliRunner().invoke(main, ["web"])
    assert result.exit_code != 0 and "STATEBOT_WEB_SECRET is not set" in result.output


async def test_served_by_the_slack_http_process(tmp_path: Path, sqlite: BaseDb) -> None:
    """The Slack HTTP server serves the console under /admin beside its own routes."""
    from slack_bolt.async_app import AsyncApp

    from bots.adapters.slack.server import SlackHttpServer

    config = config_for(tmp_path)
    bolt = AsyncApp(token="xoxb-test", signing_secret="secret")
    settings = Settings(
        statebot_web_secret=SecretStr(SECRET),
        statebot_admin_ids=ADMIN,  # type: ignore[arg-type]
        statebot_web_tokens_file=str(config.tokens_file),
    )
    assert console_mounts(Settings(), sqlite) == {}  # no secret: no console
    server = SlackHttpServer(
        bolt, host="127.0.0.1", port=0, mounts=console_mounts(settings, sqlite)
    )
    await server.start()
    try:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            base = f"http://127.0.0.1:{server.port}"
            async with http.get(f"{base}/healthz") as response:
                assert response.status == 200
            async with http.get(f"{base}/admin/", allow_redirects=False) as response:
                assert response.status == 303
                assert response.headers["Location"].startswith("/admin/login")
            async with http.get(f"{base}/admin/login") as response:
                assert response.status == 200 and "Sign in" in await response.text()
    finally:
        await server.stop()


@pytest.mark.slow
def test_statebot_web_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    """`statebot web` as a real process answers the sign-in page and exits 0 on SIGTERM."""
    import signal
    import time
    import urllib.request

    process, port = spawn_statebot_web(tmp_path, "web.db", ADMIN, capture=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login") as response:
                    assert response.status == 200
                    break
            except OSError:
                assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "statebot web did not start in 30 s"
                time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_export_names_sessions_it_cannot_write(tmp_path: Path, sqlite: BaseDb) -> None:
    """A session whose stored value JSON cannot carry (NaN in an old row) is named before
    anything is downloaded; ?skip=yes downloads the others."""
    import sqlalchemy as sa

    await seed(
        sqlite,
        [
            {"session_id": "slack:T1:C1", "state": {"n": 1}},
            {"session_id": "slack:T1:C2", "state": {"n": 2}},
        ],
    )
    with sqlite.connection() as conn:  # type: ignore[attr-defined]
        conn.execute(
            sa.text("UPDATE sessions SET state = '{\"n\": NaN}' WHERE session_id = 'slack:T1:C2'")
        )
        conn.commit()
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        response = await client.get("/export")
        assert response.status == 409
        assert "slack:T1:C2" in await response.text()
        response = await client.get("/export?skip=yes")
        assert response.status == 200
        lines = (await response.text()).splitlines()
        assert [json.loads(line)["session_id"] for line in lines] == ["slack:T1:C1"]
    finally:
        await client.close()


async def test_more_pages_the_list(tmp_path: Path, sqlite: BaseDb) -> None:
    """Past 50 sessions the list offers "More", which brings the rest (htmx rows)."""
    await seed(sqlite, [{"session_id": f"slack:T1:C{i:02d}", "state": {}} for i in range(60)])
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        first = await (await client.get("/")).text()
        assert first.count('class="session-row"') == 50
        more = re.search(r'hx-get="([^"]*after=[^"]*)"', first)
        assert more is not None
        url = more[1].replace("&amp;", "&")
        rest = await (await client.get(url, headers={"HX-Request": "true"})).text()
        assert rest.count('class="session-row"') == 10
        assert "<html" not in rest and "hx-get" not in rest  # rows only, and the last page
    finally:
        await client.close()


async def test_restore_on_redis_reaches_the_next_run_and_the_durable_store(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """On Redis over SQLite, a restore is what the agent's next run sees, and the durable
    store gets it at the next snapshot."""
    from core.agent import Agent
    from core.governance.sessions import session_history
    from core.testing import ScriptedModel

    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    sid = "slack:T1:C1"
    model = ScriptedModel(["one", "two", "three"])
    agent = Agent(model=model, db=db, instructions="Mood: {mood}")
    await agent.arun("a", session_id=sid, session_state={"mood": "calm"})
    await agent.arun("b", session_id=sid, session_state={"mood": "busy"})
    calm = min(
        v["version"] for v in await session_history(db, sid) if v["state"].get("mood") == "calm"
    )
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        confirm = await (
            await client.get(f"/session/confirm?action=restore&version={calm}&id={sid}")
        ).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', confirm)
        assert csrf is not None
        response = await client.post(
            "/session/act",
            data={
                "id": sid,
                "action": "restore",
                "version": str(calm),
                "confirmed": "yes",
                "csrf_token": csrf[1],
            },
        )
        assert f"Version {calm} restored" in await response.text()
        await agent.arun("c", session_id=sid)
        assert model.requests[-1].system == "Mood: calm"
        await db.aflush()
        stored = await durable.aload(sid)
        assert stored is not None and stored.state["mood"] == "calm"
    finally:
        await client.close()
        await db.aclose()
        await durable.aclose()


async def test_restore_without_a_version_number_does_nothing(
    tmp_path: Path, sqlite: BaseDb
) -> None:
    """A restore whose version is not a number is refused (400) and changes nothing."""
    await seed(sqlite, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        login = await (await client.get("/session?id=slack:T1:C1")).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
        assert csrf is not None
        response = await client.post(
            "/session/act",
            data={
                "id": "slack:T1:C1",
                "action": "restore",
                "version": "x",
                "confirmed": "yes",
                "csrf_token": csrf[1],
            },
        )
        assert response.status == 400 and "Nothing was done" in await response.text()
        record = await sqlite.aload("slack:T1:C1")
        assert record is not None and record.version == 1
    finally:
        await client.close()


async def test_restore_refused_when_the_session_changed_after_the_confirmation_page(
    tmp_path: Path, sqlite: BaseDb
) -> None:
    """A restore confirmed on a page showing v2 does nothing once a run saved v3 (409)."""
    from core.db.codec import encode_delta
    from core.db.records import SessionMeta

    await seed(sqlite, [{"session_id": "slack:T1:C1", "state": {"n": 1}}])
    await sqlite.asave(
        "slack:T1:C1", expected_version=1, changed=encode_delta({"n": 2}), meta=SessionMeta()
    )
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(sqlite, config), config)
    try:
        confirm = await (
            await client.get("/session/confirm?action=restore&version=1&id=slack:T1:C1")
        ).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', confirm)
        seen = re.search(r'name="seen" value="([^"]*)"', confirm)
        assert csrf is not None and seen is not None and seen[1] == "2"
        await sqlite.asave(
            "slack:T1:C1", expected_version=2, changed=encode_delta({"n": 3}), meta=SessionMeta()
        )
        response = await client.post(
            "/session/act",
            data={
                "id": "slack:T1:C1",
                "action": "restore",
                "version": "1",
                "seen": seen[1],
                "confirmed": "yes",
                "csrf_token": csrf[1],
            },
        )
        text = await response.text()
        assert response.status == 409 and "now version 3" in text and "Nothing was done" in text
        record = await sqlite.aload("slack:T1:C1")
        assert record is not None and record.version == 3 and record.state == {"n": 3}
    finally:
        await client.close()
