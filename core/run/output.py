"""RunOutput: what ``run()`` / ``arun()`` return, and its RunStatus."""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from core.media import File, Image
from core.models.base import Message, Usage
from core.run.run_input import RunInput


class RunStatus(StrEnum):
    """How a run ended (Agno's ``RunStatus``: same names and values).

    Values are Agno's upper-case strings; ``RunStatus("paused")`` finds a member
    whatever the case, so stored or hand-written lower-case values still compare.
    """

    pending = "PENDING"
    running = "RUNNING"
    completed = "COMPLETED"
    paused = "PAUSED"
    cancelled = "CANCELLED"
    error = "ERROR"

    @classmethod
    def _missing_(cls, value: object) -> RunStatus | None:
        if isinstance(value, str):
            for member in cls:
                if member.value == value.upper():
                    return member
        return None


def content_as_text(content: Any) -> str:
    """Run or step content as text: strings as-is, pydantic models and others as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    dump_json = getattr(content, "model_dump_json", None)  # pydantic, without importing it
    if callable(dump_json):
        return str(dump_json())
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)


@dataclass(slots=True)
class ToolExecution:
    """One tool call made during a run, with its result."""

    tool_call_id: str
    tool_name: str
    tool_args: dict[str, Any]
    result: str
    error: bool = False
    #: the tool waits for a person's decision (Agno's names): set ``confirmed`` to
    #: True or False on a paused run's ``tools_requiring_confirmation``, then
    #: ``continue_run(run_response=...)``
    requires_confirmation: bool = False
    confirmed: bool | None = None
    #: the run ended after this call (the tool's option, or a StopAgentRun it raised)
    stop_after_tool_call: bool = False
    #: media the tool returned (a ``ToolResult``'s), for the person, not the model
    images: list[Image] | None = None
    files: list[File] | None = None


@dataclass(slots=True)
class ModelMetrics:
    """One model's calls in a run (an entry of Agno's ``Metrics.details``)."""

    id: str
    provider: str
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens


@dataclass(slots=True)
class RunMetrics:
    """Counts of one run."""

    model_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0
    #: the run's model calls per model, under "model" (Agno's ``details``); None: none
    details: dict[str, list[ModelMetrics]] | None = None

    @property
    def total_tokens(self) -> int:
        """Input and output tokens together (Agno's ``Metrics.total_tokens``)."""
        return self.input_tokens + self.output_tokens

    def add_model_call(self, model_id: str, provider: str, usage: Usage) -> None:
        """Count one model call: the totals and its model's entry in ``details``."""
        self.model_calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self._add_detail(ModelMetrics(model_id, provider, usage.input_tokens, usage.output_tokens))

    def _add_detail(self, entry: ModelMetrics) -> None:
        models = (self.details or {}).get("model", [])
        for known in models:
            if (known.id, known.provider) == (entry.id, entry.provider):
                known.input_tokens += entry.input_tokens
                known.output_tokens += entry.output_tokens
                return
        self.details = {"model": [*models, ModelMetrics(**_fields(entry))]}

    def __add__(self, other: RunMetrics) -> RunMetrics:
        """The counts of two runs together (a session's metrics)."""
        total = RunMetrics(
            self.model_calls + other.model_calls,
            self.tool_calls + other.tool_calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.duration_s + other.duration_s,
        )
        for part in (self, other):
            for entry in (part.details or {}).get("model", []):
                total._add_detail(entry)
        return total


def _fields(entry: ModelMetrics) -> dict[str, Any]:
    return {
        "id": entry.id,
        "provider": entry.provider,
        "input_tokens": entry.input_tokens,
        "output_tokens": entry.output_tokens,
    }


class DeferredState(abc.ABC):
    """A run's final state, decoded only when someone reads it.

    Assigned to ``RunOutput.session_state``, it gives the caller a fresh dict on first
    access, so nothing the caller keeps or changes aliases the runtime's own values.
    The session layer, above this one, provides it (``core.state.checkpoints.StateTexts``).
    """

    __slots__ = ("__weakref__",)

    @abc.abstractmethod
    def decode(self) -> dict[str, Any]:
        """A fresh dict of the state."""


@dataclass(slots=True)
class RunOutput:
    """The result of one run of an agent, team or workflow.

    ``content`` is the answer text for agents and teams; a workflow keeps its last
    step's content as it is (a pydantic model stays a model, as in Agno), so use
    :meth:`get_content_as_string` where text is needed.
    """

    run_id: str
    session_id: str | None = None
    user_id: str | None = None
    content: Any = None
    session_state: dict[str, Any] = field(default_factory=dict)
    tools: list[ToolExecution] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    metrics: RunMetrics = field(default_factory=RunMetrics)
    #: workflow step outputs, by step name, in order of execution
    step_outputs: dict[str, Any] = field(default_factory=dict)
    #: name of the agent/team/workflow that produced it
    agent_id: str | None = None
    #: the team that ran it (a team's run, or a member's run inside one)
    team_id: str | None = None
    #: the run this one ran inside (a member's run in a team's run)
    parent_run_id: str | None = None
    #: a team's member runs, in the order they ran (Agno's ``member_responses``)
    member_responses: list[RunOutput] = field(default_factory=list)
    #: a returned run has completed unless it was paused for confirmation
    status: RunStatus = RunStatus.completed
    #: a paused run's calls waiting for a decision, in the order they would run
    tools_requiring_confirmation: list[ToolExecution] = field(default_factory=list)
    #: what a paused run needs to resume (stored with the session's run history)
    paused_data: dict[str, Any] | None = None
    #: what was passed to the run, as given (Agno's ``RunInput``)
    input: RunInput | None = None
    #: media the run's tools returned (``ToolResult``), in call order (Agno's fields)
    images: list[Image] | None = None
    files: list[File] | None = None

    @property
    def is_paused(self) -> bool:
        """True when the run stopped to wait for a confirmation (``continue_run``)."""
        return RunStatus(self.status) is RunStatus.paused

    @property
    def is_cancelled(self) -> bool:
        """True when the run was cancelled."""
        return RunStatus(self.status) is RunStatus.cancelled

    def get_content_as_string(self) -> str:
        """The content as text (JSON for a pydantic model or other value), '' for none."""
        return content_as_text(self.content)

    def add_media(self, images: list[Image] | None, files: list[File] | None) -> None:
        """Gather a tool's media (a ``ToolResult``'s) after those gathered before."""
        if images:
            self.images = [*(self.images or ()), *images]
        if files:
            self.files = [*(self.files or ()), *files]

    def keep_state(self, state: DeferredState) -> None:
        """Set ``session_state`` to a run's final state, decoded when first read."""
        _state_slot.__set__(self, state)


# ``session_state`` accepts a DeferredState and decodes it on first read (Agno's attribute,
# a plain dict to the caller); the dataclass's slot keeps the value.
_state_slot = RunOutput.__dict__["session_state"]


def _get_session_state(output: RunOutput) -> dict[str, Any]:
    value = _state_slot.__get__(output, RunOutput)
    if isinstance(value, DeferredState):
        value = value.decode()
        _state_slot.__set__(output, value)
    return value  # type: ignore[no-any-return]


def _set_session_state(output: RunOutput, value: dict[str, Any] | DeferredState) -> None:
    _state_slot.__set__(output, value)


setattr(  # noqa: B010 - replacing the slot with a property, which mypy cannot see
    RunOutput,
    "session_state",
    property(_get_session_state, _set_session_state, doc="The session state after the run."),
)
