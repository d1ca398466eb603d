"""``statebot manifest [--app MODULE:ATTR] [--url URL] [--socket]``: print the Slack app
manifest for the agents that would be served (``bots.adapters.slack.manifest``)."""

from __future__ import annotations

from collections.abc import Mapping

import click

from bots.adapters.slack.manifest import DEFAULT_URL, slack_manifest
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent


@click.command("manifest", context_settings=HELP_OPTIONS)
@click.option(
    "--url",
    default=DEFAULT_URL,
    show_default=True,
    help="Public HTTPS URL in front of `statebot slack` (events go to URL/slack/events).",
)
@click.option("--socket", is_flag=True, help="Declare Socket Mode (no public URL).")
@app_option
def manifest(url: str, socket: bool, agents: Mapping[str, ChatAgent] | None) -> None:
    """Print the Slack app manifest: one slash command per agent served, plus /state."""
    if not url.startswith(("https://", "http://")):
        raise click.BadParameter(f"{url!r} is not an http(s) URL", param_hint="--url")
    aliases: Mapping[str, Mapping[str, str]] = {}
    if agents is None:  # the ready agents, as `statebot slack` serves them without --app
        from tools.catalog import COMMAND_ALIASES, create_agents

        agents, aliases = create_agents(), COMMAND_ALIASES
    result = slack_manifest(agents, aliases, url=url, socket=socket)
    for note in result.skipped:
        click.echo(f"warning: {note}", err=True)
    click.echo(result.text, nl=False)
