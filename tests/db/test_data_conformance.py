"""The storage contract for a session's data saved as parts (``core/db/data_parts.py``):
every store reads back exactly the text, however the saves were sent. Collected again,
sealed, by ``test_encryption_conformance.py``."""

from __future__ import annotations

import json

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.limits import StateLimits
from core.db.records import SessionRecord
from core.run.history import RunRecord, SessionData
from core.run.pieces import DataPieces, parts_of

LIMITS = StateLimits(max_runs=3, max_audit_entries=4)


class Turns:
    """A session's data built turn by turn, sent as a run's saves send it."""

    def __init__(self, data: SessionData | None = None) -> None:
        self.data = data or SessionData()
        self.base: DataPieces[RunRecord] | None = None
        self.version = 0

    async def save(self, store: BaseDb, i: int) -> str:
        """One run and one audit entry added and saved; the data text."""
        self.data.upsert(RunRecord(run_id=f"r{i}", status="completed", input=f"q{i}"))
        self.data.add_audit({"version": i})
        text = self.data.encode(LIMITS)
        parts, self.base = parts_of(self.data.pieces(text), self.base)
        self.version = await store.asave(
            "s",
            expected_version=self.version,
            changed=texts({"n": i}),
            data=text,
            data_parts=parts,
        )
        return text


async def test_data_sent_as_parts_reads_back_whole(store: BaseDb) -> None:
    """Appended saves, a save without data, a whole rewrite (erasure, undo) and appends
    after it: each load gives exactly the last text."""
    turns = Turns()
    for i in range(6):
        text = await turns.save(store, i)
        record = await store.aload("s")
        assert record is not None and record.data == text
    turns.version = await store.asave("s", expected_version=6, changed=texts({"n": 99}))
    rewritten = json.dumps({"name": "renamed", "runs": []}, separators=(",", ":"))
    turns.version = await store.asave("s", expected_version=7, changed=texts({}), data=rewritten)
    record = await store.aload("s")
    assert record is not None and record.data == rewritten
    turns.data = SessionData.decode(rewritten)  # the next run starts from what is stored
    turns.base = None
    for i in range(6, 9):
        text = await turns.save(store, i)
    record = await store.aload("s")
    assert record is not None and record.data == text and record.version == 11
    stored = SessionData.decode(record.data)
    assert stored.name == "renamed" and [r.run_id for r in stored.runs] == ["r6", "r7", "r8"]


async def test_appended_data_goes_with_deletes_and_snapshots_replace_it(store: BaseDb) -> None:
    """A delete takes the appended data with the session; a newer snapshot replaces it."""
    turns = Turns()
    for i in range(5):
        await turns.save(store, i)
    snap = SessionRecord.from_state("s", {"a": 1}, 9, data='{"name":"standup","runs":[]}')
    assert await store.aupsert_snapshot(snap)
    record = await store.aload("s")
    assert record is not None and record.data == '{"name":"standup","runs":[]}'
    assert await store.adelete("s")
    assert await store.aload("s") is None
    turns = Turns()
    text = await turns.save(store, 0)
    record = await store.aload("s")
    assert record is not None and record.data == text
