"""Stopping the console: Ctrl-C cancels a run, Ctrl-C at the prompt or SIGTERM exits cleanly."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

from bots.adapters.console.loop import CANCELLED, run_console
from bots.adapters.console.session import ConsoleSession, Outcome
from tests.bots.conftest import ServiceFactory

STATEBOT = Path(sys.executable).parent / "statebot"


class SlowConsole(ConsoleSession):
    """A console whose every line waits until ``gate`` is set."""

    __slots__ = ("gate", "started")
    gate: asyncio.Event
    started: asyncio.Event

    async def handle_line(self, line: str) -> Outcome:
        self.started.set()
        await self.gate.wait()
        return Outcome(f"done: {line.strip()}")


def _slow(make_service: ServiceFactory) -> SlowConsole:
    console = SlowConsole(make_service(), agent_id="taskboard", session="t", user="ann")
    console.gate = asyncio.Event()
    console.started = asyncio.Event()
    return console


def _pipe(text: str) -> io.TextIOWrapper:
    """A stdin that holds ``text`` and then stays open (no end of input)."""
    read_fd, write_fd = os.pipe()
    os.write(write_fd, text.encode())
    stdin = io.TextIOWrapper(os.fdopen(read_fd, "rb"))
    stdin._keep_open = write_fd  # type: ignore[attr-defined]  # held so no EOF arrives
    return stdin


async def test_ctrl_c_during_a_run_cancels_only_that_run(make_service: ServiceFactory) -> None:
    """SIGINT while a line runs cancels it, says so, and the console reads the next line."""
    console = _slow(make_service)
    stdout = io.StringIO()
    loop_task = asyncio.create_task(
        run_console(console, stdin=_pipe("slow\n"), stdout=stdout, interactive=False)
    )
    await asyncio.wait_for(console.started.wait(), 5)
    os.kill(os.getpid(), signal.SIGINT)
    await asyncio.sleep(0.2)
    assert not loop_task.done() and CANCELLED in stdout.getvalue()
    os.kill(os.getpid(), signal.SIGINT)  # now at the prompt: leave
    await asyncio.wait_for(loop_task, 5)


async def test_sigterm_lets_the_run_finish_and_print(make_service: ServiceFactory) -> None:
    """SIGTERM during a run waits for it (within the grace period), prints, and stops."""
    console = _slow(make_service)
    stdout = io.StringIO()
    loop_task = asyncio.create_task(
        run_console(console, stdin=_pipe("slow\nnext\n"), stdout=stdout, interactive=False)
    )
    await asyncio.wait_for(console.started.wait(), 5)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.sleep(0.1)
    assert not loop_task.done()
    console.gate.set()
    await asyncio.wait_for(loop_task, 5)
    assert stdout.getvalue() == "done: slow\n"  # the second line was never run


async def test_sigterm_cancels_a_run_past_the_grace_period(make_service: ServiceFactory) -> None:
    """A run still going when the grace period ends is cancelled and reported."""
    console = _slow(make_service)
    stdout = io.StringIO()
    loop_task = asyncio.create_task(
        run_console(console, stdin=_pipe("slow\n"), stdout=stdout, interactive=False, grace=0.1)
    )
    await asyncio.wait_for(console.started.wait(), 5)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(loop_task, 5)
    assert stdout.getvalue() == CANCELLED + "\n"


def test_process_exits_0_on_sigterm_and_sigint_at_the_prompt(tmp_path: Path) -> None:
    """`statebot console` waiting for input exits 0 on SIGTERM and on Ctrl-C alike."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    for sig in (signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen(
            [str(STATEBOT), "console", "--session", "t", "--db", str(tmp_path / "s.db")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("/add_task Milk\n")
        proc.stdin.flush()
        # the reply is printed before the next line is read: the console now waits on stdin
        assert proc.stdout.readline().startswith("Added task")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, (sig, err)
