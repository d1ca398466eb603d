"""structlog, configured once: JSON lines in production, a readable console in a terminal.

``bind_event`` binds platform, session_id, user_id and event_id for the duration of
one event (structlog contextvars), so every line logged while handling it carries
them without passing them around.

Secrets and state never reach a log line. Settings hold secrets as ``SecretStr``, and
the ``redact_event`` processor, run on every event after exceptions are formatted:

* masks any field named like a credential (``core.redaction``, the same list as
  state dumps), at any depth of a dict or list;
* withholds fields that carry session state (``state``, ``session_state``, ``changed``,
  ``record``…) and stored records passed as values, leaving only their size;
* masks ``key=value`` credentials, ``Bearer …`` tokens and URL passwords inside text
  (the event message, errors, formatted tracebacks).
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any, TextIO

import structlog

from core.redaction import REDACTED, is_sensitive, redact_text

#: the human-readable renderer, used where no STATEBOT_LOG_FORMAT is set for a terminal
HUMAN_FORMAT = "console"
#: fields whose values are session state: logged as their size only
STATE_FIELDS = frozenset(
    {"state", "session_state", "changed", "delta", "values", "record", "records", "snapshot"}
)
_configured = False


def _withheld(value: Any) -> str:
    size = f"{len(value)} items" if isinstance(value, dict | list | tuple | set) else "value"
    return f"<state withheld: {size}>"


def _scrub(value: Any) -> Any:
    """``value`` with credentials masked and state withheld, at any depth."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _field(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(item) for item in value]
    if dataclasses.is_dataclass(value) and hasattr(value, "state"):
        # a stored record or history entry: who and which version, never the content
        name = type(value).__name__
        return f"<{name} {getattr(value, 'session_id', '?')} v{getattr(value, 'version', '?')}>"
    if isinstance(value, BaseException):
        return redact_text(f"{type(value).__name__}: {value}")
    return value


def _field(key: str, value: Any) -> Any:
    if key in STATE_FIELDS:
        return _withheld(value)
    if is_sensitive(key):
        return REDACTED
    return _scrub(value)


def redact_event(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Mask credentials and withhold state values in every field of one event."""
    for key, value in list(event_dict.items()):
        event_dict[key] = _field(key, value)
    return event_dict


class _CurrentStderr(logging.StreamHandler[TextIO]):
    """Writes to ``sys.stderr`` as it is at each line, not as it was at configuration
    (a caller that swaps stderr, such as click's test runner, gets the lines)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)

    def flush(self) -> None:
        self.stream = sys.stderr
        super().flush()


class _OwnOrAtLeast(logging.Filter):
    """Pass our own (structlog) lines at any level, SDK lines from ``level`` up."""

    __slots__ = ("level",)

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return isinstance(record.msg, dict) or record.levelno >= self.level


def configure_logging(
    log_format: str = HUMAN_FORMAT,
    *,
    level: str | int = "INFO",
    stream: TextIO | None = None,
    force: bool = False,
) -> None:
    """Set up structlog and stdlib logging (which the SDKs use) once per process.

    Every line, ours or a library's (slack_bolt, discord, aiohttp, alembic, httpx,
    openai…), goes through one root handler and one ``ProcessorFormatter``: the same
    keys (event, level, logger, timestamp, the event's bound ids), the same
    redaction, one JSON object per line in the ``json`` format. The root handlers are
    replaced, so no library line is ever printed in its own format.
    """
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
    # what both kinds of line get before they meet in the formatter
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.stdlib.LoggerFactory(),
        # no caching: structlog.testing.capture_logs must be able to swap processors
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact_event,  # after exceptions are text, so tracebacks are scrubbed too
            renderer,
        ],
    )
    handler = _CurrentStderr() if stream is None else logging.StreamHandler(out)
    handler.setFormatter(formatter)
    # SDK debug chatter (gateway heartbeats, HTTP wire logs) stays out below INFO
    handler.addFilter(_OwnOrAtLeast(max(numeric, logging.INFO)))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)
    logging.captureWarnings(True)
    _configured = True


@contextmanager
def logging_for_command(log_format: str, *, level: str | int = "INFO") -> Iterator[None]:
    """Logging configured (to stderr) for the duration of one command, then put back.

    Unconfigured, structlog prints to stdout; a command whose stdout is data (``statebot
    state export -``) would mix a log line of the store's start-up or close into it. A
    process that configured logging already keeps its configuration.
    """
    global _configured
    if _configured:
        yield
        return
    saved: Mapping[str, Any] = structlog.get_config()
    root = logging.getLogger()
    handlers, root_level = root.handlers[:], root.level
    configure_logging(log_format, level=level)
    try:
        yield
    finally:  # as it was: the next command (or test) in this process starts clean
        structlog.configure(**saved)
        root.handlers[:] = handlers
        root.setLevel(root_level)
        logging.captureWarnings(False)
        _configured = False


@contextmanager
def bind_event(
    *, platform: str, session_id: str | None, user_id: str | None, event_id: str | None
) -> Iterator[None]:
    """Bind the event's identifiers to every log line emitted inside the block.

    The block starts from an empty context, so nothing bound for an earlier event (or
    by a caller) leaks into this one, and the caller's context is restored after.
    """
    saved = structlog.contextvars.get_contextvars()
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(
        platform=platform, session_id=session_id, user_id=user_id, event_id=event_id
    )
    try:
        yield
    finally:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(**saved)
