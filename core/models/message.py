"""A chat message and a model's tool call (Agno's ``agno.models.message`` path).

They use the Chat Completions shapes, so a model adapter mostly forwards them.
``ToolCall.arguments`` is the raw JSON text the model produced: the runtime parses
and validates it, and reports bad JSON back to the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.media import File, Image
from core.models.content import chat_parts

__all__ = ["Message", "ToolCall"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call requested by the model."""

    id: str
    name: str
    arguments: str  # raw JSON text, exactly as the model sent it


@dataclass(slots=True)
class Message:
    """One chat message (system, user, assistant or tool)."""

    role: str
    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    #: copied from an earlier run into this run's context (Agno's flag)
    from_history: bool = False
    #: a user message's media (Agno's fields): sent as content parts, never stored
    images: list[Image] | None = None
    files: list[File] | None = None

    @property
    def has_media(self) -> bool:
        """True when the message carries images or files."""
        return bool(self.images or self.files)

    def to_openai(self) -> dict[str, Any]:
        """This message in the Chat Completions wire format."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.has_media:
            out["content"] = chat_parts(self.content, self.images or (), self.files or ())
        if self.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role != "tool":
            out["name"] = self.name
        return out


def as_message(value: Any, what: str = "a message") -> Message:
    """A Message from a Message, a ``{"role", "content"}`` dict, or text (the user's)."""
    if isinstance(value, Message):
        return value
    if isinstance(value, str):
        return Message("user", value)
    if isinstance(value, dict) and isinstance(value.get("role"), str):
        content = value.get("content")
        return Message(value["role"], None if content is None else str(content))
    raise TypeError(
        f"{what}: expected a Message, a dict with a role, or text, not {type(value).__name__}"
    )
