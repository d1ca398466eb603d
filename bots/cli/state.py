"""``statebot state …``: inspect and repair stored session state from a terminal.

Every command calls ``core.db.admin`` (the same functions as chat ``/state``) on the
same deployment the bots serve from: with ``--redis-url`` / ``REDIS_URL`` the store is
built by ``bots.app.build.build_store`` (RedisDb snapshotting to ``--db-url``), so a delete
or restore is what the very next bot run sees; without it, the durable store alone.
"""

from __future__ import annotations

import asyncio
import functools
import getpass
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlalchemy.engine import make_url

from bots.app.cli_format import HELP_OPTIONS, iso_time, plural, with_iso_times
from bots.cli import audit_view
from core.db import admin
from core.db.base import BaseDb
from core.exceptions import StoreError
from core.redaction import redact_text

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DB_URL = "sqlite:///statebot.db"


def open_deployment(db_url: str, redis_url: str | None) -> BaseDb:
    """The store the bots use: RedisDb over the durable store when Redis is named, else the
    durable store; either way built as the bots build it (with the STATEBOT_STATE_KEYS ring)."""
    from bots.app.build import build_store
    from bots.settings import Settings

    return build_store(Settings(redis_url=redis_url or None, statebot_db_url=db_url))


def _operator() -> str:
    """Who runs the command, for the audit trail ("cli:<login>")."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "cli"


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _sqlite_file(db_url: str) -> Path | None:
    """The file a SQLite URL (or bare path) names; None for other stores and :memory:."""
    scheme = db_url.split("://", 1)[0].lower() if "://" in db_url else ""
    if scheme and not scheme.startswith("sqlite"):
        return None
    database = make_url(db_url).database if scheme else db_url
    return Path(database) if database and database != ":memory:" else None


def _with_store(
    ctx: click.Context, action: Callable[[BaseDb], Awaitable[T]], *, create: bool = False
) -> T:
    """Open the store, run ``action``, close it; store errors become clean CLI errors.

    Unless ``create``, a SQLite file that does not exist is an error: opening it would
    create an empty database, and a typo in --db-url would look like "no sessions".
    """
    db_url: str = ctx.obj["db_url"]
    redis_url = (ctx.obj["redis_url"] or "").strip() or None
    path = _sqlite_file(db_url.strip())
    if not create and path is not None and not path.exists():
        raise click.ClickException(f"no database file {str(path)!r} (from --db-url {db_url})")

    async def run() -> T:
        db = open_deployment(db_url, redis_url)
        try:
            return await action(db)
        finally:
            await db.aclose()  # RedisDb: copies what this command changed to the durable store

    try:
        return asyncio.run(run())
    except (StoreError, ValueError) as exc:
        raise click.ClickException(redact_text(str(exc))) from exc


_DB_URL_HELP = "Durable store (sqlite:///file.db, postgresql://…) [env STATEBOT_DB_URL]."
_REDIS_URL_HELP = (
    "Hot store the bots serve from (redis://…) [env REDIS_URL]; commands then act on "
    "Redis and the durable store together, as the bots do."
)


def _override(key: str) -> Callable[[click.Context, click.Parameter, str | None], None]:
    """A callback storing a subcommand's store option over the group's value."""

    def store(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(dict)[key] = value

    return store


def store_options(command: F) -> F:
    """``--db-url`` / ``--redis-url`` on a subcommand too: ``state list --db-url X``."""
    command = click.option(
        "--redis-url",
        default=None,
        expose_value=False,
        callback=_override("redis_url"),
        help=_REDIS_URL_HELP,
    )(command)
    return click.option(
        "--db-url",
        default=None,
        expose_value=False,
        callback=_override("db_url"),
        help=_DB_URL_HELP,
    )(command)


@click.group(context_settings=HELP_OPTIONS)
@click.option(
    "--db-url",
    envvar="STATEBOT_DB_URL",
    default=DEFAULT_DB_URL,
    show_default=True,
    help=_DB_URL_HELP,
)
@click.option("--redis-url", envvar="REDIS_URL", default=None, help=_REDIS_URL_HELP)
@click.pass_context
def state(ctx: click.Context, db_url: str, redis_url: str | None) -> None:
    """Inspect, restore, export and import stored session state.

    --db-url and --redis-url go before or after the subcommand.
    """
    ctx.obj = {"db_url": db_url, "redis_url": redis_url}


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.pass_context
def health(ctx: click.Context) -> None:
    """Check the stores and show snapshot lag and quarantined sessions (exit 1 if down)."""
    report = _with_store(ctx, admin.health)
    _print_json(report)
    if not report["reachable"]:
        ctx.exit(1)


@state.command("list", context_settings=HELP_OPTIONS)
@store_options
@click.option("--owner", default=None, help="Only sessions of this agent/team/workflow id.")
@click.option("--limit", default=100, show_default=True, help="Show at most this many.")
@click.pass_context
def list_cmd(ctx: click.Context, owner: str | None, limit: int) -> None:
    """List sessions, most recently updated first."""
    rows = _with_store(ctx, lambda db: admin.list_sessions(db, owner_id=owner, limit=limit))
    for row in rows:
        click.echo(
            f"{row['session_id']}\tv{row['version']}\t{row['kind']}:{row['owner_id'] or '-'}"
            f"\t{plural(row['keys'], 'key')}\tupdated {iso_time(row['updated_at']) or '-'}"
        )
    if not rows:
        click.echo("no sessions")


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id")
@click.option("--reveal", is_flag=True, help="Show values of sensitive keys too.")
@click.pass_context
def dump(ctx: click.Context, session_id: str, reveal: bool) -> None:
    """Show a session's state, meta and recent versions."""
    dumped = _with_store(ctx, lambda db: admin.dump_session(db, session_id, reveal=reveal))
    _print_json(with_iso_times(dumped))


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id")
@click.option(
    "-n", "--limit", default=20, show_default=True, help="Show at most this many versions."
)
@click.option("--json", "as_json", is_flag=True, help="Machine output: versions with states.")
@click.option("--reveal", is_flag=True, help="Show values of sensitive keys too (--json).")
@click.pass_context
def history(ctx: click.Context, session_id: str, limit: int, as_json: bool, reveal: bool) -> None:
    """Show who changed what in a session, newest first ("v12 ana used add_task: …")."""

    async def read(db: BaseDb) -> tuple[list[dict[str, Any]], list[admin.AuditEntry]]:
        versions = await admin.session_history(db, session_id, limit=limit, reveal=reveal)
        try:
            entries = await admin.audit_log(db, session_id, limit=limit)
        except admin.SessionNotFoundError:  # deleted: its history may still be listed
            entries = []
        return versions, entries

    versions, entries = _with_store(ctx, read)
    if not versions and not entries:
        raise click.ClickException(f"no history for session {session_id!r}")
    if as_json:
        _print_json(audit_view.history_json(versions, entries))
        return
    for line in audit_view.history_lines(versions, entries, now=time.time())[:limit]:
        click.echo(line)


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id")
@click.argument("v1", type=int)
@click.argument("v2", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine output: the RFC 6902 patch.")
@click.option("--reveal", is_flag=True, help="Show values of sensitive keys too.")
@click.pass_context
def diff(
    ctx: click.Context, session_id: str, v1: int, v2: int, as_json: bool, reveal: bool
) -> None:
    """Show what changed from version V1 to version V2 (an RFC 6902 patch)."""

    async def read(db: BaseDb) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        forward = await admin.diff_versions(db, session_id, v1, v2)
        return forward, await admin.diff_versions(db, session_id, v2, v1)

    ops, back = _with_store(ctx, read)
    if not reveal:
        ops, back = audit_view.redact_ops(ops), audit_view.redact_ops(back)
    if as_json:
        _print_json(ops)
        return
    if not ops:
        click.echo(f"v{v1} and v{v2} hold the same state")
        return
    click.echo(f"v{v1} → v{v2}: {plural(len(ops), 'change')}")
    for line in audit_view.diff_lines(ops, back):
        click.echo(f"  {line}")


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id")
@click.argument("version", type=int)
@click.pass_context
def restore(ctx: click.Context, session_id: str, version: int) -> None:
    """Make an old version the current state again (saved as a new version)."""
    actor = _operator()
    new = _with_store(ctx, lambda db: admin.restore_version(db, session_id, version, actor=actor))
    click.echo(f"restored {session_id} to version {version} (now version {new})")


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id")
@click.confirmation_option(prompt="Delete this session and its history?")
@click.pass_context
def delete(ctx: click.Context, session_id: str) -> None:
    """Delete a session and its history."""
    _with_store(ctx, lambda db: admin.delete_session(db, session_id))
    click.echo(f"deleted {session_id}")


@state.command("export", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.pass_context
def export_cmd(ctx: click.Context, file: str) -> None:
    """Write every session to FILE as JSON Lines ('-' for stdout)."""
    with click.open_file(file, "w", encoding="utf-8", atomic=file != "-") as out:
        result = _with_store(ctx, functools.partial(admin.export_jsonl, out=out))
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


@state.command("import", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True, help="Overwrite sessions that already exist.")
@click.pass_context
def import_cmd(ctx: click.Context, file: str, replace: bool) -> None:
    """Load sessions from a JSON Lines export (data only; validated before writing)."""
    with click.open_file(file, encoding="utf-8") as lines:
        content = list(lines)
    count = _with_store(
        ctx, lambda db: admin.import_jsonl(db, content, replace=replace), create=True
    )
    click.echo(f"imported {plural(count, 'session')}")


def _register_usage() -> None:
    # imported here: the command module builds on the group and helpers above
    from bots.cli.state_usage import usage

    state.add_command(usage)


_register_usage()


def _register_migrate() -> None:
    # imported here: the command module builds on the group and helpers above
    from bots.cli.state_migrate import migrate

    state.add_command(migrate)


_register_migrate()


def _register_erasure() -> None:
    # imported here: the command module builds on the group and helpers above; its
    # export (with --user) replaces the plain one and runs it when --user is not given
    from bots.cli.state_erasure import erase_cmd, expire_cmd, export_with_user_cmd

    for command in (erase_cmd, expire_cmd, export_with_user_cmd):
        state.add_command(command)


_register_erasure()


def _register_rekey() -> None:
    # imported here: the command module builds on the group and helpers above
    from bots.cli.state_rekey import rekey_cmd

    state.add_command(rekey_cmd)


_register_rekey()
