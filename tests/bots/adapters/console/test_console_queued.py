"""A console line that waits for its session (another process's run) prints "queued"."""

from __future__ import annotations

import asyncio
import io
import os

from bots.adapters.console.loop import run_console
from bots.adapters.console.output import ConsoleOutput
from bots.adapters.console.session import ConsoleSession
from core.db.in_memory import InMemoryDb
from tests.bots.conftest import ServiceFactory


async def test_a_line_waiting_its_turn_says_queued_then_answers(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """While another run holds the session: "Queued behind 1 request", then the answer."""
    console = ConsoleSession(make_service(["Done."]), agent_id="taskboard", session="t", user="ann")
    out = io.StringIO()
    output = ConsoleOutput(out, interactive=False)
    read_end, write_end = os.pipe()
    stdin = os.fdopen(read_end, encoding="utf-8")
    typed = os.fdopen(write_end, "w", encoding="utf-8")
    async with db.session_lock(console.session_id):  # another console's run is under way
        typed.write("what is open?\n")
        typed.flush()
        run = asyncio.create_task(
            run_console(console, stdin=stdin, stdout=out, interactive=False, output=output)
        )
        for _ in range(500):
            if "Queued" in out.getvalue():
                break
            await asyncio.sleep(0.01)
        assert out.getvalue() == (
            "Queued behind 1 request in this conversation; I will answer here when it is done.\n"
        )
    typed.close()
    await asyncio.wait_for(run, 20)
    stdin.close()
    assert out.getvalue().splitlines()[1] == "Done."
