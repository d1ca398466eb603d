"""Testing support shipped with the library: scripted models and a fake OpenAI server."""

# errors live in core.exceptions; this name stays importable from here too
from core.exceptions import ScriptExhaustedError as ScriptExhaustedError
from core.models.scripted import ModelRequest, ScriptedModel, tool_call
from core.testing.openai_server import Delayed, FakeOpenAIServer, HTTPFailure, MalformedBody

__all__ = [
    "Delayed",
    "FakeOpenAIServer",
    "HTTPFailure",
    "MalformedBody",
    "ModelRequest",
    "ScriptedModel",
    "tool_call",
]
