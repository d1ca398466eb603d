"""The console on a user's first day: a quiet first start, readable /state diff, a
thinking line while the model works, and /sessions naming the session just opened."""

from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pexpect
from structlog.testing import capture_logs

from bots.adapters.console.editing import line_editing
from bots.adapters.console.loop import run_console
from bots.adapters.console.output import CLEAR_LINE, THINKING, ConsoleOutput
from bots.adapters.console.session import ConsoleSession
from core.testing import FakeOpenAIServer
from tests.bots.conftest import ServiceFactory

STATEBOT = Path(sys.executable).parent / "statebot"


def test_first_start_without_a_history_file_logs_nothing(tmp_path: Path) -> None:
    """No ~/.statebot_history yet is the normal first start, not a warning."""
    with capture_logs() as logs, line_editing(tmp_path / ".statebot_history"):
        pass
    assert [e for e in logs if e["event"] == "console_history_unreadable"] == []
    assert (tmp_path / ".statebot_history").is_file()  # written on the way out


def test_a_history_path_that_cannot_be_read_still_warns(tmp_path: Path) -> None:
    """A directory where the file should be is a real problem, and is said."""
    (tmp_path / "h").mkdir()
    with capture_logs() as logs, line_editing(tmp_path / "h"):
        pass
    assert [e["event"] for e in logs][:1] == ["console_history_unreadable"]


async def test_state_diff_prints_without_markdown_fences(make_service: ServiceFactory) -> None:
    """`/state diff v1 v2` in the terminal shows the diff lines, not ``` fence lines."""
    console = ConsoleSession(make_service(), agent_id="taskboard", session="t", user="ann")
    stdin = io.StringIO("/add One\n/add Two\n/state diff v1 v2\n")
    stdout = io.StringIO()
    await run_console(console, stdin=stdin, stdout=stdout, interactive=False)
    printed = stdout.getvalue()
    assert "```" not in printed
    assert "from v1 to v2 (2 operations):\n• added tasks/1\n• next_task_id → 3\n" in printed


def test_thinking_line_is_replaced_by_the_reply_and_kept_under_notices() -> None:
    """On a terminal the thinking line shows until the reply overwrites it; a reminder
    printed meanwhile goes above it; piped output never shows it."""
    screen = io.StringIO()
    output = ConsoleOutput(screen, interactive=True)
    output.thinking()
    output.notice("Reminder: stand-up")
    output.reply("Added milk.")
    assert screen.getvalue() == (
        f"{THINKING}{CLEAR_LINE}Reminder: stand-up\n{THINKING}{CLEAR_LINE}Added milk.\n"
    )
    piped = io.StringIO()
    quiet = ConsoleOutput(piped, interactive=False)
    quiet.thinking()
    quiet.reply("Added milk.")
    assert piped.getvalue() == "Added milk.\n"


def test_terminal_shows_thinking_while_the_model_runs(tmp_path: Path) -> None:
    """A real console on a pseudo-terminal, its model a fake OpenAI server that answers
    only once the test has seen the thinking line."""
    seen = threading.Event()

    def answer(_request: dict[str, Any]) -> str:
        seen.wait(30)
        return "Hello from the model."

    with FakeOpenAIServer([answer]) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
        env.pop("REDIS_URL", None)
        env.update(HOME=str(tmp_path), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test")
        argv = ["console", "--agent", "taskboard", "--db", str(tmp_path / "s.db")]
        child = pexpect.spawn(str(STATEBOT), argv, env=env, encoding="utf-8", timeout=30)
        try:
            child.expect_exact("taskboard@default> ")
            assert "console_history_unreadable" not in (child.before or "")
            child.sendline("hello")
            child.expect_exact(THINKING)
            seen.set()
            child.expect_exact("Hello from the model.")
            child.expect_exact("taskboard@default> ")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            seen.set()
            child.close()
    assert child.exitstatus == 0


async def test_sessions_names_the_current_session_before_it_is_stored(
    make_service: ServiceFactory,
) -> None:
    """A session switched to (nothing stored yet) is listed as current, as is a new
    console's; stored sessions keep their lines."""
    console = ConsoleSession(make_service(), agent_id="taskboard", session="t", user="ann")
    first = (await console.handle_line("/sessions")).text
    assert first == "Sessions (* current):\n* t (taskboard, nothing stored yet)"
    await console.handle_line("/add One")
    await console.handle_line("/session fresh")
    listed = (await console.handle_line("/sessions")).text or ""
    assert listed.splitlines() == [
        "Sessions (* current):",
        "* fresh (taskboard, nothing stored yet)",
        "  t (taskboard)",
    ]
