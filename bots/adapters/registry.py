"""The platforms Statebot knows: one line per built-in platform, loaded when first used.

Each line names the module of a platform's folder that holds its ``ADAPTER``
(:class:`bots.adapters.base.Adapter`). Nothing is imported until the registry is
asked, so ``import bots`` stays cheap; the first question loads every line, and
with it every built-in platform's traits (``bots.platforms``), so a process serving
one platform still keeps, retains and targets the others' sessions correctly.
An adapter defined elsewhere (a test, a user's package) joins with ``register``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from bots.platforms import register_traits, unregister_traits

if TYPE_CHECKING:
    from bots.adapters.base import Adapter

__all__ = [
    "BUILTIN",
    "DEFAULT",
    "UnknownPlatformError",
    "adapters",
    "get",
    "names",
    "register",
    "unregister",
]

#: the built-in platforms, in the order ``statebot --help`` and errors list them
BUILTIN: dict[str, str] = {
    "slack": "bots.adapters.slack.adapter",
    "discord": "bots.adapters.discord.adapter",
    "console": "bots.adapters.console.adapter",
    "telegram": "bots.adapters.telegram.adapter",
    "teams": "bots.adapters.teams.adapter",
}

#: the platform ``bots.serve`` runs when none is named: the terminal, needing no account
DEFAULT = "console"

_ADAPTERS: dict[str, Adapter] = {}
_loaded = False


class UnknownPlatformError(ValueError):
    """No adapter is registered under the name asked for."""


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    for name, module in BUILTIN.items():
        if name not in _ADAPTERS:  # a registered adapter of the same name wins
            register(importlib.import_module(module).ADAPTER)
    _loaded = True  # only once every line loaded: a failed import is retried next time


def register(adapter: Adapter) -> Adapter:
    """Make ``adapter`` servable and its traits known, and return it. A second adapter
    of the same name replaces the first."""
    if adapter.traits.name != adapter.name:
        raise ValueError(
            f"adapter {adapter.name!r} declares traits of {adapter.traits.name!r}; "
            "they must name the same platform"
        )
    _ADAPTERS[adapter.name] = adapter
    register_traits(adapter.traits)
    return adapter


def unregister(name: str) -> None:
    """Forget the adapter ``name`` and its traits (a test's fake platform, for one)."""
    _ADAPTERS.pop(name, None)
    unregister_traits(name)


def get(name: str) -> Adapter:
    """The adapter of ``name``; UnknownPlatformError listing the known names."""
    _load_builtins()
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise UnknownPlatformError(
            f"unknown platform {name!r}; choose one of: {', '.join(names())}"
        ) from None


def names() -> tuple[str, ...]:
    """Every registered platform's name: the built-ins first, in their lines' order."""
    _load_builtins()
    builtin = [name for name in BUILTIN if name in _ADAPTERS]
    return (*builtin, *(name for name in _ADAPTERS if name not in BUILTIN))


def adapters() -> tuple[Adapter, ...]:
    """Every registered adapter, in the order of :func:`names`."""
    return tuple(_ADAPTERS[name] for name in names())
