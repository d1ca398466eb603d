"""Moved to :mod:`bots.flags` (shared by Slack and Discord); kept so imports still work."""

from bots.flags import Flags, MemoryFlags, RedisFlags

__all__ = ["Flags", "MemoryFlags", "RedisFlags"]
