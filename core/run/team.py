"""Agno's ``agno.run.team`` path: team event names (the event classes are shared, so
Agno's ``TeamRunOutputEvent`` union is their base class, RunOutputEvent); a team's
run input and output are the agent's classes."""

from core.run.events import RunOutputEvent as TeamRunOutputEvent
from core.run.events import TeamRunEvent
from core.run.output import RunOutput as TeamRunOutput
from core.run.run_input import RunInput as TeamRunInput

__all__ = ["TeamRunEvent", "TeamRunInput", "TeamRunOutput", "TeamRunOutputEvent"]
