"""State encryption at rest: sealed in every raw row and Redis key, plaintext through the API."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa
from cryptography.fernet import Fernet

from core.agent import Agent
from core.crypto import key_id
from core.db.base import BaseDb
from core.db.cipher import MARKER, StateCipher
from core.db.codec import encode_delta as texts
from core.db.postgres import PostgresDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.db.url import open_store
from core.exceptions import StateDecryptError
from core.governance.sessions import dump_session
from core.governance.transfer import export_jsonl
from core.models.base import Message
from core.models.scripted import ScriptedModel, tool_call

SECRET = "hunter2-card-4111"  # a fragment no raw row or key may show
DATA = json.dumps({"runs": [{"input": f"my pin is {SECRET}"}]})
K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()

DurableFactory = Callable[[StateCipher | None], SqlDb]


@pytest.fixture(params=["sqlite", "postgres"])
def durable_factory(request: pytest.FixtureRequest, tmp_path: Path) -> DurableFactory:
    """Builds durable stores on one database (each call: another store object, same rows)."""
    if request.param == "sqlite":
        path = tmp_path / "state.db"
        return lambda cipher: SqliteDb(db_file=path, cipher=cipher)
    url, schema = request.getfixturevalue("postgres_schema")
    return lambda cipher: PostgresDb(db_url=url, schema=schema, cipher=cipher)


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client to look at what RedisDb wrote."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


def sql_rows(db: SqlDb) -> list[str]:
    """Every state, data and history text the SQL tables hold, as raw strings."""
    s, h = db._tables.sessions, db._tables.history
    with db.connection() as conn:
        out = [r.state + r.data for r in conn.execute(sa.select(s.c.state, s.c.data))]
        out += [r.state for r in conn.execute(sa.select(h.c.state))]
    return out


def session_state_column(db: SqlDb, session_id: str) -> str:
    """The raw ``state`` column of one session."""
    s = db._tables.sessions
    with db.connection() as conn:
        return str(
            conn.execute(sa.select(s.c.state).where(s.c.session_id == session_id)).scalar_one()
        )


async def redis_texts(raw: aioredis.Redis, key_prefix: str) -> list[str]:
    """Every value of every Redis key under the test's prefix (hashes, strings, lists)."""
    out: list[str] = []
    async for key in raw.scan_iter(match=f"*{key_prefix}*"):
        kind = await raw.type(key)
        if kind == "hash":
            out += [f"{k}={v}" for k, v in (await raw.hgetall(key)).items()]
        elif kind == "string":
            out.append(await raw.get(key))
        elif kind == "list":
            out += await raw.lrange(key, 0, -1)
        elif kind == "set":
            out += list(await raw.smembers(key))
        elif kind == "zset":
            out += list(await raw.zrange(key, 0, -1))
    return out


async def save_secret(db: BaseDb, session_id: str = "s1") -> int:
    """Two versions: the secret in a value, in data, and in the history."""
    v1 = await db.asave(
        session_id,
        expected_version=0,
        changed=texts({"card": SECRET, "notes": ["a"]}),
        data=DATA,
    )
    return await db.asave(session_id, expected_version=v1, changed=texts({"notes": ["a", SECRET]}))


def assert_sealed(rows: list[str], kid: str) -> None:
    blob = "\n".join(rows)
    assert SECRET not in blob
    # the whole fragment and its word: a bare "4111" can turn up in a random hex id
    assert SECRET not in blob and "hunter2" not in blob and "card-4111" not in blob
    assert f"$sb1:{kid}:" in blob


