"""The ``statebot`` command line. Each subcommand lives in its own module."""

from __future__ import annotations

import click


@click.group()
def main() -> None:
    """Statebot: stateful AI agents for team chat."""


def _register() -> None:
    # Subcommands are registered here, one line each, so the group stays the only entry.
    pass


_register()
