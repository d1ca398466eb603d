"""user_reference: people named the platform's way, never as markup a stored id could forge."""

from __future__ import annotations

import pytest

from bots.chat.names import user_reference
from bots.keys import channel_key, channel_of_session


@pytest.mark.parametrize(
    ("key", "platform", "workspace", "shown"),
    [
        ("slack:T1:U0ANA0001", "slack", "T1", "<@U0ANA0001>"),
        ("discord:G1:1234567", "discord", "G1", "<@1234567>"),
        ("console:local:ann", "console", "local", "@ann"),
        ("slack:T2:U0ANA0001", "slack", "T1", "`slack:T2:U0ANA0001`"),  # another workspace
        ("slack:T1:U0ANA0001", "discord", "T1", "`slack:T1:U0ANA0001`"),  # another platform
        ("slack:T1:!channel", "slack", "T1", "`slack:T1:!channel`"),  # not a user id
        ("cli:root", "slack", "T1", "`cli:root`"),
        ("x:y:a`b", "x", "y", "`x:y:a'b`"),  # a backtick cannot end the code span
        (None, "slack", "T1", "someone unknown"),
    ],
)
def test_user_reference(key: str | None, platform: str, workspace: str, shown: str) -> None:
    """Same platform and workspace with a real-looking id: a mention; else the key as code."""
    assert user_reference(key, platform=platform, workspace=workspace) == shown


def test_channel_keys() -> None:
    """A channel key is its channel-scope session id; a thread session names its channel."""
    assert channel_key("slack", "T1", "C:1") == "slack:T1:C%3A1"
    assert channel_of_session("slack:T1:C%3A1:1700.1") == "slack:T1:C%3A1"
    assert channel_of_session("slack:T1:@U1") is None
    assert channel_of_session("not-a-session") is None
