"""Names at Agno's import paths: code that imports them from ``agno`` runs with ``core``."""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.models.scripted import ScriptedModel


def test_agent_package_exports_the_run_names() -> None:
    from core.agent import (
        Function,
        Message,
        RunCompletedEvent,
        RunContentEvent,
        RunEvent,
        RunOutput,
        RunOutputEvent,
        Toolkit,
    )
    from core.models.base import Message as ModelMessage
    from core.run.agent import RunCompletedEvent as Completed
    from core.run.agent import RunOutput as Output
    from core.tools.function import Function as ToolFunction
    from core.tools.toolkit import Toolkit as Kit

    assert RunOutput is Output and RunCompletedEvent is Completed
    assert Function is ToolFunction and Toolkit is Kit and Message is ModelMessage
    assert RunEvent.run_completed == "RunCompleted"
    assert issubclass(RunContentEvent, RunOutputEvent)


def test_run_package_exports_run_status() -> None:
    from core.run import RunStatus
    from core.run.base import RunStatus as BaseStatus

    assert RunStatus is BaseStatus and RunStatus.completed == "COMPLETED"


def test_a_run_output_keeps_its_input() -> None:
    from core.run.agent import RunInput

    agent = Agent(model=ScriptedModel(["hello"]))
    output = agent.run("hi there")
    assert isinstance(output.input, RunInput)
    assert output.input.input_content == "hi there"
    assert output.input.input_content_string() == "hi there"
    assert RunInput(input_content={"a": 1}).input_content_string() == '{"a": 1}'


def test_pprint_run_response_prints_a_run_and_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    from core.utils.pprint import pprint_run_response

    agent = Agent(model=ScriptedModel(["one answer", "streamed answer"]))
    pprint_run_response(agent.run("a"))
    assert capsys.readouterr().out.strip() == "one answer"
    pprint_run_response(agent.run("b", stream=True))
    assert capsys.readouterr().out.strip() == "streamed answer"


async def test_apprint_run_response_prints_an_async_stream(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from core.utils.pprint import apprint_run_response

    agent = Agent(model=ScriptedModel(["async answer"]))
    await apprint_run_response(agent.arun("c", stream=True))
    assert capsys.readouterr().out.strip() == "async answer"


def test_pprint_show_time_adds_the_response_time(capsys: pytest.CaptureFixture[str]) -> None:
    from core.utils.pprint import pprint_run_response

    agent = Agent(model=ScriptedModel(["timed", "timed stream"]))
    pprint_run_response(agent.run("a"), show_time=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "timed" and lines[1].startswith("Response (") and lines[1].endswith("s)")
    pprint_run_response(agent.run("b", stream=True), markdown=True, show_time=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "timed stream" and lines[1].startswith("Response (")


def test_message_lives_at_agnos_path_and_marks_history() -> None:
    """``agno.models.message.Message``; earlier turns put in a run's context carry
    ``from_history=True``, the run's own messages do not."""
    from core.models.base import Message as BaseMessage
    from core.models.message import Message

    assert Message is BaseMessage and not Message(role="user", content="hi").from_history
    seen: list[list[Message]] = []

    def answer(messages: list[Message], tools: list[object]) -> str:
        seen.append(list(messages))
        return f"answer {len(seen)}"

    agent = Agent(model=ScriptedModel([answer, answer]), add_history_to_context=True)
    agent.run("one", session_id="h")
    agent.run("two", session_id="h")
    flags = [(m.role, m.content, m.from_history) for m in seen[1] if m.role != "system"]
    assert flags == [
        ("user", "one", True),
        ("assistant", "answer 1", True),
        ("user", "two", False),
    ]


def test_media_and_tool_result_at_agnos_paths() -> None:
    """``agno.media`` (Image, File) and ``agno.tools.function.ToolResult``, as Agno names them;
    a run's input keeps the media it was given."""
    from core.media import File, Image
    from core.tools.function import ToolResult

    image = Image(url="https://example.com/cat.png", detail="low")
    result = ToolResult(content="done", images=[image], files=[File(content="a,b\n")])
    assert result.images == [image] and image.id  # an id is given when none is
    output = Agent(model=ScriptedModel(["a cat"])).run("what?", images=[image])
    assert output.input is not None and output.input.images == [image]
