"""``statebot state …``: inspect and repair stored session state from a terminal.

Every command calls ``core.governance`` (the same functions as chat ``/state``) on the
same deployment the bots serve from: with ``--redis-url`` / ``REDIS_URL`` (environment or
``.env``) the store is built by ``bots.app.build.build_store`` (RedisDb snapshotting to
the durable store), so a delete or restore is what the very next bot run sees; without
it, the durable store alone, where a write is refused if Redis serves the deployment
(``--durable-only`` to write there anyway; ``bots/cli/store.py``).

stdout is the commands' data (JSON, JSON Lines); log lines, the store's included, go
to stderr while a command runs (``STATEBOT_LOG_FORMAT``; warnings and up unless
``STATEBOT_LOG_LEVEL`` is set).
"""

from __future__ import annotations

import time
from typing import Any

import click

from bots.app.cli_format import HELP_OPTIONS, iso_time, plural, with_iso_times
from bots.cli.audit_view import diff_lines, history_json, history_lines, redact_ops
from bots.cli.errors import BadInput
from bots.cli.state_erasure import erase_cmd, expire_cmd, export_with_user_cmd
from bots.cli.state_migrate import migrate
from bots.cli.state_rekey import rekey_cmd
from bots.cli.state_transfer import import_cmd
from bots.cli.state_usage import usage
from bots.cli.store import (
    DB_URL_HELP,
    DURABLE_ONLY_HELP,
    REDIS_URL_HELP,
    SESSION_ID,
    operator,
    print_json,
    store_options,
    with_store,
)
from bots.ops.logging import HUMAN_FORMAT, logging_for_command
from core.db.base import BaseDb
from core.exceptions import SessionNotFoundError
from core.governance.audit import audit_log, diff_versions
from core.governance.sessions import (
    delete_session,
    dump_session,
    list_sessions,
    restore_version,
    session_history,
)
from core.governance.sessions import health as store_health
from core.state.audit import AuditEntry
from tools.catalog import is_internal_session


@click.group(context_settings=HELP_OPTIONS)
@click.option("--db-url", default=None, help=DB_URL_HELP)
@click.option("--redis-url", default=None, help=REDIS_URL_HELP)
@click.option("--durable-only", is_flag=True, help=DURABLE_ONLY_HELP)
@click.pass_context
def state(
    ctx: click.Context, db_url: str | None, redis_url: str | None, durable_only: bool
) -> None:
    """Inspect, restore, export and import stored session state.

    --db-url, --redis-url and --durable-only go before or after the subcommand.
    """
    # the flags as given; bots.cli.store.store_choice fills the rest from the settings
    ctx.obj = {"db_url": db_url, "redis_url": redis_url, "durable_only": durable_only}
    # unconfigured, structlog prints to stdout: a log line of the store's start-up or
    # close would land in the data (``state export -`` JSON Lines)
    settings = _log_settings()
    ctx.with_resource(logging_for_command(settings[0], level=settings[1]))


def _log_settings() -> tuple[str, str]:
    """(format, level) of the log lines: warnings and errors only, so an operator reads
    the command's own lines, unless STATEBOT_LOG_LEVEL asks for more."""
    from bots.settings import Settings

    settings = Settings()
    chosen = "statebot_log_level" in settings.model_fields_set
    level = settings.statebot_log_level if chosen else "WARNING"
    return settings.statebot_log_format or HUMAN_FORMAT, level


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.pass_context
def health(ctx: click.Context) -> None:
    """Check the stores and show snapshot lag and quarantined sessions (exit 1 if down)."""
    report = with_store(ctx, store_health)
    print_json(report)
    if not report["reachable"]:
        ctx.exit(1)


