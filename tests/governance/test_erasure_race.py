"""erase_user when another user's run lands between classifying a session and deleting it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.db.base import BaseDb
from core.db.records import Lease
from core.governance.erasure import erase_user
from core.run.history import SessionData
from tests.db.erasure_fixtures import (
    ANA,
    BOB,
    OWN,
    deployment,
    deployment_kind,
    fill,
    save_run,
    traces,
)

__all__ = ["deployment", "deployment_kind"]  # the fixtures, for pytest


def land_run_before_lock(
    monkeypatch: pytest.MonkeyPatch, db: BaseDb, session_id: str, runs: int
) -> list[int]:
    """Make Bob's run save in ``session_id`` right before each of the next ``runs`` times
    someone asks for its lease (the erasure's delete: after it classified the session)."""
    original = db.session_lock
    landed: list[int] = []
    landing: list[bool] = []  # Bob's own save, under way: it takes the lease as usual

    @contextlib.asynccontextmanager
    async def lock_after_a_run(sid: str, timeout: float | None = None) -> AsyncIterator[Lease]:
        landing.append(True)
        try:
            state = {"me": ANA, "bob": f"hi {len(landed)}"}
            landed.append(await save_run(db, sid, BOB, state, f"b{len(landed)}"))
        finally:
            landing.clear()
        async with original(sid, timeout) as lease:
            yield lease

    def session_lock(sid: str, timeout: float | None = None) -> Any:
        if sid != session_id or landing or len(landed) >= runs:
            return original(sid, timeout)
        return lock_after_a_run(sid, timeout)

    monkeypatch.setattr(db, "session_lock", session_lock)
    return landed


async def test_a_run_landing_before_the_delete_makes_the_session_shared(
    deployment: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's run lands in Ana's DM after it was classified as hers: it is scrubbed, not deleted."""
    await fill(deployment)
    landed = land_run_before_lock(monkeypatch, deployment, OWN, runs=1)

    report = await erase_user(deployment, ANA, pseudonym="erased-user-x")

    assert landed and report.complete, report.errors
    assert OWN in report.sessions_scrubbed and OWN not in report.sessions_deleted
    record = await deployment.aload(OWN)
    assert record is not None
    assert record.state == {"me": "erased-user-x", "bob": "hi 0"}
    assert [r.user_id for r in SessionData.decode(record.data).runs] == [BOB]
    assert await traces(deployment, ANA) == []


async def test_runs_that_keep_landing_leave_the_session_reported(
    deployment: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session raced at every try is left whole and named in errors (re-run is safe)."""
    await fill(deployment)
    landed = land_run_before_lock(monkeypatch, deployment, OWN, runs=99)

    # every run looks like hers, so each try classifies the DM as her own again
    monkeypatch.setattr("core.governance.erasure.participants", lambda record, history: {ANA})
    report = await erase_user(deployment, ANA, pseudonym="erased-user-x")

    # three tries in the first pass, three more in the final scan, which finds it again
    assert len(landed) == 6 and OWN in report.errors and "StaleVersionError" in report.errors[OWN]
    assert OWN not in report.sessions_deleted
    assert await deployment.aload(OWN) is not None
