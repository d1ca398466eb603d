"""``statebot state export`` and ``state import``: every session as JSON Lines.

``bots.cli.state_erasure`` wraps the export with ``--user`` (one user's data) and
runs this one when ``--user`` is not given.
"""

from __future__ import annotations

import functools
import io

import click

from bots.app.cli_format import HELP_OPTIONS, plural
from bots.cli.errors import BadInput
from bots.cli.files import open_output
from bots.cli.store import store_options, with_store
from core.governance.transfer import export_jsonl, import_jsonl

__all__ = ["export_cmd", "import_cmd"]


@click.command("export", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.pass_context
def export_cmd(ctx: click.Context, file: str) -> None:
    """Write every session to FILE as JSON Lines ('-' for stdout)."""
    with open_output(file) as out:
        result = with_store(ctx, functools.partial(export_jsonl, out=out))
    click.echo(f"exported {plural(result.count, 'session')}", err=file == "-")
    if result.repaired:
        click.echo(
            f"{plural(len(result.repaired), 'session')} had unreadable timestamps, "
            "written as null: " + ", ".join(result.repaired),
            err=True,
        )
    if result.skipped:
        skipped = "; ".join(f"{sid}: {why}" for sid, why in result.skipped.items())
        raise click.ClickException(
            f"{plural(len(result.skipped), 'session')} NOT exported: {skipped}"
        )


def read_export(file: str) -> list[str]:
    """The lines of an export file ('-': stdin); BadInput when it cannot be read or is
    not UTF-8 text (an export always is), before any store is opened."""
    shown = "stdin" if file == "-" else repr(file)
    try:
        with click.open_file(file, "rb") as raw:
            data = raw.read()
    except OSError as exc:
        raise BadInput(f"cannot read {shown}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"{shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "an export is UTF-8 JSON Lines"
        ) from None
    # the same line breaks as reading it as a text file; str.splitlines would also break
    # at U+2028 and the like, which JSON strings may hold
    return list(io.StringIO(text, newline=None))


@click.command("import", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True, help="Overwrite sessions that already exist.")
@click.pass_context
def import_cmd(ctx: click.Context, file: str, replace: bool) -> None:
    """Load sessions from a JSON Lines export (data only; validated before writing)."""
    content = read_export(file)
    count = with_store(
        ctx, lambda db: import_jsonl(db, content, replace=replace), create=True, writes=True
    )
    click.echo(f"imported {plural(count, 'session')}")
