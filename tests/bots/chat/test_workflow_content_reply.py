"""A workflow answering with structured content still gets a text reply in chat."""

from __future__ import annotations

from pydantic import BaseModel

from core.db.in_memory import InMemoryDb
from core.workflow import Step, Workflow
from tests.bots.chat.test_workflows_in_chat import service_with
from tests.bots.conftest import message


class Summary(BaseModel):
    """Structured step content."""

    items: list[str]


def summarize() -> Summary:
    """A step answering with a pydantic model."""
    return Summary(items=["milk"])


async def test_pydantic_workflow_content_is_replied_as_json() -> None:
    """The workflow's RunOutput keeps the model; the chat reply renders it as JSON text."""
    db = InMemoryDb()
    flow = Workflow(name="summary", id="summary", db=db, steps=[Step("s", executor=summarize)])
    reply = await service_with(flow, db).handle_message(message("summary please"))
    assert reply is not None and '{"items":["milk"]}' in reply.text


async def test_a_workflow_that_streams_by_default_still_answers_in_chat() -> None:
    """Workflow(stream=True) is a default for its own callers; chat asks for the answer."""
    db = InMemoryDb()
    flow = Workflow(
        name="summary", id="summary", db=db, steps=[Step("s", executor=summarize)], stream=True
    )
    reply = await service_with(flow, db).handle_message(message("summary please"))
    assert reply is not None and '{"items":["milk"]}' in reply.text
