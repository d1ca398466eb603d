"""Retries of Bot Connector calls (bots.adapters.teams.send): which errors, how long."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from tenacity import RetryCallState
from yarl import URL

from bots.adapters.teams.send import MAX_WAIT, _wait, retried, retryable


def _error(status: int, headers: dict[str, str] | None = None) -> aiohttp.ClientResponseError:
    info = aiohttp.RequestInfo(
        URL("https://smba.example/v3"), "POST", {}, URL("https://smba.example/v3")
    )
    return aiohttp.ClientResponseError(info, (), status=status, headers=headers or {})


def test_429_and_5xx_are_retried_a_refusal_is_not() -> None:
    assert retryable(_error(429)) and retryable(_error(503)) and retryable(_error(500))
    assert not retryable(_error(403)) and not retryable(_error(400))
    assert not retryable(ValueError("bad activity"))


def _state(exc: BaseException, attempt: int) -> Any:
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(exc), exc, None))
    return state


def test_retry_after_is_honoured_and_capped() -> None:
    assert _wait(_state(_error(429, {"Retry-After": "2"}), 1)) == 2.0
    assert _wait(_state(_error(429, {"Retry-After": "3600"}), 1)) == MAX_WAIT
    assert _wait(_state(_error(503), 1)) == 0.25  # no header: a short backoff, doubling
    assert _wait(_state(_error(503), 3)) == 1.0


async def test_a_refusal_is_raised_at_once() -> None:
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        raise _error(403)

    with pytest.raises(aiohttp.ClientResponseError):
        await retried(call, budget=5.0)
    assert calls == 1


async def test_past_the_budget_the_last_error_is_raised() -> None:
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        raise _error(429, {"Retry-After": "0"})

    with pytest.raises(aiohttp.ClientResponseError) as raised:
        await retried(call, budget=0.05)
    assert raised.value.status == 429 and calls > 1
