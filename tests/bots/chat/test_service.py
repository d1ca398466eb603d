"""ChatService: routing to agents, commands, friendly errors, nothing lost."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from bots.app.service import chat_service
from bots.chat.service import ConfigError
from bots.inbound import InboundMessage
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.exceptions import LockTimeoutError, ToolArgumentError, ToolCallLimitError
from core.models.base import ModelError, ModelTimeoutError
from core.models.scripted import tool_call
from core.schedule import TARGET_KEY
from tests.bots.conftest import ServiceFactory, command, message

THREAD_SESSION = "slack:T1:C1:1700.1"
CHANNEL_SESSION = "slack:T1:C1"


async def _state(db: InMemoryDb, session_id: str) -> dict[str, Any] | None:
    record = await db.aload(session_id)
    return None if record is None else record.state


async def test_message_not_addressed_to_bot_is_ignored(make_service: ServiceFactory) -> None:
    """Neither a DM nor a mention: no reply at all."""
    service = make_service(["never"])
    assert await service.handle_message(message("hello", bot_mentioned=False)) is None


async def test_free_text_runs_the_model_and_saves_state(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A mention goes to the default agent's model; its tool call is saved on the channel's
    board (the Taskboard's own scope), the same board its slash command shows."""
    service = make_service([tool_call("add_task", title="Buy milk"), "Added Buy milk."])
    reply = await service.handle_message(message("add a task: buy milk"))
    assert reply is not None and reply.text == "Added Buy milk."
    assert await _state(db, THREAD_SESSION) is None
    state = await _state(db, CHANNEL_SESSION)
    assert state is not None and [t["title"] for t in state["tasks"]] == ["Buy milk"]


async def test_dm_needs_no_mention(make_service: ServiceFactory) -> None:
    """A direct message is always addressed to the bot."""
    service = make_service(["hi there"])
    reply = await service.handle_message(message("hello", bot_mentioned=False, is_dm=True))
    assert reply is not None and reply.text == "hi there"


async def test_named_agent_receives_the_message(make_service: ServiceFactory) -> None:
    """`@bot shopping …` runs the shopping agent, which sees its own tools."""
    service = make_service(["ok"])
    await service.handle_message(message("shopping what do we need?"))
    model = service.agents["shopping"].model
    tools = [t["function"]["name"] for t in model.requests[0].tools]
    assert "add_item" in tools and "add_task" not in tools
    assert model.requests[0].messages[-1].content == "what do we need?"


