"""Agno's ``agno.run.team`` path: team event names (the event classes are shared, so
Agno's ``TeamRunOutputEvent`` union is their base class, RunOutputEvent)."""

from core.run.events import RunOutputEvent as TeamRunOutputEvent
from core.run.events import TeamRunEvent
from core.run.output import RunOutput as TeamRunOutput

__all__ = ["TeamRunEvent", "TeamRunOutput", "TeamRunOutputEvent"]
