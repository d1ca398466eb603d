"""Testing support shipped with the library: scripted models and a fake OpenAI server."""

from core.exceptions import ScriptExhaustedError
from core.models.scripted import ModelRequest, ScriptedModel, tool_call
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
