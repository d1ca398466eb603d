"""What a SQL save pays for the session's data column: a ~60 KB data text or none.

    .venv/bin/python -m bench.sql_data_column [--saves 200]

RedisDb appends a save's new runs and audit entries (docs/redis.md, "The data log");
the SQL stores write the data column whole whenever the data changed. This times one
session's saves on SqliteDb and PostgresDb, alternating a save that writes a ~60 KB
data text (20 runs of ~2.5 KB, one changed each time) with one that leaves the data
as it is; both change one small state key. Medians of wall and process CPU, ms.
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
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb

POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
RUNS = [f'{{"run_id":"r{i}","input":"{"x" * 2500}"}}' for i in range(20)]


def data_text(turn: int) -> str:
    """A ~60 KB data text whose first run differs from turn to turn."""
    runs = [RUNS[0].replace('"r0"', f'"t{turn}"'), *RUNS[1:]]
    return '{"name":null,"runs":[' + ",".join(runs) + "]}"


async def measure(db: BaseDb, saves: int) -> str:
    """One Markdown row: the store's save with and without the data text."""
    version = await db.asave("s", expected_version=0, changed=encode_delta({"n": 0}), data="")
    timed: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for turn in range(saves):
        for with_data in (True, False):
            start, cpu = time.perf_counter(), time.process_time()
            version = await db.asave(
                "s",
                expected_version=version,
                changed=encode_delta({"n": turn}),
                data=data_text(turn) if with_data else None,
            )
            timed[with_data].append((time.perf_counter() - start, time.process_time() - cpu))

    def ms(with_data: bool, k: int) -> float:
        return statistics.median(x[k] for x in timed[with_data]) * 1000

    return (
        f"| {type(db).__name__} | {ms(True, 0):.2f} / {ms(True, 1):.2f} "
        f"| {ms(False, 0):.2f} / {ms(False, 1):.2f} | {ms(True, 0) / ms(False, 0):.2f}x |"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=200, help="saves of each kind")
    args = parser.parse_args()
    print("| store | with 60 KB data: wall / CPU ms | without: wall / CPU ms | wall ratio |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SqliteDb(db_file=f"{tmp}/s.db")
        print(await measure(sqlite, args.saves), flush=True)
        await sqlite.aclose()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    postgres = PostgresDb(db_url=POSTGRES_URL, schema=schema)
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
