"""Turn a run that failed into a short friendly reply, logged with its context.

Every reply says what happened to the user's message, and only what is known
(ARCHITECTURE invariant 3): applied in part (the runtime saves after each tool batch,
so what was done before a failure is kept), not applied (resend), or unknown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

from bots.chat.replies import Reply
from core.exceptions import (
    BudgetExceededError,
    InvalidIdError,
    LeaseGoneError,
    LockTimeoutError,
    ModelError,
    ModelTimeoutError,
    NoModelError,
    RedisDataLostError,
    RunError,
    RunTimeoutError,
    SessionBusyError,
    StaleVersionError,
    StateLimitError,
    StateValueError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
    ToolArgumentError,
    ToolCallLimitError,
    UnknownToolError,
)

log = structlog.get_logger("bots.errors")

NO_MODEL = (
    "No model is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for an "
    "OpenAI-compatible server). Commands that work offline: {commands}"
)
MODEL_FAILED = (
    "Sorry, the model {what}, so I could not finish. Changes made before that are "
    "saved; the rest of your request was not done. Please try again in a moment."
)
TOOL_LOOP = (
    "Sorry, the model kept calling tools without finishing, so I stopped it after "
    "{limit} rounds. Changes made before I stopped are saved; the rest was not done."
)
RUN_TIMEOUT_PARTIAL = (
    "Sorry, that took longer than {seconds:g} s, so I stopped it. Changes saved before "
    "the timeout are kept; the step in progress was not applied. Check the result "
    "before resending."
)
RUN_TIMEOUT_NOTHING = (
    "Sorry, that took longer than {seconds:g} s, so I stopped it; nothing was changed. "
    "Please try again."
)
QUEUE_TIMEOUT = (
    "Your message waited its turn behind earlier requests in this conversation for "
    "longer than I wait, so nothing was run. Please send it again."
)
QUEUE_FULL = (
    "Too many requests are already waiting in this conversation, so yours was not "
    "queued and nothing was run. Please send it again in a moment."
)
STORE_DOWN = "Storage is unavailable right now, so nothing was changed. Please try again shortly."
STORE_FULL = (
    "Redis is out of memory: nothing was written from the step that hit it, so your "
    "message was not applied (any step saved before it is kept). Please try again later."
)
LEASE_EXPIRED = (
    "Your message was not applied: its hold on this conversation expired before it could "
    "save, and nothing was written. Please resend it."
)
STORE_LIMIT = "That would make this conversation's state too large ({detail}); nothing was changed."
STORE_STALE = (
    "Your message was not applied: another change to this conversation was saved first. "
    "Please resend it."
)
STORE_LOST = (
    "Your message was not applied: Redis lost its data (it restarted or was flushed) "
    "while your message was handled, so nothing from this message was saved. Please "
    "resend it."
)
STORE_OTHER = (
    "A storage error stopped this request, so it may not have been applied. Please check "
    "before resending. It has been logged."
)
RUN_REFUSED = "I could not finish that: {detail}. Nothing from the failed step was saved."
UNEXPECTED = (
    "Something went wrong on my side; your request may or may not have been applied, "
    "so please check before resending. It has been logged."
)


async def guarded(
    run: Callable[[], Awaitable[Reply]],
    *,
    agent_id: str,
    offline_commands: str,
    usage: Callable[[], str] = lambda: "",
) -> Reply:
    """``await run()``, with every known failure turned into a friendly reply."""
    try:
        return await run()
    except NoModelError:
        log.info("no_model_configured", agent=agent_id)
        return Reply(NO_MODEL.format(commands=offline_commands))
    except ToolCallLimitError as exc:
        log.warning("tool_call_limit", agent=agent_id, limit=exc.limit)
        return Reply(TOOL_LOOP.format(limit=exc.limit))
    except ModelError as exc:
        log.error("model_failed", agent=agent_id, error=repr(exc))
        what = "timed out" if isinstance(exc, ModelTimeoutError) else "did not answer"
        return Reply(MODEL_FAILED.format(what=what))
    except RunTimeoutError as exc:
        log.warning("run_timed_out", agent=agent_id, timeout=exc.timeout, saved=exc.saved)
        template = RUN_TIMEOUT_PARTIAL if exc.saved else RUN_TIMEOUT_NOTHING
        return Reply(template.format(seconds=exc.timeout))
    except (UnknownToolError, ToolArgumentError) as exc:
        log.info("bad_command", agent=agent_id, error=str(exc))
        hint = usage()
        return Reply(f"{exc}" + (f"\n{hint}" if hint else "") + "\nNothing was changed.", True)
    except BudgetExceededError as exc:  # says which budget, used/limit, when it resets
        log.info(
            "budget_exceeded",
            agent=agent_id,
            scope=exc.scope,
            what=exc.what,
            used=exc.used,
            limit=exc.limit,
        )
        return Reply(str(exc), True)
    except StateValueError as exc:  # a step's state that is not JSON or does not fit the schema
        log.warning("state_refused", agent=agent_id, error=str(exc))
        return Reply(RUN_REFUSED.format(detail=str(exc).rstrip(".")))
    except RunError as exc:
        # the runtime's own errors (a Parallel conflict, a bad Router choice) say
        # exactly what went wrong; the run persisted nothing from the failed step
        log.warning("run_refused", agent=agent_id, error=str(exc))
        return Reply(RUN_REFUSED.format(detail=exc))
    except StoreError as exc:
        return _store_reply(exc, agent_id)
    except Exception as exc:  # a chat bot must answer, whatever broke underneath
        log.exception("unexpected_error", agent=agent_id, error=repr(exc))
        return Reply(UNEXPECTED)


def _store_reply(exc: StoreError, agent_id: str) -> Reply:
    log.error("store_failed", agent=agent_id, error=repr(exc))
    if isinstance(exc, SessionBusyError):  # refused at once: the queue is full
        return Reply(QUEUE_FULL)
    if isinstance(exc, LockTimeoutError):  # raised by the lease wait, before the run
        return Reply(QUEUE_TIMEOUT)
    if isinstance(exc, StoreFullError) or (isinstance(exc, LeaseGoneError) and exc.evicted):
        return Reply(STORE_FULL)  # a lease evicted by a full Redis: the same cause
    if isinstance(exc, StoreUnavailableError):
        return Reply(STORE_DOWN)
    if isinstance(exc, InvalidIdError):  # refused before any store saw it
        return Reply(str(exc))
    if isinstance(exc, StateLimitError):
        return Reply(STORE_LIMIT.format(detail=exc))
    if isinstance(exc, RedisDataLostError):  # refused, but not because of another change
        return Reply(STORE_LOST)
    if isinstance(exc, LeaseGoneError):
        return Reply(LEASE_EXPIRED)
    if isinstance(exc, StaleVersionError):  # also LeaseLostError: the save was refused
        return Reply(STORE_STALE)
    return Reply(STORE_OTHER)
