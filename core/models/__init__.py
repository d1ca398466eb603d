"""Models: the seam to a language model, one method wide (``Model.ainvoke``).

``core.models.openai.OpenAIChat`` speaks Chat Completions to any OpenAI-compatible
server; ``core.models.scripted.ScriptedModel`` replays scripted answers in tests.
"""

from __future__ import annotations

from core.models.base import Message, Model, ModelResponse, ToolCall, Usage

__all__ = ["Message", "Model", "ModelResponse", "ToolCall", "Usage"]
