"""Exceptions a tool raises to steer its run (Agno's ``agno.exceptions`` names).

They are signals, not failures: the tool's state changes stand, its message is the
tool's result, and the extra messages they carry join the conversation.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AgentRunException", "RetryAgentRun", "StopAgentRun"]


class AgentRunException(Exception):
    """A tool's word to the run: a result for the model, extra messages, maybe stop."""

    def __init__(
        self,
        exc: object,
        user_message: Any = None,
        agent_message: Any = None,
        messages: list[Any] | None = None,
        stop_execution: bool = False,
    ) -> None:
        super().__init__(exc)
        self.user_message = user_message
        self.agent_message = agent_message
        self.messages = messages
        self.stop_execution = stop_execution
        self.type = "agent_run_error"
        self.error_id = "agent_run_error"


class RetryAgentRun(AgentRunException):
    """The model should try again: the message tells it what to change."""

    def __init__(
        self,
        exc: object,
        user_message: Any = None,
        agent_message: Any = None,
        messages: list[Any] | None = None,
    ) -> None:
        super().__init__(exc, user_message, agent_message, messages, stop_execution=False)
        self.error_id = "retry_agent_run_error"


class StopAgentRun(AgentRunException):
    """The run ends after this tool call; the message is the answer."""

    def __init__(
        self,
        exc: object,
        user_message: Any = None,
        agent_message: Any = None,
        messages: list[Any] | None = None,
    ) -> None:
        super().__init__(exc, user_message, agent_message, messages, stop_execution=True)
        self.error_id = "stop_agent_run_error"
