"""``statebot state rekey`` and the STATEBOT_STATE_KEYS setting, through click's CliRunner."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from cryptography.fernet import Fernet

from bots.app.build import build_store
from bots.cli.main import main
from bots.settings import Settings
from core.crypto import key_id
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb

K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()
SECRET = "top-secret-plan"


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL must not turn these SQLite tests into Redis ones."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("STATEBOT_STATE_KEYS", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite file with two sessions sealed under K1."""
    url = f"sqlite:///{tmp_path}/rekey.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url, cipher=StateCipher([K1]))
        await db.asave("a", expected_version=0, changed=texts({"plan": SECRET}))
        await db.asave("b", expected_version=0, changed=texts({"n": 1}), data='{"runs":[]}')
        await db.aclose()

    asyncio.run(fill())
    return url


def raw_states(url: str) -> str:
    """Every state and history text of the file, joined."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT state FROM sessions UNION ALL SELECT state FROM session_history")
        )
        blob = "\n".join(r[0] for r in rows)
    engine.dispose()
    return blob


def test_rekey_rewrites_under_the_new_key_and_says_the_old_may_go(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New key first: rekey seals everything under it, names the old key as removable."""
    monkeypatch.setenv("STATEBOT_STATE_KEYS", f"{K2},{K1}")
    result = CliRunner().invoke(main, ["state", "rekey", "--db-url", db_url])
    assert result.exit_code == 0, result.output
    assert "2 sessions looked at, 2 rewritten" in result.output
    assert f"the other keys ({key_id(K1)}) may now be removed" in result.output
    blob = raw_states(db_url)
    assert f"$sb1:{key_id(K2)}:" in blob and key_id(K1) not in blob and SECRET not in blob
    again = CliRunner().invoke(main, ["state", "rekey", "--db-url", db_url, "--json"])
    assert again.exit_code == 0, again.output
    (only,) = json.loads(again.output)["passes"]
    assert only["values"] == only["data"] == only["history"] == 0  # idempotent
    monkeypatch.setenv("STATEBOT_STATE_KEYS", K2)  # the old key dropped
    new_only = build_store(Settings(statebot_db_url=db_url))

    async def load() -> dict[str, object]:
        try:
            record = await new_only.aload("a")
            assert record is not None
            return record.state
        finally:
            await new_only.aclose()

    assert asyncio.run(load()) == {"plan": SECRET}


def test_rekey_without_the_old_key_names_it_and_exits_1(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Old key dropped too early: every affected value is reported with its key id."""
    monkeypatch.setenv("STATEBOT_STATE_KEYS", K2)
    result = CliRunner().invoke(main, ["state", "rekey", "--db-url", db_url])
    assert result.exit_code == 1
    assert key_id(K1) in result.output
    assert "add their keys back" in result.output


def test_rekey_without_keys_is_a_clear_error(db_url: str) -> None:
    """Encryption off: nothing to rekey, said plainly."""
    result = CliRunner().invoke(main, ["state", "rekey", "--db-url", db_url])
    assert result.exit_code == 1
    assert "STATEBOT_STATE_KEYS is empty" in result.output


def test_a_malformed_key_stops_settings_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad key is a startup error naming the variable and the fix, never the value."""
    monkeypatch.setenv("STATEBOT_STATE_KEYS", f"{K1},not-a-key-xyz")
    with pytest.raises(ValueError) as caught:
        Settings()
    message = str(caught.value)
    assert "statebot_state_keys" in message and "key #2 is not a Fernet key" in message
    assert "not-a-key-xyz" not in message and K1 not in message


def test_build_store_gives_redis_and_the_durable_store_the_ring(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every process builds its stores through build_store: both get STATEBOT_STATE_KEYS."""
    monkeypatch.setenv("STATEBOT_STATE_KEYS", f"{K2},{K1}")
    settings = Settings(
        redis_url="redis://127.0.0.1:6379/0", statebot_db_url=f"sqlite:///{tmp_path}/x.db"
    )
    store = build_store(settings)
    assert isinstance(store, RedisDb) and store.cipher is not None
    assert store.cipher.ring.ids == (key_id(K2), key_id(K1))
    assert isinstance(store.snapshot_to, SqliteDb) and store.snapshot_to.cipher is store.cipher
    monkeypatch.setenv("STATEBOT_STATE_KEYS", "")  # compose's VAR=: off
    plain = build_store(Settings(statebot_db_url=f"sqlite:///{tmp_path}/y.db"))
    assert isinstance(plain, SqliteDb) and plain.cipher is None
