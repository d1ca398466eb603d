"""User memory: facts about a user that outlive any one session (``core.memory.tools``)."""

from __future__ import annotations

from core.memory.tools import memory_functions

__all__ = ["memory_functions"]
