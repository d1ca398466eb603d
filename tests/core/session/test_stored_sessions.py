"""Session objects read from and saved to every store (Agno's ``db.get_session`` /
``db.upsert_session`` and the owners' ``get_session`` / ``save_session``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.agent import Agent
from core.db.base import BaseDb, SessionType
from core.exceptions import StaleVersionError
from core.models.base import Message
from core.models.scripted import ScriptedModel
from core.run import RunOutput, RunStatus
from core.run.history import SessionData
from core.session import AgentSession, TeamSession
from core.team import Team
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store

ROOT = Path(__file__).resolve().parents[3]


async def _audit_kinds(db: BaseDb, session_id: str) -> list[str]:
    record = await db.aload(session_id)
    assert record is not None
    return [e["kind"] for e in SessionData.decode(record.data).audit_entries()]


async def test_get_session_gives_an_agent_session_with_its_runs_messages(store: BaseDb) -> None:
    """db.get_session returns an AgentSession: state and name in session_data, runs with
    their messages; another type, an unknown user or a missing id gives None."""
    agent = Agent(id="helper", model=ScriptedModel(["hello"]), db=store, instructions="Be kind.")
    await agent.arun("hi", session_id="s", user_id="ann", session_state={"n": 1})
    session = await store.aget_session("s", SessionType.AGENT)
    assert isinstance(session, AgentSession)
    assert session.agent_id == "helper" and session.user_id == "ann"
    assert session.session_data == {"session_state": {"n": 1}}
    assert session.runs is not None and len(session.runs) == 1
    run = session.runs[0]
    # the system message is rebuilt from the state each run: not kept with the run
    assert [m.role for m in run.messages] == ["user", "assistant"]
    assert run.content == "hello" and RunStatus(run.status) is RunStatus.completed
    assert await store.aget_session("s", SessionType.TEAM) is None
    assert await store.aget_session("s", SessionType.AGENT, user_id="bob") is None
    assert await store.aget_session("nope", SessionType.AGENT) is None
    as_dict = await store.aget_session("s", SessionType.AGENT, deserialize=False)
    assert as_dict["session_id"] == "s" and as_dict["runs"][0]["content"] == "hello"


async def test_upsert_session_stores_a_programs_session_audited(store: BaseDb) -> None:
    """db.upsert_session saves a session object built by a program, runs and messages
    included, with a "save" audit entry."""
    built = AgentSession(
        session_id="s",
        agent_id="a",
        session_data={"session_state": {"k": "v"}, "session_name": "Plan", "custom": 1},
        metadata={"team": "ops"},
        runs=[
            RunOutput(
                run_id="r1",
                status=RunStatus.completed,
                messages=[Message("user", "q"), Message("assistant", "a")],
            )
        ],
    )
    stored = await store.aupsert_session(built)
    assert isinstance(stored, AgentSession)
    assert stored.session_data == {"session_state": {"k": "v"}, "session_name": "Plan", "custom": 1}
    assert stored.metadata == {"team": "ops"}
    assert stored.runs is not None and [m.content for m in stored.runs[0].messages] == ["q", "a"]
    assert await _audit_kinds(store, "s") == ["save"]
    stored.upsert_run(RunOutput(run_id="r2", messages=[Message("user", "q2")]))
    again = await store.aupsert_session(stored)
    assert again is not None and [r.run_id for r in again.runs] == ["r1", "r2"]


async def test_save_session_keeps_changes_and_refuses_a_stale_copy(store: BaseDb) -> None:
    """save_session stores state and data changes; a copy read before a later run is
    refused and the run's changes stay."""
    agent = Agent(model=ScriptedModel(["one", "two"]), db=store, session_state={"n": 0})
    await agent.arun("first", session_id="s")
    session = await agent.aget_session("s")
    assert session is not None and session.session_data is not None
    session.session_data["custom_key"] = "custom_value"
    session.session_data["session_state"]["n"] = 5
    old_copy = await agent.aget_session("s")
    await agent.asave_session(session)
    saved = await agent.aget_session("s")
    assert saved is not None and saved.session_data is not None
    assert saved.session_data["custom_key"] == "custom_value"
    assert await agent.aget_session_state("s") == {"n": 5}
    assert (await _audit_kinds(store, "s"))[-1] == "save"
    await agent.arun("second", session_id="s", session_state={"n": 6})
    assert old_copy is not None
    with pytest.raises(StaleVersionError):
        await agent.asave_session(old_copy)
    assert await agent.aget_session_state("s") == {"n": 6}
    after = await agent.aget_session("s")
    assert after is not None and after.runs is not None and len(after.runs) == 2


async def test_a_teams_session_is_a_team_session(store: BaseDb) -> None:
    """A team's get_session gives a TeamSession whose runs name the team."""
    member = Agent(id="m", model=ScriptedModel([]), db=store)
    team = Team(id="crew", members=[member], model=ScriptedModel(["done"]), db=store)
    await team.arun("go", session_id="t")
    session = await team.aget_session("t")
    assert isinstance(session, TeamSession) and session.team_id == "crew"
    assert session.runs is not None and session.runs[0].team_id == "crew"
    assert isinstance(await store.aget_session("t", SessionType.TEAM), TeamSession)


def test_a_store_without_core_session_says_what_to_import() -> None:
    """A program that loaded only a store gets a clear message, not a wrong answer."""
    script = (
        "from core.db.in_memory import InMemoryDb\n"
        "try:\n"
        "    InMemoryDb().get_session('s', 'agent')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.startswith("StoreError session objects are defined in core.session")
