"""The chat layer's own Redis keys (de-duplication flags, Discord approvals) on a cluster URL."""

from __future__ import annotations

import pytest

from bots.adapters.discord.components import RedisApprovals
from bots.chat.approvals import Approval
from bots.ops.flags import RedisFlags
from core.db.redis.client import connect

pytestmark = pytest.mark.slow


async def test_flags_claim_once_on_a_cluster(redis_url: str, key_prefix: str) -> None:
    flags = RedisFlags.from_url(redis_url, prefix=key_prefix)
    try:
        assert await flags.claim("event:Ev1", ttl=60)
        assert not await flags.claim("event:Ev1", ttl=60)  # a redelivery is dropped
        await flags.mark("event:Ev2", ttl=60)
        assert await flags.has("event:Ev2") and not await flags.has("event:Ev3")
    finally:
        await flags.aclose()


async def test_discord_approvals_round_trip_on_a_cluster(redis_url: str, key_prefix: str) -> None:
    approvals = RedisApprovals(connect(redis_url), prefix=key_prefix)
    approval = Approval("taskboard", "discord:G1:C1", "run-1", "discord:G1:U1", ("call_1",))
    try:
        token = await approvals.put(approval)
        assert await approvals.get(token) == approval
    finally:
        await approvals.aclose()
