"""structlog setup: secrets masked, state withheld, event fields bound."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from structlog.testing import capture_logs

from bots.logging import bind_event, configure_logging, redact_event
from core.db.base import SessionRecord
from core.redaction import REDACTED


@pytest.mark.parametrize(
    "field",
    [
        "slack_bot_token",
        "api_key",
        "authorization",
        "api-key",
        "private_key",
        "pwd",
        "passphrase",
        "jwt",
        "aws_access_key_id",
    ],
)
def test_redact_event_masks_credential_named_fields(field: str) -> None:
    """Fields named like any common credential are masked before rendering."""
    masked = redact_event(None, "info", {"event": "x", field: "leak", "channel": "C1"})
    assert masked[field] == REDACTED and masked["channel"] == "C1"


def test_redact_event_masks_nested_credentials_and_text() -> None:
    """Credentials inside dicts and inside message text are masked too."""
    masked = redact_event(
        None,
        "info",
        {
            "event": "connect to postgresql://bot:pw123@db/x failed",
            "details": {"config": [{"client_secret": "cs", "host": "h"}]},
            "error": "bad header Authorization: Bearer abc.def",
        },
    )
    assert "pw123" not in masked["event"] and "abc.def" not in masked["error"]
    assert masked["details"] == {"config": [{"client_secret": REDACTED, "host": "h"}]}


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """Production logging (JSON lines) into a buffer, restored afterwards."""
    out = io.StringIO()
    root_handlers = logging.getLogger().handlers[:]
    try:
        configure_logging("json", level="INFO", stream=out, force=True)
        yield out
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers[:] = root_handlers


def test_state_values_never_reach_a_log_line(json_log: io.StringIO) -> None:
    """State fields, stored records and tracebacks are logged without state values."""
    record = SessionRecord("slack:T1:C1", {"diary": "dear diary"}, 3)
    log = structlog.get_logger("t")
    log.warning("snapshot failed", session_id="slack:T1:C1", state={"diary": "dear diary"})
    log.warning("bad record", record=record, records=[record])
    try:
        raise ValueError("cannot store {'password': 'hunter2', 'n': 1}")
    except ValueError:
        log.exception("snapshot pass failed")
    text = json_log.getvalue()
    assert "dear diary" not in text and "hunter2" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["session_id"] == "slack:T1:C1"
    assert lines[0]["state"] == "<state withheld: 1 items>"
    assert lines[1]["record"] == "<state withheld: value>"
    assert "ValueError" in lines[2]["exception"]


def test_bind_event_adds_ids_to_every_line() -> None:
    """Lines logged inside bind_event carry platform, session, user and event id."""
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        with bind_event(platform="slack", session_id="s1", user_id="u1", event_id="e1"):
            structlog.get_logger("t").info("inside")
        structlog.get_logger("t").info("outside")
    assert logs[0]["session_id"] == "s1" and logs[0]["event_id"] == "e1"
    assert "session_id" not in logs[1]


def test_json_format_writes_masked_json_lines(json_log: io.StringIO) -> None:
    """The production format is one JSON object per line, secrets masked."""
    structlog.get_logger("t").info("hello", discord_token="abc", n=1)
    structlog.get_logger("t").debug("hidden")
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert len(lines) == 1
    assert lines[0]["event"] == "hello" and lines[0]["discord_token"] == REDACTED
    assert lines[0]["level"] == "info" and "timestamp" in lines[0]
