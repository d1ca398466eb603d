"""Unreachable network or stores at start: one ``Error:`` line and exit code 1, no traceback."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import structlog
from click.testing import CliRunner

from bots.cli.main import main
from bots.ops.startup import one_line, run_process

with warnings.catch_warnings():
    # discord.py imports the stdlib audioop (voice, unused), which warns on 3.11+
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401 - imported once here, so the CLI's lazy import is quiet

DOWN_REDIS = "redis://127.0.0.1:1/0"  # port 1: nothing listens, connection refused


def _not_logs(output: str) -> list[str]:
    """The lines of ``output`` that are not JSON log lines: what the operator reads."""
    return [line for line in output.splitlines() if not line.startswith("{")]


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """The commands configure process-wide logging; later tests get the defaults back."""
    root_handlers = logging.getLogger().handlers[:]
    root_level = logging.getLogger().level
    try:
        yield
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers[:] = root_handlers
        logging.getLogger().setLevel(root_level)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A deployment whose Redis is down and whose durable store is a temporary SQLite file."""
    return {
        "REDIS_URL": DOWN_REDIS,
        "STATEBOT_DB_URL": f"sqlite:///{tmp_path / 'statebot.db'}",
        "STATEBOT_LOG_FORMAT": "json",
        "DISCORD_TOKEN": "test-token",
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_APP_TOKEN": "xapp-test",
    }


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["discord"], "discord"),
        (["slack", "--socket"], "slack"),
        (["slack", "--port", "0"], "slack"),
    ],
)
def test_a_bot_with_redis_down_fails_in_one_line(
    env: dict[str, str], args: list[str], name: str
) -> None:
    """Discord and both Slack modes refuse to start with Redis down: one line, exit 1."""
    env["SLACK_SIGNING_SECRET"] = "secret"
    # through the real entry point: invoking a subcommand alone changes click's help cache
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    [error] = _not_logs(result.output)
    assert error.startswith(f"Error: statebot {name}: Redis at 127.0.0.1:1 is unavailable")


def test_the_snapshotter_with_redis_down_fails_in_one_line(env: dict[str, str]) -> None:
    """The snapshotter refuses to start with Redis down: one clear line, exit 1."""
    result = CliRunner().invoke(main, ["snapshotter", "--redis-url", DOWN_REDIS], env=env)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    [error] = _not_logs(result.output)
    assert error.startswith("Error: Redis at 127.0.0.1:1 is unavailable")


def test_a_network_error_becomes_a_click_error() -> None:
    """A refused or unresolvable connection ends the process as one ClickException line."""

    async def offline() -> None:
        raise OSError("Cannot connect to host discord.com:443 ssl:default\n[Name unknown]")

    with pytest.raises(click.ClickException) as caught:
        run_process(offline(), name="discord")
    assert caught.value.exit_code == 1
    assert caught.value.message == (
        "statebot discord: Cannot connect to host discord.com:443 ssl:default [Name unknown]"
    )


def test_a_programming_error_is_not_disguised() -> None:
    """Bugs are not network errors: they keep their traceback."""

    async def buggy() -> None:
        raise KeyError("oops")

    with pytest.raises(KeyError):
        run_process(buggy(), name="discord")


def test_one_line_names_the_type_when_there_is_no_message() -> None:
    """An exception without a message is reported by its type."""
    assert one_line(TimeoutError()) == "TimeoutError"