async def test_no_model_reply_names_configuration_and_offline_commands(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Without a model, free text gets how to configure one and the offline commands."""
    service = make_service(None)
    reply = await service.handle_message(message("add a task"))
    assert reply is not None
    assert reply.text.startswith("No model is configured: set OPENAI_API_KEY")
    assert "OPENAI_BASE_URL" in reply.text and "/taskboard " in reply.text
    assert "add_task" in reply.text
    state = await _state(db, THREAD_SESSION)
    assert state is None or state.get("tasks") == []


async def test_model_error_gives_friendly_reply_state_unchanged(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """A failing model gets a short apology; stored state is exactly as before."""
    service = make_service([ModelError("upstream 503 after retries")])
    await service.handle_command(command("taskboard", 'add "Existing task"'))
    before = await _state(db, CHANNEL_SESSION)
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        reply = await service.handle_message(message("add more", thread=None))
    assert reply is not None and "Changes made before that are saved" in reply.text
    assert "503" not in reply.text
    assert await _state(db, CHANNEL_SESSION) == before
    failure = next(entry for entry in logs if entry["event"] == "model_failed")
    assert failure["session_id"] == CHANNEL_SESSION and failure["agent"] == "taskboard"
    assert failure["log_level"] == "error" and "503" in failure["error"]


async def test_model_error_after_a_tool_batch_keeps_that_batch(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Changes saved before the model failed stay saved."""
    service = make_service([tool_call("add_task", title="Saved first"), ModelTimeoutError("slow")])
    reply = await service.handle_message(message("add it"))
    assert reply is not None and "timed out" in reply.text
    state = await _state(db, CHANNEL_SESSION)
    assert state is not None and [t["title"] for t in state["tasks"]] == ["Saved first"]


async def test_tool_call_limit_gives_friendly_reply(make_service: ServiceFactory) -> None:
    """A model looping on tools is stopped with a clear reply."""
    service = make_service([tool_call("list_tasks") for _ in range(30)])
    reply = await service.handle_message(message("loop"))
    assert reply is not None and "kept calling tools" in reply.text


async def test_oversize_message_runs_nothing(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """Text over the limit gets a clear reply and never reaches the model."""
    service = make_service(["never"], statebot_max_message_chars=100)
    reply = await service.handle_message(message("x" * 200))
    assert reply is not None and "too long" in reply.text and "100" in reply.text
    assert service.agents["taskboard"].model.requests == []
    assert await db.alist_sessions() == []


async def test_oversize_command_runs_nothing(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """A slash command over the limit is refused before parsing."""
    service = make_service(None, statebot_max_message_chars=50)
    reply = await service.handle_command(command("taskboard", "add " + "y" * 100))
    assert "too long" in reply.text and reply.ephemeral
    assert await db.alist_sessions() == []


async def test_mention_without_text_gives_a_hint(make_service: ServiceFactory) -> None:
    """`@bot` alone (nothing left once the adapter removed the mention) gets a hint."""
    service = make_service(["never"])
    reply = await service.handle_message(message(""))
    assert reply is not None and "/taskboard" in reply.text
    assert service.agents["taskboard"].model.requests == []


async def test_command_runs_tool_and_persists(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """`/taskboard add "…" category=work` runs add_task in the channel session."""
    service = make_service(None)
    reply = await service.handle_command(
        command("taskboard", 'add "Review Q2 roadmap" category=work')
    )
    assert "Review Q2 roadmap" in reply.text and not reply.ephemeral
    state = await _state(db, CHANNEL_SESSION)
    assert state is not None
    assert state["tasks"][0]["title"] == "Review Q2 roadmap"
    assert state["tasks"][0]["category"] == "work"


@pytest.mark.parametrize("text", ["", "help", "HELP"])
async def test_command_help_lists_commands_and_parameters(
    make_service: ServiceFactory, text: str
) -> None:
    """`/taskboard` and `/taskboard help` list every command with its parameters."""
    reply = await make_service(None).handle_command(command("taskboard", text))
    assert reply.ephemeral
    assert "/taskboard add_task <title> [category]" in reply.text
    assert "update_task_status <task_id> <status>" in reply.text
    assert "(also: add)" in reply.text


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("taskboard", "frobnicate now", "Unknown command 'frobnicate' for /taskboard"),
        ("taskboard", 'add "unclosed', "check the quotes"),
        ("taskboard", "status one done", "task_id must be integer"),
        ("taskboard", "add x colour=red", "unknown parameter 'colour'"),
        ("taskboard", "status 1", "missing status"),
        ("nosuchagent", "list", "Unknown command /nosuchagent"),
    ],
)
async def test_bad_commands_reply_clearly_and_change_nothing(
    make_service: ServiceFactory, db: InMemoryDb, name: str, text: str, expected: str
) -> None:
    """Unknown commands and bad arguments get a clear ephemeral reply; state is untouched."""
    service = make_service(None)
    await service.handle_command(command("taskboard", "add Existing"))
    before = await db.aload(CHANNEL_SESSION)
    reply = await service.handle_command(command(name, text))
    assert expected in reply.text and reply.ephemeral
    after = await db.aload(CHANNEL_SESSION)
    assert before is not None and after is not None and after.version == before.version


async def test_tool_level_refusal_leaves_state_unchanged(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """An unknown task id is the tool's own clear message; nothing changes."""
    service = make_service(None)
    await service.handle_command(command("taskboard", "add Existing"))
    before = await _state(db, CHANNEL_SESSION)
    reply = await service.handle_command(command("taskboard", "status 99 done"))
    assert "no task #99" in reply.text
    assert await _state(db, CHANNEL_SESSION) == before


async def test_channel_scope_shares_state_between_threads(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """With STATEBOT_AGENT_SCOPES taskboard=channel, every thread sees one board."""
    service = make_service(
        [tool_call("add_task", title="A"), "ok", tool_call("add_task", title="B"), "ok"],
        statebot_agent_scopes={"taskboard": "channel"},
    )
    await service.handle_message(message("add A", thread="1.1"))
    await service.handle_message(message("add B", thread="2.2"))
    state = await _state(db, CHANNEL_SESSION)
    assert state is not None and [t["title"] for t in state["tasks"]] == ["A", "B"]


class _FailingAgent:
    """A registry entry whose runs raise a given error."""

    id = "failing"
    name = "Failing"
    description = "raises"
    def __init__(self, error: BaseException) -> None:
        self.functions: dict[str, Any] = {}
        self.error = error
        self.db = InMemoryDb()

    async def arun(self, input: str, **kw: Any) -> Any:
        raise self.error

    async def arun_tool(self, name: str, arguments: Any, **kw: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (LockTimeoutError("busy"), "so nothing was run"),
        (ToolCallLimitError(3), "after 3 rounds"),
        (RuntimeError("kaboom"), "Something went wrong"),
    ],
)
async def test_errors_of_any_registry_entry_become_replies(error: Exception, expected: str) -> None:
    """Store, loop and unexpected errors become short replies, never exceptions."""
    service = chat_service(
        {"failing": _FailingAgent(error)}, settings=Settings(statebot_default_agent="failing")
    )
    reply = await service.handle_message(message("go"))
    assert reply is not None and expected in reply.text
    assert "kaboom" not in reply.text


async def test_tool_argument_error_from_the_runtime_shows_usage(
    make_service: ServiceFactory,
) -> None:
    """Arguments the runtime rejects come back with the usage line; nothing runs."""
    agent = _FailingAgent(ToolArgumentError("add_task: invalid arguments"))
    real = make_service(None).agents["taskboard"]
    agent.functions = dict(real.functions)
    service = chat_service({"taskboard": agent}, settings=Settings())
    reply = await service.handle_command(command("taskboard", "add_task x"))
    assert "invalid arguments" in reply.text and "usage: /taskboard add_task" in reply.text
    assert reply.ephemeral


def test_unknown_default_agent_fails_at_startup() -> None:
    """A default or channel agent that is not registered is a startup error."""
    agents = {"taskboard": _FailingAgent(RuntimeError())}
    with pytest.raises(ConfigError, match="STATEBOT_DEFAULT_AGENT"):
        chat_service(agents, settings=Settings(statebot_default_agent="nope"))
    with pytest.raises(ConfigError, match="C9"):
        chat_service(agents, settings=Settings(statebot_channel_agents={"C9": "nope"}))


def test_unknown_session_scope_fails_at_startup() -> None:
    """An entry declaring a scope other than thread/channel/user is a startup error."""
    agent = _FailingAgent(RuntimeError())
    agent.session_scope = "galaxy"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="galaxy"):
        chat_service({"taskboard": agent}, settings=Settings())


async def test_addressing_comes_from_the_record_only(make_service: ServiceFactory) -> None:
    """The service answers what the adapter marked addressed, whatever else the record says."""
    service = make_service(["Hi!"])
    mentioned = InboundMessage(
        "slack", "T1", "C1", "1.1", "U1", "hello", "Ev1", bot_mentioned=True, is_dm=True
    )
    assert await service.handle_message(mentioned) is None
    addressed = InboundMessage("slack", "T1", "C1", "1.1", "U1", "hello", "Ev1", addressed=True)
    reply = await service.handle_message(addressed)
    assert reply is not None and reply.text == "Hi!"


async def test_keys_and_reply_thread_come_from_the_record(make_service: ServiceFactory) -> None:
    """The run's session is the record's conversation key; a reminder targets its reply thread."""
    service = make_service(["Hi!"], statebot_agent_scopes={"taskboard": "thread"})
    msg = InboundMessage(
        "slack", "T1", "C1", "1.1", "U1", "hi", "Ev1", addressed=True, reply_thread="9.9"
    )
    assert service.session_keys("taskboard", msg) is msg.keys
    metadata = await service.run_metadata(msg)
    assert metadata[TARGET_KEY]["thread"] == "9.9"
    await service.handle_message(msg)
    db = service.agents["taskboard"].db
    assert db is not None and await db.aload(msg.keys.session_id) is not None
