"""The console's memories page: one user's memories, in the admin's scope, forget one."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from bots.web import create_app
from core.db.base import BaseDb
from core.db.records import UserMemory
from core.db.sqlite import SqliteDb
from tests.bots.web.test_http import config_for, signed_in_client

ANN = "slack:T1:UANN"
ELSEWHERE = "slack:T2:UZED"  # another workspace: outside slack:T1:UADMIN's scope


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[BaseDb]:
    store = SqliteDb(db_file=tmp_path / "m.db")
    await store.aadd_memory(UserMemory("m1", ANN, "Prefers <b>tea</b>.", created_at=1.0))
    await store.aadd_memory(UserMemory("m2", ANN, "Works on billing.", created_at=2.0))
    await store.aadd_memory(UserMemory("z1", ELSEWHERE, "Out of scope.", created_at=1.0))
    yield store
    await store.aclose()


async def test_lists_a_users_memories_and_forgets_one(tmp_path: Path, db: BaseDb) -> None:
    """The page lists the user's memories (escaped); Forget deletes one, logged."""
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        text = await (await client.get("/memories", params={"user": ANN})).text()
        assert "Prefers &lt;b&gt;tea&lt;/b&gt;." in text and "Works on billing." in text
        assert "Out of scope." not in text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', text)
        assert csrf is not None
        with capture_logs() as logs:
            response = await client.post(
                "/memories/forget",
                data={"user": ANN, "memory_id": "m1", "csrf_token": csrf[1]},
                allow_redirects=False,
            )
        assert response.status == 303
        assert [m.memory for m in await db.aget_memories(ANN)] == ["Works on billing."]
        done = [e for e in logs if e["event"] == "web_action"]
        assert done and done[0]["action"] == "forget-memory" and done[0]["deleted"] is True
    finally:
        await client.close()


async def test_a_user_outside_the_admins_scope_is_refused(tmp_path: Path, db: BaseDb) -> None:
    """Another workspace's user: 403 for the page and for Forget; nothing is deleted."""
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        page = await client.get("/memories", params={"user": ELSEWHERE})
        assert page.status == 403 and "Out of scope." not in await page.text()
        form = await (await client.get("/memories")).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert csrf is not None
        refused = await client.post(
            "/memories/forget",
            data={"user": ELSEWHERE, "memory_id": "z1", "csrf_token": csrf[1]},
            allow_redirects=False,
        )
        assert refused.status == 403
        assert [m.memory for m in await db.aget_memories(ELSEWHERE)] == ["Out of scope."]
    finally:
        await client.close()


async def test_a_session_page_links_its_last_users_memories(tmp_path: Path, db: BaseDb) -> None:
    """A session's page links to the memories of the user who saved it last."""
    from core.db.records import SessionMeta

    await db.asave(
        "slack:T1:C1", expected_version=0, changed={"n": "1"}, meta=SessionMeta(user_id=ANN)
    )
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(db, config), config)
    try:
        text = await (await client.get("/session", params={"id": "slack:T1:C1"})).text()
        assert "/memories?user=slack%3AT1%3AUANN" in text
    finally:
        await client.close()