@state.command("list", context_settings=HELP_OPTIONS)
@store_options
@click.option("--owner", default=None, help="Only sessions of this agent/team/workflow id.")
@click.option("--limit", default=100, show_default=True, help="Show at most this many.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Include the agents' internal bookkeeping sessions (taskboard-index:…).",
)
@click.pass_context
def list_cmd(ctx: click.Context, owner: str | None, limit: int, show_all: bool) -> None:
    """List sessions, most recently updated first."""

    async def read(db: BaseDb) -> tuple[list[dict[str, Any]], int]:
        # internal sessions are left out after reading: ask for more until `limit`
        # conversations are found or the store has no more
        asked = limit
        while True:
            rows = await list_sessions(db, owner_id=owner, limit=asked)
            shown = [r for r in rows if show_all or not is_internal_session(r["session_id"])]
            if len(shown) >= limit or len(rows) < asked:
                return shown[:limit], len(rows) - len(shown)
            asked *= 2

    rows, hidden = with_store(ctx, read)
    for row in rows:
        click.echo(
            f"{row['session_id']}\tv{row['version']}\t{row['kind']}:{row['owner_id'] or '-'}"
            f"\t{plural(row['keys'], 'key')}\tupdated {iso_time(row['updated_at']) or '-'}"
        )
    if not rows:
        click.echo("no sessions")
    if hidden:  # stderr: stdout stays the list
        click.echo(f"({plural(hidden, 'internal session')} not shown; --all shows them)", err=True)


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id", type=SESSION_ID)
@click.option("--reveal", is_flag=True, help="Show values of sensitive keys too.")
@click.pass_context
def dump(ctx: click.Context, session_id: str, reveal: bool) -> None:
    """Show a session's state, meta and recent versions."""
    dumped = with_store(ctx, lambda db: dump_session(db, session_id, reveal=reveal))
    print_json(with_iso_times(dumped))


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id", type=SESSION_ID)
@click.option(
    "-n", "--limit", default=20, show_default=True, help="Show at most this many versions."
)
@click.option("--json", "as_json", is_flag=True, help="Machine output: versions with states.")
@click.option("--reveal", is_flag=True, help="Show values of sensitive keys too (--json).")
@click.pass_context
def history(ctx: click.Context, session_id: str, limit: int, as_json: bool, reveal: bool) -> None:
    """Show who changed what in a session, newest first ("v12 ana used add_task: …")."""

    async def read(db: BaseDb) -> tuple[list[dict[str, Any]], list[AuditEntry]]:
        versions = await session_history(db, session_id, limit=limit, reveal=reveal)
        try:
            entries = await audit_log(db, session_id, limit=limit)
        except SessionNotFoundError:  # deleted: its history may still be listed
            entries = []
        return versions, entries

    versions, entries = with_store(ctx, read)
    if not versions and not entries:
        raise BadInput(f"no history for session {session_id!r}")
    if as_json:
        print_json(history_json(versions, entries))
        return
    for line in history_lines(versions, entries, now=time.time())[:limit]:
        click.echo(line)


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id", type=SESSION_ID)
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
        forward = await diff_versions(db, session_id, v1, v2)
        return forward, await diff_versions(db, session_id, v2, v1)

    ops, back = with_store(ctx, read)
    if not reveal:
        ops, back = redact_ops(ops), redact_ops(back)
    if as_json:
        print_json(ops)
        return
    if not ops:
        click.echo(f"v{v1} and v{v2} hold the same state")
        return
    click.echo(f"v{v1} → v{v2}: {plural(len(ops), 'change')}")
    for line in diff_lines(ops, back):
        click.echo(f"  {line}")


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id", type=SESSION_ID)
@click.argument("version", type=int)
@click.pass_context
def restore(ctx: click.Context, session_id: str, version: int) -> None:
    """Make an old version the current state again (saved as a new version)."""
    actor = operator()
    new = with_store(
        ctx, lambda db: restore_version(db, session_id, version, actor=actor), writes=True
    )
    click.echo(f"restored {session_id} to version {version} (now version {new})")


@state.command(context_settings=HELP_OPTIONS)
@store_options
@click.argument("session_id", type=SESSION_ID)
@click.confirmation_option(prompt="Delete this session and its history?")
@click.pass_context
def delete(ctx: click.Context, session_id: str) -> None:
    """Delete a session and its history."""
    with_store(ctx, lambda db: delete_session(db, session_id), writes=True)
    click.echo(f"deleted {session_id}")


# export with --user (state_erasure) replaces the plain export and runs it without --user
for _command in (
    usage,
    migrate,
    import_cmd,
    erase_cmd,
    expire_cmd,
    export_with_user_cmd,
    rekey_cmd,
):
    state.add_command(_command)
