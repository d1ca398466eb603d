"""Testing support shipped with the library: scripted models and a fake OpenAI server."""

from core.models.scripted import ModelRequest, ScriptedModel, ScriptExhaustedError, tool_call
from core.testing.openai_server import Delayed, FakeOpenAIServer, HTTPFailure, MalformedBody

__all__ = [
    "Delayed",
    "FakeOpenAIServer",
    "HTTPFailure",
    "MalformedBody",
    "ModelRequest",
    "ScriptExhaustedError",
    "ScriptedModel",
    "tool_call",
]
