"""structlog setup: secrets masked, event fields bound."""

from __future__ import annotations

import io
import json
import logging

import structlog
from structlog.testing import capture_logs

from bots.logging import bind_event, configure_logging, mask_secrets


def test_mask_secrets_hides_secret_named_fields() -> None:
    """Fields named like tokens, secrets or keys are masked before rendering."""
    event = {"event": "x", "slack_bot_token": "xoxb-1", "api_key": "sk", "channel": "C1"}
    masked = mask_secrets(None, "info", dict(event))
    assert masked["slack_bot_token"] == "***" and masked["api_key"] == "***"
    assert masked["channel"] == "C1"


def test_bind_event_adds_ids_to_every_line() -> None:
    """Lines logged inside bind_event carry platform, session, user and event id."""
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        with bind_event(platform="slack", session_id="s1", user_id="u1", event_id="e1"):
            structlog.get_logger("t").info("inside")
        structlog.get_logger("t").info("outside")
    assert logs[0]["session_id"] == "s1" and logs[0]["event_id"] == "e1"
    assert "session_id" not in logs[1]


def test_json_format_writes_masked_json_lines() -> None:
    """The production format is one JSON object per line, secrets masked."""
    out = io.StringIO()
    root_handlers = logging.getLogger().handlers[:]
    try:
        configure_logging("json", level="INFO", stream=out, force=True)
        structlog.get_logger("t").info("hello", discord_token="abc", n=1)
        structlog.get_logger("t").debug("hidden")
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers[:] = root_handlers
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 1
    assert lines[0]["event"] == "hello" and lines[0]["discord_token"] == "***"
    assert lines[0]["level"] == "info" and "timestamp" in lines[0]
