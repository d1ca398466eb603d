"""structlog setup: secrets masked, state withheld, event fields bound."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from bots.ops.logging import bind_event, configure_logging, logging_for_command, redact_event
from core.db.codec import encode_delta
from core.db.in_memory import InMemoryDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
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
    record = SessionRecord.from_state("slack:T1:C1", {"diary": "dear diary"}, 3)
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


LIBRARY_LOGGERS = [
    "slack_bolt.App",
    "slack_sdk.web.async_client",
    "discord.client",
    "alembic.runtime.migration",
    "aiohttp.access",
    "httpx",
    "openai._base_client",
]


@pytest.mark.parametrize("name", LIBRARY_LOGGERS)
def test_library_lines_are_json_with_structlog_keys(json_log: io.StringIO, name: str) -> None:
    """A stdlib logger line from an SDK is one JSON object with the same keys as ours."""
    structlog.get_logger("bots.t").info("ours")
    logging.getLogger(name).warning("theirs %s", "arg")
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["ours", "theirs arg"]
    assert set(lines[0]) == set(lines[1]) == {"event", "level", "logger", "timestamp"}
    assert lines[1]["logger"] == name and lines[1]["level"] == "warning"


def test_library_lines_are_redacted(json_log: io.StringIO) -> None:
    """Credentials in a library's message or traceback are masked like ours."""
    try:
        raise RuntimeError("connect postgresql://bot:pw123@db/x")
    except RuntimeError:
        logging.getLogger("httpx").exception("POST failed, Authorization: Bearer sk-abc.def")
    line = json.loads(json_log.getvalue())
    assert "sk-abc.def" not in line["event"] and "pw123" not in line["exception"]
    assert "RuntimeError" in line["exception"]


def test_library_lines_carry_the_event_ids(json_log: io.StringIO) -> None:
    """An SDK line logged while an event is handled names that event."""
    with bind_event(platform="slack", session_id="s1", user_id="u1", event_id="e1"):
        logging.getLogger("slack_bolt.App").info("lazy listener done")
    line = json.loads(json_log.getvalue())
    assert line["event_id"] == "e1" and line["session_id"] == "s1"


def test_sdk_debug_lines_stay_quiet_below_info(json_log: io.StringIO) -> None:
    """At DEBUG our own lines show; SDK debug chatter does not."""
    configure_logging("json", level="DEBUG", stream=json_log, force=True)
    structlog.get_logger("bots.t").debug("ours")
    logging.getLogger("discord.gateway").debug("heartbeat")
    events = [json.loads(line)["event"] for line in json_log.getvalue().splitlines()]
    assert events == ["ours"]


def test_production_stderr_is_json_only() -> None:
    """In a real process every stderr line, ours or a library's, is a JSON object."""
    script = (
        "import logging, structlog\n"
        "from bots.ops.logging import configure_logging\n"
        "configure_logging('json', level='INFO')\n"
        "structlog.get_logger('bots.x').info('ours', n=1)\n"
        "for name in ('slack_bolt.App', 'discord.client', 'alembic.runtime.migration'):\n"
        "    logging.getLogger(name).info('from %s', name)\n"
        "logging.getLogger('py.warnings').warning('warned')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [line["logger"] for line in lines] == [
        "bots.x",
        "slack_bolt.App",
        "discord.client",
        "alembic.runtime.migration",
        "py.warnings",
    ]


def test_bind_event_starts_from_a_clean_context() -> None:
    """Context left over from elsewhere does not leak into an event; it is restored after."""
    structlog.contextvars.bind_contextvars(tool="stale", event_id="old")
    try:
        with (
            capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs,
            bind_event(platform="slack", session_id="s1", user_id="u1", event_id="e1"),
        ):
            structlog.get_logger("t").info("inside")
        assert "tool" not in logs[0] and logs[0]["event_id"] == "e1"
        assert structlog.contextvars.get_contextvars() == {"tool": "stale", "event_id": "old"}
    finally:
        structlog.contextvars.clear_contextvars()


async def test_background_snapshotter_never_inherits_an_event(
    redis_url: str, key_prefix: str
) -> None:
    """The in-process snapshotter started during an event logs without that event's ids."""
    store = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=InMemoryDb(),
        snapshot_interval=0.01,
    )
    try:
        with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
            with bind_event(platform="slack", session_id="s1", user_id="u1", event_id="e1"):
                store.start_snapshotter()  # started inside an event: must not inherit its ids
                await store.asave("s1", expected_version=0, changed=encode_delta({"n": 1}))
            for _ in range(500):
                if any(line["event"] == "snapshot pass" for line in logs):
                    break
                await asyncio.sleep(0.01)
        passes = [line for line in logs if line["event"] == "snapshot pass"]
        assert passes and all("event_id" not in line for line in passes)
        assert all("session_id" not in line for line in passes)
    finally:
        await store.aclose()


def test_snapshotter_cli_honours_log_settings(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """``statebot snapshotter`` logs JSON lines at STATEBOT_LOG_LEVEL."""
    seed = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    asyncio.run(_seed(seed))
    env = {
        **os.environ,
        "STATEBOT_LOG_FORMAT": "json",
        "STATEBOT_LOG_LEVEL": "DEBUG",
        "REDIS_URL": redis_url,
        "STATEBOT_DB_URL": f"sqlite:///{tmp_path / 'durable.db'}",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from bots.cli.main import main; main()",
            "snapshotter",
            "--once",
            "--key-prefix",
            key_prefix,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert any(line["event"] == "snapshot pass" and line["level"] == "debug" for line in lines)


async def _seed(store: RedisDb) -> None:
    try:
        await store.asave("cli-s1", expected_version=0, changed=encode_delta({"n": 1}))
    finally:
        await store.aclose()


def test_logging_for_command_writes_to_stderr_and_puts_everything_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command's stdout is its data: its log lines go to stderr (as it is at each
    line), and the process's logging is as before once the command is done."""
    monkeypatch.setattr("bots.ops.logging._configured", False)
    before = dict(structlog.get_config())
    handlers = logging.getLogger().handlers[:]
    with logging_for_command("json", level="WARNING"):
        structlog.get_logger("core").warning("snapshot pass failed", n=1)
        structlog.get_logger("core").info("quiet below warning")
    out, err = capsys.readouterr()
    assert out == ""
    assert [json.loads(line)["event"] for line in err.splitlines()] == ["snapshot pass failed"]
    assert dict(structlog.get_config()) == before
    assert logging.getLogger().handlers == handlers
