"""The files ``statebot state`` commands write: opened so that a path that cannot be
written is one line of bad input, before any store is opened."""

from __future__ import annotations

from typing import IO, Any

import click

from bots.cli.errors import BadInput

__all__ = ["open_output"]


def open_output(path: str) -> IO[Any]:
    """``path`` opened for writing UTF-8 text ('-': stdout); a real file is written
    atomically (a failed command leaves what was there). BadInput when it cannot be
    created: a missing directory, no permission, a path that is a directory."""
    try:
        return click.open_file(path, "w", encoding="utf-8", atomic=path != "-")
    except OSError as exc:
        # the error names click's temporary file next to the target; name the target
        raise BadInput(f"cannot write {path!r}: {exc.strerror or exc}") from None
