"""OpenAI models (``from core.models.openai import OpenAIChat, OpenAIResponses``).

``OpenAIChat`` speaks Chat Completions, the dialect every OpenAI-compatible server
implements; ``OpenAIResponses`` speaks the Responses API (``/v1/responses``).
"""

from core.models.openai.chat import OpenAIChat
from core.models.openai.responses import OpenAIResponses

__all__ = ["OpenAIChat", "OpenAIResponses"]
