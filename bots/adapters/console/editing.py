"""Line editing and history for the interactive console (the stdlib ``readline``).

Arrow keys move the cursor and recall earlier lines instead of reaching the model
as ``^[[A``. History lives in ``~/.statebot_history`` (at most ``HISTORY_LENGTH``
lines), read when the console starts and written when it stops. The terminal's
settings are restored on the way out: the console may stop (Ctrl-C, SIGTERM) while
the reader thread is inside readline, which had switched the terminal to raw mode.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import structlog

log = structlog.get_logger("bots.console")

HISTORY_FILE = ".statebot_history"
HISTORY_LENGTH = 1000


def default_history_path() -> Path:
    """``~/.statebot_history``."""
    return Path.home() / HISTORY_FILE


@contextlib.contextmanager
def line_editing(history: Path | None) -> Iterator[None]:
    """Readline editing (and history in ``history``, unless None) for ``input()``."""
    try:
        import readline
    except ImportError:  # a Python built without readline: plain input() still works
        yield
        return
    saved = _terminal_settings()
    readline.set_history_length(HISTORY_LENGTH)
    if history is not None:
        try:
            readline.read_history_file(history)
        except FileNotFoundError:
            pass  # the first start: the file is written when the console stops
        except OSError as exc:  # unreadable history costs the recall, not the console
            log.warning("console_history_unreadable", path=str(history), error=str(exc))
    try:
        yield
    finally:
        if history is not None:
            try:
                readline.write_history_file(history)
            except OSError as exc:
                log.warning("console_history_not_saved", path=str(history), error=str(exc))
        _restore_terminal(saved)


def forget_last_line() -> None:
    """Drop the line just typed from the history (it held a secret: ``/connect`` tokens)."""
    try:
        import readline
    except ImportError:
        return
    length = readline.get_current_history_length()
    if length > 0:
        readline.remove_history_item(length - 1)


def _terminal_settings() -> Any:
    try:
        import termios

        return termios.tcgetattr(sys.stdin.fileno())
    except (ImportError, OSError, ValueError):  # not a terminal, or no termios
        return None


def _restore_terminal(saved: Any) -> None:
    if saved is None:
        return
    import termios

    with contextlib.suppress(OSError, ValueError):
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


def redraw_line(stdout: TextIO, prompt: str) -> None:
    """Draw the prompt and the line being typed again, after text was printed over them.

    GNU readline redraws both (``rl_forced_update_display``) and keeps the cursor where
    the user left it; Python's ``readline`` module does not expose that call, hence
    ctypes. Without it (libedit, no readline) the prompt and the typed text are written.
    """
    forced = _forced_update_display()
    if forced is not None:
        forced()
        return
    typed = ""
    with contextlib.suppress(ImportError):
        import readline

        typed = readline.get_line_buffer()
    stdout.write(prompt + typed)
    stdout.flush()


def _forced_update_display() -> Callable[[], Any] | None:
    try:
        import ctypes
        import readline
    except ImportError:
        return None
    if "GNU readline" not in (readline.__doc__ or ""):
        return None  # libedit's stand-in does not redraw a line it did not draw itself
    try:
        return ctypes.CDLL(readline.__file__).rl_forced_update_display
    except (OSError, AttributeError):
        return None
