"""structlog, configured once: JSON lines in production, a readable console in a terminal.

``bind_event`` binds platform, session_id, user_id and event_id for the duration of
one event (structlog contextvars), so every line logged while handling it carries
them without passing them around. Secrets never reach a log line: settings hold them
as ``SecretStr``, and a processor masks any field whose name says it is a secret.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any, TextIO

import structlog

_SECRET_WORDS = ("token", "secret", "password", "api_key", "apikey", "authorization")
_configured = False


def mask_secrets(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Replace the value of any field named like a secret."""
    for key in list(event_dict):
        if any(word in key.lower() for word in _SECRET_WORDS):
            event_dict[key] = "***"
    return event_dict


def configure_logging(
    log_format: str = "console",
    *,
    level: str | int = "INFO",
    stream: TextIO | None = None,
    force: bool = False,
) -> None:
    """Set up structlog (and stdlib logging, which the SDKs use) once per process."""
    global _configured
    if _configured and not force:
        return
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        numeric = logging.INFO
    out = stream or sys.stderr
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            mask_secrets,
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(out),
        # no caching: structlog.testing.capture_logs must be able to swap processors
        cache_logger_on_first_use=False,
    )
    # SDK loggers (slack_bolt, discord, httpx) share the stream; a no-op if handlers exist
    logging.basicConfig(level=max(numeric, logging.INFO), stream=out)
    _configured = True


@contextmanager
def bind_event(
    *, platform: str, session_id: str | None, user_id: str | None, event_id: str | None
) -> Iterator[None]:
    """Bind the event's identifiers to every log line emitted inside the block."""
    with structlog.contextvars.bound_contextvars(
        platform=platform, session_id=session_id, user_id=user_id, event_id=event_id
    ):
        yield
