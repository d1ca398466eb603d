"""Sign-out ends the session for good: a copied cookie no longer opens any page.

Each test runs on SQLite, PostgreSQL, Redis (over SQLite) and an in-process store.
"Another app instance" is a second console over a second store object on the same
database or Redis prefix, as another process would be: it shares nothing with the
first but the store.
"""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import ClientSession, CookieJar, DummyCookieJar, web
from aiohttp.test_utils import TestClient, TestServer
from redis.asyncio import Redis

from bots.web import WebConfig, create_app
from bots.web.cookies import COOKIE_NAME
from bots.web.tokens import AdminTokens
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from tests.bots.web.conftest import SECRET, spawn_statebot_web

ADMIN = "slack:T1:UADMIN"
OTHER = "slack:T1:UOTHER"
Client = TestClient[web.Request, web.Application]


@pytest.fixture(params=["sqlite", "postgres", "redis", "memory"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], BaseDb]:
    """A new store object on this test's database (or Redis prefix) at each call; the
    one in-process store for "memory" (consoles in one process share it)."""
    if request.param == "memory":
        shared = InMemoryDb()
        return lambda: shared
    if request.param == "sqlite":
        return lambda: SqliteDb(db_file=tmp_path / "s.db")
    if request.param == "postgres":
        url, schema = request.getfixturevalue("postgres_schema")
        return lambda: PostgresDb(db_url=url, schema=schema)
    redis_url: str = request.getfixturevalue("redis_url")
    prefix: str = request.getfixturevalue("key_prefix")
    return lambda: RedisDb(
        db_url=redis_url,
        key_prefix=prefix,
        snapshot_to=SqliteDb(db_file=tmp_path / "d.db"),
        run_snapshotter=False,
    )


class Consoles:
    """Consoles started by a test over stores of the same deployment; all closed after."""

    def __init__(self, tmp_path: Path, open_store: Callable[[], BaseDb]) -> None:
        self.tokens = tmp_path / "tokens.json"
        self._open_store = open_store
        self._clients: list[Client] = []
        self._stores: list[BaseDb] = []

    async def start(self, admin_ids: frozenset[str] = frozenset({ADMIN, OTHER})) -> Client:
        """A new console (its own store object) and a client with its own cookie jar."""
        db = self._open_store()
        self._stores.append(db)
        config = WebConfig(secret=SECRET, admin_ids=admin_ids, tokens_file=self.tokens)
        server = TestServer(create_app(db, config))
        await server.start_server()
        jar = CookieJar(unsafe=True, treat_as_secure_origin=[str(server.make_url("/"))])
        client = TestClient(server, cookie_jar=jar)
        await client.start_server()
        self._clients.append(client)
        return client

    async def close(self) -> None:
        for client in self._clients:
            await client.close()
        for db in self._stores:
            await db.aclose()


@pytest.fixture
async def consoles(tmp_path: Path, open_store: Callable[[], BaseDb]) -> AsyncIterator[Consoles]:
    started = Consoles(tmp_path, open_store)
    yield started
    await started.close()


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found is not None
    return found[1]


async def sign_in(client: Client, tokens: Path, admin_id: str = ADMIN) -> str:
    """Sign in with a one-time token; the session cookie's value."""
    csrf = _csrf(await (await client.get("/login")).text())
    token = AdminTokens(tokens).create(admin_id)
    response = await client.post(
        "/login/token",
        data={"token": token, "csrf_token": csrf, "next": ""},
        allow_redirects=False,
    )
    assert response.status == 303
    return response.cookies[COOKIE_NAME].value


async def sign_out(client: Client) -> None:
    csrf = _csrf(await (await client.get("/")).text())
    response = await client.post("/logout", data={"csrf_token": csrf}, allow_redirects=False)
    assert response.status == 303 and response.headers["Location"] == "/login"


async def opens_home(console: Client, cookie: str, path: str = "/") -> bool:
    """True when ``cookie`` alone (a copy sent by a client keeping no cookies) opens
    the page at ``path`` (the sessions page) of ``console``'s server."""
    async with ClientSession(cookie_jar=DummyCookieJar()) as thief:
        response = await thief.get(
            console.make_url(path),
            headers={"Cookie": f"{COOKIE_NAME}={cookie}"},
            allow_redirects=False,
        )
        if response.status == 303:
            assert response.headers["Location"].startswith("/login")
            return False
        assert response.status == 200
        return "Sign out" in await response.text()


