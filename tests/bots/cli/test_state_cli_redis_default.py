"""``statebot state`` on a Redis deployment: REDIS_URL from ``.env`` is used by default,
and a write to the durable store alone is refused while the bots serve from Redis.

The real CLI runs in a subprocess, in a directory whose ``.env`` configures the
deployment; the bots' view is read from Redis (this test's key prefix) afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli.main import main
from bots.ops.startup import check_stores
from core.db.codec import encode_delta
from core.db.fronts import afronts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb

SESSION = "slack:T1:C1:1700000000.000100"

pytestmark = pytest.mark.slow

# ``statebot`` with the Redis key prefix of this test (state commands use the bots' one)
_STATEBOT = (
    "import functools, sys\n"
    "import bots.app.build as build\n"
    "build.build_store = functools.partial(build.build_store, key_prefix=sys.argv[1])\n"
    "from bots.cli.main import main\n"
    "main(sys.argv[2:], prog_name='statebot')\n"
)


def _statebot(cwd: Path, key_prefix: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as an operator runs it in ``cwd``: its settings come from ``cwd/.env``."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "STATEBOT_DB_URL")}
    env.pop("STATEBOT_ENV_FILE", None)  # the tests' "read no .env": the operator's ./.env
    return subprocess.run(
        [sys.executable, "-c", _STATEBOT, key_prefix, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


def _snapshotter_once(cwd: Path, redis_url: str, db_url: str, key_prefix: str) -> None:
    """A real ``statebot snapshotter --once`` of the deployment (a serving process's start)."""
    done = _statebot(
        cwd,
        key_prefix,
        "snapshotter",
        "--redis-url",
        redis_url,
        "--db-url",
        db_url,
        "--key-prefix",
        key_prefix,
        "--once",
    )
    assert done.returncode == 0, done.stderr


async def _bots_save(redis_url: str, key_prefix: str, db_url: str, states: list[int]) -> None:
    """What the bots do: check their stores at start, then save each state as the
    session's next version through Redis (snapshotted when the store closes)."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=SqliteDb(db_url=db_url))
    try:
        await check_stores(store)
        for version, n in enumerate(states):
            await store.asave(SESSION, expected_version=version, changed=encode_delta({"n": n}))
    finally:
        await store.aclose()
        assert store.snapshot_to is not None
        await store.snapshot_to.aclose()


def _bots_view(redis_url: str, key_prefix: str) -> tuple[int, dict[str, object]] | None:
    """(version, state) of the session as the bots' Redis holds it; None when gone."""

    async def read() -> tuple[int, dict[str, object]] | None:
        redis = RedisDb(db_url=redis_url, key_prefix=key_prefix)  # Redis alone: no read-back
        try:
            record = await redis.aload(SESSION)
        finally:
            await redis.aclose()
        return None if record is None else (record.version, record.state)

    return asyncio.run(read())


def _durable_view(db_url: str) -> tuple[int, dict[str, object]] | None:
    async def read() -> tuple[int, dict[str, object]] | None:
        durable = SqliteDb(db_url=db_url)
        try:
            record = await durable.aload(SESSION)
        finally:
            await durable.aclose()
        return None if record is None else (record.version, record.state)

    return asyncio.run(read())


@pytest.fixture
def deployment(redis_url: str, key_prefix: str, tmp_path: Path) -> tuple[Path, str]:
    """A Redis deployment: the bots saved v1 {n: 1} and v2 {n: 2}, snapshotted to the
    SQLite durable store. Returns (its directory, the durable store's URL)."""
    db_url = f"sqlite:///{tmp_path}/durable.db"
    asyncio.run(_bots_save(redis_url, key_prefix, db_url, [1, 2]))
    assert _durable_view(db_url) == (2, {"n": 2})
    return tmp_path, db_url


def test_env_redis_url_is_used_so_delete_reaches_the_bots(
    deployment: tuple[Path, str], redis_url: str, key_prefix: str
) -> None:
    """REDIS_URL in .env: `state delete` acts on Redis too; the bots no longer see the session."""
    cwd, db_url = deployment
    (cwd / ".env").write_text(f"REDIS_URL={redis_url}\n", encoding="utf-8")
    done = _statebot(cwd, key_prefix, "state", "--db-url", db_url, "delete", SESSION, "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"deleted {SESSION}"
    assert _bots_view(redis_url, key_prefix) is None
    assert _durable_view(db_url) is None


def test_env_redis_url_is_used_so_restore_reaches_the_bots(
    deployment: tuple[Path, str], redis_url: str, key_prefix: str
) -> None:
    """REDIS_URL and STATEBOT_DB_URL in .env: `state restore` is what the bots serve next."""
    cwd, db_url = deployment
    (cwd / ".env").write_text(
        f"REDIS_URL={redis_url}\nSTATEBOT_DB_URL={db_url}\n", encoding="utf-8"
    )
    done = _statebot(cwd, key_prefix, "state", "restore", SESSION, "1")
    assert done.returncode == 0, done.stderr
    assert "now version 3" in done.stdout
    assert _bots_view(redis_url, key_prefix) == (3, {"n": 1})
    assert _durable_view(db_url) == (3, {"n": 1})


@pytest.mark.parametrize(
    "command",
    [
        ["delete", SESSION, "--yes"],
        ["restore", SESSION, "1"],
        ["erase", "--user", "slack:T1:U1", "--yes"],
        ["import", "--replace", "{backup}"],
    ],
    ids=["delete", "restore", "erase", "import"],
)
def test_durable_only_write_on_a_redis_deployment_is_refused(
    deployment: tuple[Path, str], redis_url: str, key_prefix: str, command: list[str]
) -> None:
    """No REDIS_URL on a deployment whose bots serve from Redis: one line naming the flags
    (exit 2), and nothing changed in Redis or the durable store."""
    cwd, db_url = deployment
    backup = cwd / "backup.jsonl"
    line = {"session_id": SESSION, "version": 1, "state": {"n": 9}}
    backup.write_text(json.dumps(line) + "\n", encoding="utf-8")
    args = [arg.replace("{backup}", str(backup)) for arg in command]
    done = _statebot(cwd, key_prefix, "state", "--db-url", db_url, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    [message] = done.stderr.strip().splitlines()
    assert "--redis-url" in message and "--durable-only" in message
    assert "nothing was written" in message and key_prefix in message
    assert done.stdout == ""
    assert _bots_view(redis_url, key_prefix) == (2, {"n": 2})
    assert _durable_view(db_url) == (2, {"n": 2})


def test_durable_only_flag_writes_the_durable_store_alone(
    deployment: tuple[Path, str], redis_url: str, key_prefix: str
) -> None:
    """--durable-only (Redis gone for good, or rebuilding): the write goes to the durable
    store, even with REDIS_URL configured; Redis is not touched."""
    cwd, db_url = deployment
    (cwd / ".env").write_text(f"REDIS_URL={redis_url}\n", encoding="utf-8")
    done = _statebot(
        cwd, key_prefix, "state", "--db-url", db_url, "delete", SESSION, "--yes", "--durable-only"
    )
    assert done.returncode == 0, done.stderr
    assert _durable_view(db_url) is None
    assert _bots_view(redis_url, key_prefix) == (2, {"n": 2})


def test_a_serving_process_records_its_redis_in_the_durable_store(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A real `statebot snapshotter` start records which Redis (address, key prefix)
    fronts the durable store; a durable-only write is then refused."""
    db_url = f"sqlite:///{tmp_path}/durable.db"
    _snapshotter_once(tmp_path, redis_url, db_url, key_prefix)

    async def read() -> list[tuple[str, str]]:
        durable = SqliteDb(db_url=db_url)
        try:
            return [(f.address, f.key_prefix) for f in await afronts(durable)]
        finally:
            await durable.aclose()

    assert asyncio.run(read()) == [("127.0.0.1:6379", key_prefix)]
    done = _statebot(tmp_path, key_prefix, "state", "--db-url", db_url, "delete", "s", "--yes")
    assert done.returncode == 2 and "--durable-only" in done.stderr, done.stderr


def test_durable_store_without_redis_is_written_without_a_flag(tmp_path: Path) -> None:
    """A deployment that never served from Redis: the durable store alone, as before."""
    db_url = f"sqlite:///{tmp_path}/alone.db"

    async def seed() -> None:
        durable = SqliteDb(db_url=db_url)
        try:
            await durable.asave(SESSION, expected_version=0, changed=encode_delta({"n": 1}))
        finally:
            await durable.aclose()

    asyncio.run(seed())
    (tmp_path / ".env").write_text(f"STATEBOT_DB_URL={db_url}\n", encoding="utf-8")
    done = _statebot(tmp_path, "unused:", "state", "delete", SESSION, "--yes")
    assert done.returncode == 0, done.stderr
    assert _durable_view(db_url) is None


def test_durable_only_with_a_redis_url_is_a_contradiction(tmp_path: Path) -> None:
    """--durable-only and --redis-url together: one line saying so, exit 2, nothing opened."""
    db_url = f"sqlite:///{tmp_path}/never.db"
    args = ["state", "--durable-only", "--db-url", db_url, "list", "--redis-url", "redis://x"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: --durable-only and --redis-url contradict each other: pass one of them"
    ]
    assert not (tmp_path / "never.db").exists()
