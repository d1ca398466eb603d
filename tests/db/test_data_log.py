"""RedisDb appends a session's new runs and audit entries to a data log instead of
rewriting the whole data; it reads back exactly what a whole write gives, on every path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from cryptography.fernet import Fernet
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agent import Agent
from core.db import data_log
from core.db.base import BaseDb
from core.db.cipher import MARKER, StateCipher
from core.db.codec import encode_delta as texts
from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.sqlite import SqliteDb
from core.exceptions import StoreUnavailableError
from core.governance.erasure import erase_user
from core.governance.rekey import rekey
from core.models.scripted import ScriptedModel, tool_call
from core.run.history import RunRecord, SessionData
from core.run.pieces import DataPieces, parts_of
from tests.core.test_data_pieces import bump

K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()
LIMITS = StateLimits(max_runs=3, max_audit_entries=4)


class Writer:
    """Builds a session's data turn by turn, as a run's saves do (core.state.session)."""

    def __init__(self, limits: StateLimits = LIMITS) -> None:
        self.limits = limits
        self.data = SessionData()
        self.base: DataPieces[RunRecord] | None = None

    def turn(self, i: int, user: str = "ana", words: str = "") -> tuple[str, DataParts]:
        """One run and one audit entry added; the data text and its parts."""
        self.data.upsert(
            RunRecord(
                run_id=f"r{i}",
                status="completed",
                input=f"q{i} {words}",
                output=f"a{i}",
                user_id=user,
            )
        )
        self.data.add_audit({"version": i, "user": user})
        text = self.data.encode(self.limits)
        pieces = self.data.pieces(text)
        assert pieces is not None
        parts, self.base = parts_of(pieces, self.base)
        return text, parts


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.sampled_from(["run", "entry", "name", "replace"]), max_size=40))
def test_a_log_reads_as_the_whole_text_after_every_step(steps: list[str]) -> None:
    """Whatever the saves do (add, drop, rename, replace a kept run), the log appended
    to reads as exactly the text a whole write stores, and holds at most about twice it."""
    data = SessionData()
    base = None
    log = ""
    for i, step in enumerate(steps):
        if step == "run":
            data.upsert(RunRecord(run_id=f"r{i}", status="completed", input="q" * i))
        elif step == "entry":
            data.add_audit({"v": i, "ctl": '\n"\\'})
        elif step == "name":
            data.name = f"board {i}"
        elif data.runs:
            data.upsert(RunRecord(run_id=data.runs[0].run_id, status="completed", input="new"))
        text = data.encode(LIMITS)
        pieces = data.pieces(text)
        assert pieces is not None
        parts, base = parts_of(pieces, base)
        assert parts.text == text
        log = log + data_log.appended(parts) if parts.append else data_log.whole(parts)
        assert data_log.read(log, str, "s") == text
        assert len(log) <= 2 * len(text) + 20_000
        assert data_log.read(data_log.compacted(log, "s"), str, "s") == text


async def _raw(redis_url: str, key_prefix: str, session_id: str = "s") -> str:
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        return str(await client.get(SessionKeys(key_prefix, session_id).data) or "")
    finally:
        await client.aclose()


async def _set_raw(redis_url: str, key_prefix: str, value: str) -> None:
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(SessionKeys(key_prefix, "s").data, value)
    finally:
        await client.aclose()


async def _turns(db: BaseDb, writer: Writer, first: int, last: int, **kw: Any) -> str:
    text = ""
    for i in range(first, last):
        text, parts = writer.turn(i, **kw)
        await db.asave(
            "s", expected_version=i, changed=texts({"n": i}), data=text, data_parts=parts
        )
    return text


async def test_saves_append_and_a_fresh_store_reads_the_whole_data(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the first save only the new lines travel; another process reads the data
    exactly as written whole."""
    sent: list[tuple[str, int]] = []
    real = data_log.appended

    def counting(parts: DataParts, seal: Any = None) -> str:
        out = real(parts, seal)
        sent.append(("append", len(out)))
        return out

    monkeypatch.setattr(data_log, "appended", counting)
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS)
    text = await _turns(db, Writer(), 0, 12)
    raw = await _raw(redis_url, key_prefix)
    assert data_log.is_log(raw) and "\nr1" in raw and "\na1" in raw  # drops appended
    assert len([s for s in sent if s[0] == "append"]) >= 8
    assert all(size < len(text) // 2 for _, size in sent)
    other = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS)
    record = await other.aload("s")
    assert record is not None and record.data == text
    stored = SessionData.decode(record.data)
    assert [r.run_id for r in stored.runs] == ["r9", "r10", "r11"]
    assert [json.loads(e)["version"] for e in stored.audit] == [8, 9, 10, 11]
    await db.aclose()
    await other.aclose()


