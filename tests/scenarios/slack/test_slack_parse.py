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


def test_the_parser_decides_addressed_reply_thread_and_keys() -> None:
    """A mention is addressed, answered in its own thread, keyed by that thread."""
    msg = parse_event(app_mention(f"<@{BOT_USER}> hi"))
    assert msg is not None and msg.addressed
    assert msg.reply_thread == msg.thread == "1700000100.000100"
    assert msg.keys.session_id == f"slack:{TEAM}:{CHANNEL}:1700000100.000100"
    assert msg.keys.user_id == f"slack:{TEAM}:{ALICE}"


def test_an_app_mention_is_addressed_even_when_the_bot_id_is_unknown() -> None:
    """Slack says an app_mention is for the bot; no authorizations needed."""
    body = app_mention(f"<@{BOT_USER}> hi")
    del body["authorizations"]
    msg = parse_event(body)
    assert msg is not None and msg.addressed and not msg.bot_mentioned


def test_a_plain_thread_reply_is_not_addressed_by_the_parser() -> None:
    """A reply in a thread without a mention waits for the followed-thread check."""
    body = message("and eggs", ts="1700000200.000200", thread_ts="1700000100.000100")
    msg = parse_event(body)
    assert msg is not None and not msg.addressed
    assert msg.reply_thread == "1700000100.000100"


def test_a_dm_is_addressed_and_answered_at_the_top_level() -> None:
    """A top-level DM: addressed, no reply thread, the DM channel's session."""
    body = message("list", ts="1700000300.000300", channel=DM_CHANNEL, channel_type="im")
    msg = parse_event(body)
    assert msg is not None and msg.addressed and msg.reply_thread is None
    assert msg.keys.session_id == f"slack:{TEAM}:{DM_CHANNEL}"


def test_a_threaded_dm_is_answered_in_its_thread() -> None:
    """A DM inside a thread (an assistant thread) gets its reply in that thread."""
    body = message(
        "list", ts="1700000301.000300", channel=DM_CHANNEL, channel_type="im", thread_ts="17.1"
    )
    msg = parse_event(body)
    assert msg is not None and msg.addressed and msg.reply_thread == "17.1"
