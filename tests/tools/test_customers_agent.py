"""The customer records agent: the hook creates and retrieves; a raising hook rolls back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from tools.customers import create_agent, customer_management_hook

SESSION = "customers-session"
JANE = {"customer_profiles": {"123": {"name": "Jane Doe"}}}


async def test_seed_000_flow_creates_then_retrieves_through_the_hook() -> None:
    """Create 789 'Tom' then retrieve it: both calls are served by the hook and stored."""
    model = ScriptedModel(
        [
            tool_call("process_customer_request", customer_id="789", action="create", name="Tom"),
            tool_call("process_customer_request", customer_id="789", action="retrieve"),
            "Tom is customer 789.",
        ]
    )
    db = InMemoryDb()
    agent = create_agent(model=model, db=db, session_state=JANE)
    output = await agent.arun(
        "First, create customer 789 named 'Tom'. Then, retrieve Tom's profile.", session_id=SESSION
    )
    assert [t.result for t in output.tools] == [
        "Success! Customer 789 has been created.",
        'Profile for 789: {"name": "Tom"}',
    ]
    assert not any(t.error for t in output.tools)
    expected = {"123": {"name": "Jane Doe"}, "789": {"name": "Tom"}}
    assert (await agent.aget_session_state(SESSION))["customer_profiles"] == expected
    record = await db.aload(SESSION)
    assert record is not None and record.state["customer_profiles"] == expected
    # the instructions are filled per model call, so the second call already lists 789
    assert "Jane Doe" in model.requests[0].system and "789" not in model.requests[0].system
    assert '"789": {"name": "Tom"}' in model.requests[1].system


async def test_unknown_customer_is_an_error_result_and_the_run_continues() -> None:
    """Retrieving a missing id gives the model an error result; it can still answer."""
    model = ScriptedModel(
        [tool_call("process_customer_request", customer_id="999"), "There is no customer 999."]
    )
    agent = create_agent(model=model, session_state=JANE)
    output = await agent.arun("who is 999?", session_id=SESSION)
    assert output.tools[0].error is True
    assert "Customer '999' not found. Known customers: 123." in output.tools[0].result
    assert output.content == "There is no customer 999."
    assert output.session_state["customer_profiles"] == JANE["customer_profiles"]


async def test_changes_made_before_the_hook_raises_are_rolled_back() -> None:
    """An outer hook's write is undone when the customer hook raises inside the same call."""

    def audit_hook(
        session_state: dict[str, Any],
        function_name: str,
        function_call: Callable[..., Any],
        arguments: dict[str, Any],
    ) -> Any:
        session_state.setdefault("audit", []).append(arguments.get("customer_id"))
        return function_call(**arguments)

    model = ScriptedModel(
        [
            tool_call("process_customer_request", customer_id="1", action="create", name="Ann"),
            tool_call("process_customer_request", customer_id="1", action="create", name="Bob"),
            "done",
        ]
    )
    agent = create_agent(
        model=model,
        db=InMemoryDb(),
        tool_hooks=[audit_hook, customer_management_hook],
        session_state={"customer_profiles": {}},
    )
    output = await agent.arun("create 1 twice", session_id=SESSION)
    assert [t.error for t in output.tools] == [False, True]
    assert "Customer 1 already exists" in output.tools[1].result
    state = await agent.aget_session_state(SESSION)
    # the first call's audit entry and profile stay; the failed call's audit entry is gone
    assert state == {"customer_profiles": {"1": {"name": "Ann"}}, "audit": ["1"]}


async def test_direct_calls_through_arun_tool_use_the_hook() -> None:
    """arun_tool goes through the hook: create stores, retrieve reads, a miss is an error."""
    db = InMemoryDb()
    agent = create_agent(db=db)
    created = await agent.arun_tool(
        "process_customer_request",
        {"customer_id": "42", "action": "create", "name": "Ada"},
        session_id=SESSION,
    )
    assert created.content == "Success! Customer 42 has been created."
    found = await agent.arun_tool(
        "process_customer_request", {"customer_id": "42"}, session_id=SESSION
    )
    assert found.content == 'Profile for 42: {"name": "Ada"}'
    missing = await agent.arun_tool(
        "process_customer_request", {"customer_id": "7"}, session_id=SESSION
    )
    assert missing.tools[0].error is True
    assert "Customer '7' not found" in (missing.content or "")
    assert await agent.aget_session_state(SESSION) == {"customer_profiles": {"42": {"name": "Ada"}}}


async def test_without_the_hook_the_tool_reports_it_is_missing() -> None:
    """An agent given CustomerDBTools but no hook gets an error result naming the hook."""
    agent = create_agent(tool_hooks=[])
    output = await agent.arun_tool(
        "process_customer_request", {"customer_id": "1"}, session_id=SESSION
    )
    assert output.tools[0].error is True
    assert "customer_management_hook" in (output.content or "")
