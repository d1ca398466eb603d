"""Agno's session objects on their own: dict form, runs, messages, tool calls, bounds."""

from __future__ import annotations

from core.db import SessionType as FaceSessionType
from core.db.base import SessionType
from core.db.limits import StateLimits
from core.models.base import Message, ToolCall
from core.run import RunOutput, RunStatus
from core.run.history import RunRecord, SessionData
from core.run.run_input import RunInput
from core.run.transcript import MAX_RUN_MESSAGES, MESSAGE_CHARS, RESULT_CHARS, transcript_of
from core.session import AgentSession, Session, TeamSession, WorkflowSession
from core.session.runs import output_of, record_of


def _run(
    run_id: str, *texts: tuple[str, str], status: RunStatus = RunStatus.completed
) -> RunOutput:
    return RunOutput(
        run_id=run_id,
        agent_id="a",
        status=status,
        messages=[Message(role, text) for role, text in texts],
    )


def test_session_type_has_agnos_names_and_values() -> None:
    """SessionType is importable from core.db.base and core.db, with Agno's values."""
    assert [(t.name, t.value) for t in SessionType] == [
        ("AGENT", "agent"),
        ("TEAM", "team"),
        ("WORKFLOW", "workflow"),
    ]
    assert FaceSessionType is SessionType
    assert Session == AgentSession | TeamSession | WorkflowSession


def test_dict_form_round_trips_and_needs_a_session_id() -> None:
    """to_dict / from_dict keep ids, data, metadata and runs; no session_id gives None."""
    session = AgentSession(
        session_id="s",
        agent_id="a",
        user_id="u",
        session_data={"session_state": {"n": 1}, "session_name": "Plan"},
        metadata={"m": 1},
        runs=[_run("r1", ("user", "hi"), ("assistant", "hello"))],
    )
    data = session.to_dict()
    assert data["runs"][0]["run_id"] == "r1" and data["agent_id"] == "a"
    assert "version" not in data
    back = AgentSession.from_dict(data)
    assert back is not None and back.session_data == session.session_data
    assert back.runs is not None and [m.content for m in back.runs[0].messages] == ["hi", "hello"]
    assert AgentSession.from_dict({"agent_id": "a", "runs": []}) is None
    empty = AgentSession.from_dict(AgentSession(session_id="e", runs=[]).to_dict())
    assert empty is not None and empty.runs == []


def test_upsert_run_adds_or_replaces_by_run_id() -> None:
    """upsert_run appends a new run and replaces one with the same id; get_run finds it."""
    session = AgentSession(session_id="s")
    session.upsert_run(_run("r1", ("user", "a")))
    session.upsert_run(_run("r2", ("user", "b")))
    session.upsert_run(_run("r1", ("user", "a2")))
    assert [r.run_id for r in session.runs or ()] == ["r1", "r2"]
    found = session.get_run("r1")
    assert found is not None and found.messages[0].content == "a2"
    assert session.get_run("nope") is None


def test_get_messages_filters_as_agno_does() -> None:
    """last_n_runs, limit (system message first, no leading tool result), statuses, roles."""
    session = AgentSession(
        session_id="s",
        runs=[
            _run("r1", ("system", "sys"), ("user", "q1"), ("assistant", "a1")),
            _run("r2", ("system", "sys"), ("user", "q2"), ("tool", "t"), ("assistant", "a2")),
            _run("r3", ("user", "q3"), status=RunStatus.error),
        ],
    )
    assert [m.content for m in session.get_messages()] == ["sys", "q1", "a1", "q2", "t", "a2"]
    assert [m.content for m in session.get_messages(last_n_runs=1)] == ["sys", "q2", "t", "a2"]
    # the newest two are "t", "a2": a tool result without its call is left out
    assert [m.content for m in session.get_messages(limit=3)] == ["sys", "a2"]
    assert [m.content for m in session.get_messages(limit=1)] == ["sys"]
    assert [m.content for m in session.get_messages(skip_roles=["system", "tool"])] == [
        "q1",
        "a1",
        "q2",
        "a2",
    ]
    everything = session.get_messages(skip_statuses=[])
    assert everything[-1].content == "q3"
    assert [m.content for m in session.get_chat_history()] == ["q1", "a1", "q2", "a2", "q3"]


def test_get_tool_calls_newest_run_first() -> None:
    """get_tool_calls lists calls of the newest run first, in Chat Completions shape."""
    session = AgentSession(session_id="s", runs=[])
    for n in (1, 2):
        session.upsert_run(
            RunOutput(
                run_id=f"r{n}",
                messages=[Message("assistant", "", [ToolCall(f"c{n}", "search", "{}")])],
            )
        )
    calls = session.get_tool_calls()
    assert [c["id"] for c in calls] == ["c2", "c1"]
    assert calls[0]["function"] == {"name": "search", "arguments": "{}"}
    assert [c["id"] for c in session.get_tool_calls(num_calls=1)] == ["c2"]


def test_a_runs_transcript_is_bounded() -> None:
    """A run keeps its first two and newest messages, each text cut short."""
    messages = [Message("system", "s"), Message("user", "q")]
    messages += [Message("tool", "r" * 5000, tool_call_id=str(n)) for n in range(100)]
    messages.append(Message("assistant", "x" * 10_000))
    kept = transcript_of(messages)
    assert len(kept) == MAX_RUN_MESSAGES
    assert [m["role"] for m in kept[:2]] == ["system", "user"]
    assert kept[-1]["role"] == "assistant" and len(kept[-1]["content"]) == MESSAGE_CHARS
    assert len(kept[2]["content"]) == RESULT_CHARS


def test_transcripts_give_way_before_runs() -> None:
    """Over the history's byte share, transcripts are dropped (oldest first) before any run."""
    runs = [
        RunRecord(
            f"r{n}",
            "completed",
            f"q{n}",
            "a",
            transcript=transcript_of([Message("user", "q" * 3000), Message("assistant", "a")]),
        )
        for n in range(3)
    ]
    data = SessionData(runs=runs)
    data.encode(StateLimits(max_data_bytes=16_000, max_audit_bytes=8_000))
    assert [r.run_id for r in data.runs] == ["r0", "r1", "r2"]
    assert [bool(r.transcript) for r in data.runs] == [False, True, True]


def test_team_session_messages_and_history() -> None:
    """A team session gives its own runs by default, members' runs when named, and its
    history as (input, answer) pairs and as a context block."""
    member_run = RunOutput(
        run_id="m1",
        agent_id="researcher",
        parent_run_id="t1",
        messages=[Message("user", "dig"), Message("assistant", "found")],
    )
    team_run = RunOutput(
        run_id="t1",
        team_id="crew",
        content="summary",
        input=RunInput("plan it"),
        messages=[Message("user", "plan it"), Message("assistant", "summary")],
        member_responses=[member_run],
    )
    session = TeamSession(session_id="s", team_id="crew", runs=[team_run, member_run])
    assert [m.content for m in session.get_messages()] == ["plan it", "summary"]
    assert [m.content for m in session.get_messages(member_ids=["researcher"])] == [
        "dig",
        "found",
    ]
    assert session.get_team_history() == [("plan it", "summary")]
    context = session.get_team_history_context(num_runs=1)
    assert context is not None and "[run-1]\ninput: plan it\nresponse: summary" in context
    assert session.get_team_history(num_runs=0) == []
    assert TeamSession(session_id="e").get_team_history_context() is None


def test_a_run_without_messages_shows_none() -> None:
    """A program's run stored without messages comes back without any."""
    record = record_of(RunOutput(run_id="r", messages=None), "a")  # Agno allows None
    assert output_of(record, "s").messages == []
