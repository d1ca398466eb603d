"""restore_version and delete_session with expected_version, on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import SessionNotFoundError, StaleVersionError
from core.governance.sessions import delete_session, restore_version
from core.testing import ScriptedModel

S = "slack:T1:C1:1700000000.000200"


def set_value(session_state: dict[str, Any], key: str, value: Any) -> str:
    """Set one key of the state."""
    session_state[key] = value
    return "ok"


async def _three_versions(db: BaseDb) -> None:
    agent = Agent(model=ScriptedModel([]), db=db, tools=[set_value], session_state={"x": 0})
    for value in (1, 2, 3):
        await agent.arun_tool("set_value", {"key": "x", "value": value}, session_id=S)


async def _snapshot(db: BaseDb) -> tuple[int, dict[str, Any], int]:
    record = await db.aload(S)
    assert record is not None
    return record.version, record.state, len(await db.ahistory(S, limit=100))


async def test_restore_with_a_stale_expected_version_changes_nothing(store: BaseDb) -> None:
    """A restore decided at v2 is refused once the session is at v3; nothing is written."""
    await _three_versions(store)
    before = await _snapshot(store)
    with pytest.raises(StaleVersionError, match="at version 3, not 2"):
        await restore_version(store, S, 1, actor="admin", expected_version=2)
    assert await _snapshot(store) == before
    assert await restore_version(store, S, 1, actor="admin", expected_version=3) == 4
    assert (await _snapshot(store))[1] == {"x": 1}


async def test_delete_with_a_stale_expected_version_deletes_nothing(store: BaseDb) -> None:
    """A delete decided at v2 is refused once the session is at v3; the session stays."""
    await _three_versions(store)
    before = await _snapshot(store)
    with pytest.raises(StaleVersionError, match="at version 3, not 2"):
        await delete_session(store, S, expected_version=2)
    assert await _snapshot(store) == before
    await delete_session(store, S, expected_version=3)
    assert await store.aload(S) is None


async def test_delete_of_a_missing_session_with_expected_version(store: BaseDb) -> None:
    """A session deleted meanwhile: SessionNotFoundError, as without expected_version."""
    with pytest.raises(SessionNotFoundError):
        await delete_session(store, S, expected_version=1)
