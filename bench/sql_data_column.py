"""What a SQL save pays for the session's data: written whole, appended, or not at all.

    .venv/bin/python -m bench.sql_data_column [--saves 200]

A long-lived session's data (20 runs of ~2.5 KB, 200 audit entries: ~60 KB) gains one
run and one entry per save. Three sessions of one store, saved in turn: one whose saves
write the data whole (a save whose parts are not known: the first after a load), one
whose saves append the new lines to ``data_tail`` (``core/db/sql/data_column.py``; the
data written whole again once what was appended outweighs it, as a run's saves do), and
one whose saves leave the data alone; each also changes one small state key. Medians of
wall and process CPU, ms, on SqliteDb and PostgresDb.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid

import sqlalchemy as sa

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb
from core.run.history import RunRecord, SessionData
from core.run.pieces import DataPieces, parts_of

POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
LIMITS = StateLimits(max_runs=20, max_audit_entries=200)
KINDS = ("whole", "appended", "none")


class Session:
    """One session's data, a run and an audit entry added per save."""

    def __init__(self) -> None:
        self.data = SessionData()
        self.base: DataPieces[RunRecord] | None = None
        self.version = 0

    def turn(self, i: int) -> tuple[str, DataParts]:
        self.data.upsert(RunRecord(run_id=f"r{i}", status="completed", input="x " * 1250))
        self.data.add_audit({"version": i, "changed": ["n"]})
        text = self.data.encode(LIMITS)
        pieces = self.data.pieces(text)
        assert pieces is not None
        parts, self.base = parts_of(pieces, self.base)
        return text, parts


async def _save(db: BaseDb, kind: str, session: Session, turn: int, *, fill: bool) -> None:
    """One save of ``kind``'s session; ``fill``: its data written whatever the kind."""
    text, parts = session.turn(turn)
    data = text if fill or kind != "none" else None
    session.version = await db.asave(
        kind,
        expected_version=session.version,
        changed=encode_delta({"n": turn}),
        data=data,
        data_parts=parts if kind == "appended" else None,
    )


async def measure(db: BaseDb, saves: int) -> str:
    """One Markdown row: the store's save of each kind."""
    sessions = {kind: Session() for kind in KINDS}
    for turn in range(230):  # the history and the audit trail full before the timing
        for kind in KINDS:
            await _save(db, kind, sessions[kind], turn, fill=True)
    timed: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    for turn in range(230, 230 + saves):
        for kind in KINDS:
            start, cpu = time.perf_counter(), time.process_time()
            await _save(db, kind, sessions[kind], turn, fill=False)
            timed[kind].append((time.perf_counter() - start, time.process_time() - cpu))

    def ms(kind: str, k: int) -> float:
        return statistics.median(x[k] for x in timed[kind]) * 1000

    size = len(sessions["whole"].data.encode(LIMITS)) / 1000
    cells = " | ".join(f"{ms(kind, 0):.2f} / {ms(kind, 1):.2f}" for kind in KINDS)
    ratio = ms("appended", 0) / ms("whole", 0)
    return f"| {type(db).__name__} | {size:.0f} KB | {cells} | {ratio:.2f}x |"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=200, help="timed saves of each kind")
    args = parser.parse_args()
    print("| store | data | whole: wall / CPU ms | appended | none | wall, appended ÷ whole |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SqliteDb(db_file=f"{tmp}/s.db", limits=LIMITS)
        print(await measure(sqlite, args.saves), flush=True)
        await sqlite.aclose()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    postgres = PostgresDb(db_url=POSTGRES_URL, schema=schema, limits=LIMITS)
    try:
        print(await measure(postgres, args.saves), flush=True)
    finally:
        await postgres.aclose()
        engine = sa.create_engine(POSTGRES_URL)
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
