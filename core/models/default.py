"""The model an agent or team runs when it was given none (Agno's default model).

Agno gives an owner without ``model=`` an OpenAI model. Here the same happens when the
environment configures an OpenAI-compatible server — ``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, or both: the owner runs ``OpenAIChat`` with the id in
``STATEBOT_MODEL`` (the setting the chat bots already use), ``gpt-4o-mini`` when unset.
Chat Completions, not Agno's Responses API, because ``OPENAI_BASE_URL`` may name any
OpenAI-compatible server and that is the dialect all of them implement
(docs/runtime.md, "Differences from Agno").

Without either variable there is no default: free text raises ``NoModelError``
saying which variables to set, and tools can still be called directly (the console
bot on embedded defaults works that way). The environment is read on each use, like
the model's credentials, so an agent may be defined before it is configured.
"""

from __future__ import annotations

import threading

from core.models.base import Model
from core.models.env import default_model_id, openai_credentials

__all__ = ["default_model"]

_lock = threading.Lock()
#: one model per id, so runs share its HTTP clients (it re-reads the credentials per call)
_models: dict[str, Model] = {}


def default_model() -> Model | None:
    """The default model for this environment, or None when no OpenAI server is configured."""
    api_key, _base_url = openai_credentials()
    if api_key is None:  # neither a key nor a base URL (a base URL alone gets a placeholder)
        return None
    model_id = default_model_id()
    with _lock:
        model = _models.get(model_id)
        if model is None:
            # imported here: the openai client loads only when a model is really used
            from core.models.openai.chat import OpenAIChat

            model = _models[model_id] = OpenAIChat(id=model_id)
    return model
