"""A Redis data log with a line that is none of its kinds (a hand-edited or corrupted
key) is refused by name, and only that session waits: the others snapshot and rekey."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis.asyncio as aioredis
from cryptography.fernet import Fernet

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.sqlite import SqliteDb
from core.exceptions import DamagedDataError, StoreError
from core.governance.rekey import rekey
from tests.db.test_data_log import LIMITS, Writer, _turns

K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()


async def _damage(redis_url: str, key_prefix: str, session_id: str = "s") -> str:
    """Append a line no save writes to the session's data log; the log before it."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        key = SessionKeys(key_prefix, session_id).data
        raw = str(await client.get(key))
        assert data_log.is_log(raw)
        await client.set(key, raw + "\nXcorrupted")
        return raw
    finally:
        await client.aclose()


async def test_a_damaged_log_is_refused_by_name_in_one_line(
    redis_url: str, key_prefix: str
) -> None:
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS)
    await _turns(db, Writer(), 0, 4)
    await _damage(redis_url, key_prefix)
    with pytest.raises(DamagedDataError) as caught:
        await db.aload("s")
    message = str(caught.value)
    assert isinstance(caught.value, StoreError)
    assert "\n" not in message and "session 's'" in message
    assert "'Xcorrupted'" in message and "state values are not affected" in message
    await db.aclose()


async def test_the_snapshotter_leaves_a_damaged_session_dirty_and_copies_the_rest(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The durable copy of the damaged session stays as it was; nothing else waits."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        limits=LIMITS,
        snapshot_to=durable,
        run_snapshotter=False,
    )
    writer = Writer()
    text = await _turns(db, writer, 0, 3)
    await db.aflush()
    await _turns(db, writer, 3, 5)  # dirty again, then damaged
    await _damage(redis_url, key_prefix)
    await db.asave("t", expected_version=0, changed=texts({"n": 1}), data="")
    await db.aflush()
    other = await durable.aload("t")
    assert other is not None and other.texts == texts({"n": 1})
    kept = await durable.aload("s")
    assert kept is not None and kept.version == 3 and kept.data == text
    assert await db.dirty.count() == 1  # the damaged session, still to copy
    await db.aclose()
    await durable.aclose()


async def test_rekey_reports_a_damaged_session_and_rekeys_the_others(
    redis_url: str, key_prefix: str
) -> None:
    old = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS, cipher=StateCipher([K1]))
    await _turns(old, Writer(), 0, 3)
    await old.asave("t", expected_version=0, changed=texts({"n": 1}), data="")
    await old.aclose()
    before = await _damage(redis_url, key_prefix)
    new_cipher = StateCipher([K2, K1])
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=LIMITS, cipher=new_cipher)
    report = await rekey(db)
    assert any("session 's'" in f and "damaged" in f for f in report.failed)
    only_new = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K2]))
    record = await only_new.aload("t")
    assert record is not None and record.texts == texts({"n": 1})
    client = aioredis.from_url(redis_url, decode_responses=True)
    raw = await client.get(SessionKeys(key_prefix, "s").data)
    await client.aclose()
    assert raw == before + "\nXcorrupted"  # left exactly as found
    await only_new.aclose()
    await db.aclose()
