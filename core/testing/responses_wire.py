"""The Responses API wire format the fake server sends, built from a ModelResponse.

Pure functions, no I/O: ``response_json`` is a whole (non-streamed) ``/v1/responses``
answer, ``response_events`` the server-sent events of a streamed one, in the order
OpenAI sends them: ``response.created``, ``response.in_progress``, then per output
item ``response.output_item.added``, its deltas (``response.output_text.delta`` or
``response.function_call_arguments.delta``), their ``….done`` and
``response.output_item.done``, and last ``response.completed`` carrying the usage.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from core.models.base import ModelResponse, ToolCall
from core.testing.openai_wire import WORDS, scripted_usage, split_arguments


def _words(value: Any) -> int:
    """Words in an input item's text, wherever the item keeps it."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, list):
        return sum(_words(part) for part in value)
    if isinstance(value, dict):
        return sum(_words(value.get(key)) for key in ("content", "text", "output", "arguments"))
    return 0


def usage_json(request: dict[str, Any], response: ModelResponse) -> dict[str, Any]:
    """Responses usage: scripted, or estimated from the request's input and instructions."""
    prompt = _words(request.get("input")) + _words(request.get("instructions"))
    usage = scripted_usage(prompt, response)
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _message_item(id: str, text: str, status: str = "completed") -> dict[str, Any]:
    content = [_text_part(text)] if status == "completed" else []
    return {"id": id, "type": "message", "role": "assistant", "status": status, "content": content}


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _call_item(id: str, call: ToolCall, arguments: str, status: str) -> dict[str, Any]:
    return {
        "id": id,
        "type": "function_call",
        "status": status,
        "call_id": call.id,
        "name": call.name,
        "arguments": arguments,
    }


def _output(id: str, response: ModelResponse) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if response.content:
        items.append(_message_item(f"msg_{id}", response.content))
    for index, call in enumerate(response.tool_calls):
        items.append(_call_item(f"fc_{id}_{index}", call, call.arguments, "completed"))
    return items


def _envelope(id: str, request: dict[str, Any], status: str) -> dict[str, Any]:
    return {
        "id": f"resp_{id}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": request.get("model", "fake"),
        "output": [],
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": request.get("temperature", 1.0),
        "top_p": 1.0,
        "tool_choice": "auto",
        "tools": request.get("tools") or [],
        "text": {"format": {"type": "text"}},
        "usage": None,
    }


def response_json(id: str, request: dict[str, Any], response: ModelResponse) -> dict[str, Any]:
    """A whole ``/v1/responses`` answer."""
    body = _envelope(id, request, "completed")
    body["output"] = _output(id, response)
    body["usage"] = usage_json(request, response)
    return body


def response_events(
    id: str, request: dict[str, Any], response: ModelResponse
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(event type, payload)`` pairs of a streamed answer, sequence-numbered."""
    sequence = 0

    def event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        nonlocal sequence
        payload = {"type": kind, "sequence_number": sequence, **fields}
        sequence += 1
        return kind, payload

    started = _envelope(id, request, "in_progress")
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    index = 0
    if response.content:
        item_id = f"msg_{id}"
        at = {"item_id": item_id, "output_index": index, "content_index": 0}
        yield event(
            "response.output_item.added",
            output_index=index,
            item=_message_item(item_id, "", "in_progress"),
        )
        yield event("response.content_part.added", **at, part=_text_part(""))
        for piece in WORDS.findall(response.content):
            yield event("response.output_text.delta", **at, delta=piece, logprobs=[])
        yield event("response.output_text.done", **at, text=response.content, logprobs=[])
        yield event("response.content_part.done", **at, part=_text_part(response.content))
        yield event(
            "response.output_item.done",
            output_index=index,
            item=_message_item(item_id, response.content),
        )
        index += 1
    for number, call in enumerate(response.tool_calls):
        item_id = f"fc_{id}_{number}"
        yield event(
            "response.output_item.added",
            output_index=index,
            item=_call_item(item_id, call, "", "in_progress"),
        )
        for piece in split_arguments(call.arguments):
            yield event(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=piece,
            )
        yield event(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            name=call.name,
            arguments=call.arguments,
        )
        yield event(
            "response.output_item.done",
            output_index=index,
            item=_call_item(item_id, call, call.arguments, "completed"),
        )
        index += 1
    yield event("response.completed", response=response_json(id, request, response))


def sse_frames(events: Iterator[tuple[str, dict[str, Any]]]) -> Iterator[str]:
    """Each event as OpenAI frames it: an ``event:`` line, then its ``data:`` line."""
    for kind, payload in events:
        yield f"event: {kind}\ndata: {json.dumps(payload)}\n\n"
