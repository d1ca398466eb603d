"""Teams: a leader model delegating to members that share one session state."""

from core.team.modes import TeamMode
from core.team.team import Team

__all__ = ["Team", "TeamMode"]
