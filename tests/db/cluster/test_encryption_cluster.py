"""State encryption on a real local Redis Cluster: the contract, and rotation across slots."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.crypto import key_id
from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.governance.rekey import rekey
from tests.db.test_conformance import *  # noqa: F403  (the suite's tests, collected here)
from tests.db.test_encryption import K1, K2, SECRET

pytestmark = pytest.mark.slow


@pytest.fixture
async def store(redis_url: str, key_prefix: str) -> AsyncIterator[BaseDb]:
    """A sealing RedisDb on the cluster under the test's own key prefix."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K2, K1]))
    try:
        yield db
    finally:
        await db.aclose()


async def test_rekey_on_a_cluster_reaches_every_slot(redis_url: str, key_prefix: str) -> None:
    """Sessions spread over the cluster's slots are all rewritten under the new key."""
    old = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K1]))
    ids = [f"s{n}" for n in range(40)]
    for sid in ids:
        v = await old.asave(sid, expected_version=0, changed=texts({"card": SECRET}))
        changed = texts({"card": SECRET + "!", "n": 1})
        await old.asave(sid, expected_version=v, changed=changed, data='{"a":1}')
    await old.aclose()
    both = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K2, K1]))
    report = await rekey(both)
    (counts,) = report.passes
    assert (counts.sessions, counts.values, counts.data, counts.failed) == (40, 80, 40, [])
    assert counts.history == 40  # each second undo record holds the first "card"
    await both.aclose()
    new = RedisDb(db_url=redis_url, key_prefix=key_prefix, cipher=StateCipher([K2]))
    try:
        for sid in ids:
            record = await new.aload(sid)
            assert record is not None and record.state == {"card": SECRET + "!", "n": 1}
            history = await new.ahistory(sid)
            assert [e.state["card"] for e in history] == [SECRET + "!", SECRET]
        assert report.primary_id == key_id(K2)
    finally:
        await new.aclose()
