"""`statebot console` on a real pseudo-terminal: editing, history, Ctrl-C, Ctrl-D, /session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

STATEBOT = Path(sys.executable).parent / "statebot"
UP = "\x1b[A"
TIMEOUT = 30


def _spawn(tmp_path: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    env["HOME"] = str(tmp_path)  # the history file goes to ~/.statebot_history
    argv = ["console", "--agent", "taskboard", "--session", "t", "--db", str(tmp_path / "s.db")]
    child = pexpect.spawn(
        str(STATEBOT), argv, env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(40, 200)
    )
    child.expect_exact("taskboard@t> ")
    return child


def _exit_status(child: pexpect.spawn) -> int | None:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_ctrl_d_exits_with_status_zero(tmp_path: Path) -> None:
    """Ctrl-D at the prompt leaves the console with exit status 0."""
    child = _spawn(tmp_path)
    child.sendeof()
    assert _exit_status(child) == 0


def test_ctrl_c_at_the_prompt_exits_with_status_zero(tmp_path: Path) -> None:
    """Ctrl-C at the prompt leaves at once (no Enter needed) with exit status 0."""
    child = _spawn(tmp_path)
    child.send("half-typed")
    child.sendintr()
    assert _exit_status(child) == 0


def test_up_arrow_recalls_the_last_line_and_history_survives(tmp_path: Path) -> None:
    """The up arrow recalls the previous line (not `^[[A`); history is kept across runs."""
    child = _spawn(tmp_path)
    child.sendline('/add "Buy milk"')
    child.expect_exact("Added task #1: Buy milk")
    child.expect_exact("taskboard@t> ")
    child.send(UP + "\r")
    child.expect_exact("Added task #2: Buy milk")
    child.expect_exact("taskboard@t> ")
    child.sendeof()
    assert _exit_status(child) == 0
    assert '/add "Buy milk"' in (tmp_path / ".statebot_history").read_text()

    again = _spawn(tmp_path)  # a new console recalls the saved line
    again.send(UP + "\r")
    again.expect_exact("Added task #3: Buy milk")
    again.expect_exact("taskboard@t> ")  # Ctrl-D typed mid-run would meet cooked mode
    again.sendeof()
    assert _exit_status(again) == 0


def test_session_switch_keeps_sessions_apart(tmp_path: Path) -> None:
    """`/session NAME` switches the prompt and the state; `/sessions` lists both."""
    child = _spawn(tmp_path)
    child.sendline('/add "Only in t"')
    child.expect_exact("Added task #1: Only in t")
    child.sendline("/session other")
    child.expect_exact("Now in session other (agent taskboard).")
    child.expect_exact("taskboard@other> ")
    child.sendline('/add "Only in other"')
    child.expect_exact("Added task #1: Only in other")
    child.sendline("/sessions")
    child.expect_exact("* other (taskboard)")
    child.expect_exact("  t (taskboard)")
    child.expect_exact("taskboard@other> ")
    child.sendeof()
    assert _exit_status(child) == 0
