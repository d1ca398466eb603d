"""Agno-compatible logging helpers on top of structlog."""

from __future__ import annotations

import structlog

logger = structlog.get_logger("core")


def log_debug(msg: str, **kw: object) -> None:
    """Log at debug level."""
    logger.debug(msg, **kw)


def log_info(msg: str, **kw: object) -> None:
    """Log at info level."""
    logger.info(msg, **kw)


def log_warning(msg: str, **kw: object) -> None:
    """Log at warning level."""
    logger.warning(msg, **kw)


def log_error(msg: str, **kw: object) -> None:
    """Log at error level."""
    logger.error(msg, **kw)
