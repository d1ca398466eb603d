"""A tool may return media (Agno's ``ToolResult``): the model reads its content, the run's
output carries its images and files, and the history keeps the text only."""

from __future__ import annotations

from core.agent import Agent
from core.media import File, Image
from core.models.scripted import ScriptedModel, tool_call
from core.run.history import SessionData
from core.tools import tool
from core.tools.function import ToolResult
from tests.media_samples import png_bytes

PNG = png_bytes(8)


@tool
def chart(month: str) -> ToolResult:
    """Draw the month's chart.

    Args:
        month: the month to draw.
    """
    return ToolResult(
        content=f"Chart of {month} attached.",
        images=[Image(content=PNG, mime_type="image/png", name=f"{month}.png")],
        files=[File(content="day,sales\n1,3\n", mime_type="text/csv", name=f"{month}.csv")],
    )


async def test_tool_media_reach_the_output_not_the_model_or_history() -> None:
    """Content to the model; images and files on RunOutput in call order; none stored."""
    model = ScriptedModel([tool_call("chart", month="may"), "Here is May."])
    agent = Agent(model=model, tools=[chart], session_id="s")
    out = await agent.arun("chart may")
    tool_message = model.requests[1].messages[-1]
    assert tool_message.role == "tool" and tool_message.content == "Chart of may attached."
    assert out.images is not None and [i.name for i in out.images] == ["may.png"]
    assert out.images[0].content == PNG
    assert out.files is not None and out.files[0].content == "day,sales\n1,3\n"
    assert out.tools[0].images == out.images
    record = await agent.db.aload("s")
    assert record is not None
    (run,) = SessionData.decode(record.data).runs
    assert run.tool_calls[0].result == "Chart of may attached."
    assert "day,sales" not in record.data


async def test_plain_tools_leave_no_media() -> None:
    """A run whose tools return plain values has no images or files."""
    model = ScriptedModel(["hi"])
    out = await Agent(model=model).arun("hello")
    assert out.images is None and out.files is None


async def test_a_direct_calls_media_reach_its_output() -> None:
    """A tool called directly (a slash command) gives its media on the output too."""
    agent = Agent(tools=[chart], session_id="s")
    out = await agent.arun_tool("chart", {"month": "june"})
    assert out.content == "Chart of june attached."
    assert out.images is not None and out.images[0].name == "june.png"
    assert out.files is not None and out.files[0].name == "june.csv"
