"""Usage budgets on the run path: refused before the model, counted per scope and day."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.exceptions import BudgetExceededError, RunError
from core.governance.budgets.model import Budget, Scope, run_scopes, utc_day
from core.governance.budgets.report import usage_report
from core.governance.budgets.stores import usage_store
from core.models.base import ModelResponse, Usage
from core.run.origin import CHANNEL_KEY
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.workflow.step import Step
from core.workflow.workflow import Workflow

#: 2026-11-23 22:00 UTC: two hours before the counters reset
EVENING = datetime(2026, 11, 23, 22, 0, tzinfo=UTC).timestamp()


class Clock:
    """A settable clock (seconds since the epoch)."""

    def __init__(self, now: float = EVENING) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def said(text: str, tokens: int) -> ModelResponse:
    """A final answer that cost ``tokens`` (all counted as input)."""
    return ModelResponse(content=text, usage=Usage(input_tokens=tokens, output_tokens=0))


def add_item(item: str, session_state: dict[str, object]) -> str:
    """Add an item to the list."""
    items = session_state.setdefault("items", [])
    assert isinstance(items, list)
    items.append(item)
    return f"added {item}"


def budgeted(model: ScriptedModel, budget: Budget, db: InMemoryDb | None = None) -> Agent:
    return Agent(model=model, tools=[add_item], db=db or InMemoryDb(), budget=budget)


async def test_refused_before_the_model_is_called_and_nothing_is_stored() -> None:
    """An exhausted session budget refuses the next run: no model call, no save, a clear reason."""
    model = ScriptedModel([said("first", 150), said("never", 1)])
    agent = budgeted(model, Budget(tokens_per_session=100, clock=Clock()))
    await agent.arun("hi", session_id="s", user_id="u")
    before = await agent.db.aload("s")
    assert before is not None

    with pytest.raises(BudgetExceededError) as refused:
        await agent.arun("again", session_id="s", user_id="u")

    assert len(model.requests) == 1
    after = await agent.db.aload("s")
    assert after is not None and after.version == before.version
    message = str(refused.value)
    assert "conversation's daily token budget is used up: 150 of 100 tokens" in message
    assert "resets at 00:00 UTC (in 2 h 0 min)" in message
    assert (refused.value.scope, refused.value.scope_id) == ("session", "s")
    assert refused.value.resets_at == "2026-11-24T00:00:00+00:00"
    assert isinstance(refused.value, RunError)  # the chat layer's run-refused reply


async def test_a_refused_run_leaves_the_history_and_state_untouched() -> None:
    """The refused run adds no history entry and changes no state."""
    model = ScriptedModel([tool_call("add_item", item="milk"), said("ok", 500)])
    agent = budgeted(model, Budget(tokens_per_session=10, clock=Clock()))
    await agent.arun("add milk", session_id="s")
    session = await agent.aget_session("s")
    assert session is not None
    runs_before = len(session.runs)
    with pytest.raises(BudgetExceededError):
        await agent.arun("add eggs", session_id="s")
    session = await agent.aget_session("s")
    assert session is not None and len(session.runs) == runs_before
    assert await agent.aget_session_state("s") == {"items": ["milk"]}


async def test_user_budget_spans_sessions_and_channel_budget_needs_the_channel() -> None:
    """A user's tokens add up across sessions; a channel's across its users; runs without
    a channel key have no channel scope."""
    clock = Clock()
    model = ScriptedModel([said("a", 40), said("b", 40), said("c", 40), said("d", 40)])
    budget = Budget(tokens_per_user=80, tokens_per_channel=60, clock=clock)
    agent = budgeted(model, budget)
    await agent.arun("1", session_id="s1", user_id="ana")  # no channel: not counted there
    await agent.arun("2", session_id="s2", user_id="ana")
    with pytest.raises(BudgetExceededError) as user_refused:
        await agent.arun("3", session_id="s3", user_id="ana")
    assert user_refused.value.scope == "user"
    assert "Your daily token budget is used up: 80 of 80 tokens" in str(user_refused.value)

    in_general = {CHANNEL_KEY: "slack:T1:C1"}
    await agent.arun("4", session_id="s4", user_id="bo", metadata=in_general)
    await agent.arun("5", session_id="s5", user_id="cy", metadata=in_general)
    with pytest.raises(BudgetExceededError) as channel_refused:
        await agent.arun("6", session_id="s6", user_id="di", metadata=in_general)
    assert channel_refused.value.scope == "channel"
    assert channel_refused.value.scope_id == "slack:T1:C1"
    assert len(model.requests) == 4


async def test_counters_start_again_on_the_next_utc_day() -> None:
    """Past 00:00 UTC the day's counters are fresh: the refused scope may run again."""
    clock = Clock()
    model = ScriptedModel([said("a", 100), said("b", 5)])
    agent = budgeted(model, Budget(tokens_per_session=100, clock=clock))
    await agent.arun("1", session_id="s")
    with pytest.raises(BudgetExceededError):
        await agent.arun("2", session_id="s")
    clock.now += 2 * 3600  # 00:00 UTC
    output = await agent.arun("2", session_id="s")
    assert output.content == "b"
    used = await usage_store(agent.db).aread([Scope("session", "s")], utc_day(clock.now))
    assert used[0].tokens == 5


