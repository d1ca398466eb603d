"""Agno's context options found missing by running its cookbook: the agent's name in
its system message, the system message's role, and ``TeamRunInput`` at Agno's path."""

from __future__ import annotations

from core.agent import Agent
from core.run.team import TeamRunInput
from core.team import Team
from core.testing import ScriptedModel, tool_call


def test_add_name_to_context_tells_the_model_its_name() -> None:
    named = Agent(model=ScriptedModel(["hi"]), name="Ada", add_name_to_context=True)
    plain = Agent(model=ScriptedModel(["hi"]), name="Ada")

    named.run("who are you?")
    plain.run("who are you?")

    assert "Your name is: Ada." in named.model.requests[0].messages[0].content
    assert all("Your name is" not in (m.content or "") for m in plain.model.requests[0].messages)


def test_system_message_role_is_the_role_the_system_message_is_sent_with() -> None:
    default = Agent(model=ScriptedModel(["a"]), instructions="Be brief.")
    developer = Agent(
        model=ScriptedModel(["b"]), instructions="Be brief.", system_message_role="developer"
    )

    default.run("hi")
    output = developer.run("hi")

    assert default.model.requests[0].messages[0].role == "system"
    sent = developer.model.requests[0].messages[0]
    assert (sent.role, sent.content) == ("developer", "Be brief.")
    assert output.messages[0].role == "developer"


def test_a_team_pre_hook_gets_the_input_as_a_team_run_input() -> None:
    seen: list[object] = []

    def check(run_input: TeamRunInput) -> None:
        seen.append(run_input)

    member = Agent(model=ScriptedModel(["unused"]), name="M")
    team = Team(members=[member], model=ScriptedModel(["done"]), pre_hooks=[check])

    team.run("plan the week")

    assert len(seen) == 1 and isinstance(seen[0], TeamRunInput)
    assert seen[0].input_content == "plan the week"


def test_a_developer_system_message_is_not_stored_with_the_run() -> None:
    agent = Agent(
        model=ScriptedModel(["b"]),
        instructions="Secret plan: {plan}",
        session_state={"plan": "tea at five"},
        system_message_role="developer",
    )
    agent.run("hi", session_id="s")

    stored = agent.get_session(session_id="s").runs[0].messages
    assert [m.role for m in stored] == ["user", "assistant"]


def test_a_system_message_role_that_would_be_stored_as_words_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="system_message_role must be one of system, developer"):
        Agent(model=ScriptedModel(["b"]), system_message_role="user")


def test_store_history_messages_false_is_what_runs_do_and_true_is_refused() -> None:
    import pytest

    agent = Agent(
        model=ScriptedModel(["one", "two"]),
        add_history_to_context=True,
        store_history_messages=False,
    )
    agent.run("first", session_id="s")
    agent.run("second", session_id="s")
    stored = agent.get_session(session_id="s").runs[1].messages
    assert [(m.role, m.content) for m in stored] == [("user", "second"), ("assistant", "two")]

    with pytest.raises(ValueError, match="store_history_messages=True is not supported"):
        Agent(model=ScriptedModel([]), store_history_messages=True)


def test_max_tool_calls_from_history_holds_as_history_carries_no_tool_calls() -> None:
    import pytest

    def weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    script = [
        tool_call("weather", city="Oslo"),
        "Sunny.",
        tool_call("weather", city="Rome"),
        "Hot.",
    ]
    agent = Agent(
        model=ScriptedModel(script),
        tools=[weather],
        add_history_to_context=True,
        max_tool_calls_from_history=1,
    )
    agent.run("Oslo?", session_id="s")
    agent.run("Rome?", session_id="s")

    sent = agent.model.requests[2].messages  # the second run's first model call
    from_history = [m for m in sent if m.from_history]
    assert [m.content for m in from_history] == ["Oslo?", "Sunny."]
    assert not any(m.tool_calls for m in from_history)
    assert agent.max_tool_calls_from_history == 1
    with pytest.raises(ValueError, match="max_tool_calls_from_history must be 0 or more"):
        Agent(model=ScriptedModel([]), max_tool_calls_from_history=-1)


def test_additional_input_goes_between_the_system_message_and_the_question() -> None:
    import pytest

    from core.models.message import Message

    examples = [
        Message(role="user", content="I forgot my password"),
        {"role": "assistant", "content": "Click 'Forgot password'."},
        "Be kind.",
    ]
    agent = Agent(model=ScriptedModel(["ok"]), instructions="Support.", additional_input=examples)

    output = agent.run("Enable 2FA", session_id="s")

    sent = [(m.role, m.content) for m in agent.model.requests[0].messages]
    assert sent == [
        ("system", "Support."),
        ("user", "I forgot my password"),
        ("assistant", "Click 'Forgot password'."),
        ("user", "Be kind."),
        ("user", "Enable 2FA"),
    ]
    # the examples are the agent's, not the run's: they are not stored with it
    assert [m.content for m in output.messages if m.role == "user"] == ["Enable 2FA"]
    with pytest.raises(TypeError, match="additional_input"):
        Agent(model=ScriptedModel([]), additional_input=[42])
