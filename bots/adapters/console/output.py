"""Where the console prints: replies to typed lines, and scheduled replies between them.

A reply to a typed line is printed when the line's run ends, so the prompt is not on
screen. A scheduled reply (a reminder firing) may arrive while the reader thread sits
in ``input()`` with a half-typed line: it is printed above the prompt, and readline
redraws the prompt and the line being typed (:func:`bots.adapters.console.editing.redraw_line`),
so the typing goes on where it was.
"""

from __future__ import annotations

import threading
from typing import TextIO

from bots.adapters.console.editing import redraw_line

#: back to the start of the line and clear it (the prompt and the half-typed text)
CLEAR_LINE = "\r\x1b[K"


class ConsoleOutput:
    """The console's stdout; ``prompt`` is the prompt on screen (None while a run works)."""

    __slots__ = ("_interactive", "_lock", "_stdout", "prompt")

    def __init__(self, stdout: TextIO, *, interactive: bool) -> None:
        self._stdout = stdout
        self._interactive = interactive
        self._lock = threading.Lock()
        self.prompt: str | None = None

    def reply(self, text: str) -> None:
        """Print the reply to a typed line."""
        with self._lock:
            print(text, file=self._stdout, flush=True)

    def notice(self, text: str) -> None:
        """Print a reply nobody typed a line for, above the prompt if one is showing."""
        with self._lock:
            if not self._interactive or self.prompt is None:
                print(text, file=self._stdout, flush=True)
                return
            self._stdout.write(CLEAR_LINE + text + "\n")
            self._stdout.flush()
            redraw_line(self._stdout, self.prompt)
