"""``statebot manifest [--platform slack] [--app MODULE:ATTR] [--url URL] [--socket]``:
print the app manifest of a platform that delivers only the commands a manifest
declares (Slack), for the agents that would be served. The platform is reached
through the adapters' registry (``OffersManifest``), like every platform outside its
folder."""

from __future__ import annotations

from collections.abc import Mapping

import click

from bots.adapters import registry
from bots.adapters.base import OffersManifest
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent


def _offering() -> list[str]:
    return [a.name for a in registry.adapters() if isinstance(a, OffersManifest)]


@click.command("manifest", context_settings=HELP_OPTIONS)
@click.option(
    "--platform",
    default=None,
    help="Platform whose manifest to print (default: the first that has one, in the "
    "order statebot --help lists the platforms).",
)
@click.option(
    "--url",
    default=None,
    help="Public HTTPS URL in front of the bot (Slack: events go to URL/slack/events); "
    "default: a placeholder to replace.",
)
@click.option("--socket", is_flag=True, help="Declare Socket Mode (no public URL).")
@app_option
def manifest(
    platform: str | None, url: str | None, socket: bool, agents: Mapping[str, ChatAgent] | None
) -> None:
    """Print the app manifest: one slash command per agent served, plus /state."""
    offering = _offering()
    if platform is None:
        if not offering:
            raise click.UsageError("no platform served here has an app manifest")
        platform = offering[0]  # the registry's order: the first built-in that has one
    adapter = registry.get(platform) if platform in registry.names() else None
    if not isinstance(adapter, OffersManifest):
        raise click.BadParameter(
            f"{platform!r} has no app manifest (platforms with one: {', '.join(offering)})",
            param_hint="--platform",
        )
    if url is not None and not url.startswith(("https://", "http://")):
        raise click.BadParameter(f"{url!r} is not an http(s) URL", param_hint="--url")
    aliases: Mapping[str, Mapping[str, str]] = {}
    if agents is None:  # the ready agents, as the bots serve them without --app
        from tools.catalog import COMMAND_ALIASES, create_agents

        agents, aliases = create_agents(), COMMAND_ALIASES
    result = adapter.manifest(agents, aliases, url=url, socket=socket)
    for note in result.skipped:
        click.echo(f"warning: {note}", err=True)
    click.echo(result.text, nl=False)
