"""Turn a run that failed into a short friendly reply, logged with its context.

State already saved stays saved (the runtime persists after each tool batch), so
every reply can promise that nothing was lost.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

from bots.replies import Reply
from core.db.base import LockTimeoutError, StateLimitError, StoreError, StoreUnavailableError
from core.exceptions import (
    NoModelError,
    RunError,
    ToolArgumentError,
    ToolCallLimitError,
    UnknownToolError,
)
from core.models.base import ModelError, ModelTimeoutError

log = structlog.get_logger("bots.errors")

NO_MODEL = (
    "No model is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for an "
    "OpenAI-compatible server). Commands that work offline: {commands}"
)
MODEL_FAILED = (
    "Sorry, the model {what}, so I could not finish. Nothing was lost: changes made "
    "so far are saved. Please try again in a moment."
)
TOOL_LOOP = (
    "Sorry, the model kept calling tools without finishing, so I stopped it after "
    "{limit} rounds. Nothing was lost: changes made so far are saved."
)
STORE_BUSY = "This conversation is busy with another request. Please try again in a moment."
STORE_DOWN = "Storage is unavailable right now, so nothing was changed. Please try again shortly."
STORE_LIMIT = "That would make this conversation's state too large ({detail}); nothing was changed."
STORE_OTHER = "A storage error stopped this request; nothing was lost. It has been logged."
RUN_REFUSED = "I could not finish that: {detail}. Nothing from the failed step was saved."
UNEXPECTED = "Something went wrong on my side; nothing was lost. It has been logged."


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
    except (UnknownToolError, ToolArgumentError) as exc:
        log.info("bad_command", agent=agent_id, error=str(exc))
        hint = usage()
        return Reply(f"{exc}" + (f"\n{hint}" if hint else "") + "\nNothing was changed.", True)
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
    if isinstance(exc, LockTimeoutError):
        return Reply(STORE_BUSY)
    if isinstance(exc, StoreUnavailableError):
        return Reply(STORE_DOWN)
    if isinstance(exc, StateLimitError):
        return Reply(STORE_LIMIT.format(detail=exc))
    return Reply(STORE_OTHER)
