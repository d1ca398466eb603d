"""The Slack app manifest declares what the install flow needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bots.adapters.slack.settings import SLACK_BOT_SCOPES, SlackSettings

MANIFEST = Path(__file__).resolve().parents[4] / "deploy" / "slack-app-manifest.yaml"


def _manifest() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(MANIFEST.read_text())
    return data


def test_manifest_redirect_url_is_the_served_redirect_path() -> None:
    """The manifest's redirect URL ends in the path the server serves by default."""
    urls = _manifest()["oauth_config"]["redirect_urls"]
    assert [u.endswith(SlackSettings().slack_redirect_uri_path) for u in urls] == [True]


def test_manifest_subscribes_to_uninstall_and_revocation() -> None:
    """app_uninstalled and tokens_revoked are delivered, so installations get removed."""
    events = set(_manifest()["settings"]["event_subscriptions"]["bot_events"])
    assert {"app_uninstalled", "tokens_revoked"} <= events


def test_default_install_scopes_are_the_manifest_scopes() -> None:
    """SLACK_SCOPES defaults to exactly the manifest's bot scopes."""
    assert list(SLACK_BOT_SCOPES) == _manifest()["oauth_config"]["scopes"]["bot"]
    assert SlackSettings().slack_scopes == SLACK_BOT_SCOPES
