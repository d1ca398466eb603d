"""The install flow end to end: browser redirects, stored installations, per-workspace tokens."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
import sqlalchemy as sa

from bots.adapters.slack.oauth import build_oauth
from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import SlackHttpServer, build_slack_app
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from core.db.in_memory import InMemoryDb
from tests.bots.adapters.slack.conftest import (
    ACME,
    GLOBEX,
    Database,
    Server,
    mention,
    oauth_settings,
    settle,
    slack_oauth_settings,
    tokens_revoked,
    uninstalled,
)
from tests.bots.adapters.slack.fake_oauth_api import OAuthSlackApi
from tools.catalog import create_agents

# slack_sdk sends the client credentials of oauth.v2.access through aiohttp's BasicAuth,
# which aiohttp 3.14 deprecates (a warning, not a failure, outside the tests)
pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")


def _raw_rows(database: Database, table: str) -> list[dict[str, object]]:
    engine = database.engine()
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(f"SELECT * FROM {database.table(table)}")).mappings()
            return [dict(r) for r in rows]
    finally:
        engine.dispose()


def _tokens_posted(fake: OAuthSlackApi) -> list[tuple[str, str]]:
    """(reply text, bearer token) of every chat.postMessage, in order."""
    return [
        (str(c.params["text"]), c.headers["Authorization"].removeprefix("Bearer "))
        for c in fake.named("chat.postMessage")
    ]


async def test_install_round_trip_stores_the_installation_encrypted(
    serve: Server, database: Database, fake: OAuthSlackApi
) -> None:
    """install → state cookie → redirect with code → installation stored; no token in the row."""
    server = await serve()
    state, cookie = await server.start_install()
    assert state == cookie
    fake.grant("code-acme", ACME)
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 200 and "Thank you!" in page
    exchange = fake.named("oauth.v2.access")[0].params
    assert exchange["code"] == "code-acme"

    found = await server.oauth.installations.async_find_installation(
        enterprise_id=None, team_id=ACME.team_id
    )
    assert found is not None
    token = found.bot_token
    assert token is not None and token.startswith("xoxb-T0ACME0001")
    assert (found.user_id, found.bot_user_id, found.team_name) == (
        ACME.installer,
        ACME.bot_user_id,
        "acme",
    )
    for table in ("slack_installations", "slack_bots"):
        [row] = _raw_rows(database, table)
        assert row["team_id"] == ACME.team_id
        assert all(token not in str(value) for value in row.values()), table


async def test_each_workspace_is_answered_with_its_own_token(
    serve: Server, fake: OAuthSlackApi
) -> None:
    """Two workspaces install; each one's mention is answered with that workspace's bot token."""
    server = await serve(["Hello Acme", "Hello Globex"])
    await server.install(ACME, "code-acme")
    await server.install(GLOBEX, "code-globex")
    acme_token = next(t for t in fake._tokens if "ACME" in t)
    globex_token = next(t for t in fake._tokens if "GLOBEX" in t)

    ts_a, ts_g = "1700000100.000100", "1700000200.000200"
    assert await server.event(mention(ACME, "hi", event_id="Ev0A", ts=ts_a)) == 200
    await fake.wait_for(lambda f: len(f.named("chat.postMessage")) == 1)
    assert await server.event(mention(GLOBEX, "hi", event_id="Ev0G", ts=ts_g)) == 200
    await fake.wait_for(lambda f: len(f.named("chat.postMessage")) == 2)
    await settle()
    assert _tokens_posted(fake) == [("Hello Acme", acme_token), ("Hello Globex", globex_token)]


async def test_uninstall_removes_the_installation(
    serve: Server, database: Database, fake: OAuthSlackApi
) -> None:
    """app_uninstalled deletes the workspace's bot and installations; later events get no reply."""
    server = await serve(["Hello Globex"])
    await server.install(ACME, "code-acme")
    await server.install(GLOBEX, "code-globex")
    assert await server.event(uninstalled(ACME)) == 200
    await settle()
    store = server.oauth.installations
    assert await store.async_find_installation(enterprise_id=None, team_id=ACME.team_id) is None
    assert await store.async_find_bot(enterprise_id=None, team_id=ACME.team_id) is None
    assert [r["team_id"] for r in _raw_rows(database, "slack_installations")] == [GLOBEX.team_id]
    assert [r["team_id"] for r in _raw_rows(database, "slack_bots")] == [GLOBEX.team_id]

    # an event from the uninstalled workspace finds no token and is not answered
    await server.event(mention(ACME, "hi", event_id="Ev0A2", ts="1700000300.000300"))
    await server.event(mention(GLOBEX, "hi", event_id="Ev0G2", ts="1700000400.000400"))
    await fake.wait_for(lambda f: len(f.named("chat.postMessage")) == 1)
    await settle()
    assert [text for text, _ in _tokens_posted(fake)] == ["Hello Globex"]


async def test_revoked_bot_token_is_forgotten(
    serve: Server, database: Database, fake: OAuthSlackApi
) -> None:
    """tokens_revoked for the bot removes the bot row and its token from every installation."""
    server = await serve()
    await server.install(ACME, "code-acme")
    assert await server.event(tokens_revoked(ACME, bot=[ACME.bot_user_id], oauth=[])) == 200
    await settle()
    store = server.oauth.installations
    assert await store.async_find_bot(enterprise_id=None, team_id=ACME.team_id) is None
    found = await store.async_find_installation(enterprise_id=None, team_id=ACME.team_id)
    assert found is not None and found.bot_token is None and found.bot_refresh_token is None
    assert _raw_rows(database, "slack_bots") == []


