"""What every ``statebot state`` command shares: which store, opened how, and how JSON
is printed.

The store is the one the bots serve from: with ``--redis-url`` / ``REDIS_URL`` it is
built by ``bots.app.build.build_store`` (RedisDb snapshotting to ``--db-url``), so a
delete or restore is what the very next bot run sees; without it, the durable store
alone. Each command module builds on these helpers; none imports another command.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlalchemy.engine import make_url

from bots.cli.errors import BadInput, store_error
from core.db.base import BaseDb
from core.db.limits import StateLimits
from core.exceptions import InvalidIdError, StoreError

__all__ = [
    "DB_URL_HELP",
    "DEFAULT_DB_URL",
    "REDIS_URL_HELP",
    "SESSION_ID",
    "open_deployment",
    "operator",
    "print_json",
    "sqlite_file",
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
            self.fail(str(exc).removesuffix(" Nothing was written."), param, ctx)
        return str(value)


SESSION_ID = SessionIdParam()


def open_deployment(db_url: str, redis_url: str | None) -> BaseDb:
    """The store the bots use: RedisDb over the durable store when Redis is named, else the
    durable store; either way built as the bots build it (with the STATEBOT_STATE_KEYS ring)."""
    from bots.app.build import build_store
    from bots.settings import Settings

    return build_store(Settings(redis_url=redis_url or None, statebot_db_url=db_url))


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
    ctx: click.Context, action: Callable[[BaseDb], Awaitable[T]], *, create: bool = False
) -> T:
    """Open the store, run ``action``, close it; store errors become one-line CLI errors
    (``bots.cli.errors``).

    Unless ``create``, a SQLite file that does not exist is an error: opening it would
    create an empty database, and a typo in --db-url would look like "no sessions".
    """
    db_url: str = ctx.obj["db_url"]
    redis_url = (ctx.obj["redis_url"] or "").strip() or None
    path = sqlite_file(db_url.strip())
    if not create and path is not None and not path.exists():
        raise BadInput(f"no database file {str(path)!r} (from --db-url {db_url})")

    async def run() -> T:
        db = open_deployment(db_url, redis_url)
        try:
            return await action(db)
        finally:
            await db.aclose()  # RedisDb: copies what this command changed to the durable store

    try:
        return asyncio.run(run())
    except (StoreError, ValueError) as exc:
        reported = store_error(exc)  # one line; exit 2 when it is the caller's input
        if reported is None:
            raise
        raise reported from exc


DB_URL_HELP = "Durable store (sqlite:///file.db, postgresql://…) [env STATEBOT_DB_URL]."
REDIS_URL_HELP = (
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
        help=REDIS_URL_HELP,
    )(command)
    return click.option(
        "--db-url",
        default=None,
        expose_value=False,
        callback=_override("db_url"),
        help=DB_URL_HELP,
    )(command)
