"""Agno's ``agno.run.team`` path: team event names (the event classes are shared)."""

from core.run.events import TeamRunEvent
from core.run.output import RunOutput as TeamRunOutput

__all__ = ["TeamRunEvent", "TeamRunOutput"]
