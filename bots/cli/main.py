"""The ``statebot`` command line. Each subcommand lives in its own module."""

from __future__ import annotations

import os
from typing import Any

import click

from bots.app.cli_format import HELP_OPTIONS
from bots.settings import ENV_FILE_VARIABLE


class StatebotGroup(click.Group):
    """The ``statebot`` group; ``statebot <platform>`` also finds an adapter registered
    after start-up (``bots.adapters.registry.register``), not only the built-in ones.
    Every command's failures are reported by one rule (``bots.cli.errors``)."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; a refused setting or a usage error becomes one ``Error:``
        line per problem (exit 2); anything else goes on as it is."""
        from bots.cli.errors import cli_error

        try:
            return super().invoke(ctx)
        except Exception as exc:
            reported = cli_error(exc)
            if reported is None:
                raise
            raise reported from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every subcommand, the registered platforms' included."""
        from bots.adapters import registry

        return sorted({*super().list_commands(ctx), *registry.names()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A subcommand by name; a registered platform's command when none is added."""
        from bots.adapters import registry

        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in registry.names():
            return registry.get(cmd_name).command()
        return found


@click.group(cls=StatebotGroup, context_settings=HELP_OPTIONS)
@click.version_option(package_name="statebot", message="%(prog)s %(version)s")
@click.option(
    "--env-file",
    envvar=ENV_FILE_VARIABLE,
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help=f"Settings file to read instead of ./.env [env {ENV_FILE_VARIABLE}]; "
    "the environment still wins.",
)
def main(env_file: str | None) -> None:
    """Statebot: stateful AI agents for team chat."""
    if env_file is not None:
        # every Settings() in this process (and its children) reads the file named here
        os.environ[ENV_FILE_VARIABLE] = env_file


def _register() -> None:
    # Subcommands are registered here, one line each, so the group stays the only entry;
    # each platform's command comes from the adapters' registry (`statebot <platform>`).
    from bots.adapters import registry
    from bots.cli.config import config
    from bots.cli.manifest import manifest
    from bots.cli.snapshotter import snapshotter
    from bots.cli.state import state
    from bots.cli.web import web_command

    for adapter in registry.adapters():
        main.add_command(adapter.command(), adapter.name)
    main.add_command(state)
    main.add_command(snapshotter)
    main.add_command(config)
    main.add_command(manifest)
    main.add_command(web_command)


_register()
