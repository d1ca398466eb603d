"""Errors of the model: it could not answer."""

from __future__ import annotations

__all__ = [
    "ModelError",
    "ModelTimeoutError",
    "ScriptExhaustedError",
]


class ModelError(Exception):
    """The model could not answer (network, timeout, server error after retries)."""


class ModelTimeoutError(ModelError):
    """The model did not answer within its timeout."""


class ScriptExhaustedError(ModelError):
    """The model was called more times than the script has turns."""
