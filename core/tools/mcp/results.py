"""What an MCP tool's result becomes for the model: text, or a tool error.

Text blocks go back as they are (joined by blank lines); structured content without
text goes back as its JSON. Images, audio and binary resources are not forwarded
(sending files out is another part): the model gets a short line saying what the
server returned, so it can tell the person. An ``is_error`` result raises
:class:`~core.exceptions.ToolRefusedError`, which the run loop reports to the model as
the call's error, never ending the run.
"""

from __future__ import annotations

import base64
import binascii
import json

from mcp import types

from core.exceptions import ToolRefusedError

__all__ = ["result_text"]


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
    if isinstance(block, types.ImageContent):
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
