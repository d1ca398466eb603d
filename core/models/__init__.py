"""Models: the seam to a language model, one method wide (``Model.ainvoke``).

``core.models.openai.OpenAIChat`` speaks Chat Completions to any OpenAI-compatible
server, ``core.models.openai.OpenAIResponses`` the Responses API;
``core.models.default`` picks the model of an owner given none (from the environment,
``core.models.env``); ``core.models.scripted.ScriptedModel`` replays scripted answers
in tests.
"""

from __future__ import annotations

from core.models.base import Message, Model, ModelResponse, ToolCall, Usage

__all__ = ["Message", "Model", "ModelResponse", "ToolCall", "Usage"]
