"""Sign in with Slack's configuration: the console's own client, else the app's."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bots.adapters.slack.adapter import ADAPTER
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.sign_in import sign_in_for
from bots.settings import Settings
from bots.web.config import WebConfig, WebConfigError
from tests.bots.web.conftest import SECRET as WEB_SECRET

URL = "https://ops.example.com/admin"


def test_config_slack_sign_in_needs_both_halves_and_a_url() -> None:
    """Sign in with Slack needs the client id, the secret and the public URL."""
    with pytest.raises(WebConfigError, match="needs both"):
        sign_in_for(Settings(), SlackSettings(statebot_web_oidc_client_id="1.2"))
    both = SlackSettings(
        statebot_web_oidc_client_id="1.2", statebot_web_oidc_client_secret=SecretStr("x")
    )
    with pytest.raises(WebConfigError, match="STATEBOT_WEB_URL"):
        sign_in_for(Settings(), both)
    slack = sign_in_for(Settings(statebot_web_url=URL), both)
    assert slack is not None
    assert slack.authorize_url == "https://slack.com/openid/connect/authorize"
    config = WebConfig.from_settings(
        Settings(statebot_web_secret=SecretStr(WEB_SECRET), statebot_web_url=URL), (slack,)
    )
    assert config.provider("slack") is slack


def test_slack_sign_in_falls_back_to_the_install_flow_client() -> None:
    """With a public URL, the Slack app's own client id and secret sign admins in."""
    app = SlackSettings(slack_client_id="9.9", slack_client_secret=SecretStr("app-secret"))
    assert sign_in_for(Settings(), app) is None
    slack = sign_in_for(Settings(statebot_web_url="https://ops.example.com"), app)
    assert slack is not None and (slack.client_id, slack.client_secret) == ("9.9", "app-secret")


def test_the_adapter_offers_it_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """`statebot web` finds Sign in with Slack through the adapter, read from the environment."""
    monkeypatch.setenv("SLACK_CLIENT_ID", "9.9")
    monkeypatch.setenv("SLACK_CLIENT_SECRET", "app-secret")
    monkeypatch.delenv("STATEBOT_WEB_OIDC_CLIENT_ID", raising=False)
    monkeypatch.delenv("STATEBOT_WEB_OIDC_CLIENT_SECRET", raising=False)
    offered = ADAPTER.web_sign_in(Settings(statebot_web_url="https://ops.example.com"))
    assert offered is not None and (offered.name, offered.label) == ("slack", "Slack")
