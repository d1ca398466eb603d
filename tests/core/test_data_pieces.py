"""A session's data is appended to, not re-encoded: the text stays what a full encode gives."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.db.records import SessionMeta
from core.db.redis import RedisDb
from core.models.scripted import ScriptedModel, tool_call
from core.run import history
from core.run.history import RunRecord, SessionData, ToolCallRecord
from core.state.cache import cache_of
from core.state.session import open_session

_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


def _run(i: int, text: str, result_chars: int) -> RunRecord:
    return RunRecord(
        run_id=f"r{i}",
        status="completed",
        input=text,
        output=text[::-1],
        user_id="u",
        tool_calls=(ToolCallRecord("c", "t", {"a": text}, "x" * result_chars),),
        transcript=({"role": "user", "content": text * 20},),
        created_at=1.0,
        updated_at=2.0,
    )


def _expected(data: SessionData) -> dict[str, Any]:
    """What the text must decode to: this data as plain JSON (entries as one string)."""
    body: dict[str, Any] = {"name": data.name, "runs": [r.to_dict() for r in data.runs]}
    if data.summary is not None:
        body["summary"] = data.summary
    if data.audit:
        body["audit"] = "\n".join(data.audit)
    return body


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["run", "entry", "name"]), st.integers(0, 12), _TEXT),
        min_size=1,
        max_size=30,
    ),
    max_runs=st.integers(0, 8),
    max_entries=st.integers(0, 10),
    data_bytes=st.integers(300, 20_000),
    audit_bytes=st.integers(20, 3_000),
)
def test_appended_encodes_match_a_full_encode(
    steps: list[tuple[str, int, str]],
    max_runs: int,
    max_entries: int,
    data_bytes: int,
    audit_bytes: int,
) -> None:
    """Saving each step on one object, or on one rebuilt from the last save's pieces,
    gives exactly the text a fresh decode and encode gives, trims and escapes included."""
    limits = StateLimits(
        max_runs=max_runs,
        max_audit_entries=max_entries,
        max_data_bytes=data_bytes,
        max_audit_bytes=audit_bytes,
    )
    data = SessionData()
    for i, (step, n, text) in enumerate(steps):
        if step == "run":
            data.upsert(_run(n, text, n * 1000))
        elif step == "entry":
            data.add_audit({"v": i, "text": text, "ctl": '\n"\\\x01\u2028'})
        else:
            data.name = text
        encoded = data.encode(limits)
        assert json.loads(encoded) == _expected(data)
        assert SessionData.decode(encoded).encode(limits) == encoded
        pieces = data.pieces(encoded)
        assert pieces is not None and pieces.text is encoded
        rebuilt = SessionData.from_pieces(pieces)
        fresh = SessionData.decode(encoded)
        assert (rebuilt.runs, rebuilt.audit, rebuilt.name) == (fresh.runs, fresh.audit, fresh.name)
        data = rebuilt if i % 2 else data
    assert data.pieces("another text") is None


def test_a_paused_run_is_decoded_from_its_text() -> None:
    """A paused run taken from the pieces is read back from what is stored."""
    data = SessionData()
    data.upsert(RunRecord(run_id="p", status="paused", input="q", paused={"pending": ("a", "b")}))
    text = data.encode(StateLimits())
    pieces = data.pieces(text)
    assert pieces is not None
    run = SessionData.from_pieces(pieces).runs[0]
    assert run == SessionData.decode(text).runs[0]
    assert run.paused == {"pending": ["a", "b"]}


async def bump(session_state: dict[str, Any]) -> str:
    """Change one small key."""
    session_state["n"] = session_state.get("n", 0) + 1
    return "bumped"


@pytest.fixture(params=["memory", "redis"])
async def db(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> AsyncIterator[BaseDb]:
    """The in-process store and Redis."""
    if request.param == "memory":
        yield InMemoryDb()
        return
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


async def test_turns_on_a_cached_session_decode_no_data(
    db: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the first turn, a turn starts from the cached pieces: the stored history is
    not decoded again, and it reads back the same from the store."""
    decoded: list[int] = []
    real = history.SessionData.decode.__func__  # type: ignore[attr-defined]

    def counting(cls: type[SessionData], text: str) -> SessionData:
        if '"runs"' in text and text.count('"run_id"'):
            decoded.append(len(text))
        return real(cls, text)

    monkeypatch.setattr(history.SessionData, "decode", classmethod(counting))
    script: list[Any] = []
    for _ in range(6):
        script += [tool_call("bump"), "ok"]
    agent = Agent(ScriptedModel(script), db=db, tools=[bump], session_id="s")
    for i in range(6):
        await agent.arun(f"turn {i}")
    assert decoded == []  # no turn decoded a stored history
    assert cache_of(db).hits == 5
    record = await db.aload("s")
    assert record is not None
    stored = SessionData.decode(record.data)
    assert [r.input for r in stored.runs] == [f"turn {i}" for i in range(6)]
    assert [json.loads(e)["version"] for e in stored.audit] == [1, 2, 3, 4, 5, 6]


async def test_the_cache_counts_the_pieces(db: BaseDb) -> None:
    """A session's pieces count towards the cache's byte bound."""
    agent = Agent(ScriptedModel([tool_call("bump"), "ok"]), db=db, tools=[bump], session_id="s")
    await agent.arun("turn")
    cache = cache_of(db)
    entry = cache.take("s")
    assert entry is not None and entry.pieces is not None
    assert entry.size >= 2 * len(entry.data) > 0


class SlowSaves(InMemoryDb):
    """Holds each save that carries data until ``go`` is set (a slow store)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.waiting = asyncio.Event()

    async def asave(self, session_id: str, **kwargs: Any) -> int:
        if kwargs.get("data") is not None and not self.go.is_set():
            self.waiting.set()
            await self.go.wait()
        return await super().asave(session_id, **kwargs)


async def test_data_changed_while_its_save_is_under_way_is_saved_next() -> None:
    """A run recorded while a save of earlier data is in flight is not taken as saved
    with it: the run's last save stores it, and the next run reads it."""
    db = SlowSaves()
    meta = SessionMeta(owner_id="a")
    async with open_session(
        db, session_id="s", user_id="u", run_id="r1", meta=meta, default={}
    ) as handle:
        handle.set_name("board")  # data changed before the batch save
        handle.state["n"] = 1
        handle.persist_soon(grace=0)
        await db.waiting.wait()  # the batch save took the data and is under way
        handle.record_run(RunRecord(run_id="r1", status="completed", input="hi"))
        db.go.set()
        await handle.persist_final()
    record = await db.aload("s")
    assert record is not None
    stored = SessionData.decode(record.data)
    assert (stored.name, [r.run_id for r in stored.runs]) == ("board", ["r1"])
    async with open_session(
        db, session_id="s", user_id="u", run_id="r2", meta=meta, default={}
    ) as handle:
        assert [r.run_id for r in handle.data.runs] == ["r1"]
