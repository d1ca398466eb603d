"""``statebot state migrate --agent X [--dry-run]``: bring stored sessions to the code's schema.

The agent comes from the same place the bots take it: the ready catalog built on the
deployment's store (``--db-url`` / ``--redis-url``, as every ``state`` command), or
``--app MODULE:ATTR`` for your own agents (which keep their own ``db``, as the bots
serve them). Each of the agent's sessions is migrated under its lease by
:func:`core.governance.migrate.migrate_sessions`, the same code a run uses to
migrate lazily, so migrating now or on the next message gives the same state.
``--dry-run`` prints what would change per session (an RFC 6902 patch, one line per
operation) and writes nothing. Sessions that cannot be migrated are named with the
reason, left unchanged, and make the command exit 1.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from bots.app.cli_format import HELP_OPTIONS, plural
from bots.app.option import app_option
from bots.chat.registry import AgentRegistry, ChatAgent
from bots.cli.store import store_options, with_store
from core.db.base import BaseDb
from core.exceptions import StoreError
from core.governance.migrate import DEFAULT_LIMIT, SessionMigration, migrate_sessions
from core.redaction import redact_text

#: characters of one value shown in a dry run's patch line
VALUE_WIDTH = 120


def find_agent(agents: dict[str, ChatAgent], name: str) -> ChatAgent:
    """The agent named ``name`` (case ignored), or a UsageError listing the names."""
    registry = AgentRegistry(agents)
    agent_id = registry.id_of(name)
    if agent_id is None:
        known = ", ".join(sorted(registry)) or "none"
        raise click.UsageError(f"no agent {name!r}; agents: {known}")
    return registry[agent_id]


def patch_lines(patch: list[dict[str, Any]]) -> list[str]:
    """One readable line per RFC 6902 operation: ``replace /items/0: {"name": …}``."""
    lines = []
    for op in patch:
        line = f"{op['op']} {op['path']}"
        if "from" in op:
            line += f" (from {op['from']})"
        if "value" in op:
            text = json.dumps(op["value"], ensure_ascii=False)
            if len(text) > VALUE_WIDTH:
                text = text[: VALUE_WIDTH - 1] + "…"
            line += f": {text}"
        lines.append(redact_text(line))
    return lines


def report(results: list[SessionMigration], *, dry_run: bool) -> int:
    """Print the outcome per session and a summary; the number that failed."""
    changed = [r for r in results if r.from_version is not None]
    failed = [r for r in results if r.error is not None]
    for result in changed:
        verb = "would migrate" if dry_run else "migrated"
        click.echo(f"{result.session_id}: {verb} v{result.from_version} -> v{result.to_version}")
        if dry_run:
            for line in patch_lines(result.patch) or ["(no change to the data)"]:
                click.echo(f"    {line}")
    for result in failed:
        click.echo(f"{result.session_id}: NOT migrated: {redact_text(result.error or '')}")
    current = len(results) - len(changed) - len(failed)
    done = "would be migrated" if dry_run else "migrated"
    click.echo(
        f"{plural(len(changed), 'session')} {done}, {current} already current, "
        f"{len(failed)} failed" + (" (dry run: nothing was written)" if dry_run else "")
    )
    return len(failed)


@click.command("migrate", context_settings=HELP_OPTIONS)
@store_options
@click.option("--agent", "agent_name", required=True, help="The agent whose sessions to migrate.")
@app_option
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--limit", default=DEFAULT_LIMIT, show_default=True, help="Migrate at most this many sessions."
)
@click.pass_context
def migrate(
    ctx: click.Context,
    agent_name: str,
    agents: dict[str, ChatAgent] | None,
    dry_run: bool,
    limit: int,
) -> None:
    """Migrate an agent's stored sessions to its current schema version, each under its lease."""

    if agents is not None:  # your own agents keep their own db: the store options do not apply
        owner = find_agent(agents, agent_name)
        results = _own_store(owner, dry_run=dry_run, limit=limit)
    else:

        async def run(db: BaseDb) -> list[SessionMigration]:
            from tools.catalog import create_agents

            owner = find_agent(dict(create_agents(None, db)), agent_name)
            return await migrate_sessions(owner, dry_run=dry_run, limit=limit)

        results = with_store(ctx, run, writes=not dry_run)
    if report(results, dry_run=dry_run):
        ctx.exit(1)


def _own_store(owner: ChatAgent, *, dry_run: bool, limit: int) -> list[SessionMigration]:
    """Migrate on the agent's own store, closed afterwards; store errors as CLI errors."""

    async def run() -> list[SessionMigration]:
        try:
            return await migrate_sessions(owner, dry_run=dry_run, limit=limit)
        finally:
            await owner.db.aclose()

    try:
        return asyncio.run(run())
    except (StoreError, ValueError) as exc:
        raise click.ClickException(redact_text(str(exc))) from exc
