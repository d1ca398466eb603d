"""``bots.serve``: serve agents on one platform from a Python file, as the CLI does.

The programmatic twin of ``statebot <platform> --app module:attr``: the same app
building, logging and process handling, so a one-file bot behaves like a deployed one.
Platform modules are imported inside ``serve``, only for the platform asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from bots.app.build import AgentSource
    from bots.settings import Settings

__all__ = ["PLATFORMS", "serve"]

PLATFORMS = ("slack", "discord", "console")


def serve(
    agents: AgentSource,
    *,
    platform: Literal["slack", "discord", "console"] = "console",
    settings: Settings | None = None,
    socket: bool | None = None,
    session: str | None = None,
) -> None:
    """Serve ``agents`` (a dict, one agent, or a factory) on ``platform`` until stopped.

    ``socket`` (Slack only): Socket Mode; None picks it when SLACK_APP_TOKEN is set.
    ``session`` (console only): the session to start in (default ``default``).
    """
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; choose one of: {', '.join(PLATFORMS)}")
    if socket is not None and platform != "slack":
        raise ValueError("socket= applies to platform='slack' only")
    if session is not None and platform != "console":
        raise ValueError("session= applies to platform='console' only")
    import sys

    from bots.app.build import agents_from
    from bots.ops.logging import configure_logging
    from bots.settings import Settings

    settings = settings or Settings()
    loaded = agents_from(agents, "serve()")  # a bad argument fails here, before any I/O
    if platform == "console":
        from bots.adapters.console.command import prepare_console, start_console

        configure_logging("console", level="WARNING", stream=sys.stderr, force=True)
        app, agent_id = prepare_console(settings, agents=loaded)
        start_console(app, agent_id, session or "default")
        return
    from bots.ops.startup import run_process

    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    if platform == "slack":
        from bots.adapters.slack.cli import serve as serve_slack

        use_socket = settings.slack_app_token is not None if socket is None else socket
        work = serve_slack(settings, socket=use_socket, port=settings.port, agents=loaded)
        run_process(work, name="slack")
    else:
        from bots.adapters.discord.cli import serve as serve_discord

        run_process(serve_discord(settings, agents=loaded), name="discord")