# -- the durable stores ------------------------------------------------------------------
async def test_sql_rows_hold_no_plaintext_and_the_api_reads_it(
    durable_factory: DurableFactory,
) -> None:
    """SQL: state, data and history rows are sealed; load, history, list and aload_many open."""
    db = durable_factory(StateCipher([K1]))
    try:
        await save_secret(db)
        assert_sealed(sql_rows(db), key_id(K1))
        record = await db.aload("s1")
        assert record is not None
        assert record.state == {"card": SECRET, "notes": ["a", SECRET]}
        assert record.data == DATA
        history = await db.ahistory("s1")
        assert [e.state["notes"] for e in history] == [["a", SECRET], ["a"]]
        (listed,) = await db.alist_sessions()
        assert listed.state["card"] == SECRET and listed.data == DATA
        assert (await db.aload_many(["s1"]))["s1"].texts == record.texts
    finally:
        await db.aclose()


async def test_admin_dump_and_export_show_plaintext_with_redaction_kept(
    durable_factory: DurableFactory,
) -> None:
    """Admin dump (redacted and revealed) and export read plaintext through the API."""
    db = durable_factory(StateCipher([K1]))
    try:
        await db.asave(
            "s1",
            expected_version=0,
            changed=texts({"api_token": "tok-123", "card": SECRET}),
            data=DATA,
        )
        dump = await dump_session(db, "s1")
        assert dump["state"]["card"] == SECRET
        assert dump["state"]["api_token"] != "tok-123"  # redaction still applies
        revealed = await dump_session(db, "s1", reveal=True)
        assert revealed["state"]["api_token"] == "tok-123"
        out = io.StringIO()
        await export_jsonl(db, out)
        line = json.loads(out.getvalue())
        assert line["state"]["card"] == SECRET
        assert line["data"] == json.loads(DATA)
    finally:
        await db.aclose()


async def test_import_of_an_export_is_sealed(durable_factory: DurableFactory) -> None:
    """An import (plaintext records, written by upsert) lands sealed like any save."""
    db = durable_factory(StateCipher([K1]))
    try:
        record = SessionRecord.from_state("imp", {"card": SECRET}, 3, data=DATA)
        assert await db.aupsert_snapshot(record)
        assert_sealed(sql_rows(db), key_id(K1))
        loaded = await db.aload("imp")
        assert loaded is not None and loaded.state == {"card": SECRET}
        assert loaded.data == DATA
    finally:
        await db.aclose()


async def test_plaintext_stored_before_encryption_stays_readable(
    durable_factory: DurableFactory,
) -> None:
    """Rows written without a cipher load with one; a later save seals what it writes."""
    plain = durable_factory(None)
    await plain.asave("old", expected_version=0, changed=texts({"a": 1, "card": SECRET}))
    await plain.aclose()
    db = durable_factory(StateCipher([K1]))
    try:
        record = await db.aload("old")
        assert record is not None and record.state == {"a": 1, "card": SECRET}
        await db.asave("old", expected_version=1, changed=texts({"a": 2}))
        record = await db.aload("old")
        assert record is not None and record.state == {"a": 2, "card": SECRET}
        row = session_state_column(db, "old")
        assert row.startswith('{"a":"$sb1:')  # the written key is sealed ...
        assert f'"card":"{SECRET}"' in row  # ... the untouched one not yet (rekey does it)
        assert (await db.ahistory("old"))[-1].state == {"a": 1, "card": SECRET}
    finally:
        await db.aclose()


async def test_a_value_moved_to_another_key_or_session_does_not_open(tmp_path: Path) -> None:
    """A sealed value is bound to its session and key: copied elsewhere it fails, loudly."""
    db = SqliteDb(db_file=tmp_path / "s.db", cipher=StateCipher([K1]))
    try:
        await db.asave("s1", expected_version=0, changed=texts({"card": SECRET, "x": 1}))
        await db.asave("s2", expected_version=0, changed=texts({"x": 1}))
        s = db._tables.sessions
        with db.connection() as conn:
            state = conn.execute(sa.select(s.c.state).where(s.c.session_id == "s1")).scalar_one()
            conn.execute(sa.update(s).where(s.c.session_id == "s2").values(state=state))
            conn.commit()
        with pytest.raises(StateDecryptError, match=key_id(K1)) as caught:
            await db.aload("s2")
        assert "altered or moved" in str(caught.value)
    finally:
        await db.aclose()


