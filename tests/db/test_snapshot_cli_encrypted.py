"""``statebot snapshotter`` builds its stores as the bots do: with STATEBOT_STATE_KEYS,
both carry the key ring, so sealed sessions are copied and read back."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cryptography.fernet import Fernet
from pydantic import SecretStr

from bots.app.retention import policy_from_settings
from bots.cli.snapshotter import build_snapshotter, snapshotter_store
from bots.settings import Settings
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.retention import DAY, RetentionReport

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from bots.cli.main import main; main()", "snapshotter"]
SECRET = "ana's shopping list"


def _cli(args: list[str], keys: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STATEBOT_STATE_KEYS": keys, "STATEBOT_ENV_FILE": ""}
    return subprocess.run(
        [*CLI, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


async def test_once_copies_a_sealed_session_readable_through_the_api(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A sealed Redis session reaches SQLite sealed, and a keyed store reads it back."""
    keys = Fernet.generate_key().decode()
    cipher = StateCipher.from_setting(keys)
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False, cipher=cipher)
    try:
        await hot.asave("s", expected_version=0, changed=texts({"list": SECRET}))
    finally:
        await hot.aclose()
    db_file = tmp_path / "d.db"
    args = ["--redis-url", redis_url, "--db-url", f"sqlite:///{db_file}"]
    proc = _cli([*args, "--key-prefix", key_prefix, "--once"], keys)
    assert proc.returncode == 0, proc.stderr
    assert "snapshotted 1 session" in proc.stdout

    with sqlite3.connect(db_file) as raw:
        stored = " ".join(str(row) for row in raw.execute("SELECT * FROM sessions"))
    assert "shopping" not in stored  # sealed at rest
    durable = SqliteDb(db_file=db_file, cipher=cipher)
    try:
        copy = await durable.aload("s")
        assert copy is not None and copy.state == {"list": SECRET}
    finally:
        await durable.aclose()


async def test_status_works_with_state_keys(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """--status builds the same keyed stores and reports the backlog."""
    keys = Fernet.generate_key().decode()
    hot = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        run_snapshotter=False,
        cipher=StateCipher.from_setting(keys),
    )
    try:
        await hot.asave("s", expected_version=0, changed=texts({"list": SECRET}))
    finally:
        await hot.aclose()
    args = ["--redis-url", redis_url, "--db-url", f"sqlite:///{tmp_path / 'd.db'}"]
    proc = _cli([*args, "--key-prefix", key_prefix, "--status"], keys)
    assert proc.returncode == 0, proc.stderr
    assert '"dirty": 1' in proc.stdout


async def test_the_snapshotter_store_carries_the_keys_so_retention_reads_sealed_sessions(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The standalone snapshotter's stores are keyed like the bots': its retention pass
    reads a sealed idle session and expires it (a keyless store refused to read it)."""
    keys = Fernet.generate_key().decode()
    settings = Settings(
        redis_url=redis_url,
        statebot_db_url=f"sqlite:///{tmp_path / 'd.db'}",
        statebot_state_keys=SecretStr(keys),
        statebot_retention_channel_days=1,
    )
    hot = snapshotter_store(settings, key_prefix=key_prefix)
    try:
        assert hot.cipher is not None and not hot.run_snapshotter
        assert getattr(hot.snapshot_to, "cipher", None) is not None
        bot = RedisDb(
            db_url=redis_url,
            key_prefix=key_prefix,
            run_snapshotter=False,
            cipher=StateCipher.from_setting(keys),
        )
        try:
            await bot.asave("slack:T1:C2", expected_version=0, changed=texts({"l": SECRET}))
        finally:
            await bot.aclose()
        snapshotter = build_snapshotter(
            hot,
            retention=policy_from_settings(settings),
            clock=lambda: time.time() + 2 * DAY,
        )
        assert await snapshotter.drain() == 1
        assert snapshotter.retention is not None
        report = await snapshotter.retention()
        assert isinstance(report, RetentionReport)
        assert report.errors == {} and report.sessions_expired == ["slack:T1:C2"]
        assert await hot.aload("slack:T1:C2") is None
    finally:
        await hot.aclose()
        assert hot.snapshot_to is not None
        await hot.snapshot_to.aclose()
