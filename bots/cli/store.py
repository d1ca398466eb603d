"""What every ``statebot state`` command shares: which store, opened how, and how JSON
is printed.

The store is the one the bots serve from, read from the same settings as theirs:
``--db-url`` else ``STATEBOT_DB_URL``, ``--redis-url`` else ``REDIS_URL`` (the
environment, then ``.env``). With a Redis URL it is built by
``bots.app.build.build_store`` (RedisDb snapshotting to the durable store), so a delete
or restore is what the very next bot run sees. Without one, the durable store alone —
and a write is refused when the durable store records that Redis serves it
(``core.db.fronts``, written by every bot and snapshotter at start): the bots would
keep serving Redis' copy. ``--durable-only`` says to write the durable store alone
anyway (a deployment that dropped Redis, or rebuilding from the durable store). Each
command module builds on these helpers; none imports another command.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlalchemy.engine import make_url

from bots.app.cli_format import iso_time
from bots.cli.errors import BadInput, store_error
from core.db.base import BaseDb
from core.db.fronts import afronts
from core.db.limits import StateLimits
from core.exceptions import InvalidIdError, StoreError
from core.redaction import redact_text

__all__ = [
    "DB_URL_HELP",
    "DEFAULT_DB_URL",
    "DURABLE_ONLY_HELP",
    "REDIS_URL_HELP",
    "SESSION_ID",
    "BadInvocation",
    "DurableWriteRefused",
    "StoreChoice",
    "open_deployment",
    "operator",
    "print_json",
    "refuse_durable_write",
    "sqlite_file",
    "store_choice",
    "store_options",
    "with_store",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DB_URL = "sqlite:///statebot.db"


class SessionIdParam(click.ParamType[str]):
    """A session id argument, refused at the edge (exit 2, one line) when no store could
    hold it — a NUL, a lone surrogate from bytes that are not UTF-8, over the length
    limit — so no store sees it and no driver error stands in for the answer."""

    name = "session_id"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            StateLimits().check_ids(value)  # the limits every store applies (core/db/limits)
        except InvalidIdError as exc:
            self.fail(str(exc), param, ctx)
        return str(value)


SESSION_ID = SessionIdParam()


def open_deployment(db_url: str, redis_url: str | None) -> BaseDb:
    """The store the bots use: RedisDb over the durable store when Redis is named, else the
    durable store; either way built as the bots build it (with the STATEBOT_STATE_KEYS ring)."""
    from bots.app.build import build_store
    from bots.settings import Settings

    return build_store(Settings(redis_url=redis_url or None, statebot_db_url=db_url))


@dataclass(frozen=True, slots=True)
class StoreChoice:
    """The stores a command acts on: the durable one, and Redis in front of it or not."""

    db_url: str
    redis_url: str | None
    #: ``--durable-only``: the durable store alone, even on a Redis deployment
    durable_only: bool


class BadInvocation(click.ClickException):
    """Store flags that cannot be followed as given: exit status 2, as for bad input."""

    exit_code = 2


class DurableWriteRefused(BadInvocation):
    """A write to the durable store alone on a deployment that serves from Redis."""


def store_choice(ctx: click.Context) -> StoreChoice:
    """The flags, else the settings the bots read (the environment, then ``.env``)."""
    from bots.settings import Settings

    flags = ctx.ensure_object(dict)
    settings = Settings()
    db_url = (flags.get("db_url") or "").strip() or settings.statebot_db_url
    given_redis = (flags.get("redis_url") or "").strip() or None
    if flags.get("durable_only"):
        if given_redis is not None:
            raise BadInvocation(
                "--durable-only and --redis-url contradict each other: pass one of them"
            )
        return StoreChoice(db_url, None, durable_only=True)
    return StoreChoice(db_url, given_redis or settings.redis_url, durable_only=False)


async def refuse_durable_write(db: BaseDb, choice: StoreChoice) -> None:
    """DurableWriteRefused when ``db`` is the durable store alone and it records a Redis
    serving it (unless ``--durable-only``): the bots would not see the write."""
    if choice.redis_url is not None or choice.durable_only:
        return
    path = sqlite_file(choice.db_url.strip())
    if path is not None and not path.exists():
        return  # no file yet, so no record: reading would create it before the command
    fronts = await afronts(db)
    if not fronts:
        return
    last = fronts[0]
    seen = iso_time(last.seen_at) or "an unknown time"
    raise DurableWriteRefused(
        f"refused: the bots of this deployment serve sessions from Redis at {last.address} "
        f"(key prefix {last.key_prefix!r}, started on {last.seen_by} at {seen}), so a write "
        "to the durable store alone would not reach them and nothing was written; pass "
        "--redis-url URL (or set REDIS_URL in the environment or .env), or --durable-only "
        "if that Redis is gone or no longer used"
    )


def operator() -> str:
    """Who runs the command, for the audit trail ("cli:<login>")."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "cli"


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def sqlite_file(db_url: str) -> Path | None:
    """The file a SQLite URL (or bare path) names; None for other stores and :memory:."""
    scheme = db_url.split("://", 1)[0].lower() if "://" in db_url else ""
    if scheme and not scheme.startswith("sqlite"):
        return None
    database = make_url(db_url).database if scheme else db_url
    return Path(database) if database and database != ":memory:" else None


