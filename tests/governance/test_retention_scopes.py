"""bots/app/retention.py: the retention scope of every key bots/keys.py builds, and the
policy the settings make."""

from __future__ import annotations

import pytest

from bots.app.retention import policy_from_settings, retention_policy, scope_of
from bots.keys import session_key
from bots.settings import Settings


@pytest.mark.parametrize(
    ("key", "scope"),
    [
        (session_key("slack", "T1", "C1", "1700.1", "U1"), "thread"),
        (session_key("slack", "T1", "C1", None, "U1"), "channel"),
        (session_key("slack", "T1", "C1", "1700.1", "U1", scope="channel"), "channel"),
        (session_key("slack", "T1", "D1", "1700.1", "U1"), "dm"),
        (session_key("slack", "T1", "D1", None, "U1"), "dm"),
        (session_key("discord", "dm", "42", None, "7"), "dm"),
        (session_key("discord", "G1", "42", "43", "7"), "thread"),
        (session_key("slack", "T1", "C1", "1700.1", "U1", scope="user"), "dm"),
        (session_key("console", "local", "main", None, "me"), "channel"),
        (session_key("slack", "T1", "@C:1", "1", "U1"), "thread"),  # escaped, not user scope
        ("plain-session-id", None),
        ("a::b", None),
    ],
)
def test_scope_of_each_key_shape(key: str, scope: str | None) -> None:
    """DM, thread and channel keys are told apart; other ids have no scope."""
    assert scope_of(key) == scope


def test_policy_gives_each_scope_its_days() -> None:
    """Days per scope become one rule each; an unset scope is kept forever."""
    policy = retention_policy(dm=30, thread=90)
    assert policy.cutoff("slack:T1:D1", now=100 * 86_400) == 70 * 86_400
    assert policy.cutoff("slack:T1:C1:1.2", now=100 * 86_400) == 10 * 86_400
    assert policy.cutoff("slack:T1:C1", now=100 * 86_400) is None


def test_policy_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """STATEBOT_RETENTION_*_DAYS set the policy; none set: no rules."""
    assert policy_from_settings(Settings()).rules == ()
    monkeypatch.setenv("STATEBOT_RETENTION_CHANNEL_DAYS", "365")
    policy = policy_from_settings(Settings())
    assert [(r.name, r.days) for r in policy.rules] == [("channel", 365.0)]


def test_non_positive_days_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A retention of 0 or fewer days is a settings error, not 'delete everything'."""
    monkeypatch.setenv("STATEBOT_RETENTION_DM_DAYS", "0")
    with pytest.raises(ValueError, match=r"(?i)statebot_retention_dm_days"):
        Settings()
