"""``statebot console [--agent taskboard] [--session NAME] [--db PATH] [--app MODULE:ATTR]``."""

from __future__ import annotations

import asyncio
import getpass
import sys
from collections.abc import Mapping

import click

from bots.adapters.console.editing import default_history_path
from bots.adapters.console.loop import run_console
from bots.adapters.console.output import ConsoleOutput
from bots.adapters.console.reminders import console_schedules
from bots.adapters.console.session import ConsoleSession
from bots.app.build import App, build_app
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent
from bots.chat.service import ConfigError
from bots.ops.logging import configure_logging
from bots.settings import Settings
from core.db.base import BaseDb


def _local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        return "local"


async def _serve(app: App, agent: str, session: str) -> None:
    try:
        console = ConsoleSession(app.service, agent_id=agent, session=session, user=_local_user())
        interactive = sys.stdin.isatty()
        output = ConsoleOutput(sys.stdout, interactive=interactive)
        grace = app.settings.statebot_shutdown_grace
        # reminders set in the console fire in it (STATEBOT_SCHEDULER=0: none fire here)
        scheduler = app.scheduler if app.settings.statebot_scheduler else None
        async with console_schedules(console, scheduler, output, grace=grace):
            await run_console(
                console,
                stdin=sys.stdin,
                stdout=sys.stdout,
                interactive=interactive,
                grace=grace,
                history=default_history_path(),
                output=output,
            )
    finally:
        if app.mcp is not None:
            await app.mcp.aclose()  # a stdio MCP server's process ends with the console
        await app.db.aclose()


def prepare_console(
    settings: Settings,
    *,
    agent: str | None = None,
    db: BaseDb | None = None,
    agents: Mapping[str, ChatAgent] | None = None,
) -> tuple[App, str]:
    """The app and the registered id of the agent to start with; ConfigError if unknown."""
    app = build_app(settings, db=db, agents=agents)
    agent_id = agent or app.settings.statebot_default_agent
    registered = app.service.agents.id_of(agent_id)
    if registered is None:
        asyncio.run(app.db.aclose())
        raise ConfigError(f"unknown agent {agent_id!r}; agents: {', '.join(app.service.agents)}")
    return app, registered


def start_console(app: App, agent_id: str, session: str) -> None:
    """Run the console until it stops (Ctrl-D, /quit, Ctrl-C at the prompt, SIGTERM)."""
    try:
        asyncio.run(_serve(app, agent_id, session))
    except KeyboardInterrupt:  # Ctrl-C before the console took over the signal: leave quietly
        click.echo(err=True)
        sys.exit(130)


@click.command("console", context_settings=HELP_OPTIONS)
@click.option("--agent", default=None, help="Agent to talk to (default: STATEBOT_DEFAULT_AGENT).")
@click.option("--session", default="default", show_default=True, help="Session name.")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite file holding the state (default: STATEBOT_DB_URL).",
)
@click.option("-v", "--verbose", is_flag=True, help="Log at info level on stderr.")
@app_option
def console(
    agent: str | None,
    session: str,
    db_path: str | None,
    verbose: bool,
    agents: Mapping[str, ChatAgent] | None,
) -> None:
    """Chat with an agent in the terminal; its state survives restarts."""
    settings = Settings()
    # logs go to stderr and stay quiet, so stdout carries replies only
    configure_logging(
        "console", level="INFO" if verbose else "WARNING", stream=sys.stderr, force=True
    )
    db: BaseDb | None = None
    if db_path is not None:
        from core.db.sqlite import SqliteDb

        db = SqliteDb(db_file=db_path)
    try:
        app, registered = prepare_console(settings, agent=agent, db=db, agents=agents)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    start_console(app, registered, session)