# -- Redis -------------------------------------------------------------------------------
@pytest.fixture
async def hot(
    redis_url: str, key_prefix: str, durable_factory: DurableFactory
) -> AsyncIterator[RedisDb]:
    """A RedisDb over a durable store, both with the same key ring."""
    cipher = StateCipher([K1])
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable_factory(cipher),
        run_snapshotter=True,
        cipher=cipher,
    )
    yield db
    await db.aclose()


async def test_redis_keys_hold_no_plaintext_and_the_api_reads_it(
    hot: RedisDb, raw: aioredis.Redis, key_prefix: str
) -> None:
    """Redis: hash fields, data and undo records are sealed; load and history open them."""
    await save_secret(hot)
    assert_sealed(await redis_texts(raw, key_prefix), key_id(K1))
    record = await hot.aload("s1")
    assert record is not None
    assert record.state == {"card": SECRET, "notes": ["a", SECRET]}
    assert record.data == DATA
    history = await hot.ahistory("s1")
    assert [e.state["notes"] for e in history] == [["a", SECRET], ["a"]]
    (listed,) = await hot.alist_sessions()
    assert listed.state["card"] == SECRET


async def test_snapshot_copies_the_ciphertext_and_the_durable_store_reads_it(
    hot: RedisDb, raw: aioredis.Redis, key_prefix: str
) -> None:
    """The snapshotter copies Redis's sealed texts byte for byte; the durable store opens them."""
    await save_secret(hot)
    keys = [k async for k in raw.scan_iter(match=f"*{key_prefix}*:state")]
    (state_key,) = keys
    sealed_card = await raw.hget(state_key, "card")
    assert sealed_card.startswith(MARKER)
    assert await hot.aflush() == 1
    durable = hot.snapshot_to
    assert isinstance(durable, SqlDb)
    assert any(f'"card":{sealed_card}' in row for row in sql_rows(durable))
    assert_sealed(sql_rows(durable), key_id(K1))
    record = await durable.aload("s1")
    assert record is not None and record.state["card"] == SECRET and record.data == DATA


async def test_a_read_back_from_the_durable_store_is_sealed_in_redis(
    hot: RedisDb, raw: aioredis.Redis, key_prefix: str
) -> None:
    """After Redis lost a session, the copy read back from the durable store is sealed."""
    await save_secret(hot)
    await hot.aflush()
    async for key in raw.scan_iter(match=f"*{key_prefix}*"):
        await raw.delete(key)
    record = await hot.aload("s1")
    assert record is not None and record.state["card"] == SECRET and record.data == DATA
    assert_sealed(await redis_texts(raw, key_prefix), key_id(K1))


async def test_an_agent_run_reads_and_writes_through_the_cipher(
    hot: RedisDb, raw: aioredis.Redis, key_prefix: str
) -> None:
    """Tools see plaintext across runs (cache reuse included); Redis holds only ciphertext."""

    def remember(session_state: dict[str, Any], fact: str) -> str:
        """Keep a fact."""
        session_state.setdefault("facts", []).append(fact)
        return f"{len(session_state['facts'])} facts"

    def turn(messages: list[Message], tools: list[dict[str, Any]]) -> Any:
        if messages[-1].role == "tool":
            return "ok"
        return tool_call("remember", fact=messages[-1].content or "")

    agent = Agent(model=ScriptedModel([turn] * 6), db=hot, tools=[remember])
    await agent.arun(SECRET, session_id="chat")
    await agent.arun("second", session_id="chat")
    out = await agent.arun("third", session_id="chat")
    assert out.session_state is not None
    assert out.session_state["facts"] == [SECRET, "second", "third"]
    assert_sealed(await redis_texts(raw, key_prefix), key_id(K1))
    other = Agent(model=ScriptedModel(["-"]), db=hot)  # another process's view: no cache
    assert other.get_session_state("chat")["facts"] == [SECRET, "second", "third"]


