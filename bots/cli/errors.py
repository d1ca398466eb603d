"""How every ``statebot`` command reports a failure: one line per problem, no traceback.

The rule, decided here once:

* **bad input** — a refused setting (named with where its value came from), an
  argument or option click cannot parse, a file that is not what the command reads,
  an id or version that names nothing — exits **2**, ``Error: …`` once per problem;
* a failure of the world — a store down, a write refused — exits **1** with one line;
* anything else is a bug and keeps its traceback.

``bots.cli.main`` applies :func:`cli_error` to every command (``StatebotGroup.invoke``:
usage errors and refused settings), ``bots.cli.store.with_store`` :func:`store_error` to
what a store action raises; commands raise :class:`BadInput` for what only they judge.
"""

from __future__ import annotations

from typing import IO, Any

import click
from pydantic import ValidationError

from bots.ops.startup import one_line
from bots.settings import settings_class_of, settings_problems
from core.exceptions import ImportFileError, InvalidIdError, StoreError
from core.redaction import redact_text

__all__ = ["BAD_INPUT", "BadInput", "cli_error", "one_line_text", "store_error"]

#: store errors that are the caller's input, not the store's failure: an id no store can
#: hold, a session or version that does not exist, a file that is not an export
BAD_INPUT: tuple[type[BaseException], ...] = (InvalidIdError, LookupError, ImportFileError)


class BadInput(click.ClickException):
    """Bad input: exit 2, one ``Error:`` line per problem (no usage text), nothing done."""

    exit_code = 2

    def __init__(self, *problems: str) -> None:
        self.problems = [one_line_text(problem) for problem in problems] or ["bad input"]
        super().__init__("\n".join(self.problems))

    def show(self, file: IO[Any] | None = None) -> None:
        """Each problem on its own ``Error:`` line, on stderr."""
        for problem in self.problems:
            click.echo(f"Error: {problem}", file=file, err=file is None)


def one_line_text(text: str) -> str:
    """``text`` with its line breaks and runs of blanks folded into single spaces."""
    return " ".join(text.split())


def cli_error(exc: BaseException) -> click.ClickException | None:
    """What any command's ``exc`` is reported as, or None to let it go as it is: a
    click usage error and a refused setting become one line per problem (exit 2)."""
    if isinstance(exc, click.UsageError) and not isinstance(exc, BadInput):
        return _usage(exc)
    if isinstance(exc, ValidationError):
        settings_cls = settings_class_of(exc)
        if settings_cls is not None:  # another model's ValidationError is a bug
            return BadInput(*settings_problems(exc, settings_cls))
    return None


def store_error(exc: StoreError | ValueError) -> click.ClickException | None:
    """What a store action's failure is reported as (``bots.cli.store.with_store``): the
    caller's input (BAD_INPUT) exit 2, a store's failure exit 1, in one line; None for
    another model's ValidationError (a bug)."""
    if isinstance(exc, ValidationError):
        return cli_error(exc)
    if isinstance(exc, BAD_INPUT):
        return BadInput(redact_text(one_line(exc)))
    return click.ClickException(redact_text(one_line(exc)))


def _usage(exc: click.UsageError) -> BadInput:
    """click's usage error (usage, a hint, a blank line, the error) as one line; one of
    click's own parse errors (a bad value, an unknown option) says where help is."""
    message = exc.format_message()
    ctx = exc.ctx
    if ctx is None or type(exc) is click.UsageError:  # a command's own refusal says enough
        return BadInput(message)
    return BadInput(f"{message} (see '{ctx.command_path} --help')")
