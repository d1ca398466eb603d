"""Where sign-in sends the browser: a page of this console, never another site."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import CookieJar, web
from aiohttp.test_utils import TestClient, TestServer

from bots.web import WebConfig, create_app, mount
from bots.web.tokens import AdminTokens
from core.db.base import BaseDb
from core.db.sqlite import SqliteDb
from tests.bots.web.conftest import SECRET

ADMIN = "slack:T1:UADMIN"

#: each of these, once a browser resolves it against the console's URL, names another
#: site (or runs script); sign-in must send the browser to the console's home instead
HOSTILE = [
    "//evil.example",
    "/\\evil.example/",
    "/\tevil.example",
    "/\t/evil.example",
    "/%09/evil.example",
    "\\\\evil.example",
    "https://evil.example",
    "/%5Cevil.example",
    "/%5cevil.example",
    "/%2F/evil.example",
    "/%252F/evil.example",
    "/\r\n/evil.example",
    "/ /evil.example",
    "javascript:alert(1)",
    "",
]


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[BaseDb]:
    db = SqliteDb(db_file=tmp_path / "s.db")
    yield db
    await db.aclose()


async def _client(app: web.Application) -> TestClient[web.Request, web.Application]:
    server = TestServer(app)
    await server.start_server()
    jar = CookieJar(unsafe=True, treat_as_secure_origin=[str(server.make_url("/"))])
    client = TestClient(server, cookie_jar=jar)
    await client.start_server()
    return client


async def _location_after_sign_in(
    client: TestClient[web.Request, web.Application], config: WebConfig, prefix: str, wanted: str
) -> str:
    """The Location a token sign-in answers with when the form carries ``next=wanted``."""
    login = await (await client.get(f"{prefix}/login")).text()
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
    assert csrf is not None
    response = await client.post(
        f"{prefix}/login/token",
        data={
            "token": AdminTokens(config.tokens_file).create(ADMIN),
            "csrf_token": csrf[1],
            "next": wanted,
        },
        allow_redirects=False,
    )
    assert response.status == 303
    return response.headers["Location"]


@pytest.mark.parametrize("prefix", ["", "/admin"])
async def test_sign_in_never_redirects_to_another_site(
    tmp_path: Path, sqlite: BaseDb, prefix: str
) -> None:
    """Every hostile ``next`` ends at the console's home; a page of the console is kept."""
    config = WebConfig(
        secret=SECRET, admin_ids=frozenset({ADMIN}), tokens_file=tmp_path / "tokens.json"
    )
    if prefix:
        app = web.Application()
        mount(app, sqlite, config, prefix=prefix)
    else:
        app = create_app(sqlite, config)
    client = await _client(app)
    try:
        got = {
            wanted: await _location_after_sign_in(client, config, prefix, prefix + wanted)
            for wanted in HOSTILE
        }
        assert got == {wanted: f"{prefix}/" for wanted in HOSTILE}
        # bare hostile values (not under the mount's prefix) are refused too
        bare = {w: await _location_after_sign_in(client, config, prefix, w) for w in HOSTILE}
        assert bare == {wanted: f"{prefix}/" for wanted in HOSTILE}
        kept = f"{prefix}/ok/path?x=1"
        assert await _location_after_sign_in(client, config, prefix, kept) == kept
    finally:
        await client.close()


async def test_sign_in_page_carries_next_from_the_redirect(tmp_path: Path, sqlite: BaseDb) -> None:
    """A page asked for before sign-in is where sign-in returns to, query and all."""
    config = WebConfig(
        secret=SECRET, admin_ids=frozenset({ADMIN}), tokens_file=tmp_path / "tokens.json"
    )
    client = await _client(create_app(sqlite, config))
    try:
        first = await client.get("/session?id=slack:T1:C1", allow_redirects=False)
        assert first.status == 303
        login = await (await client.get(first.headers["Location"])).text()
        field = re.search(r'name="next" value="([^"]*)"', login)
        assert field is not None and field[1] == "/session?id=slack:T1:C1"
        assert (
            await _location_after_sign_in(client, config, "", field[1]) == "/session?id=slack:T1:C1"
        )
    finally:
        await client.close()
