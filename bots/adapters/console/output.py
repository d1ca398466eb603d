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
from bots.adapters.console.markdown import for_terminal

#: back to the start of the line and clear it (the prompt and the half-typed text)
CLEAR_LINE = "\r\x1b[K"
#: shown on a terminal while a typed line goes to the model, cleared by its reply
THINKING = "thinking…"


class ConsoleOutput:
    """The console's stdout; ``prompt`` is the prompt on screen (None while a run works).

    Every reply is Markdown shown as a terminal shows it (:func:`for_terminal`).
    """

    __slots__ = ("_interactive", "_lock", "_stdout", "_thinking", "prompt")

    def __init__(self, stdout: TextIO, *, interactive: bool) -> None:
        self._stdout = stdout
        self._interactive = interactive
        self._lock = threading.Lock()
        self._thinking = False
        self.prompt: str | None = None

    def thinking(self) -> None:
        """On a terminal, say the model is working until the reply replaces the line."""
        if not self._interactive:
            return  # piped output carries replies only
        with self._lock:
            self._stdout.write(THINKING)
            self._stdout.flush()
            self._thinking = True

    def reply(self, text: str) -> None:
        """Print the reply to a typed line (over the thinking line, if one is shown)."""
        with self._lock:
            if self._thinking:
                self._stdout.write(CLEAR_LINE)
                self._thinking = False
            print(for_terminal(text), file=self._stdout, flush=True)

    def done(self) -> None:
        """A line ended without a reply: clear the thinking line, if one is shown."""
        with self._lock:
            if self._thinking:
                self._stdout.write(CLEAR_LINE)
                self._stdout.flush()
                self._thinking = False

    def notice(self, text: str) -> None:
        """Print a reply nobody typed a line for, above the prompt if one is showing."""
        text = for_terminal(text)
        with self._lock:
            if self._thinking:  # above the thinking line, which stays
                self._stdout.write(CLEAR_LINE + text + "\n" + THINKING)
                self._stdout.flush()
                return
            if not self._interactive or self.prompt is None:
                print(text, file=self._stdout, flush=True)
                return
            self._stdout.write(CLEAR_LINE + text + "\n")
            self._stdout.flush()
            redraw_line(self._stdout, self.prompt)
