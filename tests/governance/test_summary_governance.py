"""A session summary is part of the session record: exported, erased, snapshotted and
sealed at rest with it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cryptography.fernet import Fernet

from core.agent import Agent
from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.erasure import erase_user
from core.governance.user_export import export_user
from core.run.history import SessionData
from core.testing import ScriptedModel
from tests.db.erasure_fixtures import ANA, BOB, deployment, deployment_kind, traces

__all__ = ["deployment", "deployment_kind"]  # the fixtures, imported for pytest

ANA_DM = "slack:T1:DANA2"
BOB_DM = "slack:T1:DBOB2"
THREAD = "slack:T1:C9:1700.9"


def _summary(text: str) -> str:
    return json.dumps({"summary": text, "topics": ["t"]})


async def _run(db: BaseDb, session_id: str, user_id: str, summary: str) -> None:
    model = ScriptedModel(["ok", _summary(summary)])
    agent = Agent(model=model, db=db, enable_session_summaries=True)
    await agent.arun(f"note from {user_id}", session_id=session_id, user_id=user_id)


async def _fill(db: BaseDb) -> None:
    await _run(db, ANA_DM, ANA, "Ana's private plans.")
    await _run(db, BOB_DM, BOB, "Bob's private plans.")
    await _run(db, THREAD, ANA, "Ana asked first.")
    await _run(db, THREAD, BOB, "Ana and Bob planned the offsite.")


async def _summary_of(db: BaseDb, session_id: str) -> dict[str, object] | None:
    record = await db.aload(session_id)
    assert record is not None
    return SessionData.decode(record.data).summary


async def test_export_shows_own_summaries_and_withholds_shared_ones(deployment: BaseDb) -> None:
    """Her own session's summary is exported; a shared one is withheld and flagged."""
    await _fill(deployment)
    export = await export_user(deployment, ANA)
    [own] = [s for s in export["sessions"] if s["session_id"] == ANA_DM]
    assert own["data"]["summary"]["summary"] == "Ana's private plans."
    [shared] = [s for s in export["shared_sessions"] if s["session_id"] == THREAD]
    assert shared["summary_withheld"] is True
    assert "Ana and Bob planned" not in json.dumps(export)


async def test_erasure_drops_the_shared_summary_and_keeps_others(deployment: BaseDb) -> None:
    """Erasing Ana deletes her session, drops the shared thread's summary (made from
    her runs) and leaves Bob's own summary; nothing in any store names her after."""
    await _fill(deployment)
    report = await erase_user(deployment, ANA, pseudonym="erased-user-s")
    assert report.complete and ANA_DM in report.sessions_deleted
    assert THREAD in report.sessions_scrubbed
    assert await deployment.aload(ANA_DM) is None
    assert await _summary_of(deployment, THREAD) is None
    bob = await _summary_of(deployment, BOB_DM)
    assert bob is not None and bob["summary"] == "Bob's private plans."
    assert await traces(deployment, ANA) == []
    # the next run in the thread writes a new summary from the runs that remain
    await _run(deployment, THREAD, BOB, "Bob alone now.")
    again = await _summary_of(deployment, THREAD)
    assert again is not None and again["users"] == [BOB]


async def test_summary_is_snapshotted_to_the_durable_store(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """RedisDb's snapshot carries the summary to the durable store with the session."""
    durable = SqliteDb(db_file=tmp_path / "durable.db")
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable)
    try:
        await _run(db, "s1", ANA, "Snapshotted summary.")
        await db.aflush()
        summary = await _summary_of(durable, "s1")
        assert summary is not None and summary["summary"] == "Snapshotted summary."
    finally:
        await db.aclose()
        await durable.aclose()


async def test_summary_is_sealed_at_rest(tmp_path: Path) -> None:
    """With a cipher, the summary's text never appears in the database file."""
    cipher = StateCipher([Fernet.generate_key().decode()])
    db = SqliteDb(db_file=tmp_path / "sealed.db", cipher=cipher)
    await _run(db, "s1", ANA, "Sealed-summary-text")
    summary = await _summary_of(db, "s1")
    assert summary is not None and summary["summary"] == "Sealed-summary-text"
    await db.aclose()
    with sqlite3.connect(tmp_path / "sealed.db") as conn:
        rows = [
            str(row)
            for table in ("sessions", "session_history")
            for row in conn.execute(f"SELECT * FROM {table}")
        ]
    assert rows and not any("Sealed-summary-text" in row for row in rows)
