"""The ``--app module:attribute`` option the slack, discord and console commands share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from bots.app.build import AppLoadError, load_app_agents
from bots.chat.registry import ChatAgent

F = TypeVar("F", bound=Callable[..., Any])

HELP = (
    "Serve your own agents instead of the ready ones: MODULE:ATTR names a dict of name "
    "to Agent/Team/Workflow, one agent, or a zero-argument factory returning either."
)


def _load(_ctx: click.Context, _param: click.Parameter, spec: str | None) -> Any:
    """The agents ``spec`` names, loaded while the options parse (bad ones: exit 2)."""
    if spec is None:
        return None
    try:
        loaded: dict[str, ChatAgent] = load_app_agents(spec)
    except AppLoadError as exc:
        raise click.BadParameter(str(exc)) from None
    return loaded


def app_option(command: F) -> F:
    """Add ``--app`` to a command; it receives ``agents`` (None: the ready agents)."""
    return click.option(
        "--app", "agents", metavar="MODULE:ATTR", default=None, callback=_load, help=HELP
    )(command)
