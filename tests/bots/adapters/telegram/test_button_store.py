"""Button values behind callback data: in Redis (any process reads them), or in memory."""

from __future__ import annotations

import redis.asyncio as aioredis

from bots.adapters.telegram.keyboards import CALLBACK, approval_keyboard
from bots.chat.approvals import Approval
from bots.chat.button_store import BUTTON_TTL, MemoryButtons, RedisButtons

APPROVAL = Approval("board", "telegram:7:-1001", "run-1", "telegram:7:111", ("call-1",))


async def test_a_value_put_by_one_process_is_read_by_another(
    redis_url: str, key_prefix: str
) -> None:
    """Two stores on one Redis: the digest one wrote, the other reads; with an expiry."""
    writer = RedisButtons(aioredis.Redis.from_url(redis_url), key_prefix, "button")
    reader = RedisButtons(aioredis.Redis.from_url(redis_url), key_prefix, "button")
    try:
        keyboard = await approval_keyboard(writer, APPROVAL)
        data = [b.callback_data for row in keyboard.inline_keyboard for b in row]
        assert all(isinstance(d, str) and len(d.encode()) <= 64 for d in data)  # Telegram's cap
        match = CALLBACK.fullmatch(str(data[0]))
        assert match is not None and match["kind"] == "y"
        stored = await reader.get(match["token"])
        assert stored is not None and Approval.decode(stored) == APPROVAL
        probe = aioredis.Redis.from_url(redis_url)
        try:
            assert 0 < await probe.ttl(f"{key_prefix}button:{match['token']}") <= BUTTON_TTL
        finally:
            await probe.aclose()
        assert await reader.get("0" * 32) is None
    finally:
        await writer.aclose()
        await reader.aclose()


async def test_memory_values_expire_on_the_clock() -> None:
    """Past BUTTON_TTL a memory value is gone (the button then says it expired)."""
    now = [0.0]
    store = MemoryButtons(clock=lambda: now[0])
    token = await store.put("value")
    assert await store.get(token) == "value"
    now[0] = BUTTON_TTL + 1
    assert await store.get(token) is None