async def test_tool_call_budget_counts_model_and_direct_calls() -> None:
    """Tool calls made by the model and direct (slash command) calls share the tool-call
    budget; an exhausted token budget does not stop a direct call."""
    model = ScriptedModel([tool_call("add_item", item="milk"), said("ok", 1000)])
    budget = Budget(tokens_per_session=10, tool_calls_per_session=2, clock=Clock())
    agent = budgeted(model, budget)
    await agent.arun("add milk", session_id="s")  # 1 tool call, 1000 tokens
    await agent.arun_tool("add_item", {"item": "eggs"}, session_id="s")  # token budget spent
    with pytest.raises(BudgetExceededError) as refused:
        await agent.arun_tool("add_item", {"item": "tea"}, session_id="s")
    assert "daily tool-call budget is used up: 2 of 2 tool calls" in str(refused.value)
    assert await agent.aget_session_state("s") == {"items": ["milk", "eggs"]}


async def test_model_turn_refused_on_an_exhausted_tool_call_budget() -> None:
    """A model turn is refused when the tool-call budget is used up (it could call tools)."""
    model = ScriptedModel([said("never", 1)])
    agent = budgeted(model, Budget(tool_calls_per_user=1, clock=Clock()))
    await agent.arun_tool("add_item", {"item": "eggs"}, session_id="s", user_id="u")
    with pytest.raises(BudgetExceededError):
        await agent.arun("hi", session_id="other", user_id="u")
    assert model.requests == []


async def test_team_members_tokens_count_toward_the_top_run() -> None:
    """A team run's usage includes its members' model calls."""
    cook = Agent(name="Cook", model=ScriptedModel([said("Cooked.", 30)]))
    leader = ScriptedModel(
        [
            ModelResponse(
                tool_calls=(tool_call("delegate_task_to_member", member_id="cook", task="x"),),
                usage=Usage(5, 5),
            ),
            said("Done.", 10),
        ]
    )
    budget = Budget(clock=Clock())  # counts, limits nothing
    team = Team(members=[cook], model=leader, budget=budget)
    await team.arun("dinner", session_id="t", user_id="u")
    report = await usage_report(team.db, budget, session_id="t", user_id="u")
    assert [(s.used.tokens, s.used.tool_calls) for s in report.scopes] == [(50, 1), (50, 1)]


async def test_without_a_budget_nothing_is_counted() -> None:
    """An owner without a budget keeps no counters at all."""
    agent = Agent(model=ScriptedModel([said("a", 100)]))
    await agent.arun("1", session_id="s", user_id="u")
    used = await usage_store(agent.db).aread([Scope("session", "s")], utc_day(EVENING))
    assert not used[0]


