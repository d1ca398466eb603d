"""Reminders set in the console fire in the console and print in its output."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import time
from collections.abc import Callable

from bots.adapters.console.loop import run_console
from bots.adapters.console.output import ConsoleOutput
from bots.adapters.console.reminders import console_schedules
from bots.adapters.console.session import ConsoleSession
from bots.app.build import build_scheduler
from bots.chat.service import ChatService
from core.db.in_memory import InMemoryDb
from core.schedule import Scheduler, schedule_store
from tests.bots.conftest import ServiceFactory, command

AHEAD = 180.0  # the scheduler's clock runs 3 minutes ahead: "in 2 minutes" is due


def _scheduler(service: ChatService, db: InMemoryDb) -> Scheduler:
    scheduler = build_scheduler(service, db, clock=lambda: time.time() + AHEAD)
    # poll often, so the test waits for the firing itself, not for a poll interval
    scheduler.settings = dataclasses.replace(scheduler.settings, poll_interval=0.01)
    return scheduler


async def _until(condition: Callable[[], bool], what: str) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), 20)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def test_reminder_set_in_the_console_prints_in_its_output(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """`/taskboard remind 1 in 2 minutes` fires in the running console and prints there."""
    service = make_service()
    console = ConsoleSession(service, agent_id="taskboard", session="t", user="ann")
    out = io.StringIO()
    output = ConsoleOutput(out, interactive=False)
    scheduler = _scheduler(service, db)
    read_end, write_end = os.pipe()
    stdin = os.fdopen(read_end, encoding="utf-8")
    typed = os.fdopen(write_end, "w", encoding="utf-8")
    typed.write('/add "Buy milk"\n/taskboard remind 1 in 2 minutes\n')
    typed.flush()
    async with console_schedules(console, scheduler, output, grace=5):
        run = asyncio.create_task(
            run_console(console, stdin=stdin, stdout=out, interactive=False, output=output)
        )
        try:
            await _until(lambda: scheduler.fired == 1, "the reminder fired")
            await _until(lambda: out.getvalue().count("\n") >= 3, "the reminder printed")
        finally:
            typed.close()  # end of input: the console stops (also when the wait failed)
            await asyncio.wait_for(run, 20)
            stdin.close()  # after the reader saw end of input, so no close waits on it
    lines = out.getvalue().splitlines()
    assert lines[0] == "Added task #1: Buy milk (general, open)."
    assert lines[1].startswith("I will remind you about task #1 (Buy milk)")
    assert lines[2:] == ["⏰ Reminder: task #1 Buy milk (open)."]
    assert scheduler.fired == 1
    assert await schedule_store(db).alist(console.session_id) == []  # fired, so gone


async def test_reminder_of_another_session_names_its_session(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A reminder of a session the console is not in is printed with that session's name."""
    service = make_service()
    console = ConsoleSession(service, agent_id="taskboard", session="home", user="ann")
    await console.handle_line('/add "Water plants"')
    await console.handle_line("/taskboard remind 1 in 2 minutes")
    console.switch_session("work")
    out = io.StringIO()
    scheduler = _scheduler(service, db)
    async with console_schedules(console, None, ConsoleOutput(out, interactive=False), grace=5):
        assert await scheduler.run_once() == 1
    assert out.getvalue() == "[session home] ⏰ Reminder: task #1 Water plants (open).\n"


async def test_console_leaves_other_platforms_schedules_alone(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A Slack reminder due in the same store is not claimed by the console's scheduler."""
    service = make_service()
    await service.handle_command(command("taskboard", 'add "Slack task"'))
    await service.handle_command(command("taskboard", "remind 1 in 2 minutes"))
    out = io.StringIO()
    console = ConsoleSession(service, agent_id="taskboard", session="t", user="ann")
    scheduler = _scheduler(service, db)
    async with console_schedules(console, None, ConsoleOutput(out, interactive=False), grace=5):
        assert await scheduler.run_once() == 0
    assert out.getvalue() == ""
    slack_session = service.session_keys("taskboard", command("taskboard", "")).session_id
    assert len(await schedule_store(db).alist(slack_session)) == 1  # still pending


def test_notice_without_a_prompt_prints_a_plain_line() -> None:
    """With no prompt on screen (a run in flight) a scheduled reply is a plain line."""
    out = io.StringIO()
    output = ConsoleOutput(out, interactive=True)
    output.notice("Reminder: task #1")
    assert out.getvalue() == "Reminder: task #1\n"
