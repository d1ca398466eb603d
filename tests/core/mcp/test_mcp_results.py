"""How MCP tool results become text for the model (core/tools/mcp/results.py)."""

from __future__ import annotations

import base64

import pytest
from mcp import types

from core.exceptions import ToolRefusedError
from core.tools.mcp.results import result_text, tool_result
from core.tools.result import ToolResult


def _result(*blocks: types.ContentBlock, **fields: object) -> types.CallToolResult:
    return types.CallToolResult(content=list(blocks), **fields)


def test_text_blocks_are_joined() -> None:
    """Text blocks go back as they are, one blank line apart."""
    result = _result(types.TextContent(text="one"), types.TextContent(text="two"))
    assert result_text("s", "t", result) == "one\n\ntwo"


def test_structured_content_without_text_is_json() -> None:
    """Structured content is shown as JSON when no text block says it."""
    result = _result(structured_content={"total": 3})
    assert result_text("s", "t", result) == '{"total": 3}'


def test_resources_are_described() -> None:
    """A text resource is shown with its URI; binary content is described, not sent."""
    blob = base64.b64encode(b"x" * 2048).decode()
    result = _result(
        types.EmbeddedResource(
            resource=types.TextResourceContents(
                uri="file:///a.txt", text="hello", mime_type="text/plain"
            )
        ),
        types.EmbeddedResource(resource=types.BlobResourceContents(uri="file:///b.bin", blob=blob)),
        types.ResourceLink(uri="file:///c.pdf", name="c", mime_type="application/pdf"),
        types.AudioContent(data=blob, mime_type="audio/wav"),
    )
    assert result_text("s", "t", result).split("\n\n") == [
        "[resource file:///a.txt (text/plain)]\nhello",
        "[binary resource returned: file:///b.bin, 2.0 KiB; not shown here]",
        "[resource link: file:///c.pdf (application/pdf)]",
        "[audio returned: audio/wav, 2.0 KiB; not played here]",
    ]


def test_an_error_result_is_a_refusal_with_the_servers_words() -> None:
    """``is_error`` raises ToolRefusedError (the loop shows its message as is)."""
    result = _result(types.TextContent(text="quota exceeded"), is_error=True)
    with pytest.raises(ToolRefusedError) as refused:
        result_text("billing", "charge", result)
    assert str(refused.value) == (
        "MCP tool 'charge' of server 'billing' reported an error: quota exceeded"
    )
    with pytest.raises(ToolRefusedError, match="no details given"):
        result_text("billing", "charge", _result(is_error=True))


def test_images_and_binary_resources_become_media_for_the_person() -> None:
    """tool_result: the same text for the model, and the image and the blob as media."""
    png = b"\x89PNG\r\n\x1a\nfake"
    pdf = b"%PDF-1.4 fake"
    result = _result(
        types.TextContent(text="Here."),
        types.ImageContent(data=base64.b64encode(png).decode(), mime_type="image/png"),
        types.EmbeddedResource(
            resource=types.BlobResourceContents(
                uri="file:///reports/q2.pdf",
                blob=base64.b64encode(pdf).decode(),
                mime_type="application/pdf",
            )
        ),
    )
    answer = tool_result("s", "t", result)
    assert isinstance(answer, ToolResult)
    assert answer.content == result_text("s", "t", result)
    assert answer.images is not None and answer.images[0].content == png
    assert answer.files is not None
    assert (answer.files[0].name, answer.files[0].content) == ("q2.pdf", pdf)
    assert tool_result("s", "t", _result(types.TextContent(text="only text"))) == "only text"