async def test_usage_report_describes_each_scope() -> None:
    """The report shows used/limit per scope, unlimited ones as such, and what is used up."""
    clock = Clock()
    model = ScriptedModel([tool_call("add_item", item="milk"), said("ok", 1234)])
    budget = Budget(tokens_per_session=1000, tool_calls_per_channel=5, clock=clock)
    agent = budgeted(model, budget)
    await agent.arun("x", session_id="s", user_id="u", metadata={CHANNEL_KEY: "c"})
    report = await usage_report(agent.db, budget, session_id="s", user_id="u", channel="c")
    assert report.describe() == (
        "Usage today (2026-11-23, UTC; counters reset at 00:00 UTC):\n"
        "• this conversation: 1,234 of 1,000 tokens, 1 tool call (no limit)"
        " (used up: new runs are refused until the reset)\n"
        "• you: 1,234 tokens (no limit), 1 tool call (no limit)\n"
        "• this channel: 1,234 tokens (no limit), 1 of 5 tool calls"
    )
    assert "• session s:" in report.describe(for_chat=False)
    assert report.as_dict()["scopes"][0]["exhausted"] is True


def test_run_scopes_come_from_the_run() -> None:
    """Session always; user and channel only when the run names them."""
    assert run_scopes("s", None, None) == [Scope("session", "s")]
    assert run_scopes("s", "u", {CHANNEL_KEY: "c"}) == [
        Scope("session", "s"),
        Scope("user", "u"),
        Scope("channel", "c"),
    ]


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_budget_rejects_limits_that_are_not_counts(bad: object) -> None:
    """A limit is a whole number of 0 or more (None: unlimited)."""
    with pytest.raises((TypeError, ValueError), match="tokens_per_user"):
        Budget(tokens_per_user=bad)  # type: ignore[arg-type]


async def test_runs_of_one_session_at_once_overshoot_by_at_most_one_run() -> None:
    """Two runs of one session sent together: the lease orders them, so the second sees
    the first's usage and is refused."""
    model = ScriptedModel([said("first", 150), said("second", 150)])
    agent = budgeted(model, Budget(tokens_per_session=100, clock=Clock()))
    results = await asyncio.gather(
        agent.arun("a", session_id="s"), agent.arun("b", session_id="s"), return_exceptions=True
    )
    assert sum(isinstance(r, BudgetExceededError) for r in results) == 1
    assert len(model.requests) == 1


async def test_workflow_steps_tokens_count_toward_the_workflow_run() -> None:
    """An agent step's model usage counts in the workflow run's scopes; once used up,
    the workflow is refused before its step's model is called."""
    step_model = ScriptedModel([said("x", 10), said("never", 1)])
    step_agent = Agent(name="writer", model=step_model)
    budget = Budget(tokens_per_session=10, clock=Clock())
    flow = Workflow("flow", steps=[Step(name="write", agent=step_agent)], budget=budget)
    await flow.arun("go", session_id="w", user_id="u")
    with pytest.raises(BudgetExceededError):
        await flow.arun("again", session_id="w", user_id="u")
    assert len(step_model.requests) == 1
    report = await usage_report(flow.db, budget, session_id="w", user_id="u")
    assert [s.used.tokens for s in report.scopes] == [10, 10]


async def test_a_run_that_fails_after_model_calls_is_still_charged() -> None:
    """Tokens of a run that fails later (here: past its tool-call rounds) still count."""
    model = ScriptedModel(
        [
            ModelResponse(
                content=None,
                tool_calls=[tool_call("add_item", item="milk")],
                usage=Usage(input_tokens=70, output_tokens=0),
            ),
            ModelResponse(
                content=None,
                tool_calls=[tool_call("add_item", item="eggs")],
                usage=Usage(input_tokens=50, output_tokens=0),
            ),
            said("never", 1),
        ]
    )
    clock = Clock()
    agent = Agent(
        model=model,
        tools=[add_item],
        db=InMemoryDb(),
        budget=Budget(tokens_per_session=100, clock=clock),
        tool_call_limit=1,
    )
    with pytest.raises(RunError):
        await agent.arun("shop", session_id="s", user_id="u")
    with pytest.raises(BudgetExceededError) as refused:
        await agent.arun("again", session_id="s", user_id="u")
    assert refused.value.used == 120 and len(model.requests) == 2
