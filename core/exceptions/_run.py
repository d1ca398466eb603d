"""Errors of a run: a run could not complete, or a tool call was refused."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "DependencyError",
    "MCPConnectionError",
    "MCPConnectionRequiredError",
    "NoModelError",
    "ParallelStateConflictError",
    "RouterSelectionError",
    "RunError",
    "RunTimeoutError",
    "ToolArgumentError",
    "ToolCallLimitError",
    "ToolRefusedError",
    "UnknownToolError",
]


class RunError(Exception):
    """A run could not complete."""


class NoModelError(RunError):
    """Free text was sent to an agent that has no model configured."""


class ToolCallLimitError(RunError):
    """The model kept calling tools past the per-run cap of tool-call rounds."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the model asked for tools more than {limit} rounds in one run; "
            "stopped (state changes made so far are saved)"
        )
        self.limit = limit


class UnknownToolError(RunError, LookupError):
    """A tool name that the agent does not have."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown tool {name!r}; available: {', '.join(sorted(known)) or 'none'}")
        self.name = name
        self.known = known


class ToolArgumentError(RunError, ValueError):
    """Arguments that do not fit a tool's parameters (bad JSON, wrong types, missing)."""


class RunTimeoutError(RunError):
    """A run passed its deadline (``run_timeout``) and was stopped.

    Tool batches saved before the deadline stay saved (``saved`` says whether there
    were any); the call in flight was undone and nothing was saved after the deadline.
    """

    def __init__(self, timeout: float, *, saved: bool, what: str = "the run") -> None:
        kept = (
            "changes saved before the deadline are kept; the step in progress was undone"
            if saved
            else "nothing was saved"
        )
        super().__init__(f"{what} took longer than {timeout:g} s and was stopped: {kept}")
        self.timeout = timeout
        self.saved = saved


class DependencyError(RunError):
    """A callable dependency raised while it was being resolved for a run."""

    def __init__(self, key: str, cause: BaseException) -> None:
        super().__init__(
            f"dependency {key!r} could not be resolved: {type(cause).__name__}: {cause}"
        )
        self.key = key


class RouterSelectionError(RunError, ValueError):
    """A Router's selector returned something that names no step."""


class ParallelStateConflictError(RunError):
    """Two Parallel branches changed the same part of the session state differently."""

    def __init__(self, path: Sequence[str], branches: tuple[str, str]) -> None:
        where = "session_state" + "".join(f"[{key!r}]" for key in path)
        super().__init__(
            f"Parallel branches {branches[0]!r} and {branches[1]!r} both changed {where} "
            "to different values; nothing from the Parallel was applied"
        )
        self.path = list(path)
        self.branches = branches


class ToolRefusedError(ValueError):
    """Raised by a tool or hook to refuse a call; its message is reported as is (no class name)."""


class MCPConnectionError(ToolRefusedError):
    """An MCP server cannot be reached now: its tool calls are refused with this reason."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"MCP server {server!r}: {reason}")
        self.server = server
        self.reason = reason


class MCPConnectionRequiredError(MCPConnectionError):
    """A per-user MCP server and a user who has not connected it: the run answers with
    :attr:`hint` (``/connect <server>``) instead of calling the model."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(server, reason)
        self.hint = (
            f"The tools of {server!r} act as you, and {reason}. Connect it once with "
            f"`/connect {server}` (in a direct message with me), then ask again."
        )
        self.args = (self.hint,)  # what a tool error or a reply shows: the hint itself
