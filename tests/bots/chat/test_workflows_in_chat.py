"""Teams and workflows are registered with the chat router like agents."""

from __future__ import annotations

from typing import Any

from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.run import RunContext
from core.workflow import Parallel, Step, Workflow
from tests.bots.conftest import command, message
from tools.catalog import COMMAND_ALIASES, create_agents


def count_visit(run_context: RunContext) -> str:
    """Count a visit in the workflow's state."""
    state = run_context.session_state
    state["visits"] = state.get("visits", 0) + 1
    return f"visit {state['visits']}"


def set_colour_red(run_context: RunContext) -> str:
    """One branch's opinion."""
    run_context.session_state["colour"] = "red"
    return "red"


def set_colour_blue(run_context: RunContext) -> str:
    """The other branch's opinion."""
    run_context.session_state["colour"] = "blue"
    return "blue"


def service_with(workflow: Workflow, db: InMemoryDb) -> ChatService:
    agents: dict[str, Any] = {**create_agents(None, db), workflow.id: workflow}
    settings = Settings(openai_api_key=None, openai_base_url=None, statebot_admin_ids="slack:T1:U1")
    return chat_service(agents, settings=settings, aliases=COMMAND_ALIASES)


async def test_a_mention_naming_a_workflow_runs_it_on_the_thread_session() -> None:
    """`@bot visits ...` reaches the workflow; its state persists per thread; /state shows it."""
    db = InMemoryDb()
    flow = Workflow(
        name="visits", id="visits", db=db, steps=[Step(name="count", executor=count_visit)]
    )
    service = service_with(flow, db)
    first = await service.handle_message(message("visits hello"))
    second = await service.handle_message(message("visits again"))
    assert first is not None and "visit 1" in first.text
    assert second is not None and "visit 2" in second.text
    dump = await service.handle_command(command("state", "dump slack:T1:C1:1700.1"))
    assert dump.ephemeral and '"visits": 2' in dump.text.replace("'", '"')


async def test_a_parallel_conflict_becomes_a_clear_reply_and_saves_nothing() -> None:
    """Two branches writing one key differently: the user is told why; nothing is stored."""
    db = InMemoryDb()
    clash = Parallel(
        Step(name="red", executor=set_colour_red),
        Step(name="blue", executor=set_colour_blue),
        name="opinions",
    )
    flow = Workflow(name="colours", id="colours", db=db, steps=[clash])
    reply = await service_with(flow, db).handle_message(message("colours pick"))
    assert reply is not None and "colour" in reply.text and "Nothing" in reply.text
    assert all("colour" not in r.state for r in await db.alist_sessions())


async def test_the_ready_shopping_workflow_answers_in_chat_with_the_list() -> None:
    """`@bot shopping-flow ...`: the assistant step edits, the last step shows the list."""
    from core.models.scripted import ScriptedModel, tool_call
    from tools.shopping.workflow import WORKFLOW_ID

    db = InMemoryDb()
    model = ScriptedModel(
        [
            [tool_call("add_item", item="milk"), tool_call("add_item", item="eggs")],
            "Added.",
            tool_call("remove_item", item="milk"),
            "Removed.",
        ]
    )
    settings = Settings(openai_api_key=None, openai_base_url=None)
    service = chat_service(create_agents(model, db), settings=settings, aliases=COMMAND_ALIASES)
    first = await service.handle_message(message(f"{WORKFLOW_ID} add milk and eggs"))
    assert first is not None and first.text.endswith("- milk\n- eggs")
    second = await service.handle_message(message(f"{WORKFLOW_ID} I got milk"))
    assert second is not None and second.text.endswith("- eggs")
    record = await db.aload("slack:T1:C1:1700.1")
    assert record is not None and record.state["shopping_list"] == ["eggs"]
    assert record.kind == "workflow"
