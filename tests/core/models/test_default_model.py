"""The default model: an owner without ``model=`` answers when the environment names a server.

As in Agno, ``Agent(db=db).run("hi")`` answers with ``OPENAI_API_KEY`` and/or
``OPENAI_BASE_URL`` set: the owner runs ``OpenAIChat`` with the id in
``STATEBOT_MODEL`` (``gpt-4o-mini`` when unset), through the real ``openai`` client.
Without either variable ``NoModelError`` says which to set and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.sqlite import SqliteDb
from core.exceptions import NoModelError
from core.models.openai import OpenAIChat
from core.team import Team
from core.testing import FakeOpenAIServer, tool_call
from core.workflow import Step, Workflow
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store

CHAT = "/v1/chat/completions"


@pytest.fixture
def configured(monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer) -> FakeOpenAIServer:
    """Only the environment names the server: no model object anywhere."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    return server


def test_agnos_first_line_answers(configured: FakeOpenAIServer, tmp_path: Path) -> None:
    """``Agent(db=db).run("hi")`` answers through the environment's server."""
    configured.extend(["Hello!"])
    agent = Agent(db=SqliteDb(db_file=str(tmp_path / "agno.db")))
    output = agent.run("hi")
    assert output.content == "Hello!"
    assert configured.paths == [CHAT]
    assert configured.requests[0]["model"] == "gpt-4o-mini"
    assert configured.headers[0]["authorization"] == "Bearer sk-from-env"
    assert isinstance(agent.model, OpenAIChat) and agent.model.id == "gpt-4o-mini"


async def test_default_model_changes_state_on_every_store(
    configured: FakeOpenAIServer, store: BaseDb
) -> None:
    """A tool call from the default model changes the stored session state."""

    def add_item(session_state: dict[str, list[str]], item: str) -> str:
        """Add an item to the list."""
        session_state["items"].append(item)
        return f"added {item}"

    configured.extend([tool_call("add_item", item="milk"), "Milk added."])
    agent = Agent(db=store, tools=[add_item], session_state={"items": []})
    output = await agent.arun("add milk", session_id="s", user_id="u")
    assert output.content == "Milk added."
    stored = await store.aload("s")
    assert stored is not None and stored.state["items"] == ["milk"]


async def test_statebot_model_names_the_id_and_a_base_url_alone_is_enough(
    monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer
) -> None:
    """``STATEBOT_MODEL`` chooses the id; a local server needs no key (a placeholder is sent)."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("STATEBOT_MODEL", "llama3.1")
    server.extend(["local answer"])
    output = await Agent().arun("hi")
    assert output.content == "local answer"
    assert server.requests[0]["model"] == "llama3.1"
    assert server.headers[0]["authorization"] == "Bearer not-needed"


async def test_an_agent_built_before_the_environment_finds_the_model(
    monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer
) -> None:
    """The environment is read when the agent runs, not when it is built."""
    agent = Agent()
    assert agent.model is None
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.extend(["now configured"])
    assert (await agent.arun("hi")).content == "now configured"


async def test_a_given_model_wins_over_the_default(configured: FakeOpenAIServer) -> None:
    """``model=`` is used as given; the default is only for owners without one."""
    configured.extend(["given"])
    given = OpenAIChat(id="mine", base_url=configured.base_url, api_key="sk-given")
    agent = Agent(model=given)
    assert agent.model is given
    await agent.arun("hi")
    await given.aclose()
    assert configured.requests[0]["model"] == "mine"


async def test_without_configuration_no_model_error_is_truthful(store: BaseDb) -> None:
    """No key and no base URL: NoModelError names both variables and nothing is stored."""
    agent = Agent(db=store)
    assert agent.model is None
    with pytest.raises(NoModelError, match=r"set OPENAI_API_KEY or OPENAI_BASE_URL"):
        await agent.arun("hi", session_id="s")
    assert await store.aload("s") is None


async def test_team_leader_and_members_use_the_default(configured: FakeOpenAIServer) -> None:
    """A team without models: the leader delegates, the member answers, both by default."""
    member = Agent(name="Helper", id="helper")
    team = Team(members=[member])
    configured.extend(
        [
            tool_call("delegate_task_to_member", member_id="helper", task="say hi"),
            "hi from the helper",
            "The helper says hi.",
        ]
    )
    output = await team.arun("greet me")
    assert output.content == "The helper says hi."
    assert [r.content for r in output.member_responses] == ["hi from the helper"]
    assert configured.paths == [CHAT] * 3


async def test_workflow_agent_steps_use_the_default(configured: FakeOpenAIServer) -> None:
    """A workflow's model-less agent step runs on the default model (no refusal)."""
    configured.extend(["step answer"])
    flow = Workflow(name="flow", steps=[Step(name="think", agent=Agent(id="thinker"))])
    output = await flow.arun("hello", session_id="s")
    assert output.content == "step answer"
