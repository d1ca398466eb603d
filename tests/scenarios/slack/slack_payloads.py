"""Slack payloads in the exact shapes Slack delivers them (captured, ids replaced)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import urlencode

TEAM = "T0TEAM001"
ENTERPRISE = "E0ORG0001"
BOT_USER = "U0BOT0001"
ALICE = "U0ALICE01"
BOB = "U0BOB0001"
CHANNEL = "C0GENERAL"
DM_CHANNEL = "D0ALICE01"

_APP_MENTION: dict[str, Any] = {
    "token": "XXYYZZ",
    "team_id": TEAM,
    "context_team_id": TEAM,
    "context_enterprise_id": None,
    "api_app_id": "A0APP0001",
    "event": {
        "user": ALICE,
        "type": "app_mention",
        "ts": "1700000100.000100",
        "client_msg_id": "0f9a5b3e-1c1d-4d4b-9f33-2a1f5b1c0e11",
        "text": f"<@{BOT_USER}> taskboard add milk",
        "team": TEAM,
        "blocks": [
            {
                "type": "rich_text",
                "block_id": "Ab1",
                "elements": [
                    {
                        "type": "rich_text_section",
                        "elements": [
                            {"type": "user", "user_id": BOT_USER},
                            {"type": "text", "text": " taskboard add milk"},
                        ],
                    }
                ],
            }
        ],
        "channel": CHANNEL,
        "event_ts": "1700000100.000100",
    },
    "type": "event_callback",
    "event_id": "Ev0MENTION01",
    "event_time": 1700000100,
    "authorizations": [
        {
            "enterprise_id": None,
            "team_id": TEAM,
            "user_id": BOT_USER,
            "is_bot": True,
            "is_enterprise_install": False,
        }
    ],
    "is_ext_shared_channel": False,
    "event_context": "4-eyJldCI6ImFwcF9tZW50aW9uIn0",
}

_SLASH_COMMAND: dict[str, str] = {
    "token": "XXYYZZ",
    "team_id": TEAM,
    "team_domain": "example",
    "channel_id": CHANNEL,
    "channel_name": "general",
    "user_id": ALICE,
    "user_name": "alice",
    "command": "/taskboard",
    "text": "add_task milk",
    "api_app_id": "A0APP0001",
    "is_enterprise_install": "false",
    "response_url": "https://hooks.slack.com/commands/T0TEAM001/1/abc",
    "trigger_id": "1700000100.1.abcdef",
}


def app_mention(
    text: str,
    *,
    ts: str = "1700000100.000100",
    thread_ts: str | None = None,
    user: str = ALICE,
    event_id: str = "Ev0MENTION01",
    channel: str = CHANNEL,
) -> dict[str, Any]:
    """An ``app_mention`` event_callback body."""
    body = copy.deepcopy(_APP_MENTION)
    event = body["event"]
    event.update(text=text, ts=ts, event_ts=ts, user=user, channel=channel)
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
        event["parent_user_id"] = ALICE
    body["event_id"] = event_id
    return body


def message(
    text: str,
    *,
    ts: str,
    channel: str = CHANNEL,
    channel_type: str = "channel",
    thread_ts: str | None = None,
    user: str = ALICE,
    event_id: str = "Ev0MESSAGE01",
) -> dict[str, Any]:
    """A ``message`` event_callback body (message.channels / message.im)."""
    body = app_mention(text, ts=ts, thread_ts=thread_ts, user=user, event_id=event_id)
    event = body["event"]
    event.update(type="message", channel=channel, channel_type=channel_type)
    return body


def bot_message(text: str, *, ts: str) -> dict[str, Any]:
    """Another bot's post as Slack delivers it (``subtype`` bot_message, ``bot_id``)."""
    body = message(text, ts=ts)
    event = body["event"]
    event.pop("user")
    event.update(subtype="bot_message", bot_id="B0OTHER01", username="otherbot")
    return body


def slash_command(command: str, text: str, **overrides: str) -> dict[str, str]:
    """A slash-command form body."""
    body = dict(_SLASH_COMMAND)
    body.update(command=command, text=text, **overrides)
    return body


def sign(secret: str, body: str, timestamp: int | None = None) -> dict[str, str]:
    """The headers Slack sends: ``v0=`` HMAC-SHA256 over ``v0:{timestamp}:{body}``."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def encode_event(body: dict[str, Any]) -> tuple[str, str]:
    """(raw body, content type) of an Events API delivery."""
    return json.dumps(body), "application/json"


def encode_command(body: dict[str, str]) -> tuple[str, str]:
    """(raw body, content type) of a slash-command delivery."""
    return urlencode(body), "application/x-www-form-urlencoded"
