"""``statebot state export`` and ``state import``: every session as JSON Lines.

``bots.cli.state_erasure`` wraps the export with ``--user`` (one user's data) and
runs this one when ``--user`` is not given.
"""

from __future__ import annotations

import functools

import click

from bots.app.cli_format import HELP_OPTIONS, plural
from bots.cli.store import store_options, with_store
from core.governance.transfer import export_jsonl, import_jsonl

__all__ = ["export_cmd", "import_cmd"]


@click.command("export", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.pass_context
def export_cmd(ctx: click.Context, file: str) -> None:
    """Write every session to FILE as JSON Lines ('-' for stdout)."""
    with click.open_file(file, "w", encoding="utf-8", atomic=file != "-") as out:
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


@click.command("import", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True, help="Overwrite sessions that already exist.")
@click.pass_context
def import_cmd(ctx: click.Context, file: str, replace: bool) -> None:
    """Load sessions from a JSON Lines export (data only; validated before writing)."""
    with click.open_file(file, encoding="utf-8") as lines:
        content = list(lines)
    count = with_store(
        ctx, lambda db: import_jsonl(db, content, replace=replace), create=True, writes=True
    )
    click.echo(f"imported {plural(count, 'session')}")
