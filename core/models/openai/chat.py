"""OpenAIChat: the Chat Completions model adapter on the official ``openai`` client.

It speaks ``/v1/chat/completions``, the dialect every OpenAI-compatible server
implements, so the same class reaches OpenAI, Ollama, vLLM or LM Studio:

    model = OpenAIChat(id="gpt-4o-mini")                    # OPENAI_API_KEY
    # OPENAI_BASE_URL=http://localhost:11434/v1 -> a local Ollama, no key needed

Credentials and the base URL are resolved when the first call is made, not when
the object is built, so an agent can be defined before the environment is set.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import openai

from core.exceptions import ModelError
from core.models.base import Message, Model, ModelResponse, ToolCall, Usage
from core.models.openai.errors import ErrorContext, raise_model_error
from core.models.openai.stream import ToolCallAssembler

#: Sent when only a base URL is configured: local servers ignore the key, the client needs one.
PLACEHOLDER_API_KEY = "not-needed"
_DEFAULT_HOST = "api.openai.com"

#: a loop's client with the api key and base URL it was built with
_LoopClient = tuple[openai.AsyncOpenAI, str, str | None]


class OpenAIChat(Model):
    """A chat model reached through an OpenAI-compatible Chat Completions endpoint."""

    name = "OpenAIChat"
    provider = "OpenAI"
    supports_response_format = True

    def __init__(
        self,
        id: str = "gpt-4o-mini",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = extra_body
        # httpx connection pools belong to the loop that opened them, and the sync API
        # runs on its own background loop, so each loop gets its own client.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClient]
        self._clients = weakref.WeakKeyDictionary()
        self._clients_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIChat(id={self.id!r}, base_url={self.base_url!r})"

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        """One Chat Completions call, answered whole."""
        return await self._complete(messages, tools, None)

    async def ainvoke_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> ModelResponse:
        """One call with ``response_format`` (structured output) in the request."""
        return await self._complete(messages, tools, response_format)

    def astream(
        self, messages: list[Message], tools: list[dict[str, Any]]
    ) -> AsyncIterator[str | ModelResponse]:
        """Text chunks as the server streams them, then the whole turn."""
        return self._stream(messages, tools, None)

    def astream_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> AsyncIterator[str | ModelResponse]:
        """:meth:`astream` with ``response_format`` in the request."""
        return self._stream(messages, tools, response_format)

    async def _complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
    ) -> ModelResponse:
        client, ctx = self._client()
        try:
            completion = await client.chat.completions.create(
                **self._params(messages, tools, response_format)
            )
            return _to_response(completion)
        except ModelError:
            raise
        except Exception as exc:
            raise_model_error(exc, ctx)

    async def _stream(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
    ) -> AsyncIterator[str | ModelResponse]:
        client, ctx = self._client()
        text: list[str] = []
        calls = ToolCallAssembler()
        usage = Usage()
        try:
            stream = await client.chat.completions.create(
                **self._params(messages, tools, response_format),
                stream=True,
                stream_options={"include_usage": True},
            )
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    if not chunk.choices:
                        continue
                    delta = chunk.choices[0].delta
                    for part in delta.tool_calls or ():
                        function = part.function
                        calls.add(
                            part.index,
                            id=part.id,
                            name=function.name if function else None,
                            arguments=function.arguments if function else None,
                        )
                    if delta.content:
                        text.append(delta.content)
                        yield delta.content
        except ModelError:
            raise
        except Exception as exc:
            raise_model_error(exc, ctx)
        yield ModelResponse(content="".join(text) or None, tool_calls=calls.calls(), usage=usage)

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop, if one was opened."""
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            entry = self._clients.pop(loop, None)
        if entry is not None:
            await entry[0].close()

    def _params(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.id,
            "messages": [m.to_openai() for m in messages],
        }
        if response_format is not None:
            params["response_format"] = response_format
        if tools:  # some servers reject an empty tools list
            params["tools"] = tools
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def _client(self) -> tuple[openai.AsyncOpenAI, ErrorContext]:
        api_key, base_url = self._credentials()
        ctx = ErrorContext(
            model_id=self.id,
            host=urlsplit(base_url).netloc if base_url else _DEFAULT_HOST,
            timeout=self.timeout,
            max_retries=self.max_retries,
            api_key=api_key,
        )
        if api_key is None:
            raise ModelError(
                f"model {self.id!r} has no API key: set OPENAI_API_KEY, or OPENAI_BASE_URL "
                "to use a local OpenAI-compatible server (Ollama, vLLM, LM Studio)"
            )
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            entry = self._clients.get(loop)
            # rebuilt when the environment changed since the last call on this loop
            if entry is None or entry[1:] != (api_key, base_url):
                client = openai.AsyncOpenAI(
                    api_key=api_key,
                    base_url=base_url,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
                entry = (client, api_key, base_url)
                self._clients[loop] = entry
        return entry[0], ctx

    def _credentials(self) -> tuple[str | None, str | None]:
        """(api key, base URL): arguments first, then the environment."""
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        api_key = self.api_key or os.environ.get("OPENAI_API_KEY") or None
        if api_key is None and base_url is not None:
            api_key = PLACEHOLDER_API_KEY
        return api_key, base_url


def _to_response(completion: Any) -> ModelResponse:
    if not completion.choices:
        raise ModelError("the model server returned a completion without choices")
    message = completion.choices[0].message
    calls = tuple(
        ToolCall(id=call.id, name=call.function.name, arguments=call.function.arguments or "{}")
        for call in message.tool_calls or ()
        if getattr(call, "function", None) is not None
    )
    usage = _usage(completion.usage) if completion.usage is not None else Usage()
    return ModelResponse(content=message.content, tool_calls=calls, usage=usage)


def _usage(usage: Any) -> Usage:
    return Usage(input_tokens=usage.prompt_tokens or 0, output_tokens=usage.completion_tokens or 0)
