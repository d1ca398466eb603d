"""OpenAIResponses: the Responses API model adapter on the official ``openai`` client.

It speaks ``/v1/responses`` (``from core.models.openai import OpenAIResponses``, as
Agno's ``agno.models.openai.OpenAIResponses``). The runtime's messages use the Chat
Completions shapes, so they are translated into input items here:

- a system message becomes a ``developer`` message (as OpenAI asks for instructions);
- user and assistant text stay messages of those roles; a user message's images and
  files become ``input_image`` and ``input_text`` parts (:mod:`core.models.content`);
- an assistant's tool calls become ``function_call`` items and each tool result a
  ``function_call_output`` item with the same ``call_id``, so the whole conversation
  is sent each turn and nothing depends on the server keeping earlier responses
  (``store=`` is sent only when given, as Agno does).

Tools become Responses function tools (``strict`` only when the tool asks for it: the
API would otherwise assume it). Settings, credentials, timeouts, retries and error
messages are the chat model's (:mod:`core.models.openai.client`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
from openai.types.responses import Response, ResponseStreamEvent

from core.exceptions import ModelError
from core.models.base import Message, ModelResponse, ToolCall, Usage
from core.models.content import responses_parts
from core.models.env import DEFAULT_MODEL_ID
from core.models.openai.client import OpenAIModel, post_plain
from core.models.openai.errors import ErrorContext, raise_model_error
from core.models.openai.stream import ToolCallAssembler
from core.models.tool_choice import responses_tool_choice

#: what a streamed ``/responses`` call yields (as ``responses.create`` gives it)
_STREAM = openai.AsyncStream[ResponseStreamEvent]

__all__ = ["OpenAIResponses"]


class OpenAIResponses(OpenAIModel):
    """A model reached through the OpenAI Responses API (``/v1/responses``)."""

    name = "OpenAIResponses"
    api_name = "Responses API"
    #: output_schema goes out as the API's own ``text.format`` (as Agno sends it)
    supports_response_format = True

    def __init__(
        self,
        id: str = DEFAULT_MODEL_ID,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float | None = None,
        max_output_tokens: int | None = None,
        store: bool | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            id=id,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            temperature=temperature,
            max_tokens=max_output_tokens,
            extra_body=extra_body,
        )
        self.store = store

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        """One Responses call, answered whole."""
        return await self.ainvoke_structured(messages, tools, None)

    async def ainvoke_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
    ) -> ModelResponse:
        """One call asking for ``response_format`` (Chat Completions' shape) as ``text``."""
        client, ctx = self._client()
        try:
            params = self._params(messages, tools, response_format)
            response = await post_plain(
                client, "/responses", params, cast_to=Response, stream_cls=_STREAM
            )
            return _to_response(response, ctx)
        except ModelError:
            raise
        except Exception as exc:
            raise_model_error(exc, ctx)

    def astream(
        self, messages: list[Message], tools: list[dict[str, Any]]
    ) -> AsyncIterator[str | ModelResponse]:
        """Text deltas as the server streams them, then the whole turn."""
        return self.astream_structured(messages, tools, None)

    async def astream_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
    ) -> AsyncIterator[str | ModelResponse]:
        """:meth:`astream` asking for ``response_format`` as ``text``."""
        client, ctx = self._client()
        text: list[str] = []
        calls = ToolCallAssembler()
        usage = Usage()
        try:
            params = self._params(messages, tools, response_format)
            stream = await post_plain(
                client,
                "/responses",
                params | {"stream": True},
                cast_to=Response,
                stream_cls=_STREAM,
                stream=True,
            )
            async with stream:
                async for event in stream:
                    kind = event.type
                    if kind == "response.output_text.delta":
                        text.append(event.delta)
                        yield event.delta
                    elif kind == "response.output_item.added" and _is_call(event.item):
                        item = event.item
                        calls.add(
                            event.output_index,
                            id=item.call_id,
                            name=item.name,
                            arguments=item.arguments,
                        )
                    elif kind == "response.function_call_arguments.delta":
                        calls.add(event.output_index, arguments=event.delta)
                    elif kind in ("response.completed", "response.incomplete"):
                        usage = _usage(event.response.usage)
                    elif kind == "response.failed":
                        raise ModelError(f"{ctx.where} failed: {_failure(event.response, ctx)}")
                    elif kind == "error":
                        raise ModelError(f"{ctx.where} failed: {ctx.redact(event.message)}")
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
        params: dict[str, Any] = {"model": self.id, "input": to_input_items(messages)}
        if response_format is not None:
            params["text"] = {"format": to_text_format(response_format)}
        if self.store is not None:
            params["store"] = self.store
        if tools:  # some servers reject an empty tools list
            params["tools"] = [to_function_tool(tool) for tool in tools]
            if (choice := responses_tool_choice()) is not None:
                params["tool_choice"] = choice
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_output_tokens"] = self.max_tokens
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params


def to_input_items(messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as Responses input items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id or "",
                    "output": message.content or "",
                }
            )
            continue
        role = "developer" if message.role == "system" else message.role
        if message.has_media:
            parts = responses_parts(message.content, message.images or (), message.files or ())
            items.append({"role": role, "content": parts})
        elif message.content or not message.tool_calls:
            items.append({"role": role, "content": message.content or ""})
        for call in message.tool_calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
    return items


def to_text_format(response_format: dict[str, Any]) -> dict[str, Any]:
    """Chat Completions' ``response_format`` as the Responses API's ``text.format``:
    the ``json_schema`` fields move up one level (name, schema, strict)."""
    if response_format.get("type") != "json_schema":
        return dict(response_format)  # {"type": "json_object"} / {"type": "text"} as they are
    inner = response_format.get("json_schema") or {}
    return {"type": "json_schema", **inner}


def to_function_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool schema as a Responses function tool."""
    function = tool.get("function", tool)
    return {
        "type": "function",
        "name": function["name"],
        "description": function.get("description"),
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        "strict": bool(function.get("strict", False)),
    }


def _is_call(item: Any) -> bool:
    return getattr(item, "type", None) == "function_call"


def _to_response(response: Any, ctx: ErrorContext) -> ModelResponse:
    if response.error is not None:
        raise ModelError(f"{ctx.where} failed: {_failure(response, ctx)}")
    text: list[str] = []
    calls: list[ToolCall] = []
    for item in response.output or ():
        if item.type == "message":
            text.extend(part.text for part in item.content if part.type == "output_text")
        elif _is_call(item):
            calls.append(
                ToolCall(id=item.call_id, name=item.name, arguments=item.arguments or "{}")
            )
    return ModelResponse(
        content="".join(text) or None, tool_calls=tuple(calls), usage=_usage(response.usage)
    )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    return Usage(input_tokens=usage.input_tokens or 0, output_tokens=usage.output_tokens or 0)


def _failure(response: Any, ctx: ErrorContext) -> str:
    error = getattr(response, "error", None)
    return ctx.redact(getattr(error, "message", None) or "the response failed without a message")
