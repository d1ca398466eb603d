"""A sync pre-hook may run another agent with the sync API, as Agno's cookbook does
(a topics analyser run inside the hook, its answer kept in the session state)."""

from __future__ import annotations

import asyncio

from core.agent import Agent
from core.run import RunContext
from core.run.agent import RunInput
from core.testing import ScriptedModel


def _agent_with_analyser_hook() -> tuple[Agent, Agent]:
    analyser = Agent(model=ScriptedModel(["agents", "agno"]), name="Analyser")

    def track_topics(run_context: RunContext, run_input: RunInput) -> None:
        found = analyser.run(f"Topics of: {run_input.input_content}")
        run_context.session_state.setdefault("topics", []).append(found.content)

    agent = Agent(model=ScriptedModel(["one", "two"]), pre_hooks=[track_topics])
    return agent, analyser


def test_a_sync_hook_runs_another_agent_and_its_answer_is_kept() -> None:
    agent, analyser = _agent_with_analyser_hook()

    agent.run("Tell me about AI agents", session_id="s")
    agent.run("And Agno?", session_id="s")

    assert agent.get_session_state(session_id="s") == {"topics": ["agents", "agno"]}
    assert analyser.model.requests[0].messages[-1].content == "Topics of: Tell me about AI agents"


def test_the_same_from_async_code() -> None:
    agent, _ = _agent_with_analyser_hook()

    asyncio.run(agent.arun("Tell me about AI agents", session_id="s"))

    assert agent.get_session_state(session_id="s") == {"topics": ["agents"]}


def test_a_hook_that_changes_a_list_in_place_is_saved_on_every_run() -> None:
    def count_in_place(run_context: RunContext) -> None:
        run_context.session_state["seen"].append(len(run_context.session_state["seen"]))

    def note_after(run_context: RunContext) -> None:
        run_context.session_state["after"].append("x")

    agent = Agent(
        model=ScriptedModel(["a", "b"]),
        session_state={"seen": [], "after": []},
        pre_hooks=[count_in_place],
        post_hooks=[note_after],
    )
    agent.run("one", session_id="s")
    agent.run("two", session_id="s")

    assert agent.get_session_state(session_id="s") == {"seen": [0, 1], "after": ["x", "x"]}
