"""Statebot's chat layer. ``serve(agent, platform=...)`` runs a one-file bot.

    from bots import serve
    serve(my_agent, platform=name)   # any name of bots.PLATFORMS

The agents are served exactly as ``statebot <platform> --app module:attr`` serves
them: same routing, slash commands, admin commands and settings (environment and
``.env``). ``serve`` lives in :mod:`bots.cli.serve` and is loaded on first use, so
``import bots`` stays cheap and this face is part of no import cycle.

The layers, top to bottom (each imports only layers below it): ``cli``; ``adapters``
(the ``Adapter`` protocol, the registry, one folder per platform, never importing each
other); ``web``; ``app`` (the composition root); ``admin``; ``chat``; ``ops``; the
vocabulary (``inbound``, ``keys``, ``admins``, ``platforms``, ``settings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bots.cli.serve import serve

    #: the names ``serve(platform=...)`` accepts (the adapters' registry)
    PLATFORMS: tuple[str, ...]

__all__ = ["PLATFORMS", "serve"]


def __getattr__(name: str) -> Any:
    """``serve`` and ``PLATFORMS``, imported when first asked for."""
    if name not in __all__:
        raise AttributeError(f"module 'bots' has no attribute {name!r}")
    from bots.cli import serve as serving

    return serving.platforms() if name == "PLATFORMS" else serving.serve
