"""A run's two store steps on RedisDb: ``open_run`` then ``asave(..., release=True)``.

One "turn" here is exactly what the runtime asks of the store: take the lease and
load (or learn the session is unchanged since the cached version), then save one
small changed key and release in the same script. Measured for a session of 10 and
of 10,000 top-level keys, with and without a cached ``KnownVersion``; the round trips
per turn are counted with ``RedisDb.round_trips``. The model, tools and state
resolution are left out (see ``bench.turn_overhead`` for whole turns).

Run: ``.venv/bin/python -m bench.open_run [--turns 200] [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid

from core.db.codec import encode_delta
from core.db.records import KnownVersion
from core.db.redis import RedisDb

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


async def _turns(db: RedisDb, session_id: str, turns: int, cached: bool) -> tuple[float, float]:
    """(median µs per turn, round trips per turn)."""
    record = await db.aload(session_id)
    assert record is not None
    known = KnownVersion.of(record)
    version = record.version
    times: list[float] = []
    db.round_trips.reset()
    for n in range(turns):
        started = time.perf_counter()
        async with db.open_run(session_id, known=known if cached else None) as opened:
            assert opened.unchanged == cached
            version = await db.asave(
                session_id,
                expected_version=version,
                changed={"counter": str(n)},
                lease=opened.lease,
                release=True,
            )
            assert opened.lease.saved is not None
            known = opened.lease.saved
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6, db.round_trips.reset() / turns


async def main(turns: int) -> None:
    db = RedisDb(db_url=REDIS_URL, key_prefix=f"bench-open-run:{uuid.uuid4().hex[:8]}:")
    try:
        print(f"{'keys':>7} {'cached':>7} {'median per turn':>16} {'round trips':>12}")
        for keys in (10, 10_000):
            sid = f"s{keys}"
            state = {f"k{i}": {"title": f"task {i}", "done": False} for i in range(keys)}
            await db.asave(sid, expected_version=0, changed=encode_delta(state))
            for cached in (False, True):
                await _turns(db, sid, 5, cached)  # warm-up
                median, trips = await _turns(db, sid, turns, cached)
                print(f"{keys:>7,} {cached!s:>7} {median:>13,.0f} µs {trips:>12.2f}")
    finally:
        await db.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 turns (smoke test)")
    args = parser.parse_args()
    asyncio.run(main(20 if args.quick else args.turns))
