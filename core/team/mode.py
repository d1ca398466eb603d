"""Agno's ``agno.team.mode`` path: :class:`TeamMode` (defined with the modes' rules)."""

from core.team.modes import TeamMode

__all__ = ["TeamMode"]
