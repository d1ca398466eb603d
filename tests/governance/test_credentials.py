"""Per-user credentials in the store: sealed, rotated by rekey, erased, exported without
the token — on SQLite, PostgreSQL and Redis over either."""

from __future__ import annotations

import redis.asyncio as aioredis

from core.crypto import key_id
from core.db.cipher import StateCipher
from core.db.redis import RedisDb
from core.governance.credentials import McpCredentials, credential_session_id
from core.governance.erasure import erase_user
from core.governance.rekey import rekey
from core.governance.sessions import dump_session
from core.governance.user_export import export_user
from tests.db.test_encryption import K1, K2, DurableFactory, durable_factory, redis_texts, sql_rows

__all__ = ["durable_factory"]  # the fixture, shared with test_encryption

ANN = "slack:T1:UANN"
TOKEN = "ghp-ann-secret-token-7"


async def test_rekey_reseals_the_credential_and_the_old_key_can_go(
    durable_factory: DurableFactory,
) -> None:
    """Stored under K1, rekeyed under [K2, K1]: only K2 is left, and K2 alone reads it."""
    first = durable_factory(StateCipher([K1]))
    await McpCredentials(first).aconnect(ANN, "github", TOKEN, method="token")
    assert TOKEN not in "\n".join(sql_rows(first))
    await first.aclose()
    both = durable_factory(StateCipher([K2, K1]))
    report = await rekey(both)
    assert report.failed == [] and report.rewritten >= 1
    blob = "\n".join(sql_rows(both))
    assert f"$sb1:{key_id(K2)}:" in blob and f"$sb1:{key_id(K1)}:" not in blob
    await both.aclose()
    new_only = durable_factory(StateCipher([K2]))
    try:
        assert await McpCredentials(new_only).atoken(ANN, "github") == TOKEN
    finally:
        await new_only.aclose()


async def test_on_redis_the_credential_is_sealed_erased_and_exported_without_the_token(
    redis_url: str, key_prefix: str, durable_factory: DurableFactory
) -> None:
    """Redis and the durable store hold only ciphertext; the export lists the connection
    without its token; erasure leaves no trace in either store."""
    cipher = StateCipher([K1])
    durable = durable_factory(cipher)
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, cipher=cipher)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    credentials = McpCredentials(db)
    try:
        await credentials.aconnect(ANN, "github", TOKEN, method="token")
        await db.aflush()
        assert TOKEN not in "\n".join(await redis_texts(raw, key_prefix))
        assert TOKEN not in "\n".join(sql_rows(durable))
        exported = await export_user(db, ANN)
        assert TOKEN not in repr(exported)
        assert [c["server"] for c in exported["connections"]] == ["github"]
        assert exported["sessions"] == []  # the credential is a connection, not a session
        report = await erase_user(db, ANN)
        assert report.complete
        assert await credentials.atoken(ANN, "github") is None
        assert ANN not in "\n".join(await redis_texts(raw, key_prefix))
        assert not [r for r in sql_rows(durable) if "github" in r]
        assert (await export_user(db, ANN))["connections"] == []
    finally:
        await raw.aclose()
        await db.aclose()


async def test_an_admin_dump_of_a_credential_session_is_redacted(
    durable_factory: DurableFactory,
) -> None:
    """An admin dumping the credential's session sees it redacted (its key is a
    credential name), never the token."""
    db = durable_factory(StateCipher([K1]))
    try:
        await McpCredentials(db).aconnect(ANN, "github", TOKEN, method="token")
        dump = await dump_session(db, credential_session_id("github", ANN))
        assert TOKEN not in repr(dump) and dump["redacted"] is True
    finally:
        await db.aclose()
