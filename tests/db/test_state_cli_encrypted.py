"""``statebot state`` on a durable store alone opens it with STATEBOT_STATE_KEYS, as the bots do."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.fernet import Fernet

from bots.cli.main import main
from core.db.cipher import StateCipher
from core.db.codec import encode_delta
from core.db.sqlite import SqliteDb

SESSION = "console:local:main:taskboard"


@pytest.fixture
def sealed_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A SQLite file holding one session sealed under a key that the environment names."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("STATEBOT_STATE_KEYS", key)
    url = f"sqlite:///{tmp_path}/sealed.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url, cipher=StateCipher([key]))
        await db.asave(SESSION, expected_version=0, changed=encode_delta({"tasks": ["zebra-4471"]}))
        await db.aclose()

    asyncio.run(fill())
    raw = (tmp_path / "sealed.db").read_bytes()
    assert b"zebra-4471" not in raw  # sealed at rest
    return url


def test_dump_without_redis_opens_sealed_values(sealed_db: str) -> None:
    """`state dump` on the durable store alone shows the state, not ciphertext or an error."""
    result = CliRunner().invoke(main, ["state", "--db-url", sealed_db, "dump", SESSION])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["state"] == {"tasks": ["zebra-4471"]}
