"""Session and user keys: format, scopes and injectivity."""

from __future__ import annotations

import pytest

from bots.inbound import InboundMessage, SlashCommand
from bots.keys import escape, keys_for, session_key, user_key

# (platform, workspace, channel, thread, user): pairs that a naive join would merge
ADVERSARIAL = [
    ("slack", "T1", "C1", "1.2", "U1"),
    ("slack", "T1:C1", "1.2", None, "U1"),
    ("slack", "T1", "C1:1.2", None, "U1"),
    ("slack:T1", "C1", "1.2", None, "U1"),
    ("slack", "T1", "C1", None, "U1"),
    ("slack", "T1", "C1", "", "U1"),
    ("slack", "T1", "", "C1", "U1"),
    ("slack", "T1", "C1%3A1.2", None, "U1"),
    ("slack", "T1", "C1%253A1.2", None, "U1"),
    ("slack", "T1", "@U1", None, "U1"),
    ("slack", "T1", "%40U1", None, "U1"),
    ("slack", "T1", "C1", "1.2", "U2"),
    ("slack", "", "T1:C1", "1.2", "U1"),
    ("discord", "dm", "123", "456", "789"),
    ("discord", "dm:123", "456", None, "789"),
]


def test_thread_scope_format() -> None:
    """A thread-scoped key is platform:workspace:channel:thread."""
    assert session_key("slack", "T1", "C1", "171.5", "U1") == "slack:T1:C1:171.5"


def test_channel_scope_ignores_thread() -> None:
    """Channel scope gives every thread of a channel the same session."""
    a = session_key("slack", "T1", "C1", "1.1", "U1", "channel")
    b = session_key("slack", "T1", "C1", "2.2", "U2", "channel")
    assert a == b == "slack:T1:C1"


def test_user_scope_follows_the_user_across_channels() -> None:
    """User scope gives one user the same session in every channel, another user another."""
    a = session_key("slack", "T1", "C1", "1.1", "U1", "user")
    b = session_key("slack", "T1", "C2", None, "U1", "user")
    assert a == b == "slack:T1:@U1"
    assert session_key("slack", "T1", "C1", "1.1", "U2", "user") != a


def test_thread_scope_without_thread_is_the_channel_session() -> None:
    """A thread-scoped event outside any thread belongs to the channel's session."""
    assert session_key("slack", "T1", "C1", None, "U1") == session_key(
        "slack", "T1", "C1", "9.9", "U1", "channel"
    )


def test_user_key_format() -> None:
    """A user key is platform:workspace:user."""
    assert user_key("discord", "42", "777") == "discord:42:777"


def test_escape_is_reversible_by_percent_decoding() -> None:
    """Escaping only percent-encodes %, : and @, so it loses nothing."""
    from urllib.parse import unquote

    for raw in ["a:b", "100%", "%3A", "@x", "plain", "a@b:c%d"]:
        escaped = escape(raw)
        assert ":" not in escaped and not escaped.startswith("@")
        assert unquote(escaped) == raw


def _conversation(scope: str, row: tuple[str, str, str, str | None, str]) -> tuple[str, ...]:
    """What a key must identify under ``scope``: equal keys only for equal conversations."""
    platform, workspace, channel, thread, user = row
    if scope == "user":
        return ("user", platform, workspace, user)
    if scope == "channel" or thread is None:
        return ("channel", platform, workspace, channel)
    return ("thread", platform, workspace, channel, thread)


def test_session_keys_are_injective_across_rows_and_scopes() -> None:
    """Two keys are equal only when they name the same conversation, in any scope."""
    seen: dict[str, tuple[str, ...]] = {}
    for row in ADVERSARIAL:
        for scope in ("thread", "channel", "user"):
            key = session_key(*row, scope)
            assert seen.setdefault(key, _conversation(scope, row)) == _conversation(scope, row), key
    assert len(seen) > len(ADVERSARIAL)


def test_distinct_users_get_distinct_user_keys() -> None:
    """User keys are injective over (platform, workspace, user)."""
    triples = {(p, w, u) for p, w, _, _, u in ADVERSARIAL} | {
        ("slack", "T1:U1", ""),
        ("slack:T1", "U1", ""),
        ("slack", "T1", "U1:"),
    }
    keys = {user_key(*t) for t in triples}
    assert len(keys) == len(triples)


def test_keys_for_inbound_message_and_command() -> None:
    """keys_for builds both keys from a message or a slash command."""
    msg = InboundMessage("slack", "T1", "C1", "1.1", "U1", "hi", "Ev1")
    cmd = SlashCommand("slack", "T1", "C1", None, "U1", "taskboard", "list", "Ev2")
    assert keys_for(msg).session_id == "slack:T1:C1:1.1"
    assert keys_for(msg).user_id == "slack:T1:U1"
    assert keys_for(cmd, "channel").session_id == "slack:T1:C1"


def test_unknown_scope_is_rejected() -> None:
    """A scope name outside thread/channel/user is an error, not a silent default."""
    with pytest.raises(ValueError, match="scope"):
        session_key("slack", "T1", "C1", "1", "U1", "workspace")  # type: ignore[arg-type]
