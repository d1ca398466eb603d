"""What an MCP tool's result becomes: text for the model, media for the person, or a
tool error.

Text blocks go back as they are (joined by blank lines); structured content without
text goes back as its JSON. Images and binary resources are not shown to the model:
it gets a short line saying what the server returned, and the result is a
:class:`~core.tools.result.ToolResult` carrying them as ``Image`` / ``File``, so a
chat front end posts them into the conversation (docs/files.md). Audio is described
only. An ``is_error`` result raises :class:`~core.exceptions.ToolRefusedError`, which
the run loop reports to the model as the call's error, never ending the run.
"""

from __future__ import annotations

import base64
import binascii
import json

from mcp import types

from core.exceptions import ToolRefusedError
from core.media import File, Image
from core.tools.result import ToolResult

__all__ = ["result_text", "tool_result"]


def tool_result(server: str, tool: str, result: types.CallToolResult) -> str | ToolResult:
    """The result as text, or a ToolResult when the server returned images or binary
    resources (the text, with a line per item, and the items as media)."""
    text = result_text(server, tool, result)
    images = [
        Image(content=data, mime_type=block.mime_type)
        for block in result.content
        if isinstance(block, types.ImageContent) and (data := _decoded(block.data)) is not None
    ]
    files = [
        File(content=data, mime_type=resource.mime_type, name=_name(str(resource.uri)))
        for block in result.content
        if isinstance(block, types.EmbeddedResource)
        and isinstance(resource := block.resource, types.BlobResourceContents)
        and (data := _decoded(resource.blob)) is not None
    ]
    if not images and not files:
        return text
    return ToolResult(content=text, images=images or None, files=files or None)


def result_text(server: str, tool: str, result: types.CallToolResult) -> str:
    """The result as text for the model; ToolRefusedError for an error result."""
    parts = [_block_text(block) for block in result.content]
    has_text = any(isinstance(block, types.TextContent) for block in result.content)
    if not has_text and result.structured_content is not None:
        parts.insert(0, json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n\n".join(part for part in parts if part)
    if result.is_error:
        raise ToolRefusedError(
            f"MCP tool {tool!r} of server {server!r} reported an error: "
            f"{text or 'no details given'}"
        )
    return text


def _block_text(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):  # posted to the person (tool_result)
        return f"[image returned: {block.mime_type}, {_size(block.data)}; not shown here]"
    if isinstance(block, types.AudioContent):
        return f"[audio returned: {block.mime_type}, {_size(block.data)}; not played here]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.uri}{_mime(block.mime_type)}]"
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return f"[resource {resource.uri}{_mime(resource.mime_type)}]\n{resource.text}"
    return (
        f"[binary resource returned: {resource.uri}{_mime(resource.mime_type)}, "
        f"{_size(resource.blob)}; not shown here]"
    )


def _decoded(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def _name(uri: str) -> str:
    """A file name from a resource URI: its last path part (the URI when it has none)."""
    last = uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return last or uri


def _mime(mime_type: str | None) -> str:
    return f" ({mime_type})" if mime_type else ""


def _size(data: str) -> str:
    """The decoded size of base64 ``data``, for people."""
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return "undecodable data"
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB"
