"""The console's sessions list with many sessions in PostgreSQL: server time per page.

    .venv/bin/python -m bench.web_sessions_list [--sessions 100000] [--repeat 20]

Fills a fresh PostgreSQL schema (migrated to head, so with migration 0006's indexes)
with N sessions spread over 50 Slack workspaces, 200 channels each, three agents and
1,000 users, one history row per session, then ANALYZE. Then, for each request, the
median over ``--repeat`` runs (after one warm-up) of:

* ``query``: ``core.governance.search.search_sessions`` alone (one SQL query);
* ``page``: the whole HTTP request to the console (sign-in check, query, template),
  measured around the handler, so loopback and the client are not counted.

Prints the plan PostgreSQL chose for each search, which says how it is indexed. The
schema is dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from aiohttp import CookieJar, web
from aiohttp.test_utils import TestClient, TestServer

from bots.web import WebConfig, create_app
from bots.web.tokens import AdminTokens
from core.db.postgres import PostgresDb
from core.governance.search import SessionQuery, search_sessions, sql_statement

POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
ADMIN = "slack:*:UADMIN"
WORKSPACES, CHANNELS, USERS = 50, 200, 1000
AGENTS = ("taskboard", "shopping", "records")

#: (label, console query string, the same search as a SessionQuery)
SEARCHES: list[tuple[str, str, SessionQuery]] = [
    ("first page", "", SessionQuery(scope="slack:")),
    ("workspace", "platform=slack&workspace=T7", SessionQuery("slack:T7:", "slack:")),
    ("channel", "platform=slack&workspace=T7&channel=C42", SessionQuery("slack:T7:C42", "slack:")),
    ("agent", "agent=shopping", SessionQuery(scope="slack:", agent="shopping")),
    ("user", "user=slack:T7:U123", SessionQuery(scope="slack:", user="slack:T7:U123")),
]


def fill(db: PostgresDb, sessions: int) -> None:
    """N sessions and a history row each, inserted in batches, then ANALYZE."""
    rng = random.Random(7)
    tables = db._tables
    now = time.time()
    with db.connection() as conn:
        for start in range(0, sessions, 5000):
            rows, history = [], []
            for i in range(start, min(start + 5000, sessions)):
                team = f"T{i % WORKSPACES}"
                channel = f"C{(i // WORKSPACES) % CHANNELS}"
                sid = f"slack:{team}:{channel}:{1_700_000_000 + i}.000100"
                user = f"slack:{team}:U{rng.randrange(USERS)}"
                state = json.dumps(
                    {"tasks": [{"title": f"task {i}", "done": False}], "owner": user}
                )
                stamp = now - rng.random() * 30 * 86400
                rows.append(
                    {
                        "session_id": sid,
                        "kind": "agent",
                        "owner_id": AGENTS[i % 3],
                        "user_id": user,
                        "state": state,
                        "version": 1,
                        "created_at": stamp,
                        "updated_at": stamp,
                        "save_id": "",
                        "data": "",
                    }
                )
                history.append(
                    {
                        "session_id": sid,
                        "version": 1,
                        "state": state,
                        "user_id": user,
                        "saved_at": stamp,
                        "save_id": "",
                    }
                )
            conn.execute(sa.insert(tables.sessions), rows)
            conn.execute(sa.insert(tables.history), history)
        conn.commit()
        conn.execute(sa.text(f'ANALYZE "{db.schema}".sessions'))
        conn.execute(sa.text(f'ANALYZE "{db.schema}".session_history'))
        conn.commit()


def plan(db: PostgresDb, query: SessionQuery) -> str:
    """The plan PostgreSQL picks for one search (first page of 50)."""
    statement = sql_statement(db, query, 51, None)
    compiled = statement.compile(db._engine, compile_kwargs={"literal_binds": True})
    with db.connection() as conn:
        lines = conn.execute(sa.text(f"EXPLAIN {compiled}")).scalars().all()
    return "\n".join(f"    {line}" for line in lines)


async def measure(db: PostgresDb, repeat: int, show_plans: bool) -> list[dict[str, Any]]:
    """Median query time and median page time of each search."""
    handler_times: list[float] = []

    @web.middleware
    async def timed(request: web.Request, handler: Any) -> web.StreamResponse:
        started = time.perf_counter()
        try:
            response: web.StreamResponse = await handler(request)
            return response
        finally:
            handler_times.append(time.perf_counter() - started)

    tokens = Path(tempfile.mkdtemp()) / "tokens.json"
    config = WebConfig(secret="b" * 32, admin_ids=frozenset({ADMIN}), tokens_file=tokens)
    app = create_app(db, config)
    app.middlewares.insert(0, timed)
    server = TestServer(app)
    await server.start_server()
    jar = CookieJar(unsafe=True, treat_as_secure_origin=[str(server.make_url("/"))])
    client = TestClient(server, cookie_jar=jar)
    await client.start_server()
    login = await (await client.get("/login")).text()
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
    assert csrf is not None
    token = AdminTokens(tokens).create(ADMIN)
    await client.post("/login/token", data={"token": token, "csrf_token": csrf[1]})
    results = []
    try:
        for label, params, query in SEARCHES:
            await search_sessions(db, query, limit=50)  # warm-up
            queries = []
            for _ in range(repeat):
                started = time.perf_counter()
                found = await search_sessions(db, query, limit=50)
                queries.append(time.perf_counter() - started)
            pages = []
            await client.get(f"/?{params}")
            for _ in range(repeat):
                handler_times.clear()
                response = await client.get(f"/?{params}")
                assert response.status == 200, await response.text()
                await response.read()
                pages.append(handler_times[-1])
            results.append(
                {
                    "search": label,
                    "rows": len(found.rows),
                    "query_ms": statistics.median(queries) * 1000,
                    "page_ms": statistics.median(pages) * 1000,
                }
            )
            if show_plans:
                print(f"plan of '{label}':\n{plan(db, query)}")
    finally:
        await client.close()
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-plans", action="store_true", help="do not print query plans")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    db = PostgresDb(db_url=POSTGRES_URL, schema=schema)
    try:
        started = time.perf_counter()
        await db.aping()  # creates the schema and migrates it
        await asyncio.to_thread(fill, db, args.sessions)
        print(f"{args.sessions} sessions stored in {time.perf_counter() - started:.1f} s")
        results = await measure(db, args.repeat, not args.no_plans)
        print(f"\n{'search':<12} {'rows':>5} {'query ms':>9} {'page ms':>8}")
        for r in results:
            print(f"{r['search']:<12} {r['rows']:>5} {r['query_ms']:>9.1f} {r['page_ms']:>8.1f}")
    finally:
        with db.connection() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            conn.commit()
        await db.aclose()


if __name__ == "__main__":
    asyncio.run(main())
