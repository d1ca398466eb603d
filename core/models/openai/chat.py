"""OpenAIChat: the Chat Completions model adapter on the official ``openai`` client.

It speaks ``/v1/chat/completions``, the dialect every OpenAI-compatible server
implements, so the same class reaches OpenAI, Ollama, vLLM or LM Studio:

    model = OpenAIChat(id="gpt-4o-mini")                    # OPENAI_API_KEY
    # OPENAI_BASE_URL=http://localhost:11434/v1 -> a local Ollama, no key needed

Settings, credentials and clients are shared with ``OpenAIResponses``
(:mod:`core.models.openai.client`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from core.exceptions import ModelError
from core.models.base import Message, ModelResponse, ToolCall, Usage
from core.models.env import PLACEHOLDER_API_KEY as PLACEHOLDER_API_KEY
from core.models.openai.client import OpenAIModel, post_plain
from core.models.openai.errors import raise_model_error
from core.models.openai.stream import ToolCallAssembler
from core.models.tool_choice import chat_tool_choice


class OpenAIChat(OpenAIModel):
    """A chat model reached through an OpenAI-compatible Chat Completions endpoint."""

    name = "OpenAIChat"
    api_name = "Chat Completions"
    supports_response_format = True

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
            completion = await post_plain(
                client,
                "/chat/completions",
                self._params(messages, tools, response_format),
                cast_to=ChatCompletion,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
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
            params = self._params(messages, tools, response_format)
            params |= {"stream": True, "stream_options": {"include_usage": True}}
            stream = await post_plain(
                client,
                "/chat/completions",
                params,
                cast_to=ChatCompletion,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
                stream=True,
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
            if (choice := chat_tool_choice()) is not None:
                params["tool_choice"] = choice
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params


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
