"""A code exchange that fails: the installer's page names the real cause and says to retry.

Driven through the real bolt flow and slack_sdk client against the fake Slack Web API;
nothing is installed in any of these cases.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.bots.adapters.slack.conftest import ACME, Server
from tests.bots.adapters.slack.fake_oauth_api import OAuthSlackApi

pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")


async def _nothing_installed(server: Server) -> bool:
    store = server.oauth.installations
    found = await store.async_find_installation(enterprise_id=None, team_id=ACME.team_id)
    return found is None


async def test_slack_server_error_is_named_not_read_as_an_expired_code(
    serve: Server, fake: OAuthSlackApi
) -> None:
    """A 500 from oauth.v2.access: "Slack's server failed (HTTP 500)", never "code expired"."""
    server = await serve()
    state, cookie = await server.start_install()
    fake.grant("code-acme", ACME)
    fake.fail_once("oauth.v2.access", status=500)
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 502
    assert "Slack&#x27;s server failed (HTTP 500)" in page and "Try again" in page
    assert "expired" not in page and "already used" not in page
    assert 'href="/slack/install"' in page
    assert await _nothing_installed(server)


async def test_slack_error_code_is_shown(serve: Server, fake: OAuthSlackApi) -> None:
    """ok:false from oauth.v2.access: the page names Slack's error code and what it means."""
    server = await serve()
    state, cookie = await server.start_install()
    fake.grant("code-acme", ACME)
    fake.fail_with("oauth.v2.access", "invalid_client_id")
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 401
    assert "oauth.v2.access answered `invalid_client_id`" in page
    assert "SLACK_CLIENT_ID" in page and "expired" not in page
    assert await _nothing_installed(server)


async def test_an_unknown_code_still_says_expired_or_used(
    serve: Server, fake: OAuthSlackApi
) -> None:
    """A code Slack does not know (invalid_code) is named, with its meaning."""
    server = await serve()
    state, cookie = await server.start_install()
    status, page = await server.redirect(code="never-granted", state=state, cookie=cookie)
    assert status == 401
    assert "`invalid_code` (the authorization code expired or was already used)" in page


async def test_slow_exchange_is_bounded_and_says_to_retry(
    serve: Server, fake: OAuthSlackApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oauth.v2.access never answering: a 504 page naming the timeout, not an empty 504."""
    monkeypatch.setenv("STATEBOT_SLACK_INSTALL_SECONDS", "0.5")
    server = await serve()
    state, cookie = await server.start_install()
    fake.grant("code-acme", ACME)
    gate = fake.hold("oauth.v2.access")
    try:
        status, page = await asyncio.wait_for(
            server.redirect(code="code-acme", state=state, cookie=cookie), 20
        )
    finally:
        gate.set()
    assert status == 504
    assert "Slack did not answer within 0.5 s" in page and "start the install again" in page
    assert await _nothing_installed(server)


async def test_unreachable_slack_gets_a_page(serve: Server, fake: OAuthSlackApi) -> None:
    """Slack's API refusing connections: a page saying it could not be reached, not a 500."""
    server = await serve()
    state, cookie = await server.start_install()
    await fake.stop()
    status, page = await server.redirect(code="code-acme", state=state, cookie=cookie)
    assert status == 502
    assert "could not reach Slack for oauth.v2.access" in page and "Try again" in page
    assert await _nothing_installed(server)
