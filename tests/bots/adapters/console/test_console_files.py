"""The console's files: ``/attach`` gives local files to the model, a tool's are saved."""

from __future__ import annotations

from pathlib import Path

from bots.adapters.console.files import ATTACH_USAGE, parse_attach
from bots.adapters.console.session import ConsoleSession
from bots.app.service import chat_service
from bots.settings import Settings
from core.agent import Agent
from core.media import Image
from core.models.scripted import ScriptedModel, tool_call
from core.tools import tool
from core.tools.function import ToolResult
from tests.media_samples import pdf_bytes, png_bytes

PNG = png_bytes(12)


@tool
def draw_chart() -> ToolResult:
    """Draw this week's chart."""
    return ToolResult(
        content="Drawn.", images=[Image(content=PNG, mime_type="image/png", name="week")]
    )


def _console(model: ScriptedModel, files_dir: Path, **settings: object) -> ConsoleSession:
    agent = Agent(name="helper", model=model, tools=[draw_chart])
    config = Settings(statebot_default_agent="helper", redis_url=None, **settings)  # type: ignore[arg-type]
    service = chat_service({"helper": agent}, settings=config)
    return ConsoleSession(service, agent_id="helper", session="t", user="ann", files_dir=files_dir)


def test_attach_syntax() -> None:
    """Paths shell-style until ``--``, then the message; no path is the usage."""
    assert parse_attach('a.png "my notes.md" -- compare these') == (
        ["a.png", "my notes.md"],
        "compare these",
    )
    assert parse_attach("a.png") == (["a.png"], "")
    assert parse_attach("a.png --") == (["a.png"], "")
    for bad in ("", "-- hello", '"unclosed.png -- hi'):
        try:
            parse_attach(bad)
        except ValueError as exc:
            assert ATTACH_USAGE in str(exc)
        else:
            raise AssertionError(f"{bad!r} was accepted")


async def test_attach_gives_files_to_the_model_and_names_what_it_cannot(tmp_path: Path) -> None:
    """An image and a PDF reach the model; a missing path and a zip are named in one line."""
    (tmp_path / "photo.png").write_bytes(PNG)
    (tmp_path / "bill.pdf").write_bytes(pdf_bytes("Total 9 EUR"))
    (tmp_path / "a.zip").write_bytes(b"PK\x03\x04")
    model = ScriptedModel(["It totals 9 EUR."])
    console = _console(model, tmp_path / "out")
    paths = " ".join(
        f"{tmp_path}/{name}" for name in ("photo.png", "bill.pdf", "gone.png", "a.zip")
    )
    line = f"/attach {paths} -- total?"
    outcome = await console.handle_line(line)
    assert outcome.text == (
        "I could not use 2 attachments: `a.zip` (application/zip is not a type I read; I read "
        "images (PNG, JPEG, GIF, WebP), text, Markdown, CSV, JSON and PDF); `gone.png` (could "
        f"not download it: there is no file '{tmp_path}/gone.png').\n\nIt totals 9 EUR."
    )
    question = model.requests[0].messages[-1]
    assert question.content == "total?"
    assert question.images is not None and question.images[0].content == PNG
    assert question.files is not None and question.files[0].content == "Total 9 EUR"
    assert console.goes_to_model("/attach x.png")


async def test_attach_without_text_tells_the_model_what_is_attached(tmp_path: Path) -> None:
    """No message after the paths: the run's text says what was attached."""
    (tmp_path / "photo.png").write_bytes(PNG)
    model = ScriptedModel(["A red square."])
    console = _console(model, tmp_path / "out")
    await console.handle_line(f"/attach {tmp_path}/photo.png")
    size = len(PNG)
    assert model.requests[0].messages[-1].content == f"[attached: photo.png (image/png, {size} B)]"


async def test_a_tools_image_is_saved_and_its_path_printed(tmp_path: Path) -> None:
    """Saved under the files directory with its type's extension; never over another."""
    model = ScriptedModel([tool_call("draw_chart"), "Here.", tool_call("draw_chart"), "Again."])
    console = _console(model, tmp_path / "out")
    first = await console.handle_line("draw it")
    assert first.text == f"Here.\nSaved {tmp_path}/out/week.png"
    second = await console.handle_line("draw it again")
    assert second.text == f"Again.\nSaved {tmp_path}/out/week-2.png"
    assert (tmp_path / "out" / "week.png").read_bytes() == PNG
