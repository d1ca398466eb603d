"""Replies to failed runs say what actually happened to the user's message."""

from __future__ import annotations

import pytest

from bots.chat.errors import guarded
from bots.chat.replies import Reply
from core.db.redis import LeaseLostError
from core.exceptions import (
    BudgetExceededError,
    LockTimeoutError,
    RunTimeoutError,
    SessionBusyError,
    StaleVersionError,
    StateSchemaError,
    StoreError,
    ToolCallLimitError,
)
from core.models.base import ModelError, ModelTimeoutError


async def reply_to(error: BaseException) -> str:
    """The reply ``guarded`` gives when a run raises ``error``."""

    async def run() -> Reply:
        raise error

    return (await guarded(run, agent_id="a", offline_commands="/a x")).text


@pytest.mark.parametrize(
    "error",
    [StaleVersionError("s", 1, 2), LeaseLostError("s", 3)],
)
async def test_refused_save_says_not_applied_resend(error: StoreError) -> None:
    """A save the store refused: the message was not applied, please resend."""
    text = await reply_to(error)
    assert "not applied" in text and "resend" in text
    assert "nothing was lost" not in text.lower()


async def test_run_timeout_with_saved_changes_says_so() -> None:
    """A run stopped at its deadline after saving: says it timed out and what was kept."""
    text = await reply_to(RunTimeoutError(30.0, saved=True))
    assert "took longer than 30 s" in text
    assert "saved before the timeout are kept" in text and "not applied" in text


async def test_run_timeout_without_saved_changes_says_nothing_changed() -> None:
    """A run stopped at its deadline before any save: nothing was changed, try again."""
    text = await reply_to(RunTimeoutError(5.0, saved=False))
    assert "took longer than 5 s" in text and "nothing was changed" in text
    assert "kept" not in text


@pytest.mark.parametrize("error", [SessionBusyError("s", 100), LockTimeoutError("waited too long")])
async def test_busy_session_says_nothing_was_run(error: StoreError) -> None:
    """Too many waiters, or waited too long: said plainly that nothing was run, send again."""
    text = await reply_to(error)
    assert "nothing was run" in text and "send it again" in text


@pytest.mark.parametrize(
    "error",
    [
        ModelError("503"),
        ModelTimeoutError("slow"),
        ToolCallLimitError(3),
        StoreError("odd"),
        RuntimeError("kaboom"),
    ],
)
async def test_no_reply_claims_nothing_was_lost(error: BaseException) -> None:
    """No reply promises "nothing was lost": a failed request was never fully applied."""
    assert "nothing was lost" not in (await reply_to(error)).lower()


async def test_unexpected_error_says_outcome_unknown() -> None:
    """An unexpected failure does not claim an outcome it cannot know."""
    text = await reply_to(RuntimeError("kaboom"))
    assert "may or may not have been applied" in text and "kaboom" not in text


async def test_budget_refusal_is_its_own_clear_sentence() -> None:
    """A used-up budget is answered with the budget's own message, said once, ephemerally."""
    error = BudgetExceededError(
        scope="user",
        scope_id="slack:T1:U1",
        what="tokens",
        used=10_240,
        limit=10_000,
        resets_at="2026-11-24T00:00:00+00:00",
        resets_in=3 * 3600 + 12 * 60,
    )

    async def run() -> Reply:
        raise error

    reply = await guarded(run, agent_id="a", offline_commands="/a x")
    assert reply.text == str(error)
    assert "10,240 of 10,000 tokens" in reply.text and reply.text.count("Nothing was run") == 1
    assert "could not finish" not in reply.text and reply.ephemeral


async def test_state_that_does_not_fit_the_schema_is_refused_truthfully() -> None:
    """A workflow step's state that breaks the schema: refused, the failed step not saved."""
    error = StateSchemaError(
        "Counter", [("session_state['visits']", "Input should be int")], "visits"
    )
    text = await reply_to(error)
    assert "does not fit the schema Counter" in text and "visits" in text
    assert "Nothing from the failed step was saved" in text and "went wrong" not in text
