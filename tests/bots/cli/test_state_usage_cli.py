"""``statebot state usage`` and the deployment budget (STATEBOT_BUDGET_*) given to agents."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.app.budgets import apply_budget, settings_budget
from bots.app.build import build_app
from bots.cli.main import main
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb
from core.governance.budgets.model import Budget
from core.models.base import ModelResponse, Usage
from core.run.origin import CHANNEL_KEY
from core.testing import ScriptedModel, tool_call


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL must not turn these SQLite tests into Redis ones."""
    monkeypatch.delenv("REDIS_URL", raising=False)


def note(text: str, session_state: dict[str, list[str]]) -> str:
    """Keep a note."""
    session_state.setdefault("notes", []).append(text)
    return "noted"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite store where user u spent 1,200 tokens and one tool call today in s/c."""
    url = f"sqlite:///{tmp_path}/usage.db"
    model = ScriptedModel(
        [tool_call("note", text="hi"), ModelResponse(content="ok", usage=Usage(1000, 200))]
    )

    async def fill() -> None:
        db = SqliteDb(db_url=url)
        agent = Agent(model=model, tools=[note], db=db, budget=Budget())
        await agent.arun("note hi", session_id="s", user_id="u", metadata={CHANNEL_KEY: "c"})
        await db.aclose()

    asyncio.run(fill())
    return url


def test_usage_shows_each_scope_against_the_settings_budget(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`state usage` prints today's counters per scope with the STATEBOT_BUDGET_* limits."""
    monkeypatch.setenv("STATEBOT_BUDGET_TOKENS_PER_SESSION", "1000")
    monkeypatch.setenv("STATEBOT_BUDGET_TOOL_CALLS_PER_USER", "10")
    args = ["state", "--db-url", db_url, "usage", "--session", "s", "--user", "u"]
    result = CliRunner().invoke(main, [*args, "--channel", "c"])
    assert result.exit_code == 0, result.output
    day = datetime.now(UTC).date().isoformat()
    assert result.output == (
        f"Usage today ({day}, UTC; counters reset at 00:00 UTC):\n"
        "• session s: 1,200 of 1,000 tokens, 1 tool call (no limit)"
        " (used up: new runs are refused until the reset)\n"
        "• user u: 1,200 tokens (no limit), 1 of 10 tool calls\n"
        "• channel c: 1,200 tokens (no limit), 1 tool call (no limit)\n"
    )
    as_json = CliRunner().invoke(main, [*args, "--json"])
    data = json.loads(as_json.output)
    assert data["budget_set"] is True
    assert [(s["scope"], s["tokens"], s["exhausted"]) for s in data["scopes"]] == [
        ("session", 1200, True),
        ("user", 1200, False),
    ]


def test_usage_without_a_budget_says_nothing_is_limited(db_url: str) -> None:
    """Without STATEBOT_BUDGET_* the command still reads the counters and says so."""
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, "usage", "--user", "nobody"])
    assert result.exit_code == 0
    assert "• user nobody: 0 tokens (no limit), 0 tool calls (no limit)" in result.output
    assert "No STATEBOT_BUDGET_* is set" in result.output


def test_usage_needs_a_scope(db_url: str) -> None:
    """Without --session, --user or --channel the command explains what it needs."""
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, "usage"])
    assert result.exit_code == 2
    assert "name at least one of --session, --user, --channel" in result.output


def test_settings_budget_reads_every_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each STATEBOT_BUDGET_* sets its limit; empty ones stay unlimited; none set: no budget."""
    assert settings_budget(Settings()) is None
    monkeypatch.setenv("STATEBOT_BUDGET_TOKENS_PER_CHANNEL", "5000")
    monkeypatch.setenv("STATEBOT_BUDGET_TOOL_CALLS_PER_SESSION", "0")
    monkeypatch.setenv("STATEBOT_BUDGET_TOKENS_PER_USER", "")
    assert settings_budget(Settings()) == Budget(tokens_per_channel=5000, tool_calls_per_session=0)


def test_apply_budget_reaches_agents_without_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deployment's budget goes to every agent that has none; an agent's own stays."""
    monkeypatch.setenv("STATEBOT_BUDGET_TOKENS_PER_USER", "100")
    own = Budget(tokens_per_user=7)
    agents = {"a": Agent(), "b": Agent(budget=own)}
    apply_budget(agents, Settings())
    assert agents["a"].budget == Budget(tokens_per_user=100)
    assert agents["b"].budget is own


def test_the_app_gives_catalog_agents_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """build_app wires STATEBOT_BUDGET_* into every agent the bots serve."""
    monkeypatch.setenv("STATEBOT_BUDGET_TOOL_CALLS_PER_CHANNEL", "3")
    app = build_app(Settings(statebot_scheduler=False), db=InMemoryDb())
    budgets = {
        getattr(agent, "budget", None)
        for agent in (app.service.agents[name] for name in app.service.agents)
    }
    assert budgets == {Budget(tool_calls_per_channel=3)}
