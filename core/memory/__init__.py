"""User memory: facts about a user that outlive any one session (``core.memory.tools``),
and Agno's automatic user memories (``core.memory.manager.MemoryManager``)."""

from __future__ import annotations

from core.memory.manager import MemoryManager
from core.memory.tools import memory_functions

__all__ = ["MemoryManager", "memory_functions"]
