"""The Chat Completions wire format the fake server sends, built from a ModelResponse.

Pure functions, no I/O: ``completion_json`` is a whole (non-streamed) answer,
``sse_events`` the ``data:`` payloads of a streamed one, shaped like OpenAI's.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from core.models.base import ModelResponse, ToolCall, Usage

#: words with their surrounding spaces, so the pieces join back to the exact text
WORDS = re.compile(r"\s*\S+\s*|\s+")


def scripted_usage(prompt_words: int, response: ModelResponse) -> Usage:
    """The scripted usage, or a rough word count when none was scripted."""
    if response.usage != Usage():
        return response.usage
    completion = len((response.content or "").split()) + sum(
        len(c.arguments) // 4 + 1 for c in response.tool_calls
    )
    return Usage(input_tokens=prompt_words, output_tokens=completion)


def usage_json(request: dict[str, Any], response: ModelResponse) -> dict[str, int]:
    """Chat Completions usage: scripted, or estimated from the request's messages."""
    prompt = sum(len(str(m.get("content") or "").split()) for m in request.get("messages", []))
    usage = scripted_usage(prompt, response)
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _tool_call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def _finish_reason(response: ModelResponse) -> str:
    return "tool_calls" if response.tool_calls else "stop"


def completion_json(id: str, request: dict[str, Any], response: ModelResponse) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [_tool_call_json(c) for c in response.tool_calls]
    return {
        "id": id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(response)}],
        "usage": usage_json(request, response),
    }


def split_arguments(arguments: str) -> list[str]:
    """Arguments in three slices (fewer only when the text is shorter)."""
    size = max(1, -(-len(arguments) // 3))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]


def sse_events(id: str, request: dict[str, Any], response: ModelResponse) -> Iterator[str]:
    base = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return json.dumps({**base, "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    for piece in WORDS.findall(response.content or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(response.tool_calls):
        head = _tool_call_json(call)
        head["function"]["arguments"] = ""
        yield chunk({"tool_calls": [{"index": index, **head}]})
        for piece in split_arguments(call.arguments):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, _finish_reason(response))
    if (request.get("stream_options") or {}).get("include_usage"):
        yield json.dumps({**base, "choices": [], "usage": usage_json(request, response)})
    yield "[DONE]"
