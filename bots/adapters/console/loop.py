"""The console's terminal I/O: read lines, print replies, stop at /quit or end of input.

With a terminal it shows a banner and a prompt; with piped stdin it prints replies
only, so a script can drive it and read the output.

Stopping, always with exit status 0:

- end of input (Ctrl-D) or ``/quit``;
- Ctrl-C (SIGINT) at the prompt; Ctrl-C during a run cancels that run only and
  comes back to the prompt (what earlier tool batches saved stays saved);
- SIGTERM: no new line is read; a run in flight gets ``grace`` seconds to finish
  and print its reply, then it is cancelled.

Lines are read by a daemon thread, so a stop never waits for a line that never comes.
With a terminal, lines are edited with readline and kept in a history file
(``bots.adapters.console.editing``).
"""

from __future__ import annotations

import asyncio
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from bots.adapters.console.editing import line_editing
from bots.adapters.console.output import ConsoleOutput
from bots.adapters.console.queued import ConsoleQueued
from bots.adapters.console.session import ConsoleSession, Outcome

BANNER = "Statebot console — agent {agent}, session {session}. /help for commands, /quit to leave."
CANCELLED = (
    "Cancelled. Changes saved before you stopped it are kept; the step in progress was "
    "not applied. /state shows what is saved."
)


class LineReader:
    """Reads one line per request on a daemon thread and hands it to the event loop."""

    __slots__ = ("_interactive", "_requests", "_stdin", "_thread")

    def __init__(self, stdin: TextIO, interactive: bool) -> None:
        self._stdin = stdin
        self._interactive = interactive
        self._requests: queue.Queue[tuple[str, asyncio.Future[str | None]]] = queue.Queue()
        self._thread: threading.Thread | None = None

    async def read(self, prompt: str) -> str | None:
        """The next line, or None at end of input."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="console-stdin", daemon=True)
            self._thread.start()
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._requests.put((prompt, future))
        return await future

    def _serve(self) -> None:
        while True:
            prompt, future = self._requests.get()
            line = self._read_one(prompt)
            loop = future.get_loop()
            if loop.is_closed():
                return
            loop.call_soon_threadsafe(_resolve, future, line)

    def _read_one(self, prompt: str) -> str | None:
        if self._interactive:
            try:
                return input(prompt)
            except EOFError:
                return None
        line = self._stdin.readline()
        return line if line else None


def _resolve(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)


@contextmanager
def _signals(on_int: Callable[[], None], on_term: Callable[[], None]) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, on_int)
    loop.add_signal_handler(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)


async def _first(work: asyncio.Future[Any], stop: asyncio.Event) -> str | None:
    """``work``'s line, or None as soon as ``stop`` is set."""
    stopper: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
    return work.result() if work.done() and not stop.is_set() else None


async def _finish(run: asyncio.Task[Outcome], stop: asyncio.Event, grace: float) -> Outcome:
    """The run's outcome; after SIGTERM it gets ``grace`` seconds, then is cancelled."""
    stopper: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    try:
        pending: set[asyncio.Future[Any]] = {run, stopper}
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if not run.done():  # stopping: let the run finish within the grace period
            await asyncio.wait({run}, timeout=grace)
            run.cancel()
    finally:
        stopper.cancel()
    try:
        return await run
    except asyncio.CancelledError:
        return Outcome(CANCELLED)


async def run_console(
    console: ConsoleSession,
    *,
    stdin: TextIO,
    stdout: TextIO,
    interactive: bool,
    grace: float = 25.0,
    history: Path | None = None,
    output: ConsoleOutput | None = None,
) -> None:
    """Dispatch lines until /quit, end of input, SIGINT at the prompt or SIGTERM.

    ``history``: the readline history file of an interactive console (None: none kept).
    ``output``: where replies go (default: ``stdout``); scheduled replies share it, so
    they know whether a prompt is on screen.
    """
    output = output or ConsoleOutput(stdout, interactive=interactive)
    console.notice = ConsoleQueued(output)  # "queued behind N" while a line waits its turn
    if not interactive:
        await _dispatch(console, stdin=stdin, output=output, interactive=False, grace=grace)
        return
    with line_editing(history):
        await _dispatch(console, stdin=stdin, output=output, interactive=True, grace=grace)


async def _dispatch(
    console: ConsoleSession,
    *,
    stdin: TextIO,
    output: ConsoleOutput,
    interactive: bool,
    grace: float,
) -> None:
    if interactive:
        output.reply(BANNER.format(agent=console.agent_id, session=console.session))
    reader = LineReader(stdin, interactive)
    stop = asyncio.Event()
    running: list[asyncio.Task[Outcome]] = []

    def interrupt() -> None:
        if running and not running[-1].done():
            running[-1].cancel()  # Ctrl-C during a run stops that run only
        else:
            stop.set()

    with _signals(interrupt, stop.set):
        while True:
            prompt = f"{console.agent_id}@{console.session}> "
            output.prompt = prompt if interactive else None
            line = await _first(asyncio.ensure_future(reader.read(prompt)), stop)
            output.prompt = None
            if line is None:
                if interactive:
                    output.reply("")
                return
            running.append(asyncio.create_task(console.handle_line(line)))
            if interactive and console.goes_to_model(line):
                output.thinking()
            outcome = await _finish(running[-1], stop, grace)
            running.clear()
            if outcome.text:
                output.reply(outcome.text)
            else:
                output.done()
            if outcome.quit or stop.is_set():
                return
