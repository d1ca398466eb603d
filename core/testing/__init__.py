"""Testing support shipped with the library: scripted models for users' own tests."""

from core.models.scripted import ModelRequest, ScriptedModel, ScriptExhaustedError, tool_call

__all__ = ["ModelRequest", "ScriptExhaustedError", "ScriptedModel", "tool_call"]