async def test_expiring_token_is_refreshed_and_saved(serve: Server, fake: OAuthSlackApi) -> None:
    """With token rotation, an event finding the token about to expire refreshes it first."""
    fake.rotate_seconds = 60  # well inside the two hours before expiry bolt refreshes at
    server = await serve(["Hello Acme"])
    await server.install(ACME, "code-acme")
    store = server.oauth.installations
    before = await store.async_find_installation(enterprise_id=None, team_id=ACME.team_id)
    assert before is not None and before.bot_refresh_token is not None

    await server.event(mention(ACME, "hi", event_id="Ev0A", ts="1700000100.000100"))
    await fake.wait_for(lambda f: f.named("chat.postMessage"))
    await settle()
    refresh = [c.params for c in fake.named("oauth.v2.access") if "grant_type" in c.params]
    assert [(p["grant_type"], p["refresh_token"]) for p in refresh] == [
        ("refresh_token", before.bot_refresh_token)
    ]
    after = await store.async_find_installation(enterprise_id=None, team_id=ACME.team_id)
    assert after is not None
    assert after.bot_token not in (None, before.bot_token)
    assert after.bot_refresh_token not in (None, before.bot_refresh_token)
    assert _tokens_posted(fake) == [("Hello Acme", after.bot_token)]


async def test_expired_or_reused_state_is_refused_with_a_clear_page(
    serve: Server, database: Database, fake: OAuthSlackApi
) -> None:
    """A state past its expiry, or used twice, gets a page saying so; nothing is installed."""
    server = await serve()
    state, cookie = await server.start_install()
    engine = database.engine()
    with engine.begin() as conn:
        conn.execute(sa.text(f"UPDATE {database.table('slack_oauth_states')} SET expires_at = 0"))
    engine.dispose()
    fake.grant("code-acme", ACME)
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 401
    assert "expired or was already used" in page and "Nothing was installed" in page
    assert fake.named("oauth.v2.access") == []

    state, cookie = await server.start_install()
    assert (await server.redirect(code="code-acme", state=state, cookie=cookie))[0] == 200
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 401 and "expired or was already used" in page


async def test_state_from_another_browser_or_forged_is_refused(
    serve: Server, fake: OAuthSlackApi
) -> None:
    """No matching cookie, or a state never issued, is refused before any code exchange."""
    server = await serve()
    state, _cookie = await server.start_install()
    status, page = await server.redirect(code="c", state=state, cookie=None)
    assert status == 400 and "did not start in this browser" in page
    status, page = await server.redirect(code="c", state="forged", cookie="forged")
    assert status == 401 and "expired or was already used" in page
    assert fake.named("oauth.v2.access") == []


async def test_database_down_gets_a_page_not_a_500(fake: OAuthSlackApi, key: str) -> None:
    """With the database unreachable, /slack/install answers 503 with a page saying why."""
    down = Database("postgresql+psycopg://postgres@127.0.0.1:1/test", None)
    oauth = build_oauth(slack_oauth_settings(fake, key), down.url)
    app = build_slack_app(
        service=chat_service(
            create_agents(None, InMemoryDb()), settings=oauth_settings(down)
        ),
        client=web_client(None, fake.base_url),
        flags=MemoryFlags(),
        signing_secret="secret",
        oauth=oauth,
    )
    server = SlackHttpServer(app, host="127.0.0.1", port=0)
    await server.start()
    try:
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{server.port}/slack/install"
            async with http.get(url, allow_redirects=False) as resp:
                status, page = resp.status, await resp.text()
    finally:
        await server.stop()
        await oauth.aclose()
    assert status == 503
    assert "database is unavailable" in page and "Nothing was installed" in page


async def test_burst_at_expiry_refreshes_once(serve: Server, fake: OAuthSlackApi) -> None:
    """Five events arriving together at expiry: one refresh (refresh tokens are single use)."""
    fake.rotate_seconds = 60
    server = await serve([f"Reply {n}" for n in range(5)])
    await server.install(ACME, "code-acme")
    bodies = [mention(ACME, "hi", event_id=f"Ev0B{n}", ts=f"17000001{n}0.000100") for n in range(5)]
    assert await asyncio.gather(*(server.event(b) for b in bodies)) == [200] * 5
    await fake.wait_for(lambda f: len(f.named("chat.postMessage")) == 5)
    await settle()
    refreshes = [c for c in fake.named("oauth.v2.access") if "grant_type" in c.params]
    assert len(refreshes) == 1
    after = await server.oauth.installations.async_find_bot(
        enterprise_id=None, team_id=ACME.team_id
    )
    assert after is not None
    assert {token for _, token in _tokens_posted(fake)} == {after.bot_token}


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
async def test_two_processes_refresh_once(serve: Server, fake: OAuthSlackApi) -> None:
    """Two app instances sharing PostgreSQL, one event each at expiry: one refresh in all."""
    fake.rotate_seconds = 60
    first = await serve(["First"])
    second = await serve(["Second"])
    await first.install(ACME, "code-acme")
    gate = fake.hold("oauth.v2.access")  # the first refresh stays in flight
    one = mention(ACME, "hi", event_id="Ev0P1", ts="1700000210.000100")
    two = mention(ACME, "hi", event_id="Ev0P2", ts="1700000220.000100")
    sent = asyncio.gather(first.event(one), second.event(two))
    await fake.wait_for(lambda f: any("grant_type" in c.params for c in f.calls))
    # room for the other instance to reach Slack too, were it not waiting for the lock
    await asyncio.sleep(0.5)
    gate.set()
    assert await sent == [200, 200]
    await fake.wait_for(lambda f: len(f.named("chat.postMessage")) == 2)
    await settle()
    refreshes = [c for c in fake.named("oauth.v2.access") if "grant_type" in c.params]
    assert len(refreshes) == 1
