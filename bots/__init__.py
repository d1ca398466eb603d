"""Statebot's chat layer. ``serve(agent, platform=...)`` runs a one-file bot.

    from bots import serve
    serve(my_agent, platform="slack")   # or "discord", or "console"

The agents are served exactly as ``statebot <platform> --app module:attr`` serves
them: same routing, slash commands, admin commands and settings (environment and
``.env``). ``serve`` lives in :mod:`bots.cli.serve` and is loaded on first use, so
``import bots`` stays cheap and this face is part of no import cycle.

The layers, top to bottom (each imports only layers below it): ``cli``; ``adapters``
(one folder per platform, never importing each other); ``web``; ``app`` (the
composition root); ``admin``; ``chat``; ``ops``; the vocabulary (``inbound``, ``keys``,
``admins``, ``settings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bots.cli.serve import PLATFORMS, serve

__all__ = ["PLATFORMS", "serve"]


def __getattr__(name: str) -> Any:
    """``serve`` and ``PLATFORMS``, imported when first asked for."""
    if name in __all__:
        from bots.cli import serve as serving

        return getattr(serving, name)
    raise AttributeError(f"module 'bots' has no attribute {name!r}")
