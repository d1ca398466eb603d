"""Agno's ``agno.run.base`` path: RunContext and RunStatus."""

from core.run.context import RunContext
from core.run.output import RunStatus

__all__ = ["RunContext", "RunStatus"]
