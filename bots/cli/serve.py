"""``bots.serve``: serve agents on one platform from a Python file, as the CLI does.

The programmatic twin of ``statebot <platform> --app module:attr``: the same app
building, logging and process handling, so a one-file bot behaves like a deployed one.
The platform is looked up in the adapters' registry, which imports only the platform
asked for's serving code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bots.app.build import AgentSource
    from bots.settings import Settings

__all__ = ["platforms", "serve"]


def platforms() -> tuple[str, ...]:
    """The names ``serve(platform=...)`` accepts: every registered platform."""
    from bots.adapters import registry

    return registry.names()


def serve(
    agents: AgentSource,
    *,
    platform: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> None:
    """Serve ``agents`` (a dict, one agent, or a factory) on ``platform`` (default: the
    terminal console, ``bots.adapters.registry.DEFAULT``) until stopped.

    ``options`` go to the platform's adapter; ``None`` means "not given". Slack takes
    ``socket`` (Socket Mode; None picks it when SLACK_APP_TOKEN is set), the console
    ``session`` (the session to start in, default ``default``). An unknown platform,
    or an option the platform does not take, is a ValueError.
    """
    from bots.adapters import registry

    adapter = registry.get(registry.DEFAULT if platform is None else platform)
    given = {name: value for name, value in options.items() if value is not None}
    for name in sorted(given.keys() - adapter.serve_options):
        owners = [other.name for other in registry.adapters() if name in other.serve_options]
        where = " or ".join(f"platform={owner!r}" for owner in owners)
        raise ValueError(
            f"{name}= applies to {where} only" if owners else f"serve() takes no option {name}="
        )
    from bots.app.build import agents_from
    from bots.settings import Settings

    settings = settings or Settings()
    loaded = agents_from(agents, "serve()")  # a bad argument fails here, before any I/O
    adapter.serve(loaded, settings=settings, **given)
