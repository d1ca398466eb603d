"""The terminal console: ``statebot console``; ``traits`` (what shared modules know of
it), ``adapter`` (its registry entry)."""

from __future__ import annotations

from bots.adapters.console.traits import TRAITS

__all__ = ["TRAITS"]