async def test_redis_refuses_a_durable_store_with_another_key_ring(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Both stores must get the same ring: the snapshot copies sealed texts as they are."""
    with pytest.raises(ValueError, match="same state key ring"):
        RedisDb(
            db_url=redis_url,
            key_prefix=key_prefix,
            snapshot_to=SqliteDb(db_file=tmp_path / "a.db"),
            cipher=StateCipher([K1]),
        )
    with pytest.raises(ValueError, match="same state key ring"):
        RedisDb(
            db_url=redis_url,
            key_prefix=key_prefix,
            snapshot_to=SqliteDb(db_file=tmp_path / "b.db", cipher=StateCipher([K2])),
            cipher=StateCipher([K1]),
        )


async def test_open_store_gives_both_stores_the_ring(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """open_store(url, cipher=) builds Redis and its durable store with the same cipher."""
    cipher = StateCipher([K1])
    db = open_store(
        redis_url,
        snapshot_to=f"sqlite:///{tmp_path / 'o.db'}",
        cipher=cipher,
        key_prefix=key_prefix,
    )
    try:
        assert isinstance(db, RedisDb) and db.cipher is cipher
        assert isinstance(db.snapshot_to, SqliteDb) and db.snapshot_to.cipher is cipher
        assert open_store("memory://", cipher=cipher) is not None  # process memory: no cipher
    finally:
        await db.aclose()


async def test_a_repair_adopting_the_durable_copy_writes_it_sealed(
    hot: RedisDb, raw: aioredis.Redis, key_prefix: str
) -> None:
    """Redis behind the durable store: the adopted durable copy lands sealed in Redis."""
    await hot.asave("s1", expected_version=0, changed=texts({"card": "old"}))
    await hot.aflush()
    durable = hot.snapshot_to
    assert isinstance(durable, SqlDb)
    await durable.asave("s1", expected_version=1, changed=texts({"card": SECRET}), data=DATA)
    (meta_key,) = [k async for k in raw.scan_iter(match=f"*{key_prefix}*:meta")]
    await raw.hset(meta_key, "ep", "another-redis-incarnation")  # as after a restart
    record = await hot.aload("s1")
    assert record is not None and record.version == 2 and record.state == {"card": SECRET}
    assert record.data == DATA
    assert_sealed(await redis_texts(raw, key_prefix), key_id(K1))


async def test_write_through_copies_sealed_texts_to_the_durable_store(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Write-through: the durable copy made by the save itself is sealed too."""
    cipher = StateCipher([K1])
    durable = SqliteDb(db_file=tmp_path / "wt.db", cipher=cipher)
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        write_through=True,
        run_snapshotter=False,
        cipher=cipher,
    )
    try:
        await save_secret(db)
        assert_sealed(sql_rows(durable), key_id(K1))
        record = await durable.aload("s1")
        assert record is not None and record.version == 2 and record.state["card"] == SECRET
    finally:
        await db.aclose()
        await durable.aclose()


async def test_a_store_without_keys_refuses_sealed_state(
    durable_factory: DurableFactory, redis_url: str, key_prefix: str
) -> None:
    """A process without STATEBOT_STATE_KEYS never serves ciphertext as state: it says so."""
    sealed = durable_factory(StateCipher([K1]))
    await save_secret(sealed)
    await sealed.aclose()
    keyless = durable_factory(None)
    try:
        for read in (keyless.aload("s1"), keyless.ahistory("s1"), keyless.alist_sessions()):
            with pytest.raises(StateDecryptError, match="built without state keys") as caught:
                await read
            assert key_id(K1) in str(caught.value)
    finally:
        await keyless.aclose()
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K1]))
    await save_secret(hot)
    await hot.aclose()
    keyless_hot = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    try:
        with pytest.raises(StateDecryptError, match="built without state keys"):
            await keyless_hot.aload("s1")
        with pytest.raises(StateDecryptError, match="built without state keys"):
            await keyless_hot.ahistory("s1")
    finally:
        await keyless_hot.aclose()
