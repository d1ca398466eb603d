"""The environment that configures OpenAI models, read in this one place.

``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` locate the server (any OpenAI-compatible
one); ``STATEBOT_MODEL`` names the default model's id. A blank variable counts as
unset. No ``openai`` import here: ``from core import Agent`` stays light until a
model is actually used.
"""

from __future__ import annotations

import os

__all__ = [
    "DEFAULT_MODEL_ID",
    "MODEL_ID_ENV",
    "PLACEHOLDER_API_KEY",
    "default_model_id",
    "openai_credentials",
]

#: the model id used when none is given
DEFAULT_MODEL_ID = "gpt-4o-mini"
#: the variable that names the default model's id (the chat bots' setting too)
MODEL_ID_ENV = "STATEBOT_MODEL"
#: sent when only a base URL is configured: local servers ignore the key, the client needs one
PLACEHOLDER_API_KEY = "not-needed"


def openai_credentials(
    api_key: str | None = None, base_url: str | None = None
) -> tuple[str | None, str | None]:
    """(api key, base URL): arguments first, then ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``.

    A base URL without a key gets a placeholder key; no key means no server is configured.
    """
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if api_key is None and base_url is not None:
        api_key = PLACEHOLDER_API_KEY
    return api_key, base_url


def default_model_id() -> str:
    """``STATEBOT_MODEL``, or :data:`DEFAULT_MODEL_ID`."""
    return os.environ.get(MODEL_ID_ENV) or DEFAULT_MODEL_ID
