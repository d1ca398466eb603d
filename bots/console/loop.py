"""The console's terminal I/O: read lines, print replies, stop at /quit or end of input.

With a terminal it shows a banner and a prompt; with piped stdin it prints replies
only, so a script can drive it and read the output.
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from bots.console.session import ConsoleSession

BANNER = "Statebot console — agent {agent}, session {session}. /help for commands, /quit to leave."


async def _read_line(stdin: TextIO, interactive: bool, prompt: str) -> str | None:
    """The next line, or None at end of input."""
    if interactive:
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            return None
    line = await asyncio.to_thread(stdin.readline)
    return line if line else None


async def run_console(
    console: ConsoleSession, *, stdin: TextIO, stdout: TextIO, interactive: bool
) -> None:
    """Dispatch lines until /quit or end of input."""
    if interactive:
        print(BANNER.format(agent=console.agent_id, session=console.session), file=stdout)
    while True:
        line = await _read_line(stdin, interactive, f"{console.agent_id}> ")
        if line is None:
            if interactive:
                print(file=stdout)
            return
        outcome = await console.handle_line(line)
        if outcome.text:
            print(outcome.text, file=stdout, flush=True)
        if outcome.quit:
            return
