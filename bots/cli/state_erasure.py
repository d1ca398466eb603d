"""``statebot state erase | expire | export --user``: a user's erasure and access
requests, and retention on demand (docs/erasure.md).

Each command calls the one core path (``core.governance.erasure.erase_user``,
``core.governance.user_export.export_user``, ``core.governance.retention.expire``) on the deployment
the bots serve from (``--redis-url``: RedisDb over the durable store), like every
``statebot state`` command. ``export`` without ``--user`` is the whole-store JSON
Lines export of ``bots/cli/state_transfer.py``, unchanged.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import click

from bots.app.cli_format import HELP_OPTIONS, plural
from bots.app.retention import policy_from_settings, retention_policy
from bots.cli.errors import BadInput
from bots.cli.files import open_output
from bots.cli.state_transfer import export_cmd
from bots.cli.store import print_json, store_options, with_store
from bots.keys import parse_user_key
from core.db.limits import StateLimits
from core.exceptions import InvalidIdError
from core.governance.erasure import erase_user, known_users
from core.governance.retention import expire
from core.governance.user_export import export_user

__all__ = ["erase_cmd", "expire_cmd", "export_with_user_cmd"]


_DAYS = click.FloatRange(min=0, min_open=True)
#: candidate keys named in a refusal; more are counted, not listed
_SHOWN = 10


def full_user_key(ctx: click.Context, user_id: str) -> str:
    """``user_id`` if it is a full key (platform:workspace:user); else BadInput naming
    the stored user keys it could mean, so a bare platform id never erases nothing
    while reporting success."""
    try:  # an id no store can hold is refused as such, before the stores are read
        StateLimits().check_id("user id", user_id)
    except InvalidIdError as exc:
        raise BadInput(str(exc)) from None
    try:
        parse_user_key(user_id)
        return user_id
    except ValueError:
        pass
    matches = sorted(k for k in with_store(ctx, known_users) if _could_mean(k, user_id))
    head = f"--user {user_id!r} is not a full user key (platform:workspace:user)"
    if not matches:
        raise BadInput(f"{head}, and no stored user matches {user_id!r}")
    shown = ", ".join(matches[:_SHOWN])
    more = f" and {len(matches) - _SHOWN} more" if len(matches) > _SHOWN else ""
    raise BadInput(f"{head}; it could mean: {shown}{more}")


def _could_mean(key: str, partial: str) -> bool:
    """A stored user key whose user (or workspace:user) part is ``partial``."""
    try:
        user = parse_user_key(key)[2]
    except ValueError:  # pseudonyms, actors: not user keys
        return False
    return user == partial or key.endswith(":" + partial)


@click.command("erase", context_settings=HELP_OPTIONS)
@store_options
@click.option("--user", "user_id", required=True, help="User key, platform:workspace:user.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def erase_cmd(ctx: click.Context, user_id: str, yes: bool) -> None:
    """Erase a user from every store: their own sessions, their runs and id in shared
    ones, memories and schedules. Prints what was done (exit 1 if anything failed)."""
    user_id = full_user_key(ctx, user_id)
    if not yes:
        click.confirm(
            f"Erase {user_id!r}: delete their own sessions and memories, remove their "
            "runs from shared sessions and pseudonymise their id there?",
            abort=True,
        )
    report = with_store(ctx, lambda db: erase_user(db, user_id), writes=True)
    print_json(report.to_dict())
    if not report.complete:
        raise click.ClickException(
            f"erasure of {user_id} incomplete: {plural(len(report.errors), 'step')} failed "
            "(listed under errors); run it again once the store is back, it is safe to repeat"
        )
    click.echo(
        f"erased {user_id}: {plural(len(report.sessions_deleted), 'session')} deleted, "
        f"{plural(len(report.sessions_scrubbed), 'session')} scrubbed",
        err=True,
    )


@click.command("expire", context_settings=HELP_OPTIONS)
@store_options
@click.option("--dry-run", is_flag=True, help="Show what would expire; delete nothing.")
@click.option(
    "--dm-days",
    type=_DAYS,
    default=None,
    help="Days a DM (or user-scoped) session is kept [else STATEBOT_RETENTION_DM_DAYS].",
)
@click.option(
    "--thread-days",
    type=_DAYS,
    default=None,
    help="Days a thread session is kept [else STATEBOT_RETENTION_THREAD_DAYS].",
)
@click.option(
    "--channel-days",
    type=_DAYS,
    default=None,
    help="Days a channel session is kept [else STATEBOT_RETENTION_CHANNEL_DAYS].",
)
@click.pass_context
def expire_cmd(
    ctx: click.Context,
    dry_run: bool,
    dm_days: float | None,
    thread_days: float | None,
    channel_days: float | None,
) -> None:
    """Delete sessions (and history rows) past their scope's retention now.

    Days come from STATEBOT_RETENTION_{DM,THREAD,CHANNEL}_DAYS unless given here.
    """
    from bots.settings import Settings

    if dm_days is None and thread_days is None and channel_days is None:
        policy = policy_from_settings(Settings())
    else:
        policy = retention_policy(dm=dm_days, thread=thread_days, channel=channel_days)
    if not policy.rules:
        raise click.UsageError(
            "no retention configured: set STATEBOT_RETENTION_DM_DAYS, _THREAD_DAYS or "
            "_CHANNEL_DAYS, or pass --dm-days / --thread-days / --channel-days"
        )
    report = with_store(
        ctx, functools.partial(expire, policy=policy, dry_run=dry_run), writes=not dry_run
    )
    print_json(report.to_dict())
    verb = "would expire" if dry_run else "expired"
    click.echo(f"{verb} {plural(len(report.sessions_expired), 'session')}", err=True)
    if report.errors:
        raise click.ClickException(
            f"{plural(len(report.errors), 'session')} could not be expired (listed under "
            "errors); the next run tries again"
        )


@click.command("export", context_settings=HELP_OPTIONS)
@store_options
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--user", "user_id", default=None, help="Export one user's data (JSON).")
@click.option(
    "--file",
    "out_file",
    default=None,
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Where to write (default: FILE, else stdout).",
)
@click.pass_context
def export_with_user_cmd(
    ctx: click.Context, file: str | None, user_id: str | None, out_file: str | None
) -> None:
    """Write every session to FILE as JSON Lines ('-' for stdout); with --user, one
    user's data as JSON, for an access request."""
    target = out_file or file
    if user_id is None:
        if target is None:
            raise click.UsageError("name a FILE ('-' for stdout), or --user for one user")
        ctx.invoke(export_cmd, file=target)
        return
    user_id = full_user_key(ctx, user_id)
    data: dict[str, Any] = with_store(ctx, lambda db: export_user(db, user_id))
    target = target or "-"
    with open_output(target) as out:
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    click.echo(
        f"exported {user_id}: {plural(len(data['sessions']), 'session')}, "
        f"{plural(len(data['shared_sessions']), 'shared session')}, "
        f"{len(data['memories'])} memor{'y' if len(data['memories']) == 1 else 'ies'}",
        err=True,
    )
