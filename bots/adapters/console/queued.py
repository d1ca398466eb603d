"""The console's "queued" notice (``bots.chat.queued``): a line printed while it waits.

A console's session can be busy with another process's run (a second console on
the same session, a reminder firing): the typed line then waits its turn, and
"Queued behind N requests …" is printed at once (above the thinking line); the
answer follows when the run is done.
"""

from __future__ import annotations

from bots.adapters.console.output import ConsoleOutput
from bots.chat.queued import queued_text

__all__ = ["ConsoleQueued"]


class ConsoleQueued:
    """Prints "queued behind N" to the console's output."""

    __slots__ = ("_output",)

    def __init__(self, output: ConsoleOutput) -> None:
        self._output = output

    async def queued(self, ahead: int) -> None:
        """Print the notice now, above whatever the terminal shows."""
        self._output.notice(queued_text(ahead))
