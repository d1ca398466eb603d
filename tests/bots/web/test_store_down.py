"""The console with a store down: it says which, names no secret, and changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import CookieJar
from aiohttp.test_utils import TestClient, TestServer

from bots.web import create_app
from bots.web.tokens import AdminTokens
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from tests.bots.web.test_http import ADMIN, config_for, signed_in_client


async def test_operations_say_which_store_is_down(tmp_path: Path) -> None:
    """With Redis unreachable the page says Redis is down and the database is up."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(db_url="redis://127.0.0.1:1/0", snapshot_to=durable, run_snapshotter=False)
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        text = await (await client.get("/operations")).text()
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", text)
        assert cells[0] == "Redis" and cells[1].startswith("down: ")
        assert "Redis is down" in cells[1]
        assert cells[4:6] == ["database", "up"]
    finally:
        await client.close()
        await db.aclose()
        await durable.aclose()


async def test_store_down_gives_a_clear_page(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """With the database unreachable the sessions page says so (503), naming no secret;
    with no store answering, signing in says so too (the sign-in cannot be checked)."""
    from core.db.postgres import PostgresDb

    down = "postgresql://statebot:hunter2@127.0.0.1:1/none"
    durable = PostgresDb(db_url=down, connect_timeout=1)
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    alone = PostgresDb(db_url=down, connect_timeout=1)
    server = TestServer(create_app(alone, config))
    await server.start_server()
    jar = CookieJar(unsafe=True, treat_as_secure_origin=[str(server.make_url("/"))])
    unsigned = TestClient(server, cookie_jar=jar)
    await unsigned.start_server()
    try:
        response = await client.get("/")
        text = await response.text()
        assert response.status == 503
        assert "The store did not answer" in text and "Nothing was changed." in text
        assert "hunter2" not in text
        login = await (await unsigned.get("/login")).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
        assert csrf is not None
        token = AdminTokens(config.tokens_file).create(ADMIN)
        refused = await unsigned.post(
            "/login/token", data={"token": token, "csrf_token": csrf[1], "next": ""}
        )
        text = await refused.text()
        assert refused.status == 503
        assert "The store did not answer" in text and "hunter2" not in text
    finally:
        await client.close()
        await unsigned.close()
        await db.aclose()
        await durable.aclose()
        await alone.aclose()