def with_store(
    ctx: click.Context,
    action: Callable[[BaseDb], Awaitable[T]],
    *,
    create: bool = False,
    writes: bool = False,
) -> T:
    """Open the store, run ``action``, close it; store errors become one-line CLI errors
    (``bots.cli.errors``).

    Unless ``create``, a SQLite file that does not exist is an error: opening it would
    create an empty database, and a typo in --db-url would look like "no sessions".
    An action that ``writes`` is refused on the durable store alone of a Redis
    deployment (:func:`refuse_durable_write`).
    """
    choice = store_choice(ctx)
    db_url = choice.db_url
    path = sqlite_file(db_url.strip())
    if not create and path is not None and not path.exists():
        raise BadInput(f"no database file {str(path)!r} (from --db-url {db_url})")

    async def run() -> T:
        db = open_deployment(db_url, choice.redis_url)
        try:
            if writes:
                await refuse_durable_write(db, choice)
            return await action(db)
        finally:
            await db.aclose()  # RedisDb: copies what this command changed to the durable store

    try:
        return asyncio.run(run())
    except InvalidIdError as exc:  # an id no store can hold: refused before any saw it
        raise BadInput(redact_text(str(exc))) from exc
    except (StoreError, ValueError) as exc:
        reported = store_error(exc)  # one line; exit 2 when it is the caller's input
        if reported is None:
            raise
        raise reported from exc


DB_URL_HELP = (
    "Durable store (sqlite:///file.db, postgresql://…) [env or .env STATEBOT_DB_URL, "
    f"else {DEFAULT_DB_URL}]."
)
REDIS_URL_HELP = (
    "Hot store the bots serve from (redis://…) [env or .env REDIS_URL]; commands then act "
    "on Redis and the durable store together, as the bots do."
)
DURABLE_ONLY_HELP = (
    "Act on the durable store alone, even if REDIS_URL is set or the bots serve from "
    "Redis (a deployment that dropped Redis, or rebuilding from the durable store)."
)


def _override(key: str) -> Callable[[click.Context, click.Parameter, str | None], None]:
    """A callback storing a subcommand's store option over the group's value."""

    def store(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(dict)[key] = value

    return store


def _durable_only(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:  # a subcommand without the flag keeps the group's
        ctx.ensure_object(dict)["durable_only"] = True


def store_options(command: F) -> F:
    """``--db-url`` / ``--redis-url`` / ``--durable-only`` on a subcommand too:
    ``state list --db-url X``."""
    command = click.option(
        "--durable-only",
        is_flag=True,
        expose_value=False,
        callback=_durable_only,
        help=DURABLE_ONLY_HELP,
    )(command)
    command = click.option(
        "--redis-url",
        default=None,
        expose_value=False,
        callback=_override("redis_url"),
        help=REDIS_URL_HELP,
    )(command)
    return click.option(
        "--db-url",
        default=None,
        expose_value=False,
        callback=_override("db_url"),
        help=DB_URL_HELP,
    )(command)
