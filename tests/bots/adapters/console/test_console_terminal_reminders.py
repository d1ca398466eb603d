"""`statebot console` on a real pseudo-terminal: a reminder prints above the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bots.adapters.console.test_console_terminal import _exit_status, _spawn

LEFT = "\x1b[D"


@pytest.mark.slow
def test_reminder_prints_above_the_prompt_and_keeps_the_typed_line(tmp_path: Path) -> None:
    """A reminder firing mid-typing prints above the prompt; the typed line and cursor stay.

    The console process runs on the real clock (its scheduler's clock cannot be
    injected from outside), so the reminder is set 2 seconds ahead and the test waits
    for its text; the in-process tests fire reminders with a clock ahead instead.
    """
    child = _spawn(tmp_path)
    child.sendline('/add "Buy milk"')
    child.expect_exact("taskboard@t> ")
    child.sendline("/taskboard remind 1 in 2 seconds")
    child.expect_exact("I will remind you about task #1 (Buy milk)")
    child.expect_exact("taskboard@t> ")
    child.send('/add "Call mo"' + LEFT)  # cursor before the closing quote
    # the half-typed line is cleared, the reminder printed, the prompt and line redrawn
    child.expect_exact("\r\x1b[K⏰ Reminder: task #1 Buy milk (open).\r\n")
    child.expect_exact('taskboard@t> /add "Call mo"')
    child.send("m\r")  # typed where the cursor was left, so the line reads "Call mom"
    child.expect_exact("Added task #2: Call mom (general, open).")
    child.expect_exact("taskboard@t> ")
    child.sendeof()
    assert _exit_status(child) == 0
