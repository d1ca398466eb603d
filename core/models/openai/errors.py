"""Turn ``openai`` client exceptions into the runtime's ModelError family.

The messages name the model, the server's host and the HTTP status so an operator
can tell a wrong base URL from an overloaded server. They never carry the API key:
some servers echo the key back in their error body, so it is masked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import openai

from core.exceptions import ModelError, ModelTimeoutError

_MAX_DETAIL = 300  # server error bodies can be whole HTML pages


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """What an error message needs to say where the failed call went."""

    model_id: str
    host: str
    timeout: float | None
    max_retries: int
    api_key: str | None = None
    api_name: str = "Chat Completions"  # the API the response should have been

    @property
    def where(self) -> str:
        """Which model at which server, as every message names it."""
        return f"model {self.model_id!r} at {self.host}"

    def redact(self, text: str) -> str:
        """``text`` with the API key masked and long bodies shortened."""
        if self.api_key and len(self.api_key) >= 4:
            text = text.replace(self.api_key, "***")
        if len(text) > _MAX_DETAIL:
            text = text[:_MAX_DETAIL] + "…"
        return text

    def leaks_key(self, exc: BaseException) -> bool:
        """True when ``exc`` or what caused it mentions the API key."""
        if not self.api_key:
            return False
        texts = (str(exc), str(getattr(exc, "body", "")), str(exc.__cause__ or ""))
        return any(self.api_key in text for text in texts)


def raise_model_error(exc: Exception, ctx: ErrorContext) -> NoReturn:
    """Raise the ModelError for ``exc``, chained to it unless its text carries the key."""
    error = to_model_error(exc, ctx)
    if ctx.leaks_key(exc):
        raise error from None  # a traceback would print the cause, key included
    raise error from exc


def to_model_error(exc: Exception, ctx: ErrorContext) -> ModelError:
    """The ModelError (or ModelTimeoutError) to raise in place of ``exc``."""
    where = ctx.where
    tries = f"after {ctx.max_retries} retr{'y' if ctx.max_retries == 1 else 'ies'}"
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeoutError(f"{where} did not answer within {ctx.timeout}s ({tries})")
    if isinstance(exc, openai.APIStatusError):
        detail = ctx.redact(_server_message(exc))
        return ModelError(f"{where} returned HTTP {exc.status_code}: {detail}")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        reason = f" ({ctx.redact(type(cause).__name__ + ': ' + str(cause))})" if cause else ""
        return ModelError(f"could not connect to {where} {tries}{reason}")
    if isinstance(exc, openai.APIResponseValidationError):
        return ModelError(f"{where} sent a response that is not valid {ctx.api_name} data")
    if isinstance(exc, openai.APIError):
        return ModelError(f"{where} failed: {ctx.redact(exc.message)}")
    if isinstance(exc, openai.OpenAIError):
        return ModelError(f"{where} is not usable: {ctx.redact(str(exc))}")
    # The client parses bodies lazily, so a malformed body surfaces as a plain error.
    return ModelError(
        f"{where} sent a malformed response ({type(exc).__name__}: {ctx.redact(str(exc))})"
    )


def _server_message(exc: openai.APIStatusError) -> str:
    """The server's own error message, falling back to the client's summary."""
    body = exc.body
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    if isinstance(body, str) and body.strip():
        return body.strip()
    return exc.message