async def test_data_stored_whole_before_the_log_is_written_anew(
    redis_url: str, key_prefix: str
) -> None:
    """A session whose data is one JSON text (stored before the log, or read back from
    the durable store) is read as it is, and a save meant to append writes the log whole."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS)
    writer = Writer()
    await _turns(db, writer, 0, 2)
    old = (await db.aload("s")).data  # type: ignore[union-attr]
    await _set_raw(redis_url, key_prefix, old)  # the same data, the layout of before
    assert (await db.aload("s")).data == old  # type: ignore[union-attr]
    text = await _turns(db, writer, 2, 3)
    assert data_log.is_log(await _raw(redis_url, key_prefix))
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    await db.aclose()


async def test_sealed_lines_hold_no_plaintext_and_snapshot_whole(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """With state keys each line is sealed on its own; the durable store gets the whole
    data sealed, and both read back as written."""
    cipher = StateCipher([K1])
    durable = SqliteDb(db_file=tmp_path / "d.db", cipher=cipher)
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        limits=LIMITS,
        snapshot_to=durable,
        cipher=cipher,
        run_snapshotter=False,
    )
    text = await _turns(db, Writer(), 0, 6, words="secret-words")
    raw = await _raw(redis_url, key_prefix)
    assert "secret-words" not in raw and "ana" not in raw
    assert all(line[1:].startswith(MARKER) or line[0] in "ra" for line in raw.split("\n"))
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    await db.aflush()
    assert (await durable.aload("s")).data == text  # type: ignore[union-attr]
    keyless = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    with pytest.raises(Exception, match="state keys"):
        await keyless.aload("s")
    await keyless.aclose()
    await db.aclose()
    await durable.aclose()


async def test_rekey_seals_every_line_under_the_new_key(redis_url: str, key_prefix: str) -> None:
    """A rekey re-seals each live line under the newest key (dropped ones go)."""
    old = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS, cipher=StateCipher([K1]))
    text = await _turns(old, Writer(), 0, 6)
    await old.aclose()
    new_cipher = StateCipher([K2, K1])
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS, cipher=new_cipher)
    await rekey(db)
    raw = await _raw(redis_url, key_prefix)
    assert raw == data_log.compacted(raw, "s")
    assert all(new_cipher.is_current(line[1:]) for line in raw.split("\n"))
    only_new = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K2]))
    assert (await only_new.aload("s")).data == text  # type: ignore[union-attr]
    await only_new.aclose()
    await db.aclose()


async def test_erasure_leaves_nothing_of_the_user_in_dropped_lines(
    redis_url: str, key_prefix: str
) -> None:
    """Runs dropped from the history stay in the log until it is written anew: erasing
    the user writes it anew, so no line names them."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS)
    writer = Writer()
    await _turns(db, writer, 0, 3, user="bo-the-erased")
    await _turns(db, writer, 3, 8, user="ana")
    assert "bo-the-erased" in await _raw(redis_url, key_prefix)  # only in dropped lines
    await erase_user(db, "bo-the-erased")
    raw = await _raw(redis_url, key_prefix)
    assert "bo-the-erased" not in raw
    record = await db.aload("s")
    assert (
        record is not None
        and [r.user_id for r in SessionData.decode(record.data).runs] == ["ana"] * 3
    )
    await db.aclose()


class RefusingDurable(SqliteDb):
    """A durable store that refuses every write once ``refuse`` is set."""

    refuse = False

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        if self.refuse:
            raise RuntimeError("disk full")
        return await super().aupsert_snapshot(record)


async def test_a_write_through_append_undone_restores_the_log(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The durable store refuses an appending save: Redis holds the log exactly as
    before it, and the next save appends to that."""
    durable = RefusingDurable(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        limits=LIMITS,
        snapshot_to=durable,
        write_through=True,
        run_snapshotter=False,
    )
    writer = Writer()
    text = await _turns(db, writer, 0, 4)
    before = await _raw(redis_url, key_prefix)
    durable.refuse = True
    refused, parts = writer.turn(4)
    assert parts.append is not None
    with pytest.raises(StoreUnavailableError, match="nothing was written"):
        await db.asave(
            "s", expected_version=4, changed=texts({"n": 4}), data=refused, data_parts=parts
        )
    assert await _raw(redis_url, key_prefix) == before
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    durable.refuse = False
    writer = Writer()  # the run that retries starts from the stored data
    writer.data = SessionData.decode(text)
    again = await _turns(db, writer, 4, 6)
    assert (await durable.aload("s")).data == again  # type: ignore[union-attr]
    await db.aclose()
    await durable.aclose()


async def test_an_agent_s_turns_append(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each turn after the first sends its run and audit entry only; what is stored reads
    back as the agent's history from a process that never saw it."""
    appends: list[int] = []
    real = data_log.appended

    def counting(parts: DataParts, seal: Any = None) -> str:
        out = real(parts, seal)
        appends.append(len(out))
        return out

    monkeypatch.setattr(data_log, "appended", counting)
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    script: list[Any] = []
    for _ in range(8):
        script += [tool_call("bump"), "ok"]
    agent = Agent(ScriptedModel(script), db=db, tools=[bump], session_id="s")
    for i in range(8):
        await agent.arun(f"turn {i}")
    assert len(appends) >= 7
    other = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    record = await other.aload("s")
    assert record is not None and record.state == {"n": 8}
    stored = SessionData.decode(record.data)
    assert [r.input for r in stored.runs] == [f"turn {i}" for i in range(8)]
    assert len(stored.audit) == 8
    await db.aclose()
    await other.aclose()
