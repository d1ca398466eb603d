"""OpenAI-compatible chat models (``from core.models.openai import OpenAIChat``)."""

from core.models.openai.chat import OpenAIChat

__all__ = ["OpenAIChat"]
