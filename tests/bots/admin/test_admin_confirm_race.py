"""Two Confirm clicks on one restore question, handled by two bot processes at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from bots.chat.approvals import Decision
from core.db.in_memory import InMemoryDb
from core.db.records import Lease
from tests.bots.conftest import ServiceFactory, command

SESSION = "slack:T1:C1"
ADMIN = "U0ADMIN01"
ADMINS = {f"slack:T1:{ADMIN}"}


class GatedDb(InMemoryDb):
    """A store whose session lock, while gated, lets no one in until two callers asked.

    Two processes that both looked at the session before either took its lease: the
    interleaving a check made outside the lease cannot see.
    """

    def __init__(self) -> None:
        super().__init__()
        self.gated = False
        self.arrived = 0
        self.both = asyncio.Event()

    @contextlib.asynccontextmanager
    async def _gated(self, session_id: str, timeout: float | None) -> AsyncIterator[Lease]:
        self.arrived += 1
        if self.arrived >= 2:
            self.both.set()
        await self.both.wait()
        async with super().session_lock(session_id, timeout) as lease:
            yield lease

    def session_lock(
        self, session_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        if not self.gated:
            return super().session_lock(session_id, timeout)
        return self._gated(session_id, timeout)


@pytest.fixture
def db() -> GatedDb:
    """The store both services share (as two processes share Redis)."""
    return GatedDb()


async def test_two_processes_confirming_at_once_restore_once(
    make_service: ServiceFactory, db: GatedDb
) -> None:
    """Of two Confirm clicks in two services at once, one restores; the other says so."""
    asking = make_service(None, statebot_admin_ids=ADMINS)
    await asking.handle_command(command("taskboard", "add One"))
    await asking.handle_command(command("taskboard", "add Two"))
    asked = await asking.handle_command(command("state", "restore v1", user=ADMIN))
    assert asked.approval is not None
    first, second = (make_service(None, statebot_admin_ids=ADMINS) for _ in range(2))
    click = Decision("slack", "T1", ADMIN, True, asked.approval, event_id="click-1")
    db.gated = True
    replies = await asyncio.gather(first.handle_decision(click), second.handle_decision(click))
    db.gated = False
    texts = sorted(r.text for r in replies)
    assert sum(t.startswith("Restored") for t in texts) == 1, texts
    assert any(t.startswith("Already done") for t in texts), texts
    record = await db.aload(SESSION)
    assert record is not None and record.version == 3
    assert [t["title"] for t in record.state["tasks"]] == ["One"]
