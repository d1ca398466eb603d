"""Events of a streamed run: text chunks, then one event carrying the whole output."""

from __future__ import annotations

from dataclasses import dataclass

from core.run.output import RunOutput


@dataclass(frozen=True, slots=True)
class RunEvent:
    """A chunk of answer text, or (``run_output`` set) the end of the run."""

    content: str = ""
    run_output: RunOutput | None = None

    @property
    def is_final(self) -> bool:
        """True for the last event of a run."""
        return self.run_output is not None
