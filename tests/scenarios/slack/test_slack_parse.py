"""Pure Slack payload parsing on captured payload shapes."""

from __future__ import annotations

import pytest
from slack_payloads import (
    ALICE,
    BOT_USER,
    CHANNEL,
    DM_CHANNEL,
    ENTERPRISE,
    TEAM,
    app_mention,
    bot_message,
    message,
    slash_command,
)

from bots.adapters.slack.parse import parse_command, parse_event, strip_mention, workspace_of


def test_app_mention_becomes_inbound_message() -> None:
    """A top-level mention: team workspace, its own ts as thread, bot mention stripped."""
    msg = parse_event(app_mention(f"<@{BOT_USER}> taskboard add milk"))
    assert msg is not None
    assert (msg.platform, msg.workspace, msg.channel) == ("slack", TEAM, CHANNEL)
    assert msg.thread == "1700000100.000100"
    assert msg.user == ALICE
    assert msg.text == "taskboard add milk"
    assert msg.event_id == "Ev0MENTION01"
    assert msg.bot_mentioned and msg.mentions == (BOT_USER,)
    assert not msg.is_dm


def test_reply_in_thread_uses_thread_ts() -> None:
    """A message inside a thread belongs to the thread's parent ts."""
    body = message("and eggs", ts="1700000200.000200", thread_ts="1700000100.000100")
    msg = parse_event(body)
    assert msg is not None and msg.thread == "1700000100.000100"
    assert not msg.bot_mentioned


def test_direct_message_is_dm_without_thread() -> None:
    """A DM (channel_type im) is flagged and shares the DM channel's session."""
    body = message("list", ts="1700000300.000300", channel=DM_CHANNEL, channel_type="im")
    msg = parse_event(body)
    assert msg is not None and msg.is_dm and msg.thread is None
    assert msg.channel == DM_CHANNEL


def test_enterprise_id_wins_over_team_id() -> None:
    """On Enterprise Grid the workspace key is the org id."""
    body = app_mention("hi")
    body["enterprise_id"] = ENTERPRISE
    assert workspace_of(body) == ENTERPRISE
    assert workspace_of(slash_command("/taskboard", "", enterprise_id=ENTERPRISE)) == ENTERPRISE


def test_payload_without_team_is_a_clear_error() -> None:
    """A payload naming no workspace raises a ValueError saying so."""
    with pytest.raises(ValueError, match="neither an enterprise nor a team"):
        workspace_of({"event": {}})


def test_bot_posts_and_edits_are_not_user_messages() -> None:
    """Other bots' posts and message edits parse to None."""
    assert parse_event(bot_message("beep", ts="1700000400.000400")) is None
    edited = message("x", ts="1700000500.000500")
    edited["event"]["subtype"] = "message_changed"
    assert parse_event(edited) is None


def test_slack_escapes_are_undone_and_other_mentions_kept() -> None:
    """&amp;/&lt;/&gt; are unescaped; mentions of other users stay in the text."""
    msg = parse_event(app_mention(f"<@{BOT_USER}> a &amp; b &lt;3 <@U0BOB0001>"))
    assert msg is not None
    assert msg.text == "a & b <3 <@U0BOB0001>"
    assert msg.mentions == (BOT_USER, "U0BOB0001")


def test_strip_mention_handles_labelled_mentions() -> None:
    """``<@U…|name>`` is stripped like the bare form."""
    assert strip_mention(f"<@{BOT_USER}|statebot>  hello", BOT_USER) == "hello"


def test_slash_command_parsed_without_slash() -> None:
    """A slash command: name without '/', channel, no thread, trigger id as event id."""
    cmd = parse_command(slash_command("/taskboard", "add_task milk"))
    assert (cmd.command, cmd.text, cmd.channel, cmd.thread) == (
        "taskboard",
        "add_task milk",
        CHANNEL,
        None,
    )
    assert cmd.event_id == "1700000100.1.abcdef" and cmd.workspace == TEAM


def test_slash_command_missing_user_is_a_clear_error() -> None:
    """A slash-command body without user_id raises naming the field."""
    body = slash_command("/state", "dump")
    del body["user_id"]
    with pytest.raises(ValueError, match="user_id"):
        parse_command(body)
