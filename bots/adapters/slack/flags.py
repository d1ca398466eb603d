"""Moved to :mod:`bots.ops.flags` (shared by Slack and Discord); kept so imports still work."""

from bots.ops.flags import Flags, MemoryFlags, RedisFlags

__all__ = ["Flags", "MemoryFlags", "RedisFlags"]