async def test_a_copied_cookie_is_refused_after_sign_out(consoles: Consoles) -> None:
    """Sign-out ends a copy of the cookie made before it, on this console and on another
    console over the same store; the other admin stays signed in."""
    first = await consoles.start()
    second = await consoles.start()
    copy = await sign_in(first, consoles.tokens)
    others = await sign_in(second, consoles.tokens, OTHER)
    assert await opens_home(first, copy)
    assert await opens_home(second, copy)  # the same cookie serves the other console
    await sign_out(first)
    assert not await opens_home(first, copy)
    assert not await opens_home(second, copy)
    assert await opens_home(second, others)


async def test_sign_in_again_after_sign_out(consoles: Consoles) -> None:
    """After sign-out a fresh sign-in works, everywhere; the old copy stays refused."""
    first = await consoles.start()
    second = await consoles.start()
    old = await sign_in(first, consoles.tokens)
    await sign_out(first)
    fresh = await sign_in(first, consoles.tokens)
    assert (await first.get("/")).status == 200
    assert await opens_home(second, fresh)
    assert not await opens_home(second, old)


async def test_removing_the_admin_id_ends_their_sessions(consoles: Consoles) -> None:
    """A console started without the admin id refuses their cookie, and from then on the
    consoles still configured with it (older settings) refuse it too."""
    old_settings = await consoles.start()
    cookie = await sign_in(old_settings, consoles.tokens)
    new_settings = await consoles.start(frozenset({OTHER}))
    assert await opens_home(old_settings, cookie)
    assert not await opens_home(new_settings, cookie)
    assert not await opens_home(old_settings, cookie)


async def test_sign_out_outlives_redis_losing_its_keys(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """Behind Redis the durable store keeps the sign-out too: Redis restarted empty does
    not bring a copied cookie back."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    consoles = Consoles(
        tmp_path,
        lambda: RedisDb(
            db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
        ),
    )
    try:
        console = await consoles.start()
        copy = await sign_in(console, consoles.tokens)
        await sign_out(console)
        wiped = Redis.from_url(redis_url)
        try:
            keys = [key async for key in wiped.scan_iter(match=f"*{key_prefix}*")]
            assert keys  # the generation was in Redis
            await wiped.delete(*keys)
        finally:
            await wiped.aclose()
        assert not await opens_home(console, copy)
    finally:
        await consoles.close()
        await durable.aclose()


async def test_sign_out_with_redis_down_is_kept_by_the_database(tmp_path: Path) -> None:
    """With Redis down the console still signs in and out through the durable store; the
    page says the sign-out was not recorded everywhere, and the copy is refused."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    consoles = Consoles(
        tmp_path,
        lambda: RedisDb(db_url="redis://127.0.0.1:1/0", snapshot_to=durable, run_snapshotter=False),
    )
    try:
        console = await consoles.start()
        copy = await sign_in(console, consoles.tokens)
        # the sessions list needs Redis; the operations page (which says it is down) not
        assert await opens_home(console, copy, "/operations")
        csrf = _csrf(await (await console.get("/operations")).text())
        response = await console.post("/logout", data={"csrf_token": csrf})
        assert response.status == 503 and "Sign-out not recorded" in await response.text()
        assert not await opens_home(console, copy, "/operations")
    finally:
        await consoles.close()
        await durable.aclose()


@pytest.mark.slow
async def test_sign_out_reaches_another_process(tmp_path: Path) -> None:
    """A cookie signed in at a real `statebot web` process, signed out at a console of
    this process over the same database, no longer opens that process's pages."""
    process, port = spawn_statebot_web(tmp_path, "s.db", ADMIN, capture=False)
    consoles = Consoles(tmp_path, lambda: SqliteDb(db_file=tmp_path / "s.db"))
    base = f"http://127.0.0.1:{port}"
    jar = CookieJar(unsafe=True, treat_as_secure_origin=[base])
    try:
        async with ClientSession(base_url=base, cookie_jar=jar) as other:
            login = ""
            for _ in range(300):
                try:
                    login = await (await other.get("/login")).text()
                    break
                except OSError:
                    assert process.poll() is None, "statebot web exited"
                    await asyncio.sleep(0.1)
            token = AdminTokens(consoles.tokens).create(ADMIN)
            response = await other.post(
                "/login/token",
                data={"token": token, "csrf_token": _csrf(login), "next": ""},
                allow_redirects=False,
            )
            copy = response.cookies[COOKIE_NAME].value
            assert (await other.get("/operations", allow_redirects=False)).status == 200
            here = await consoles.start()
            here.session.cookie_jar.update_cookies({COOKIE_NAME: copy})
            await sign_out(here)
            refused = await other.get("/operations", allow_redirects=False)
            assert refused.status == 303 and refused.headers["Location"].startswith("/login")
    finally:
        await consoles.close()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
