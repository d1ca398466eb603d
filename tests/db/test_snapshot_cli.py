"""``statebot snapshotter``: the standalone process drains Redis into the durable store."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from bots.cli.main import main; main()", "snapshotter"]


async def test_once_drains_every_dirty_session(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """--once copies all dirty sessions to the --db-url store and exits 0."""
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    for n in range(3):
        await hot.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
    db_file = tmp_path / "d.db"
    args = ["--redis-url", redis_url, "--db-url", f"sqlite:///{db_file}"]
    proc = subprocess.run(
        [*CLI, *args, "--key-prefix", key_prefix, "--once"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "snapshotted 3 sessions" in proc.stdout
    assert await hot.dirty.count() == 0
    durable = SqliteDb(db_file=db_file)
    for n in range(3):
        copy = await durable.aload(f"s{n}")
        assert copy is not None and copy.state == {"n": n}
    await durable.aclose()
    await hot.aclose()


async def test_runs_until_sigterm_copying_saves_as_they_come(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The long-running mode copies new saves as they come and stops cleanly on SIGTERM."""
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    db_file = tmp_path / "d.db"
    args = ["--redis-url", redis_url, "--db-url", f"sqlite:///{db_file}"]
    proc = subprocess.Popen(
        [*CLI, *args, "--key-prefix", key_prefix, "--interval", "0.02"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        await hot.asave("live", expected_version=0, changed=texts({"n": 1}))
        for _ in range(1000):
            if await hot.dirty.count() == 0:
                break
            await asyncio.sleep(0.01)
        assert await hot.dirty.count() == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    durable = SqliteDb(db_file=db_file)
    copy = await durable.aload("live")
    assert copy is not None and copy.state == {"n": 1}
    await durable.aclose()
    await hot.aclose()


async def test_bad_db_url_is_a_clear_error(redis_url: str, key_prefix: str) -> None:
    """An unknown durable-store URL scheme exits non-zero with a message naming the schemes."""
    proc = subprocess.run(
        [*CLI, "--redis-url", redis_url, "--db-url", "mongodb://x", "--once"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "unknown database URL scheme 'mongodb'" in proc.stderr


async def test_status_reports_dirty_and_quarantined_sessions(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """--status prints the dirty count and each quarantined session with its reason."""
    import json

    from core.db.records import SessionRecord

    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    await hot.asave("ok", expected_version=0, changed=texts({"n": 1}))
    await hot.asave("bad", expected_version=0, changed=texts({"n": 2}))
    bad = SessionRecord.from_state("bad", {"n": 2}, 1)
    assert await hot.dirty.aquarantine(bad, "refused: test")
    args = ["--redis-url", redis_url, "--db-url", f"sqlite:///{tmp_path / 'd.db'}"]
    proc = subprocess.run(
        [*CLI, *args, "--key-prefix", key_prefix, "--status"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["reachable"] and report["dirty"] == 1 and report["quarantined"] == 1
    assert report["quarantined_sessions"][0]["session_id"] == "bad"
    assert report["quarantined_sessions"][0]["reason"] == "refused: test"
    await hot.aclose()
