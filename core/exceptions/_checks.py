"""Guardrail errors a pre- or post-hook raises to refuse a run (Agno's ``agno.exceptions``).

A pre-hook's ``InputCheckError`` ends the run before the model is called: the run's
output has status ERROR and the error's message as its content. A post-hook's
``OutputCheckError`` marks the finished run ERROR and keeps its content. Either way
the run is recorded in the session's history and nothing it already saved is undone.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

# CheckTrigger is importable from core.exceptions (Agno's path) but is no error,
# so it is not listed among the errors
__all__ = ["InputCheckError", "OutputCheckError"]


class CheckTrigger(Enum):
    """Why a check refused a run (Agno's values)."""

    OFF_TOPIC = "off_topic"
    INPUT_NOT_ALLOWED = "input_not_allowed"
    OUTPUT_NOT_ALLOWED = "output_not_allowed"
    VALIDATION_FAILED = "validation_failed"
    PROMPT_INJECTION = "prompt_injection"
    PII_DETECTED = "pii_detected"


def _fill(
    error: InputCheckError | OutputCheckError,
    message: str,
    check_trigger: CheckTrigger | str,
    additional_data: dict[str, Any] | None,
) -> None:
    """Agno's attributes of a check error."""
    error.message = message
    error.check_trigger = check_trigger
    error.error_id = (
        check_trigger.value if isinstance(check_trigger, CheckTrigger) else str(check_trigger)
    )
    error.additional_data = additional_data


class InputCheckError(Exception):
    """A pre-hook refuses the run's input."""

    type = "input_check_error"

    def __init__(
        self,
        message: str,
        check_trigger: CheckTrigger | str = CheckTrigger.INPUT_NOT_ALLOWED,
        additional_data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message: str
        self.check_trigger: CheckTrigger | str
        self.error_id: str
        self.additional_data: dict[str, Any] | None
        _fill(self, message, check_trigger, additional_data)


class OutputCheckError(Exception):
    """A post-hook refuses the run's output."""

    type = "output_check_error"

    def __init__(
        self,
        message: str,
        check_trigger: CheckTrigger | str = CheckTrigger.OUTPUT_NOT_ALLOWED,
        additional_data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message: str
        self.check_trigger: CheckTrigger | str
        self.error_id: str
        self.additional_data: dict[str, Any] | None
        _fill(self, message, check_trigger, additional_data)
