"""The ``statebot`` command line. Each subcommand lives in its own module."""

from __future__ import annotations

import click


@click.group()
def main() -> None:
    """Statebot: stateful AI agents for team chat."""


def _register() -> None:
    # Subcommands are registered here, one line each, so the group stays the only entry.
    from bots.console.command import console
    from bots.discord.cli import discord_command
    from bots.slack.cli import slack
    from bots.snapshotter_cli import snapshotter
    from bots.state_cli import state

    main.add_command(console)
    main.add_command(state)
    main.add_command(slack)
    main.add_command(discord_command)
    main.add_command(snapshotter)


_register()
