"""``statebot state usage``: today's usage of a session, user and channel against the budget.

The numbers come from the same counters the runs check (the store the bots serve
from: ``--redis-url`` reads Redis, else the durable store) and the limits from the
same ``STATEBOT_BUDGET_*`` settings the bots apply; the text is core's
(:meth:`core.governance.budgets.report.UsageReport.describe`), the one chat ``/state usage``
shows.
"""

from __future__ import annotations

import json

import click

from bots.app.budgets import settings_budget
from bots.app.cli_format import HELP_OPTIONS
from bots.cli.store import store_options, with_store
from bots.settings import Settings
from core.governance.budgets.model import usage_report


@click.command("usage", context_settings=HELP_OPTIONS)
@store_options
@click.option("--session", "session_id", default=None, help="A session id (a conversation).")
@click.option("--user", "user_id", default=None, help="A user id (slack:T…:U…).")
@click.option("--channel", default=None, help="A channel key (as run metadata names it).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def usage(
    ctx: click.Context,
    session_id: str | None,
    user_id: str | None,
    channel: str | None,
    as_json: bool,
) -> None:
    """Show today's (UTC) token and tool-call use against the STATEBOT_BUDGET_* limits."""
    if not (session_id or user_id or channel):
        raise click.UsageError("name at least one of --session, --user, --channel")
    budget = settings_budget(Settings())
    report = with_store(
        ctx,
        lambda db: usage_report(
            db, budget, session_id=session_id, user_id=user_id, channel=channel
        ),
    )
    if as_json:
        click.echo(json.dumps({**report.as_dict(), "budget_set": budget is not None}, indent=2))
        return
    click.echo(report.describe(for_chat=False))
    if budget is None:
        click.echo("No STATEBOT_BUDGET_* is set: the bots count and limit nothing.")
